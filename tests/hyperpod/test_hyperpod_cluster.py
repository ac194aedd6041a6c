"""SageMaker HyperPod: the seed Slurm cluster as rendered, names that agree by
construction, the lifecycle scripts, the execution role, and EKS orchestration."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from trainstack import ConfigError
from trainstack.config import HyperPodConfig
from trainstack.hyperpod import HyperPodCluster
from trainstack.hyperpod.lifecycle import ENTRYPOINT, params_text
from trainstack.plan import find_project, run_plan, run_program

PROJECT = find_project(Path(__file__).resolve().parents[2])
CLUSTER = "aws-native:sagemaker:Cluster"
SCRIPT = Path(__file__).resolve().parents[2] / "components" / "hyperpod" / "scripts" / ENTRYPOINT
SUBNET, GROUP = "subnet-0123456789abcdef0", "sg-0123456789abcdef0"


@pytest.fixture(scope="module")
def seed():
    return run_plan(PROJECT, "hyperpod")


def test_the_seed_cluster_renders_a_controller_and_a_worker_group_in_partition_dev(seed):
    cluster = seed.get(CLUSTER, "hyperpod-hyperpod").inputs
    assert cluster["orchestrator"] == {"slurm": {"slurmConfigStrategy": "Managed"}}
    assert cluster["nodeRecovery"] == "Automatic"
    controller, workers = cluster["instanceGroups"]
    assert (controller["instanceGroupName"], controller["instanceType"], controller["instanceCount"]) == (
        "controller-machine", "ml.c5.xlarge", 1)
    assert controller["slurmConfig"] == {"nodeType": "Controller"}
    assert (workers["instanceGroupName"], workers["instanceType"], workers["instanceCount"]) == (
        "worker-group-1", "ml.g5.8xlarge", 2)
    assert workers["slurmConfig"] == {"nodeType": "Compute", "partitionNames": ["dev"]}
    assert workers["onStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
    assert all(group["threadsPerCore"] == 1 for group in (controller, workers))


def test_fsx_is_mounted_on_every_node_through_the_api(seed):
    fs = seed.get("aws:fsx/lustreFileSystem:LustreFileSystem", "hyperpod-fsx").outputs
    for group in seed.get(CLUSTER, "hyperpod-hyperpod").inputs["instanceGroups"]:
        assert group["instanceStorageConfigs"] == [{"fsxLustreConfig": {
            "dnsName": fs["dnsName"], "mountName": fs["mountName"], "mountPath": "/fsx"}}]


def test_lifecycle_runs_our_script_after_hyperpods_setup_from_a_sagemaker_bucket(seed):
    uris = set()
    for group in seed.get(CLUSTER, "hyperpod-hyperpod").inputs["instanceGroups"]:
        assert group["lifeCycleConfig"]["onInitComplete"] == ENTRYPOINT
        assert "onCreate" not in group["lifeCycleConfig"]
        uris.add(group["lifeCycleConfig"]["sourceS3Uri"])
    (uri,) = uris
    assert uri.startswith("s3://sagemaker-")
    objects = {o.inputs["key"]: o.inputs["content"] for o in seed.by_type("aws:s3/bucketObjectv2:BucketObjectv2")}
    prefix = uri.split("/", 3)[3]
    assert set(objects) == {prefix + ENTRYPOINT, prefix + "trainstack-params.env"}
    assert objects[prefix + ENTRYPOINT] == SCRIPT.read_text()


def test_the_cluster_sits_in_one_private_subnet_with_the_efa_group_that_fsx_lets_in(seed):
    cluster = seed.get(CLUSTER, "hyperpod-hyperpod").inputs["vpcConfig"]
    subnet = seed.get("aws:ec2/subnet:Subnet", "hyperpod-network-private-us-west-2a").id
    group = seed.get("aws:ec2/securityGroup:SecurityGroup", "hyperpod-hyperpod").id
    assert cluster == {"subnets": [subnet], "securityGroupIds": [group]}
    lustre_clients = {r.inputs["referencedSecurityGroupId"]
                      for r in seed.by_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
                      if r.name.startswith("hyperpod-fsx-to-client")}
    assert lustre_clients == {group}


def test_outputs_give_partitions_groups_and_ssm_targets_named_from_the_same_config(seed):
    hyperpod = seed.outputs["trainstack"]["hyperpod"]
    cluster_id = hyperpod["clusterArn"].rsplit("/", 1)[1]
    assert hyperpod["partitions"] == {"worker-group-1": "dev"}
    assert hyperpod["ssmTargetPrefixes"] == {
        "controller-machine": f"sagemaker-cluster:{cluster_id}_controller-machine-",
        "worker-group-1": f"sagemaker-cluster:{cluster_id}_worker-group-1-"}
    rendered = [g["instanceGroupName"] for g in seed.get(CLUSTER, "hyperpod-hyperpod").inputs["instanceGroups"]]
    assert [g["name"] for g in hyperpod["instanceGroups"]] == rendered


def test_group_names_cannot_drift_apart_through_config():
    settings = {"clusterName": "ml", "controller": {"name": "workers", "instanceType": "ml.c5.xlarge", "count": 1},
                "workers": [{"name": "workers", "instanceType": "ml.g5.8xlarge", "count": 2}]}
    with pytest.raises(ConfigError, match="instance group name 'workers' is used twice"):
        HyperPodCluster("hp", {"settings": settings, "region": "us-west-2", "subnet_id": SUBNET,
                               "security_group_ids": [GROUP]})


def test_execution_role_has_no_wildcard_action_and_scopes_what_aws_allows(seed):
    policy = json.loads(seed.get("aws:iam/rolePolicy:RolePolicy", "hyperpod-hyperpod-nodes-network").inputs["policy"])
    unscopable = {"ec2:DescribeNetworkInterfaces", "ec2:DescribeVpcs", "ec2:DescribeDhcpOptions",
                  "ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "ecr:GetAuthorizationToken"}
    for statement in policy["Statement"]:
        actions = [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
        assert not any("*" in action for action in actions)
        if statement["Resource"] == "*":
            assert set(actions) <= unscopable, statement["Sid"]
    managed = seed.get("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "hyperpod-hyperpod-nodes-managed")
    assert managed.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
    trust = json.loads(seed.get("aws:iam/role:Role", "hyperpod-hyperpod-nodes").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"}


def _settings(**changes):
    return HyperPodConfig.model_validate({
        "clusterName": "ml", "controller": {"name": "c", "instanceType": "ml.c5.xlarge", "count": 1},
        "workers": [{"name": "w", "instanceType": "ml.g5.8xlarge", "count": 1}], **changes})


def test_script_settings_are_shell_quoted():
    text = params_text(_settings(sshPublicKey="ssh-ed25519 AAAAC3 me@laptop",
                                 users=[{"name": "alice", "uid": 2001}]), "/fsx")
    assert "TRAINSTACK_SSH_PUBLIC_KEY='ssh-ed25519 AAAAC3 me@laptop'\n" in text
    assert "TRAINSTACK_USERS=alice:2001\n" in text and "TRAINSTACK_FSX_MOUNT_PATH=/fsx\n" in text


def test_changing_the_scripts_settings_moves_the_lifecycle_uri_so_the_cluster_updates():
    def uri(settings):
        plan = run_program(lambda: HyperPodCluster("hp", {"settings": settings, "region": "us-west-2",
                                                          "subnet_id": SUBNET, "security_group_ids": [GROUP]}),
                           project="d", stack="t")
        return plan.get(CLUSTER, "hp").inputs["instanceGroups"][0]["lifeCycleConfig"]["sourceS3Uri"]

    assert uri(_settings()) != uri(_settings(sshPublicKey="ssh-ed25519 AAAAC3 me@laptop"))
    assert uri(_settings()) == uri(_settings())


def test_the_lifecycle_script_passes_bash_n_and_shellcheck():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    result = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_a_cluster_without_a_security_group_is_refused_before_anything_is_registered():
    with pytest.raises(ConfigError) as raised:
        HyperPodCluster("hp", {"settings": _settings(), "region": "us-west-2", "subnet_id": SUBNET,
                               "security_group_ids": []})
    issue = raised.value.issues[0]
    assert issue.path == "HyperPodCluster(hp):security_group_ids" and issue.value == 0
    assert "1 to 5 security groups" in issue.message


def test_eks_orchestration_is_refused_on_a_config_map_cluster():
    settings = {"orchestrator": "eks", "clusterName": "ml",
                "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]}
    with pytest.raises(ConfigError) as raised:
        HyperPodCluster("hp", {"settings": settings, "region": "us-east-1", "subnet_id": SUBNET,
                               "security_group_ids": [GROUP],
                               "eks": {"cluster_arn": "arn:aws:eks:us-east-1:123456789012:cluster/c",
                                       "authentication_mode": "CONFIG_MAP", "kubeconfig": "{}"}})
    issue = raised.value.issues[0]
    assert issue.path == "HyperPodCluster(hp):eks.authentication_mode" and issue.value == "CONFIG_MAP"
    assert "API" in issue.fix


def test_eks_orchestration_attaches_to_the_stacks_cluster_and_labels_nodes_for_the_device_plugins():
    from trainstack.training_stack import TrainingStack

    config = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
              "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
              "hyperpod": {"orchestrator": "eks", "clusterName": "ml",
                           "workers": [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2}]}}
    plan = run_program(lambda: TrainingStack("s", config), project="demo", stack="s")
    cluster = plan.get(CLUSTER, "s-hyperpod").inputs
    assert cluster["orchestrator"] == {"eks": {"clusterArn": "arn:aws:eks:us-east-1:123456789012:cluster/demo-s"}}
    (group,) = cluster["instanceGroups"]
    assert group["kubernetesConfig"]["labels"] == {
        "trainstack.io/node-group": "p5", "nvidia.com/gpu.present": "true", "vpc.amazonaws.com/efa.present": "true"}
    assert "lifeCycleConfig" not in group and "slurmConfig" not in group


def test_hyperpod_on_eks_gets_device_plugins_that_tolerate_deep_health_checks_and_names_its_prerequisite():
    from trainstack.training_stack import TrainingStack

    config = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
              "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
              "hyperpod": {"orchestrator": "eks", "clusterName": "ml",
                           "workers": [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2}]}}
    plan = run_program(lambda: TrainingStack("s", config), project="demo", stack="s")
    releases = {r.inputs["chart"]: r.inputs["values"] for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    health = {"key": "sagemaker.amazonaws.com/node-health-status", "operator": "Equal", "value": "Unschedulable",
              "effect": "NoSchedule"}
    for chart in ("nvidia-device-plugin", "aws-efa-k8s-device-plugin"):
        assert health in releases[chart]["tolerations"]
    assert "oci://public.ecr.aws/neuron/neuron-helm-chart" not in releases
    assert any("helm install hyperpod-dependencies HyperPodHelmChart --namespace kube-system" in d["message"]
               and "git -C sagemaker-hyperpod-cli checkout 40eb213" in d["message"] for d in plan.diagnostics)
    # The offline plan reads no cluster: it shows the HyperPod cluster a deploy creates once the chart is found.
    assert plan.by_type(CLUSTER)
    (said,) = [d["message"] for d in plan.diagnostics if "HyperPodHelmChart" in d["message"]]
    assert said.startswith("HyperPod on EKS: the HyperPod cluster is created once HyperPod's dependencies chart is "
                           "in the EKS cluster (the deploy reads it first)")


def test_a_hyperpod_cluster_on_eks_without_the_clusters_kubeconfig_is_refused_before_anything_is_registered():
    from trainstack.hyperpod import HyperPodCluster

    settings = {"orchestrator": "eks", "clusterName": "ml",
                "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]}
    with pytest.raises(ConfigError) as raised:
        run_program(lambda: HyperPodCluster("hp", {
            "settings": settings, "region": "us-east-1", "subnet_id": "subnet-1", "security_group_ids": ["sg-1"],
            "eks": {"cluster_arn": "arn:aws:eks:us-east-1:123456789012:cluster/c", "authentication_mode": "API"}}),
            project="demo", stack="s")
    (issue,) = raised.value.issues
    assert issue.path == "HyperPodCluster(hp):eks.kubeconfig" and "GpuEksCluster.kubeconfig" in issue.fix


def test_the_retired_promise_dependencies_chart_installed_is_refused_with_why():
    from trainstack.config import HyperPodConfig, validate

    with pytest.raises(ConfigError) as raised:
        validate(HyperPodConfig, {"orchestrator": "eks", "clusterName": "ml", "dependenciesChartInstalled": True,
                                  "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]},
                 prefix="hyperpod")
    (issue,) = raised.value.issues
    assert issue.path.endswith("dependenciesChartInstalled") and issue.value is True
    assert "reads the EKS cluster" in issue.message and issue.fix == "remove the key."
