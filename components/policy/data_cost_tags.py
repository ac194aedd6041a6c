"""Data safety, cost and tagging rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..estimate import estimate_resources
from ..estimate.cost import stack_region
from ..names import BUCKET, BUCKET_VERSIONING, LUSTRE_FILE_SYSTEM, NODE_GROUP, PURPOSE_TAG
from .model import Resource, Rule, Stack, Violation, default_tags
from .training import _accelerated

CHECKPOINT_TAG = (PURPOSE_TAG, "checkpoints")


def _checkpoint_buckets(stack: Stack) -> list[Resource]:
    key, value = CHECKPOINT_TAG
    return [b for b in stack.of_type(BUCKET) if (b.props.get("tags") or {}).get(key) == value]


def storage_protected_in_production(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    if stack.profile(config) != "production":
        return
    for resource in stack.of_type(LUSTRE_FILE_SYSTEM) + _checkpoint_buckets(stack):
        if not resource.protect:
            yield Violation(resource.urn, f"{resource.name} holds training data but is not protected in a "
                                          "production stack; Pulumi would delete or replace it.")


def checkpoint_bucket_versioning(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for bucket in _checkpoint_buckets(stack):
        versioning = stack.referencing(bucket, "bucket", BUCKET_VERSIONING)
        if not any((v.props.get("versioningConfiguration") or {}).get("status") == "Enabled" for v in versioning):
            yield Violation(bucket.urn, f"checkpoint bucket {bucket.name} is not versioned; an overwritten "
                                        "checkpoint could not be recovered.")


def hourly_cost_ceiling(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """The stack's on-demand spend at max size, as the cost section totals it, under the ceiling.

    The rule calls the cost estimate itself (every priced item: instances, volumes, the EKS control
    plane, NAT, FSx, HyperPod instances ...), in the region the cost section prices in, so its total is the
    cost section's to the cent. It either judges or says it cannot, by one rule in every region: a priced part
    already over the ceiling fails it (the whole costs at least that); otherwise an item without a price, or
    nodes the stack does not count (an existing cluster's), leaves it unable to judge, and it says so by item
    (a mandatory rule that cannot judge holds nothing, so it fails); otherwise it judges the whole."""
    ceiling = config.get("maxHourlyUsd")
    if not ceiling:
        return
    region = next((str(p["region"]) for p in stack.providers() if p.get("region")), None)
    estimate = estimate_resources(stack.resources, region or stack_region(stack.resources) or "unknown")
    unknown = [*estimate.unpriced, *estimate.not_counted]
    if estimate.hourly("max") > ceiling:
        largest = sorted(estimate.counted, key=lambda line: -line.hourly("max"))[:3]
        shown = "; ".join(f"{line.item.strip()} ${line.hourly('max'):,.2f}/h" for line in largest if line.priced)
        yield Violation(None, f"the stack costs {estimate.total('max')} on demand at max size (the cost section's "
                              f"total; largest: {shown}), above the ceiling of ${ceiling}/h"
                              + (f"; {len(unknown)} more item(s) have no price or are not counted" if unknown
                                 else "") + ".")
        return
    for line in unknown:
        yield Violation(line.resources[0] if line.resources else None,
                        f"{line.item.strip()}: {line.source}; spend at max size cannot be held under ${ceiling}/h "
                        f"(cannot judge: the priced part is {estimate.total('max')}).")


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
    Rule("hourly-cost-ceiling", "On-demand spend of the stack at max size (the cost section's total) stays under "
         "a ceiling.",
         "mandatory", hourly_cost_ceiling, area="cost",
         config={"maxHourlyUsd": {"type": "number"}}, needs=("maxHourlyUsd",),
         source="the cost estimate: the catalog's on-demand prices (AWS Price List, dated per entry) and the "
                "service prices in estimate/prices.py; an item without a price cannot be held under a ceiling"),
    Rule("dev-groups-scale-to-zero", "Accelerated groups in dev stacks scale to zero.", "mandatory",
         dev_groups_scale_to_zero, area="cost",
         source="trainstack's stance for dev stacks: EC2 bills running instances per second"),
    Rule("required-tags", "Every AWS resource carries the required tags.", "mandatory", required_tags,
         area="tagging", config={"requiredTags": {"type": "array", "items": {"type": "string"}, "default": []}},
         needs=("requiredTags",),
         source="a team's stance (the tag keys it names); provider default tags reach every taggable resource"),
]
