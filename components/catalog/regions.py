"""AWS regions and their availability zones: the one table a region or a zone is checked against.

The table is ``aws_regions.json``, generated with the instance types (``python -m
trainstack.catalog.generate``; :mod:`.generate_regions` says where each fact comes from) and
dated by its ``generated_on``. What it cannot know stays unknown: a region the EC2 offering
data does not cover has no zones here, and in the regions where AWS maps zone names to zones
per account, the zone names of the data are one account's, so nothing is decided by them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Optional

_DOCUMENT: dict[str, Any] = json.loads(Path(__file__).with_name("aws_regions.json").read_text())
AS_OF = date.fromisoformat(_DOCUMENT["generated_on"])
"""The day the table (and the instance types' offerings beside it) was generated."""
SOURCE = (f"botocore {_DOCUMENT['sources']['botocore']} endpoint data and moto {_DOCUMENT['sources']['moto']} "
          f"EC2 offerings, generated {AS_OF.isoformat()}")
"""What the table says its regions, zones and offerings come from, for error messages."""


@dataclass(frozen=True)
class Region:
    name: str
    description: str
    """AWS's name for it, ``US East (N. Virginia)``."""
    zones: Optional[tuple[str, ...]]
    """The zone names EC2's offering data holds for the region; ``None`` where the data has none."""
    zone_names_per_account: bool
    """AWS maps zone names to zones independently per account here, so ``zones`` are one account's."""
    hyperpod: bool
    """SageMaker HyperPod offers instance types here (cfn-lint's per-region list, from the AWS pricing API)."""

    @property
    def known_zones(self) -> Optional[tuple[str, ...]]:
        """The zone names every account has here, or ``None`` where the data cannot say (no data, or names
        mapped per account): only these may refuse a zone or say what a zone offers."""
        return None if self.zone_names_per_account else self.zones


REGIONS: dict[str, Region] = {
    name: Region(name, facts["description"], tuple(facts["zones"]) if facts["zones"] is not None else None,
                 facts["zone_names_per_account"], facts["hyperpod"])
    for name, facts in _DOCUMENT["regions"].items()
}

HYPERPOD_REGIONS: tuple[str, ...] = tuple(name for name, region in REGIONS.items() if region.hyperpod)
"""The regions where SageMaker HyperPod offers instance types."""
HYPERPOD_SOURCE = (f"SageMaker HyperPod instance types per region, cfn-lint {_DOCUMENT['sources']['cfn-lint']} "
                   f"from the AWS pricing API, generated {AS_OF.isoformat()}")


class UnknownRegionError(KeyError):
    """A region name the table does not hold; the message lists the ones it does."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"'{self.name}' is not an AWS region ({SOURCE}); use one of {', '.join(REGIONS)}"


def names() -> list[str]:
    return list(REGIONS)


def find(name: str) -> Optional[Region]:
    return REGIONS.get(name)


def get(name: str) -> Region:
    """The region ``name``; raises :class:`UnknownRegionError`."""
    region = REGIONS.get(name)
    if region is None:
        raise UnknownRegionError(name)
    return region
