"""The components through the provider's construct path, with inputs as another language sends
them: the same resources as the Python API with the same inputs, outputs under their schema
names, and bad input refused with the message a stack file or a Python caller gets.

What stands in for what: no Pulumi CLI or engine runs here. The inputs are JSON, packed into
the protobuf Struct a Construct request carries and unpacked by the SDK's own deserializer
(``pulumi.runtime.rpc.deserialize_properties``, what ``ProviderServicer.Construct`` runs), so
numbers arrive as floats as they do from TypeScript, Go or YAML. ``ComponentProvider.construct``
then runs in-process under the offline plan's mock monitor, as the provider's gRPC server would
call it; the gRPC transport and the engine's remote-component registration are not exercised.
"""

import json
from pathlib import Path

import pulumi
import pytest
import yaml
from google.protobuf import struct_pb2
from pulumi.provider.server import ComponentInitError
from pulumi.runtime import rpc
from trainstack.cluster import GpuEksCluster
from trainstack.config import ConfigError
from trainstack.hyperpod import HyperPodCluster
from trainstack.network import Network
from trainstack.package import host
from trainstack.plan import run_program
from trainstack.storage.lustre import LustreFileSystem
from trainstack.training_stack import TrainingStack

REPO = Path(__file__).resolve().parents[2]


def dev_stack_config() -> dict:
    """stacks/Pulumi.dev.yaml's ``trainstack:`` keys, as a program in another language would write them."""
    config = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    return {key.removeprefix("trainstack:"): value for key, value in config.items() if key.startswith("trainstack:")}


def as_sent(inputs: dict) -> dict:
    """``inputs`` as the provider receives them from another language: JSON in a protobuf Struct."""
    struct = struct_pb2.Struct()
    struct.update(json.loads(json.dumps(inputs)))
    return rpc.deserialize_properties(struct, keep_unknowns=True)


def construct(token: str, name: str, inputs: dict, captured: dict):
    def program():
        result = host.provider().construct(name, token, as_sent(inputs), pulumi.ResourceOptions())
        captured["state"] = result.state

    return run_program(program, project="other", stack="prod")


def resources(plan) -> list:
    """The recorded resources, with JSON-encoded inputs (provider config such as ``defaultTags``)
    decoded: a protobuf Struct is a map, so keys come out of the wire in another order, which
    changes the encoded string but not its meaning."""
    return [decoded(resource) for resource in plan.to_dict()["resources"]]


def decoded(value):
    if isinstance(value, dict):
        return {key: decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decoded(item) for item in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return decoded(json.loads(value))
        except ValueError:
            return value
    return value


CLUSTER_INPUTS = {
    "clusterName": "training", "region": "us-east-1", "vpcId": "vpc-0abc12345",
    "privateSubnetIds": {"us-east-1a": "subnet-0aaa1111", "us-east-1b": "subnet-0bbb2222"},
    "settings": {"endpointAccess": "publicAndPrivate", "publicAccessCidrs": ["203.0.113.0/24"],
                 "systemNodes": {"minSize": 2, "maxSize": 3}},
    "nodeGroups": [{"name": "gpu", "instanceType": "p5.48xlarge", "minSize": 0, "maxSize": 4,
                    "zone": "us-east-1a", "rootVolume": {"sizeGiB": 300},
                    "labels": {"team_name": "llm"}, "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}],
}
PYTHON_CLUSTER_ARGS = {
    "cluster_name": "training", "region": "us-east-1", "vpc_id": "vpc-0abc12345",
    "private_subnet_ids": CLUSTER_INPUTS["privateSubnetIds"],
    "settings": CLUSTER_INPUTS["settings"], "node_groups": CLUSTER_INPUTS["nodeGroups"],
}


def test_the_dev_stack_through_the_provider_plans_the_resources_of_the_python_api():
    captured: dict = {}
    through_provider = construct("trainstack:index:TrainingStack", "dev", dev_stack_config(), captured)
    python = run_program(lambda: TrainingStack("dev", dev_stack_config()), project="other", stack="prod")
    assert resources(through_provider) == resources(python)
    assert through_provider.get("trainstack:index:TrainingStack", "dev")
    assert len(through_provider.by_type("aws:eks/nodeGroup:NodeGroup")) == 2  # system and gpu


def test_the_dev_stack_outputs_come_back_under_their_schema_names():
    captured: dict = {}
    construct("trainstack:index:TrainingStack", "dev", dev_stack_config(), captured)
    assert set(captured["state"]) == {"contract", "kubeconfig"}
    assert isinstance(captured["state"]["contract"], pulumi.Output)


def test_the_gpu_cluster_through_the_provider_plans_the_resources_of_the_python_api():
    captured: dict = {}
    through_provider = construct("trainstack:index:GpuEksCluster", "eks", CLUSTER_INPUTS, captured)
    python = run_program(lambda: GpuEksCluster("eks", PYTHON_CLUSTER_ARGS), project="other", stack="prod")
    assert resources(through_provider) == resources(python)
    group = through_provider.get("aws:eks/nodeGroup:NodeGroup", "eks-gpu")
    # Integers arrive as floats and keys of a map are the user's: neither is changed on the way.
    assert group.inputs["scalingConfig"]["maxSize"] == 4
    assert group.inputs["labels"]["team_name"] == "llm"
    assert set(captured["state"]) == {"clusterName", "kubeconfig", "clusterSecurityGroupId"}
    assert captured["state"]["clusterName"] == "training"


def test_lustre_through_the_provider_plans_the_resources_of_the_python_api():
    inputs = {"settings": {"zone": "us-east-1a", "storageCapacityGiB": 4800, "perUnitStorageThroughput": 250,
                           "dataRepository": {"s3Path": "s3://datasets/tokens/", "autoExport": ["NEW"]}},
              "vpcId": "vpc-0abc12345", "subnetId": "subnet-0aaa1111", "clientSecurityGroupIds": ["sg-0123abcd"]}
    captured: dict = {}
    through_provider = construct("trainstack:index:LustreFileSystem", "fsx", inputs, captured)

    def python_program():
        built = LustreFileSystem("fsx", {
            "settings": inputs["settings"], "vpc_id": inputs["vpcId"], "subnet_id": inputs["subnetId"],
            "client_security_group_ids": inputs["clientSecurityGroupIds"]})
        captured["python"] = built.throughput_mbps

    python = run_program(python_program, project="other", stack="prod")
    assert resources(through_provider) == resources(python)
    assert captured["state"]["throughputMbps"] == captured["python"] == 1171  # 4800 GiB x 250 MB/s per TiB


def test_the_network_through_the_provider_plans_the_resources_of_the_python_api():
    inputs = {"settings": {"zones": ["us-east-1a", "us-east-1b"], "natGateways": "perZone"}, "region": "us-east-1"}
    captured: dict = {}
    through_provider = construct("trainstack:index:Network", "net", inputs, captured)
    python = run_program(lambda: Network("net", {"settings": inputs["settings"], "region": "us-east-1"}),
                         project="other", stack="prod")
    assert resources(through_provider) == resources(python)
    assert len(through_provider.by_type("aws:ec2/natGateway:NatGateway")) == 2
    assert set(captured["state"]["privateSubnetIds"]) == {"us-east-1a", "us-east-1b"}


FSX_DNS = "fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com"
HYPERPOD_SETTINGS = {"clusterName": "ml", "controller": {"name": "c", "instanceType": "ml.c5.xlarge", "count": 1},
                     "workers": [{"name": "w", "instanceType": "ml.g5.8xlarge", "count": 2, "threadsPerCore": 1}]}


def test_hyperpod_through_the_provider_plans_the_resources_of_the_python_api():
    inputs = {"settings": HYPERPOD_SETTINGS, "region": "us-east-1", "subnetId": "subnet-0123456789abcdef0",
              "securityGroupIds": ["sg-0123456789abcdef0"],
              "fsxMount": {"dnsName": FSX_DNS, "mountName": "abcd", "mountPath": "/fsx"}}
    captured: dict = {}
    through_provider = construct("trainstack:index:HyperPodCluster", "hp", inputs, captured)
    python = run_program(lambda: HyperPodCluster("hp", {
        "settings": HYPERPOD_SETTINGS, "region": "us-east-1", "subnet_id": inputs["subnetId"],
        "security_group_ids": inputs["securityGroupIds"],
        "fsx_mount": {"dns_name": FSX_DNS, "mount_name": "abcd", "mount_path": "/fsx"}}),
        project="other", stack="prod")
    assert resources(through_provider) == resources(python)
    groups = through_provider.get("aws-native:sagemaker:Cluster", "hp").inputs["instanceGroups"]
    assert [g["instanceCount"] for g in groups] == [1, 2]
    assert captured["state"]["partitions"] == {"w": "w"}


def test_hyperpod_on_eks_is_refused_through_the_provider_as_from_python():
    settings = {**HYPERPOD_SETTINGS, "orchestrator": "eks"}
    inputs = {"settings": settings, "region": "us-east-1", "subnetId": "subnet-0123456789abcdef0",
              "securityGroupIds": ["sg-0123456789abcdef0"]}
    message = refusal_through_provider("trainstack:index:HyperPodCluster", inputs)
    assert message == refusal_from_python(lambda: HyperPodCluster("bad", {
        "settings": settings, "region": "us-east-1", "subnet_id": inputs["subnetId"],
        "security_group_ids": inputs["securityGroupIds"]}))


def refusal_through_provider(token: str, inputs: dict) -> str:
    def program():
        with pytest.raises(ComponentInitError) as refused:
            host.provider().construct("bad", token, as_sent(inputs), pulumi.ResourceOptions())
        assert isinstance(refused.value.inner, ConfigError)
        messages.append(str(refused.value))

    messages: list[str] = []
    plan = run_program(program, project="other", stack="prod")
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack"], "refused before anything is registered"
    return messages[0]


def refusal_from_python(build) -> str:
    with pytest.raises(ConfigError) as refused:
        run_program(build, project="other", stack="prod")
    return str(refused.value)


@pytest.mark.parametrize("change, named", [
    ({"region": "us-east-1a"}, "trainstack:region"),
    ({"nodeGroups": [{"name": "gpu", "instanceType": "p5.48xlargee", "maxSize": 2, "zone": "us-east-1a"}]},
     "p5.48xlargee"),
    ({"nodeGroups": [{"name": "gpu", "instanceType": "g5.2xlarge", "maxSize": 2, "zone": "us-east-1c"}]},
     "us-east-1c"),
    ({"eks": {"publicAccessCidrs": ["203.0.113.0/24"], "logTypes": ["api", "kubelet"]}}, "kubelet"),
])
def test_a_bad_stack_is_refused_with_the_message_a_stack_file_gets(change, named):
    config = {**dev_stack_config(), **change}
    message = refusal_through_provider("trainstack:index:TrainingStack", config)
    assert message == refusal_from_python(lambda: TrainingStack("bad", config))
    assert named in message and "trainstack:" in message


def test_a_bad_cluster_is_refused_with_the_message_a_python_caller_gets():
    group = {**CLUSTER_INPUTS["nodeGroups"][0], "rootVolume": {"sizeGiB": 10}}
    inputs = {**CLUSTER_INPUTS, "nodeGroups": [group]}
    message = refusal_through_provider("trainstack:index:GpuEksCluster", inputs)
    assert message == refusal_from_python(
        lambda: GpuEksCluster("bad", {**PYTHON_CLUSTER_ARGS, "node_groups": [group]}))
    assert "GpuEksCluster(bad):nodeGroups[0].rootVolume.sizeGiB = 10\n" in message


def test_a_fractional_number_for_an_integer_is_refused_not_cut():
    group = {**CLUSTER_INPUTS["nodeGroups"][0], "maxSize": 2.5}
    message = refusal_through_provider("trainstack:index:GpuEksCluster", {**CLUSTER_INPUTS, "nodeGroups": [group]})
    assert "GpuEksCluster(bad):nodeGroups[0].maxSize = 2.5\n" in message


def test_bad_lustre_settings_are_refused_with_the_message_a_python_caller_gets():
    settings = {"zone": "us-east-1a", "deploymentType": "PERSISTENT_3"}
    inputs = {"settings": settings, "vpcId": "vpc-0abc12345", "subnetId": "subnet-0aaa1111"}
    message = refusal_through_provider("trainstack:index:LustreFileSystem", inputs)
    assert message == refusal_from_python(
        lambda: LustreFileSystem("bad", {"settings": settings, "vpc_id": "vpc-0abc12345",
                                         "subnet_id": "subnet-0aaa1111"}))
    assert "PERSISTENT_3" in message


@pytest.mark.parametrize("config", [
    {key: value for key, value in dev_stack_config().items() if key != "region"},
    {**dev_stack_config(), "nodegroups": []},
    {**dev_stack_config(), "nodeGroups": [{"name": "gpu", "instanceType": "g5.2xlarge", "maxSize": 2}]},
    {**dev_stack_config(), "eks": {"publicAccessCidr": ["203.0.113.0/24"]}},
], ids=["missing region", "unknown top-level key", "missing zone in a group", "unknown key in a block"])
def test_missing_and_unknown_keys_are_the_models_to_refuse_as_in_a_stack_file(config):
    message = refusal_through_provider("trainstack:index:TrainingStack", config)
    assert message == refusal_from_python(lambda: TrainingStack("bad", config))


def test_a_missing_resource_id_is_refused_by_the_sdk_naming_the_input():
    inputs = {key: value for key, value in CLUSTER_INPUTS.items() if key != "vpcId"}

    def program():
        with pytest.raises(Exception, match="Missing required input 'vpcId' on 'GpuEksCluster'"):
            host.provider().construct("bad", "trainstack:index:GpuEksCluster", as_sent(inputs),
                                      pulumi.ResourceOptions())

    assert [r.type for r in run_program(program, project="other", stack="prod").resources] == ["pulumi:pulumi:Stack"]
