"""Data safety, cost and tagging rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import catalog
from .model import Resource, Rule, Stack, Violation, default_tags
from .security import BUCKET, FSX_LUSTRE
from .training import NODE_GROUP, _accelerated

VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
CHECKPOINT_TAG = ("trainstack:purpose", "checkpoints")


def _checkpoint_buckets(stack: Stack) -> list[Resource]:
    key, value = CHECKPOINT_TAG
    return [b for b in stack.of_type(BUCKET) if (b.props.get("tags") or {}).get(key) == value]


def storage_protected_in_production(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    if stack.profile(config) != "production":
        return
    for resource in stack.of_type(FSX_LUSTRE) + _checkpoint_buckets(stack):
        if not resource.protect:
            yield Violation(resource.urn, f"{resource.name} holds training data but is not protected in a "
                                          "production stack; Pulumi would delete or replace it.")


def checkpoint_bucket_versioning(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for bucket in _checkpoint_buckets(stack):
        versioning = stack.referencing(bucket, "bucket", VERSIONING)
        if not any((v.props.get("versioningConfiguration") or {}).get("status") == "Enabled" for v in versioning):
            yield Violation(bucket.urn, f"checkpoint bucket {bucket.name} is not versioned; an overwritten "
                                        "checkpoint could not be recovered.")


def hourly_cost_ceiling(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    ceiling = config.get("maxHourlyUsd")
    if not ceiling:
        return
    total, lines = 0.0, []
    for group in stack.of_type(NODE_GROUP):
        region = (group.provider or {}).get("region")
        types = group.props.get("instanceTypes") or []
        size = (group.props.get("scalingConfig") or {}).get("maxSize") or 0
        instance = catalog.find(types[0]) if types else None
        price = instance.price(region) if instance and region else None
        if price is None:
            yield Violation(group.urn, f"no published on-demand price for {types[0] if types else '?'} in {region}; "
                                       f"spend at max size cannot be held under ${ceiling}/h.")
            return
        total += size * price.usd_per_hour
        lines.append(f"{group.name} {size} x {types[0]} ${price.usd_per_hour}")
    if total > ceiling:
        yield Violation(None, f"node groups at max size cost ${total:,.2f}/h on demand ({'; '.join(lines)}), above "
                              f"the ceiling of ${ceiling}/h.")


def dev_groups_scale_to_zero(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    if stack.profile(config) != "dev":
        return
    for group in stack.of_type(NODE_GROUP):
        minimum = (group.props.get("scalingConfig") or {}).get("minSize")
        if _accelerated(group) and minimum not in (0, None):
            yield Violation(group.urn, f"accelerated node group {group.name} keeps {minimum} nodes running in a "
                                       "dev stack; set minSize 0.")


def required_tags(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    wanted = config.get("requiredTags") or []
    for provider in stack.providers():
        missing = [t for t in wanted if t not in default_tags(provider)]
        if missing:
            yield Violation(None, f"the AWS provider for {provider.get('region')} does not tag resources with "
                                  f"{missing}; add them to the stack's tags.")


RULES = [
    Rule("storage-protected-in-production", "FSx and checkpoint buckets are protected in production stacks.",
         "mandatory", storage_protected_in_production, area="data safety",
         source="trainstack's stance: Pulumi deletes or replaces unprotected resources on destroy or on "
         "replacing changes"),
    Rule("checkpoint-bucket-versioning", "Checkpoint buckets are versioned.", "mandatory",
         checkpoint_bucket_versioning, area="data safety",
         source="Amazon S3 User Guide, Retaining multiple versions of objects with S3 Versioning (only "
         "versioning recovers an overwritten object)"),
    Rule("hourly-cost-ceiling", "On-demand spend of the node groups at max size stays under a ceiling.",
         "mandatory", hourly_cost_ceiling, area="cost",
         config={"maxHourlyUsd": {"type": "number"}},
         source="the catalog's on-demand prices (AWS Price List, dated per entry); a type without a price "
                "cannot be held under a ceiling"),
    Rule("dev-groups-scale-to-zero", "Accelerated groups in dev stacks scale to zero.", "mandatory",
         dev_groups_scale_to_zero, area="cost",
         source="trainstack's stance for dev stacks: EC2 bills running instances per second"),
    Rule("required-tags", "Every AWS resource carries the required tags.", "mandatory", required_tags,
         area="tagging", config={"requiredTags": {"type": "array", "items": {"type": "string"}, "default": []}},
         source="a team's stance (the tag keys it names); provider default tags reach every taggable resource"),
]
