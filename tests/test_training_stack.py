"""TrainingStack: every shipped stack plans offline; library callers get the same validation."""

import json
from pathlib import Path

import pytest
from trainstack import ConfigError
from trainstack.outputs import CONTRACT_VERSION, parse_outputs
from trainstack.plan import SECRET_MARK, find_project, run_plan, run_program
from trainstack.training_stack import TrainingStack

PROJECT = find_project(Path(__file__).parent.parent)
SHIPPED = ["dev", "nemo-p4de", "fsdp-p5", "trn1", "hyperpod", "hyperpod-eks", "kueue-p5", "b200-dra", "frontier-p5"]
EXISTING_CLUSTER = ["byo-p5"]
"""Stacks that add the Kubernetes layer to a cluster made elsewhere (``existingCluster``)."""


def test_the_project_ships_the_stacks_every_issue_refers_to():
    assert PROJECT.stacks() == sorted(SHIPPED + EXISTING_CLUSTER)


@pytest.mark.parametrize("stack", EXISTING_CLUSTER)
def test_an_existing_cluster_stack_makes_no_aws_resource_and_only_the_kubernetes_layer(stack):
    plan = run_plan(PROJECT, stack)
    kinds = {r.type.split(":")[0] for r in plan.resources if r.custom}
    assert kinds == {"kubernetes", "pulumi"}
    assert [r.type for r in plan.resources if r.type.startswith("pulumi:providers:")] == [
        "pulumi:providers:kubernetes"]
    outputs = parse_outputs(plan.outputs)
    assert outputs.cluster is not None and outputs.cluster.name == "ml-platform-prod"
    assert outputs.storage is not None and outputs.storage.file_system_id == "fs-0123456789abcdef0"
    described = plan.get("trainstack:index:ExistingNodeGroup", f"{stack}-eks-p5").inputs
    assert described["scalingConfig"] == {"minSize": 2, "desiredSize": 2, "maxSize": 2}
    assert described["efaInterfaces"] == 32 and described["instanceTypes"] == ["p5.48xlarge"]


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_plans_offline_and_exports_the_outputs_contract(stack):
    plan = run_plan(PROJECT, stack)
    training = plan.get("trainstack:index:TrainingStack", stack)
    provider = plan.get("pulumi:providers:aws", f"{stack}-aws")
    assert provider.parent == training.urn
    aws_resources = [r for r in plan.resources if r.custom and r.type.startswith("aws:")]
    assert aws_resources and all(r.options.provider.startswith(provider.urn + "::") for r in aws_resources)

    outputs = parse_outputs(plan.outputs)
    assert (outputs.contract_version, outputs.stack) == (CONTRACT_VERSION, stack)
    assert outputs.checkpoint_bucket.startswith(f"{stack}-checkpoints-")
    assert outputs.image_repository.endswith(f".amazonaws.com/trainstack-{stack}/training")
    assert plan.outputs["kubeconfig"] == (SECRET_MARK if outputs.cluster else None)


def test_nemo_outputs_describe_the_p4de_group_from_the_catalog():
    outputs = parse_outputs(run_plan(PROJECT, "nemo-p4de").outputs)
    group = outputs.accelerated_groups["p4de"]
    assert (group.instance_type, group.accelerator_resource, group.accelerators_per_node,
            group.efa_interfaces_per_node, group.max_nodes) == ("p4de.24xlarge", "nvidia.com/gpu", 8, 4, 2)
    assert group.node_selector == {"trainstack.io/node-group": "p4de"}
    assert [(t.key, t.value, t.effect) for t in group.tolerations] == [("nvidia.com/gpu", "true", "NoSchedule")]
    assert outputs.cluster.endpoint.startswith("https://") and outputs.cluster.name == "trainstack-nemo-p4de"
    assert (outputs.storage.claim_name, outputs.storage.mount_path) == ("fsx-claim", "/fsx")


def test_trn1_outputs_carry_neuron_devices_cores_efa_and_the_neuron_scheduler():
    group = parse_outputs(run_plan(PROJECT, "trn1").outputs).accelerated_groups["trn1"]
    assert (group.accelerator_resource, group.accelerators_per_node, group.neuron_cores_per_node,
            group.efa_interfaces_per_node, group.scheduler_name) == ("aws.amazon.com/neuron", 16, 32, 8,
                                                                     "my-scheduler")


def test_hyperpod_outputs_name_partitions_and_groups():
    hyperpod = parse_outputs(run_plan(PROJECT, "hyperpod").outputs).hyperpod
    assert hyperpod.partitions == {"worker-group-1": "dev"}
    assert [(g.name, g.count, g.accelerators_per_node) for g in hyperpod.instance_groups] == [
        ("controller-machine", 1, 0), ("worker-group-1", 2, 1)]


def test_the_provider_pins_the_region_and_tags_everything():
    provider = run_plan(PROJECT, "dev").get("pulumi:providers:aws", "dev-aws")
    assert provider.inputs["region"] == "us-east-1"
    # Provider inputs reach the engine as JSON strings, as `pulumi preview` shows them.
    tags = json.loads(provider.inputs["defaultTags"])["tags"]
    assert tags == {"team": "ml-platform", "environment": "dev", "trainstack:stack": "dev",
                    "trainstack:profile": "dev"}


CONFIG = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]}}


def test_imported_as_a_library_it_takes_a_plain_mapping():
    plan = run_program(lambda: TrainingStack("lib", CONFIG), project="other", stack="prod")
    assert plan.get("trainstack:index:TrainingStack", "lib").outputs["trainstack"]["region"] == "us-east-1"


def test_a_bad_mapping_is_refused_before_anything_is_registered():
    errors = []

    def program():
        try:
            TrainingStack("lib", {**CONFIG, "region": "mars-1"})
        except ConfigError as error:
            errors.append(error)

    plan = run_program(program, project="other", stack="prod")
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack"]
    assert errors[0].issues[0].path == "trainstack:region"


def test_the_checkpoint_bucket_can_be_left_out():
    plan = run_program(lambda: TrainingStack("lib", {**CONFIG, "checkpointBucket": {"enabled": False}}),
                       project="other", stack="prod")
    assert not plan.by_type("aws:s3/bucket:Bucket")


def test_a_production_stack_plans_with_only_the_private_endpoint_reminder():
    messages = [d["message"] for d in run_plan(PROJECT, "nemo-p4de").diagnostics]
    assert len(messages) == 1 and "is private: run `pulumi up` from inside the VPC" in messages[0]


@pytest.mark.parametrize("stack", SHIPPED)
def test_provider_functions_run_in_the_stacks_region_not_the_machines(stack):
    plan = run_plan(PROJECT, stack)
    provider = plan.get("pulumi:providers:aws", f"{stack}-aws")
    assert all(invoke["provider"].startswith(provider.urn + "::") for invoke in plan.invokes)
