"""HyperPod on EKS, as EKS and HyperPod will treat what a stack renders: HyperPod's nodes reach
the control plane and CoreDNS and are reached by it; their execution role carries what the VPC
CNI and the Pod Identity agent call; everything installed, by the stack or by the HyperPod
chart the plan prints, has one controller per kind; and the cluster runs a Kubernetes version
HyperPod supports. Every shipped stack and the generated variants (Slurm and EKS, with and
without FSx, each combination of job operators, task governance) pass; each original finding
of issue 25 is caught on the shipped HyperPod EKS stack when brought back."""

import copy
import json

import pytest
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from support.scratch import plan_config
from trainstack import ConfigError
from trainstack.catalog import hyperpod_eks as facts
from trainstack.config import validate_stack_config
from trainstack.controllers import hyperpod_eks_findings as findings_of_stack
from trainstack.controllers.cluster_controllers import installed_by_stack, printed_chart_switches
from trainstack.controllers.hyperpod_eks import CNI_POLICY
from trainstack.controllers.security_groups import Reachability
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan

HYPERPOD, EKS = "aws-native:sagemaker:Cluster", "eks:index:Cluster"
ATTACHMENT, INLINE = "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "aws:iam/rolePolicy:RolePolicy"
BASE = {
    "profile": "dev", "region": "us-west-2", "network": {"zones": ["us-west-2a", "us-west-2b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "hyperpod": {"orchestrator": "eks",
                 "clusterName": "ml", "trainingOperator": True,
                 "workers": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 2,
                              "deepHealthChecks": ["InstanceStress", "InstanceConnectivity"]}]},
    "fsx": {"storageCapacityGiB": 1200, "zone": "us-west-2a", "namespace": "kubeflow"},
}


def variant(**changes):
    config = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            config.pop(key)
        elif isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key].update(value)
        else:
            config[key] = value
    return config


SLURM = {"orchestrator": "slurm", "clusterName": "ml", "trainingOperator": False,
         "controller": {"name": "controller", "instanceType": "ml.c5.xlarge", "count": 1}}
VARIANTS = {
    "eks, FSx, training operator": variant(),
    "eks without FSx": variant(fsx=None),
    "eks, training and MPI operators": variant(operators={"trainingOperator": True, "mpiOperator": True}),
    "eks, MPI operator only": variant(operators={"trainingOperator": False, "mpiOperator": True}),
    "eks, no job operator of trainstack's": variant(operators={"trainingOperator": False}),
    "eks, trn1 workers and task governance": variant(hyperpod={
        "taskGovernance": True, "workers": [{"name": "trn", "instanceType": "ml.trn1.32xlarge", "count": 2}]}),
    "slurm with FSx": variant(eks=None, hyperpod=SLURM),
    "slurm without FSx": variant(eks=None, fsx=None, hyperpod=SLURM),
}


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    return {name: plan_config(tmp_path_factory.mktemp("variant"), "v", config) for name, config in VARIANTS.items()}


def shipped(stack="hyperpod-eks"):
    return Plan.from_dict(copy.deepcopy(planned_record(stack)))


def edited(edit):
    document = copy.deepcopy(planned_record("hyperpod-eks"))
    edit(document)
    return Plan.from_dict(document)


def printed(plan):
    return [d["message"] for d in plan.diagnostics]


def hyperpod_eks_findings(plan):
    """The model over a plan: its resources as a policy sees them, and the warnings the program printed."""
    return findings_of_stack(stack_from_plan(plan), printed(plan))


def resource(document, type_token, name_suffix=""):
    return next(r for r in document["resources"] if r["type"] == type_token and r["name"].endswith(name_suffix))


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_shipped_stack_passes_the_model(stack):
    assert [str(f) for f in hyperpod_eks_findings(shipped(stack))] == []


@pytest.mark.parametrize("name", VARIANTS)
def test_every_generated_variant_passes_the_model(variants, name):
    assert [str(f) for f in hyperpod_eks_findings(variants[name])] == []


def test_hyperpod_nodes_reach_the_api_server_and_coredns_and_the_control_plane_reaches_their_kubelet():
    plan = shipped()
    cluster_group = plan.by_type(EKS)[0].outputs["clusterSecurityGroupId"]
    nodes = plan.by_type(HYPERPOD)[0].inputs["vpcConfig"]["securityGroupIds"]
    system = next(r for r in plan.by_type("aws:ec2/launchTemplate:LaunchTemplate") if r.name.endswith("-system"))
    reach = Reachability.of_stack(stack_from_plan(plan), eks_cluster_groups=[cluster_group])
    assert reach.allows(nodes, [cluster_group], "tcp", 443)
    assert reach.allows([cluster_group], nodes, "tcp", 10250)
    assert reach.allows(nodes, system.inputs["vpcSecurityGroupIds"], "udp", 53)
    assert reach.allows(nodes, system.inputs["vpcSecurityGroupIds"], "tcp", 53)


def test_nodes_only_in_the_efa_group_cannot_join_the_cluster():
    def efa_group_only(document):
        config = resource(document, HYPERPOD)["inputs"]["vpcConfig"]
        config["securityGroupIds"] = config["securityGroupIds"][:1]
    messages = [f.message for f in hyperpod_eks_findings(edited(efa_group_only))]
    assert len(messages) == 4, messages
    for expected in ("TCP 443", "TCP 10250", "UDP 53", "TCP 53"):
        assert any(f"({expected})" in m for m in messages), expected


def test_the_execution_role_carries_the_vpc_cni_policy_and_pod_identity_on_its_cluster():
    plan = shipped()
    role_arn = plan.by_type(HYPERPOD)[0].inputs["instanceGroups"][0]["executionRole"]
    role = next(r for r in plan.by_type("aws:iam/role:Role") if r.outputs.get("arn") == role_arn)
    attached = {a.inputs["policyArn"] for a in plan.by_type(ATTACHMENT) if a.inputs["role"] == role.id}
    assert CNI_POLICY in attached
    (inline,) = [p for p in plan.by_type(INLINE) if p.inputs["role"] == role.id]
    (grant,) = [s for s in json.loads(inline.inputs["policy"])["Statement"]
                if s["Action"] == "eks-auth:AssumeRoleForPodIdentity"]
    assert grant["Resource"] == plan.by_type(HYPERPOD)[0].inputs["orchestrator"]["eks"]["clusterArn"]


def test_a_role_without_the_cni_policy_leaves_pods_without_addresses():
    def detach(document):
        document["resources"].remove(resource(document, ATTACHMENT, "-nodes-vpc-cni"))
    (finding,) = hyperpod_eks_findings(edited(detach))
    assert "ec2:AssignPrivateIpAddresses" in finding.message and "ec2:UnassignPrivateIpAddresses" in finding.message


def test_a_role_without_pod_identity_leaves_pods_without_credentials():
    def drop_grant(document):
        policy = resource(document, INLINE, "-nodes-network")["inputs"]
        statements = json.loads(policy["policy"])
        statements["Statement"] = [s for s in statements["Statement"] if s.get("Sid") != "PodIdentity"]
        policy["policy"] = json.dumps(statements)
    (finding,) = hyperpod_eks_findings(edited(drop_grant))
    assert "eks-auth:AssumeRoleForPodIdentity" in finding.message


def test_the_chart_with_its_operators_on_would_give_every_kubeflow_job_kind_two_controllers():
    def chart_defaults(document):
        for diagnostic in document["diagnostics"]:
            diagnostic["message"] = diagnostic["message"].replace(" --set trainingOperators.enabled=false", "") \
                .replace(" --set mpi-operator.enabled=false", "")
    subjects = {f.subject for f in hyperpod_eks_findings(edited(chart_defaults))}
    assert subjects == {"kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/MXJob",
                        "kubeflow.org/XGBoostJob", "kubeflow.org/PaddleJob", "kubeflow.org/MPIJob"}


def test_trainstacks_kueue_beside_task_governance_gives_kueue_two_controllers():
    def kueue_twice(document):
        addon = copy.deepcopy(resource(document, "aws:eks/addon:Addon", "-coredns"))
        addon.update(name="x-taskgovernance", urn=addon["urn"] + "-tg")
        addon["inputs"]["addonName"] = "amazon-sagemaker-hyperpod-taskgovernance"
        release = copy.deepcopy(resource(document, "kubernetes:helm.sh/v3:Release", "-autoscaler"))
        release.update(name="x-kueue", urn=release["urn"] + "-kueue")
        release["inputs"]["chart"] = "oci://registry.k8s.io/kueue/charts/kueue"
        document["resources"] += [addon, release]
    subjects = {f.subject for f in hyperpod_eks_findings(edited(kueue_twice))}
    assert subjects == {"kueue.x-k8s.io/ClusterQueue", "kueue.x-k8s.io/LocalQueue", "kueue.x-k8s.io/Workload"}


@pytest.mark.parametrize("stack", ["hyperpod-eks", *[n for n in VARIANTS if n.startswith("eks")]])
def test_the_printed_chart_install_agrees_with_what_the_stack_installs(variants, stack):
    plan = shipped() if stack == "hyperpod-eks" else variants[stack]
    (switches,) = printed_chart_switches(printed(plan))
    by_stack = {owned for owned, _ in installed_by_stack(stack_from_plan(plan))}
    for component in facts.HYPERPOD_CHART:
        on = switches.get(component.condition, component.enabled_by_default)
        assert not (on and by_stack & set(component.owns)), (component.condition, by_stack & set(component.owns))
        if component.condition in ("trainingOperators.enabled", "mpi-operator.enabled") and not on:
            assert set(component.owns) <= by_stack, f"{component.condition} off with nothing in its place"


def test_a_kubernetes_version_hyperpod_does_not_support_is_refused_with_the_key_and_the_fix(monkeypatch):
    monkeypatch.setattr(facts, "HYPERPOD_EKS_KUBERNETES_VERSIONS", ("1.34",))
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(variant(eks={"version": "1.35"}))
    text = str(refused.value)
    assert "eks.version" in text and "1.35" in text and "set eks.version to one of 1.34" in text


def test_the_model_flags_a_cluster_on_a_version_hyperpod_does_not_support():
    def old_version(document):
        resource(document, EKS)["inputs"]["version"] = "1.29"
    (finding,) = hyperpod_eks_findings(edited(old_version))
    assert "Kubernetes 1.29" in finding.message


def test_a_connection_needs_egress_from_the_source_and_ingress_at_the_destination():
    from trainstack.controllers.security_groups import Rule

    out = Rule("egress", "sg-a", "tcp", 443, 443, peer_group="sg-b")
    into = Rule("ingress", "sg-b", "-1", 0, 65535, peer_group="sg-a")
    vpc_wide = Rule("ingress", "sg-b", "udp", 53, 53, cidr="10.0.0.0/8")
    reach = Reachability([out, into, vpc_wide], vpc_cidrs=["10.0.0.0/16"])
    assert reach.allows(["sg-a"], ["sg-b"], "tcp", 443)
    assert not reach.allows(["sg-a"], ["sg-b"], "tcp", 10250)  # no egress for it
    assert not reach.allows(["sg-b"], ["sg-a"], "tcp", 443)  # rules are directional
    assert not Reachability([out], ["10.0.0.0/16"]).allows(["sg-a"], ["sg-b"], "tcp", 443)  # no ingress
    open_out = Rule("egress", "sg-a", "-1", 0, 65535, cidr="0.0.0.0/0")
    assert Reachability([open_out, vpc_wide], ["10.0.0.0/16"]).allows(["sg-a"], ["sg-b"], "udp", 53)
    assert not Reachability([open_out, vpc_wide], ["192.168.0.0/16"]).allows(["sg-a"], ["sg-b"], "udp", 53)


def test_the_hyperpod_page_shows_the_command_the_hyperpod_eks_stack_prints():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "hyperpod.md").read_text()
    (printed,) = [d["message"].split("installed as: ", 1)[1]
                  for d in planned_record("hyperpod-eks")["diagnostics"] if "HyperPodHelmChart" in d["message"]]
    assert f"```bash\n{printed}\n```" in readme


def test_a_vpc_cni_older_than_hyperpod_needs_is_refused_in_the_config_and_flagged_in_a_plan():
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(variant(eks={"addonVersions": {"vpcCni": "v1.18.2-eksbuild.1"}}))
    assert "eks.addonVersions.vpcCni" in str(refused.value) and "v1.18.3-eksbuild.1 or later" in str(refused.value)
    assert validate_stack_config(variant(eks={"addonVersions": {"vpcCni": "v1.18.3-eksbuild.1"}}))

    def old_cni(document):
        resource(document, "aws:eks/addon:Addon", "-vpc-cni")["inputs"]["addonVersion"] = "v1.18.2-eksbuild.1"
    (finding,) = hyperpod_eks_findings(edited(old_cni))
    assert "vpc-cni v1.18.2-eksbuild.1" in finding.message
