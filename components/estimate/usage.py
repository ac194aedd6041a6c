"""Usage-based charges from the stack's ``usage`` section (config/usage.py): what a month of the expected use
costs, each line with its rate and source, shown apart from the provisioned resources' hourly totals. A use
with no dated rate is listed without a price, and without a usage section the estimate says it has none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .prices import (
    FSX_DATA_REPOSITORY_UNPRICED,
    NAT_DATA_PROCESSING,
    S3_REQUESTS_UNPRICED,
    S3_STANDARD_STORAGE,
    ServicePrice,
    in_region,
)

NOT_ESTIMATED = ("usage-based charges (NAT data processing, S3 checkpoint storage and requests, FSx data repository "
                 "traffic): not estimated; give the stack a usage section to count them")


@dataclass(frozen=True)
class UsageLine:
    item: str
    quantity: float
    unit: str
    usd_per_unit: Optional[float]
    source: str

    @property
    def monthly(self) -> Optional[float]:
        return None if self.usd_per_unit is None else self.quantity * self.usd_per_unit

    def as_dict(self) -> dict[str, Any]:
        monthly = self.monthly
        return {"item": self.item, "quantity": self.quantity, "unit": self.unit, "usdPerUnit": self.usd_per_unit,
                "monthlyUsd": None if monthly is None else round(monthly, 2), "source": self.source}


def usage_lines(usage: Optional[Mapping[str, Any]], region: str) -> Optional[list[UsageLine]]:
    """The month's usage lines of ``usage`` (the section as the stack file writes it); None without one."""
    if usage is None:
        return None
    lines = []

    def priced(item: str, quantity: float, unit: str, price: ServicePrice) -> UsageLine:
        regional = in_region(price, region)
        return UsageLine(item, quantity, unit, regional.usd if regional else None,
                         f"{regional.source}, {regional.valid_on}" if regional
                         else f"no published price for {item} in {region}")

    if usage.get("natDataProcessedGb") is not None:
        lines.append(priced("NAT data processing", usage["natDataProcessedGb"], "GB", NAT_DATA_PROCESSING))
    if usage.get("checkpointStorageGb") is not None:
        lines.append(priced("S3 checkpoint storage (Standard)", usage["checkpointStorageGb"], "GB-month",
                            S3_STANDARD_STORAGE))
    requests = usage.get("s3Requests")
    if requests is not None:
        for kind in ("put", "get"):
            lines.append(UsageLine(f"S3 {kind.upper()} requests", requests.get(kind, 0), "requests", None,
                                   S3_REQUESTS_UNPRICED))
    if usage.get("fsxDataRepositoryGb") is not None:
        lines.append(UsageLine("FSx data repository traffic", usage["fsxDataRepositoryGb"], "GB", None,
                               FSX_DATA_REPOSITORY_UNPRICED))
    return lines
