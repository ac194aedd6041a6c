"""AWS's images come from the stack's region's registry, from one table per publisher: the Neuron
training container from the Deep Learning Containers registry of the region (another account in
some regions), the EFA device plugin from the region's Amazon EKS registry; a region a table does
not name is refused with the regions it does, before anything is rendered."""

import pytest
from support.scratch import plan_config
from trainstack.addons.trainer import neuron_training_image
from trainstack.catalog.image_registries import UnknownRegistryRegion, dlc_registry, eks_registry
from trainstack.config import ConfigError, validate_stack_config

TRN1 = {"profile": "dev", "network": {"zones": []}, "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "operators": {"trainer": True, "trainingOperator": False}}


def test_the_neuron_training_image_is_named_from_the_region():
    assert neuron_training_image("us-west-2").startswith("763104351884.dkr.ecr.us-west-2.amazonaws.com/"
                                                          "pytorch-training-neuronx:")
    assert neuron_training_image("eu-west-1").startswith("763104351884.dkr.ecr.eu-west-1.amazonaws.com/")


def test_dlc_and_eks_registries_differ_by_account_where_aws_publishes_from_another():
    assert dlc_registry("ap-east-1").host == "871362719292.dkr.ecr.ap-east-1.amazonaws.com"
    assert dlc_registry("cn-north-1").host == "727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn"
    assert eks_registry("af-south-1").host == "877085696533.dkr.ecr.af-south-1.amazonaws.com"
    assert eks_registry("us-east-1").host == "602401143452.dkr.ecr.us-east-1.amazonaws.com"


def test_a_region_without_neuron_containers_is_refused_with_the_regions_that_have_them():
    with pytest.raises(UnknownRegistryRegion, match=r"region ap-east-1: AWS publishes no Neuron Deep Learning "
                                                    r"Containers there .*regions that have them: .*us-east-1"):
        neuron_training_image("ap-east-1")
    with pytest.raises(UnknownRegistryRegion, match="region xx-nowhere-1: trainstack's table of Amazon EKS"):
        eks_registry("xx-nowhere-1")


def test_a_stack_with_trainer_and_neuron_nodes_in_a_region_without_neuron_containers_is_refused_at_the_region():
    config = {**TRN1, "region": "ca-central-1", "network": {"zones": ["ca-central-1a", "ca-central-1b"]},
              "nodeGroups": [{"name": "trn", "instanceType": "trn1.32xlarge", "maxSize": 2, "zone": "ca-central-1a",
                              "efa": False, "offeringUnchecked": "test: the registry check, not the offering"}]}
    with pytest.raises(ConfigError) as error:
        validate_stack_config(config)
    text = str(error.value)
    assert "region" in text and "ca-central-1" in text and "Neuron Deep Learning Containers" in text


@pytest.fixture(scope="module")
def trn1_in_us_west_2(tmp_path_factory):
    config = {**TRN1, "region": "us-west-2", "network": {"zones": ["us-west-2a", "us-west-2b"]},
              "nodeGroups": [{"name": "trn", "instanceType": "trn1.32xlarge", "maxSize": 2, "zone": "us-west-2a"}]}
    return plan_config(tmp_path_factory.mktemp("trn1"), "west", config)


def test_every_image_a_us_west_2_stack_renders_from_an_aws_regional_registry_is_us_west_2s(trn1_in_us_west_2):
    runtime = next(r for r in trn1_in_us_west_2.resources
                   if r.type.endswith(":ClusterTrainingRuntime") and r.inputs["metadata"]["name"] == "trainstack-mpi")
    images = {c["image"] for job in runtime.inputs["spec"]["template"]["spec"]["replicatedJobs"]
              for c in job["template"]["spec"]["template"]["spec"]["containers"]}
    assert images == {neuron_training_image("us-west-2")}
    efa = next(r for r in trn1_in_us_west_2.resources if r.type == "kubernetes:helm.sh/v3:Release"
               and r.inputs.get("chart") == "aws-efa-k8s-device-plugin")
    assert efa.inputs["values"]["image"] == {
        "repository": "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin"}
    outputs = trn1_in_us_west_2.outputs["trainstack"]
    assert outputs["operators"]["trainerMpiImage"] == neuron_training_image("us-west-2")
    # No rendered value names another region's AWS registry.
    assert ".dkr.ecr.us-east-1." not in repr([r.inputs for r in trn1_in_us_west_2.resources])
