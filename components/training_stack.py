"""TrainingStack: one validated StackConfig in, a training cluster out.

It composes the parts the stack's config asks for, in the order of the
architecture (see DESIGN.md): the AWS provider for the stack's region and tags,
then storage. Network, clusters, node groups, FSx, HyperPod and add-ons join
here as their components land.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import pulumi
import pulumi_aws as aws

from . import catalog
from .config import StackConfig, validate_stack_config
from .storage.checkpoint_bucket import CheckpointBucket

# The version of the outputs the stack exports; bumped on any breaking change.
OUTPUTS_VERSION = 0


class TrainingStack(pulumi.ComponentResource):
    outputs: dict[str, Any]
    """The stack outputs the program exports (see ``export_outputs``)."""

    def __init__(self, name: str, config: StackConfig | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None):
        config = validate_stack_config(config) if not isinstance(config, StackConfig) else config
        super().__init__("trainstack:index:TrainingStack", name, {}, opts)
        self.config = config

        # One explicit provider: the region comes from our validated config, not from
        # whatever AWS_REGION the machine running `pulumi up` happens to have.
        self.aws_provider = aws.Provider(
            f"{name}-aws", region=config.region,
            default_tags={"tags": {**config.tags, "trainstack:stack": name, "trainstack:profile": config.profile}},
            opts=pulumi.ResourceOptions(parent=self))
        in_region = pulumi.ResourceOptions(parent=self, providers=[self.aws_provider])

        self.checkpoints = (
            CheckpointBucket(f"{name}-checkpoints", {"settings": config.checkpoint_bucket}, opts=in_region)
            if config.checkpoint_bucket.enabled else None)

        self.outputs = {
            "outputsVersion": OUTPUTS_VERSION,
            "region": config.region,
            "profile": config.profile,
            "checkpointBucket": self.checkpoints.bucket_name if self.checkpoints else None,
            "acceleratedGroups": {group.name: _group_facts(group) for group in config.node_groups},
        }
        self.register_outputs(self.outputs)

    def export_outputs(self) -> None:
        for key, value in self.outputs.items():
            pulumi.export(key, value)


def _group_facts(group) -> dict[str, Any]:
    """What a job launcher needs to know of a group, from the catalog."""
    instance = catalog.get(group.instance_type)
    accelerator = instance.accelerator
    return {
        "instanceType": instance.name,
        "acceleratorResource": accelerator.resource_names[0],
        "acceleratorsPerNode": accelerator.count,
        "neuronCoresPerNode": accelerator.neuron_cores,
        "efaInterfacesPerNode": instance.efa.max_interfaces if group.efa else 0,
        "zone": group.zone,
        "maxNodes": group.max_size,
    }
