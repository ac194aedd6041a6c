"""Every EFA node's containers get the locked memory EFA registers, set node-side through nodeadm's base
runtime spec, so no pod needs IPC_LOCK and Baseline Pod Security stays (catalog/efa_node.py says why).

The user data is read as nodeadm reads it (awslabs/amazon-eks-ami v20260724): the MIME parts of type
application/node.eks.aws are NodeConfig YAML; their ``spec.containerd.baseRuntimeSpec`` is merged over nodeadm's
default spec, where a list replaces the default's list whole (util.Merge, mergo.WithOverride), and every number
passes through a float64 (encoding/json into interface{}) before containerd reads it into the spec's uint64."""

import base64
import email
from decimal import Decimal

import pytest
import yaml
from support import crds
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from trainstack import catalog
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
# nodeadm/internal/containerd/base-runtime-spec.json at v20260724: its only rlimit. Anything it leaves out a
# container inherits from containerd, whose RLIMIT_MEMLOCK on the AL2023 AMI is 8 MiB.
NODEADM_DEFAULT_RLIMITS = [{"type": "RLIMIT_NOFILE", "soft": 65536, "hard": 1048576}]
CONTAINERD_DEFAULT_MEMLOCK = 8 * 1024 * 1024
# The most memory any EFA type of the catalog has: a pod cannot pin more, so a limit this high is unlimited.
LARGEST_EFA_NODE_BYTES = max(t.memory_gib or 0 for t in map(catalog.get, catalog.names()) if t.efa.supported) << 30


def as_containerd_reads(value: int) -> int:
    """``value`` after nodeadm's float64 (Go writes a float64 in its shortest form, as Python's repr does), as
    containerd reads it into the OCI spec's uint64."""
    written = int(Decimal(repr(float(value))))
    if not 0 <= written < 2 ** 64:
        raise ValueError(f"containerd cannot read {written} into the runtime spec's uint64: it fails every pod")
    return written


def node_configs(user_data: str) -> list[dict]:
    return [yaml.safe_load(part.get_payload()) for part in email.message_from_string(user_data).walk()
            if part.get_content_type() == "application/node.eks.aws"]


def container_rlimits(user_data: str) -> dict[str, tuple[int, int]]:
    """Each rlimit a container of the node gets from the base runtime spec: (soft, hard), as containerd reads it."""
    rlimits = NODEADM_DEFAULT_RLIMITS
    for config in node_configs(user_data):
        ours = (((config.get("spec") or {}).get("containerd") or {}).get("baseRuntimeSpec") or {}).get("process", {})
        rlimits = ours.get("rlimits") or rlimits
    return {r["type"]: (as_containerd_reads(r["soft"]), as_containerd_reads(r["hard"])) for r in rlimits}


def memlock(user_data: str) -> tuple[int, int]:
    return container_rlimits(user_data).get("RLIMIT_MEMLOCK", (CONTAINERD_DEFAULT_MEMLOCK, CONTAINERD_DEFAULT_MEMLOCK))


def launch_templates(stack: str) -> list[tuple[str, bool, str]]:
    """(name, has EFA interfaces, decoded user data) of each launch template the stack's plan makes."""
    return [(r["name"], any(i.get("interfaceType") in ("efa", "efa-only") for i in r["inputs"].get("networkInterfaces")
                                or []), base64.b64decode(r["inputs"]["userData"]).decode())
            for r in planned_record(stack)["resources"] if r["type"] == LT]


def test_nodeadm_would_turn_rlim_infinity_into_a_number_containerd_cannot_read_so_it_is_not_used():
    with pytest.raises(ValueError, match="18446744073709552000"):
        as_containerd_reads(2 ** 64 - 1)


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_efa_group_of_every_shipped_stack_lets_its_containers_lock_all_the_nodes_memory(stack):
    for name, efa, user_data in launch_templates(stack):
        soft, hard = memlock(user_data)
        if efa:
            assert min(soft, hard) >= LARGEST_EFA_NODE_BYTES, (
                f"{stack} {name}: its containers may lock {soft} bytes (soft), {hard} (hard), fewer than an EFA node's "
                f"{LARGEST_EFA_NODE_BYTES}: EFA memory registration fails past it")
            # nodeadm's own file limits stay: the list trainstack gives replaces nodeadm's.
            assert container_rlimits(user_data)["RLIMIT_NOFILE"] == (65536, 1048576)
        else:
            # A group without EFA keeps nodeadm's spec, so its nodes do not roll for this.
            assert (soft, hard) == (CONTAINERD_DEFAULT_MEMLOCK,) * 2, f"{stack} {name}"


def test_the_shipped_stacks_have_efa_groups_for_the_test_above_to_judge():
    assert sum(efa for stack in SHIPPED_STACKS for _, efa, _ in launch_templates(stack)) >= 5


def test_a_karpenter_efa_pool_carries_the_same_node_config_and_an_elastic_pool_without_efa_none():
    config = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
              "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
              "nodeGroups": [{"name": "efa", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
                              "autoscaler": "karpenter", "efa": True},
                             {"name": "prep", "instanceType": "g6.xlarge", "maxSize": 4, "zone": "us-east-1a",
                              "autoscaler": "karpenter", "spot": True}]}
    record = run_program(lambda: TrainingStack("k", config), project="demo", stack="k")
    classes = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in record.resources if r.type == NODE_CLASS}
    assert min(memlock(classes["efa"]["userData"])) >= LARGEST_EFA_NODE_BYTES
    crds.validate("karpenter-v1.14.1", {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
                                        "metadata": {"name": "efa"}, "spec": classes["efa"]})
    assert "userData" not in classes["prep"]
