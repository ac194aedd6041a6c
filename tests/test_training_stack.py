"""TrainingStack: every shipped stack plans offline; library callers get the same validation."""

import json
from pathlib import Path

import pytest

from trainstack import ConfigError
from trainstack.plan import find_project, run_plan, run_program
from trainstack.training_stack import OUTPUTS_VERSION, TrainingStack

PROJECT = find_project(Path(__file__).parent.parent)
SHIPPED = ["dev", "nemo-p4de", "fsdp-p5", "trn1", "hyperpod"]


def test_the_project_ships_the_stacks_every_issue_refers_to():
    assert PROJECT.stacks() == sorted(SHIPPED)


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_plans_offline(stack):
    plan = run_plan(PROJECT, stack)
    training = plan.get("trainstack:index:TrainingStack", stack)
    provider = plan.get("pulumi:providers:aws", f"{stack}-aws")
    assert provider.parent == training.urn
    assert plan.outputs["outputsVersion"] == OUTPUTS_VERSION
    assert plan.outputs["checkpointBucket"].startswith(f"{stack}-checkpoints-")
    aws_resources = [r for r in plan.resources if r.custom and r.type.startswith("aws:")]
    assert aws_resources and all(r.options.provider.startswith(provider.urn + "::") for r in aws_resources)


def test_nemo_outputs_describe_the_p4de_group_from_the_catalog():
    groups = run_plan(PROJECT, "nemo-p4de").outputs["acceleratedGroups"]
    assert groups == {"p4de": {
        "instanceType": "p4de.24xlarge", "acceleratorResource": "nvidia.com/gpu", "acceleratorsPerNode": 8,
        "neuronCoresPerNode": None, "efaInterfacesPerNode": 4, "zone": "us-east-1a", "maxNodes": 2,
        "schedulerName": None}}


def test_trn1_outputs_carry_neuron_devices_cores_efa_and_the_neuron_scheduler():
    group = run_plan(PROJECT, "trn1").outputs["acceleratedGroups"]["trn1"]
    assert group == {
        "instanceType": "trn1.32xlarge", "acceleratorResource": "aws.amazon.com/neuron", "acceleratorsPerNode": 16,
        "neuronCoresPerNode": 32, "efaInterfacesPerNode": 8, "zone": "us-east-2b", "maxNodes": 4,
        "schedulerName": "my-scheduler"}


def test_dev_outputs_name_the_cluster_and_its_gpu_group():
    outputs = run_plan(PROJECT, "dev").outputs
    assert outputs["clusterName"] == "trainstack-dev"
    assert outputs["acceleratedGroups"]["gpu"]["efaInterfacesPerNode"] == 0


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
    assert plan.get("trainstack:index:TrainingStack", "lib").outputs["region"] == "us-east-1"


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


def test_config_for_parts_not_built_yet_is_reported_not_silently_dropped():
    nemo = [d["message"] for d in run_plan(PROJECT, "nemo-p4de").diagnostics]
    assert ("observability/operators switches (containerInsights, dcgmExporter, neuronMonitor, trainingOperator): "
            "validated but not built yet; this stack does not create it.") in nemo
