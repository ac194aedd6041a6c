"""The regions table ``aws_regions.json``, from the AWS data botocore, moto and cfn-lint ship.

Written by ``python -m trainstack.catalog.generate`` together with ``ec2_instance_types.json``
(one command, one date). What comes from where:

* botocore's ``data/endpoints.json``, partition ``aws``: the regions and their names. trainstack
  writes ``arn:aws:`` ARNs (``hyperpod/iam.py``, the managed policies it attaches), so the other
  partitions (China, GovCloud, ISO) are not regions a stack can use.
* moto's ``ec2/resources/instance_type_offerings/availability-zone/<region>.json.gz``:
  EC2 ``DescribeInstanceTypeOfferings --location-type availability-zone``, one recorded answer per
  region; the zone names it holds are the region's zones. A region botocore lists and moto has no
  answer for has ``zones: null`` (its zones and offerings are unknown, never guessed).
* AWS's list of the Regions that map zone names to zones independently per account ("Regions with
  independently mapped Availability Zones", https://docs.aws.amazon.com/global-infrastructure/latest/
  regions/az-ids.html#independently-mapped-azs, read 2026-11-25): there ``us-east-1a`` is not the
  same zone in two accounts, and an account may see other letters than the recorded answer (older
  accounts in us-west-1 have ``us-west-1c``), so the zone names in the data are one account's and
  decide nothing there. No package ships this list; it is kept here, with that page as its source.
* cfn-lint's SageMaker cluster instance types per region (``data/schemas/extensions/
  aws_sagemaker_cluster/instancetype_enum.json``, which cfn-lint gathers from the AWS pricing API for
  its rule E3644): a region with HyperPod instance types there offers SageMaker HyperPod, and the
  ``ml.`` types each region offers are recorded per instance type (``hyperpod_regions``).
"""

from __future__ import annotations

import gzip
import json
from importlib import metadata, resources
from typing import Any

PARTITION = "aws"
INDEPENDENTLY_MAPPED = frozenset({
    "us-east-1", "us-west-1", "us-west-2", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "eu-west-1",
    "sa-east-1",
    # AWS GovCloud (US-West) is on AWS's list too; it is outside the aws partition this table holds.
})


def _botocore_regions() -> dict[str, str]:
    """Region -> its name (``US East (N. Virginia)``), from botocore's endpoint data."""
    import botocore

    path = resources.files(botocore).joinpath("data", "endpoints.json")
    partition = next(p for p in json.loads(path.read_text())["partitions"] if p["partition"] == PARTITION)
    return {name: region["description"] for name, region in partition["regions"].items()}


def _zones(region: str) -> list[str] | None:
    """The zone names moto's recorded ``DescribeInstanceTypeOfferings`` answer for ``region`` holds."""
    entry = resources.files("moto.ec2").joinpath("resources", "instance_type_offerings", "availability-zone",
                                                 f"{region}.json.gz")
    if not entry.is_file():
        return None
    with entry.open("rb") as raw, gzip.open(raw, "rt") as text:
        return sorted({offering["Location"] for offering in json.load(text)})


def hyperpod_offerings() -> dict[str, list[str]]:
    """Region -> the ``ml.`` types SageMaker HyperPod offers there (cfn-lint's per-region enum)."""
    path = resources.files("cfnlint").joinpath("data", "schemas", "extensions", "aws_sagemaker_cluster",
                                               "instancetype_enum.json")
    document = json.loads(path.read_text())
    return {region: list(entry["enum"]) for region, entry in document.items() if isinstance(entry, dict)}


def build_regions(generated_on: str) -> dict[str, Any]:
    """The document ``aws_regions.json`` holds, from the installed botocore, moto and cfn-lint."""
    hyperpod = {region for region, types in hyperpod_offerings().items() if types}
    return {
        "generated_by": "python -m trainstack.catalog.generate",
        "generated_on": generated_on,
        "sources": {
            "botocore": metadata.version("botocore"),
            "moto": metadata.version("moto"),
            "cfn-lint": metadata.version("cfn-lint"),
            "regions": f"botocore data/endpoints.json, partition {PARTITION}",
            "zones": "moto ec2/resources/instance_type_offerings/availability-zone (EC2 "
                     "DescribeInstanceTypeOfferings by availability zone)",
            "zone_names_per_account": "https://docs.aws.amazon.com/global-infrastructure/latest/regions/"
                                      "az-ids.html#independently-mapped-azs",
            "hyperpod": "cfn-lint data/schemas/extensions/aws_sagemaker_cluster/instancetype_enum.json "
                        "(SageMaker cluster instance types per region, from the AWS pricing API)",
        },
        "regions": {name: {"description": description, "zones": _zones(name),
                           "zone_names_per_account": name in INDEPENDENTLY_MAPPED, "hyperpod": name in hyperpod}
                    for name, description in sorted(_botocore_regions().items())},
    }
