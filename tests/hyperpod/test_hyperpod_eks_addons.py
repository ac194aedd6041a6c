"""HyperPod with EKS orchestration: its training operator (after cert-manager, with its
IAM through Pod Identity) and task governance as EKS add-ons, each a switch; the
outputs say which run and whether HyperPod replaces faulty nodes."""

import copy

import pytest
from support.scratch import plan_config, write_stack
from trainstack import cli

ADDON, ASSOCIATION = "aws:eks/addon:Addon", "aws:eks/podIdentityAssociation:PodIdentityAssociation"
HYPERPOD_EKS = {
    "profile": "dev", "region": "us-west-2", "network": {"zones": ["us-west-2a", "us-west-2b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "hyperpod": {"orchestrator": "eks",
                 "clusterName": "ml-cluster", "trainingOperator": True,
                 "taskGovernance": True,
                 "workers": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 2,
                              "deepHealthChecks": ["InstanceStress", "InstanceConnectivity"]}]},
    "fsx": {"storageCapacityGiB": 1200, "zone": "us-west-2a", "namespace": "kubeflow"},
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    return plan_config(tmp_path_factory.mktemp("hyperpod-eks"), "hp", HYPERPOD_EKS)


def addons(plan):
    return {a.inputs["addonName"]: a for a in plan.by_type(ADDON)}


def test_the_training_operator_follows_cert_manager_and_its_pod_identity(stack):
    installed = addons(stack)
    operator, certificates = installed["amazon-sagemaker-hyperpod-training-operator"], installed["cert-manager"]
    identity = stack.get(ASSOCIATION, "hp-hyperpod-training-operator")
    assert (identity.inputs["namespace"], identity.inputs["serviceAccount"]) == (
        "aws-hyperpod", "hp-training-operator-controller-manager")
    policy = stack.get("aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                       "hp-hyperpod-training-operator-AmazonSageMakerHyperPodTrainingOperatorAccess")
    assert policy.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodTrainingOperatorAccess"
    assert certificates.urn in operator.dependencies and identity.urn in operator.dependencies
    hyperpod = stack.get("aws-native:sagemaker:Cluster", "hp-hyperpod")
    coredns = installed["coredns"]
    for addon in (operator, certificates, installed["amazon-sagemaker-hyperpod-taskgovernance"]):
        assert hyperpod.urn in addon.dependencies and coredns.urn in addon.dependencies
        assert addon.inputs["clusterName"] == "trainstack-hp"


def test_the_cluster_replaces_faulty_nodes_and_checks_new_ones_deeply(stack):
    cluster = stack.get("aws-native:sagemaker:Cluster", "hp-hyperpod").inputs
    assert cluster["nodeRecovery"] == "Automatic"
    (group,) = cluster["instanceGroups"]
    assert group["onStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]


def test_the_outputs_say_what_runs_and_what_resumes(stack):
    hyperpod = stack.outputs["trainstack"]["hyperpod"]
    assert (hyperpod["nodeRecovery"], hyperpod["trainingOperator"], hyperpod["taskGovernance"]) == (
        "Automatic", True, True)
    (group,) = hyperpod["instanceGroups"]
    assert (group["acceleratorResource"], group["acceleratorsPerNode"], group["efaInterfacesPerNode"]) == (
        "nvidia.com/gpu", 8, 32)


def test_switched_off_the_hyperpod_addons_are_absent(tmp_path):
    config = copy.deepcopy(HYPERPOD_EKS)
    config["hyperpod"].update(trainingOperator=False, taskGovernance=False)
    plan = plan_config(tmp_path, "off", config)
    assert not {"cert-manager", "amazon-sagemaker-hyperpod-training-operator",
                "amazon-sagemaker-hyperpod-taskgovernance"} & set(addons(plan))
    assert not [a for a in plan.by_type(ASSOCIATION) if a.inputs["namespace"] == "aws-hyperpod"]


def test_pinned_versions_reach_hyperpods_addons(tmp_path):
    config = copy.deepcopy(HYPERPOD_EKS)
    config["eks"]["addonVersions"] = {"certManager": "v1.18.2-eksbuild.1",
                                      "amazonSagemakerHyperpodTrainingOperator": "v1.1.0-eksbuild.1"}
    installed = addons(plan_config(tmp_path, "pinned", config))
    assert installed["cert-manager"].inputs["addonVersion"] == "v1.18.2-eksbuild.1"
    assert installed["amazon-sagemaker-hyperpod-training-operator"].inputs["addonVersion"] == "v1.1.0-eksbuild.1"
    assert "addonVersion" not in installed["amazon-sagemaker-hyperpod-taskgovernance"].inputs


@pytest.mark.parametrize("change, path, fix", [
    (lambda c: c["hyperpod"].update(orchestrator="slurm", trainingOperator=True, taskGovernance=False,
                                    controller={"name": "controller", "instanceType": "ml.c5.xlarge", "count": 1}),
     "trainstack:hyperpod.trainingOperator", "use orchestrator: eks"),
    (lambda c: c.update(operators={"kueue": True}), "trainstack:operators.kueue", "remove operators.kueue"),
])
def test_addons_the_stack_cannot_run_are_refused_with_the_fix(tmp_path, capsys, change, path, fix):
    config = copy.deepcopy(HYPERPOD_EKS)
    change(config)
    project = write_stack(tmp_path, "broken", config)
    assert cli.main(["plan", "--stack", "broken", "--cwd", str(project)]) == 2
    stderr = capsys.readouterr().err
    assert f"  {path}" in stderr and fix in stderr and "Traceback" not in stderr, stderr


def test_used_directly_the_component_refuses_addons_without_the_eks_clusters_name():
    from trainstack import ConfigError
    from trainstack.hyperpod import HyperPodCluster

    settings = {"orchestrator": "eks",
                "clusterName": "ml", "trainingOperator": True,
                "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]}
    with pytest.raises(ConfigError) as raised:
        HyperPodCluster("hp", {"settings": settings, "region": "us-east-1", "subnet_id": "subnet-a",
                               "security_group_ids": ["sg-a"],
                               "eks": {"cluster_arn": "arn:aws:eks:us-east-1:123456789012:cluster/c",
                                       "authentication_mode": "API"}})
    issue = raised.value.issues[0]
    assert issue.path == "HyperPodCluster(hp):eks.cluster_name" and "cluster_name" in issue.fix
