"""`trainstack prices refresh`: the on-demand prices the catalog needs for one region, fetched from the AWS
Price List Query API with the user's credentials and written as a dated snapshot.

The Price List Query API (boto3 ``pricing`` client, ``GetProducts``; endpoints in us-east-1, eu-central-1
and ap-south-1 only: docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-price-list-query-api.html)
answers with ``PriceList``: one JSON document per product, its ``product.attributes`` (instanceType,
regionCode, operatingSystem, tenancy, preInstalledSw, capacitystatus) and its ``terms.OnDemand`` offer
terms, each with ``priceDimensions`` whose ``pricePerUnit.USD`` is the hourly rate
(docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-an-offer.html). The snapshot keeps, per
instance type, the shared-tenancy Linux rate with no pre-installed software for instances that run
(``capacitystatus`` Used: the rate an instance, or a reservation holding one, is billed at).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Optional

PRICING_ENDPOINT_REGION = "us-east-1"
SOURCE = "AWS Price List Query API (pricing:GetProducts, AmazonEC2)"

_FILTERS = {"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}


def on_demand_filters(region: str, instance_type: str) -> list[dict[str, str]]:
    """The GetProducts filters of one type's on-demand Linux rate in ``region``."""
    return [{"Type": "TERM_MATCH", "Field": field, "Value": value}
            for field, value in (("regionCode", region), ("instanceType", instance_type), *_FILTERS.items())]


def hourly_rate(price_list_item: str) -> Optional[float]:
    """The USD-per-hour rate of one PriceList document's on-demand term; None where it has none."""
    document = json.loads(price_list_item)
    for term in (document.get("terms") or {}).get("OnDemand", {}).values():
        for dimension in (term.get("priceDimensions") or {}).values():
            if dimension.get("unit") in ("Hrs", "Hours"):
                usd = (dimension.get("pricePerUnit") or {}).get("USD")
                return float(usd) if usd is not None else None
    return None


def fetch(client: Any, region: str, instance_types: Iterable[str]) -> dict[str, Optional[float]]:
    """Each type's on-demand rate in ``region`` (None where the Price List has none), read page by page."""
    rates: dict[str, Optional[float]] = {}
    for name in sorted(set(instance_types)):
        found: Optional[float] = None
        token: Optional[str] = None
        while True:
            kwargs: dict[str, Any] = {"ServiceCode": "AmazonEC2", "Filters": on_demand_filters(region, name),
                                      "FormatVersion": "aws_v1", "MaxResults": 100}
            if token:
                kwargs["NextToken"] = token
            page = client.get_products(**kwargs)
            for item in page.get("PriceList") or []:
                rate = hourly_rate(item)
                if rate:  # a zero rate is a placeholder product, not a price
                    found = rate
            token = page.get("NextToken")
            if not token:
                break
        rates[name] = found
    return rates


def snapshot(region: str, rates: dict[str, Optional[float]], fetched_at: datetime) -> dict[str, Any]:
    """The snapshot document: every figure with its region, date and source."""
    return {"region": region, "fetchedAt": fetched_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "source": SOURCE, "filters": _FILTERS,
            "usdPerHour": {name: rates[name] for name in sorted(rates)}}


def refresh(region: str, out: Path, client: Optional[Any] = None, instance_types: Optional[Iterable[str]] = None,
            now: Optional[datetime] = None) -> dict[str, Any]:
    """Fetch the catalog's types' rates for ``region`` and write the snapshot to ``out``; returns it."""
    from .. import catalog

    if client is None:
        import boto3  # the user's credentials, as the AWS CLI finds them

        client = boto3.client("pricing", region_name=PRICING_ENDPOINT_REGION)
    names = list(instance_types) if instance_types is not None else catalog.names()
    document = snapshot(region, fetch(client, region, names), now or datetime.now(UTC))
    out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    return document
