"""The library's components as a program of one's own uses them, under Pulumi's simplest unit-test mocks
(each resource's outputs are its inputs: https://www.pulumi.com/docs/iac/guides/testing/unit/).

For every public component and every subset of its Args' keys left out (Hypothesis draws the subset from
the keys of a full, valid Args; the keys of the Args nested in it too), construction, with every
registration and apply awaited, either succeeds or is refused with a ``ConfigError`` naming what was left
out; never a ``KeyError``, ``TypeError``, ``AttributeError`` or any other exception. The oracle is the
published reference (docs/reference/python.md, generated from the source): a key it calls required is
refused by name, alone with the other required keys left out; keys it calls optional may all be left out,
or are refused by their own name where the settings need them (an EFA group's security group ...). What
construction makes is then what docs/library.md's table of children says each component holds.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws
import pulumi_aws_native
import pulumi_eks
import pulumi_kubernetes
import pytest
import trainstack
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st
from trainstack import ConfigError, StackConfig, catalog
from trainstack.addons.kueue import KueueSetup
from trainstack.config import AddonVersions
from trainstack.plan.engine import _cancel_what_is_left

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "docs" / "reference" / "python.md"
LIBRARY = REPO / "docs" / "library.md"
ZONES = ["us-east-1a", "us-east-1b"]
SUBNETS = {zone: f"subnet-{zone[-1]}" for zone in ZONES}


class EchoMocks(pulumi.runtime.Mocks):
    """Pulumi's unit-test guide's mocks: a resource's outputs are its inputs; every call returns nothing."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [args.name + "_id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


def construct(build: Callable[[], Any]) -> Any:
    """``build()`` under ``EchoMocks`` as ``@pulumi.runtime.test`` runs a test (every registration and apply
    awaited, so a failure inside an apply is raised here), in a context of its own (Pulumi keeps its settings
    in context variables) and with nothing left pending for the next one."""
    def run() -> Any:
        pulumi.runtime.set_mocks(EchoMocks(), preview=False)
        made = []

        @pulumi.runtime.test
        def program() -> None:
            made.append(build())

        try:
            program()
        except BaseException:
            _cancel_what_is_left()
            raise
        return made[0]

    return contextvars.Context().run(run)


# The oracle: the reference's tables ------------------------------------------------------------------------

def reference_tables() -> dict[str, dict[str, bool]]:
    """Every keys table of the reference (each Args, the Args nested in one, ClusterAttachment): its name, and
    each key with whether the reference calls it required."""
    tables: dict[str, dict[str, bool]] = {}
    current = None
    for line in REFERENCE.read_text().splitlines():
        heading = re.match(r"#{3,4} `(\w+)`", line)
        if heading:
            current = tables.setdefault(heading.group(1), {})
        row = re.match(r"\| `(\w+)` \| (yes|no) \| `([^`]*)` \|", line)
        if row and current is not None:
            current[row.group(1)] = row.group(2) == "yes"
    return {name: keys for name, keys in tables.items() if keys}


def args_of(component: str) -> str:
    """The Args a component takes, as the reference's signature line names it."""
    found = re.search(rf"`class {component}\(name: str, args: (\w+)", REFERENCE.read_text())
    assert found, f"the reference has no signature for {component}"
    return found.group(1)


def nested_of(args_name: str) -> dict[str, str]:
    """Each key of ``args_name`` that holds a table of its own (an Args nested in it), with that table's name."""
    text = REFERENCE.read_text()
    section = re.search(rf"### `{args_name}` .*?(?=\n### |\Z)", text, re.S)
    assert section, args_name
    typed = dict(re.findall(r"\| `(\w+)` \| (?:yes|no) \| `(\w+)` \|", section.group(0)))
    return {key: name for key, name in typed.items() if name in reference_tables()}


# Full, valid Args per component: every key given ---------------------------------------------------------

P5_GROUP = {"name": "gpu", "instanceType": "p5.48xlarge", "minSize": 0, "maxSize": 2, "zone": "us-east-1a"}


def provider() -> pulumi_kubernetes.Provider:
    return pulumi_kubernetes.Provider("cluster-k8s", kubeconfig="{}")


def attachment() -> dict[str, Any]:
    return {"cluster_name": "train", "kubernetes_version": "1.33", "cluster_security_group_id": "sg-cluster",
            "node_role_arn": "arn:aws:iam::123456789012:role/train-nodes", "subnet_ids": SUBNETS,
            "efa_security_group_id": "sg-efa", "depends_on": [], "lustre_over_efa": True}


def eks_cluster_args() -> dict[str, Any]:
    return {"settings": {"endpointAccess": "public", "publicAccessCidrs": ["203.0.113.0/24"]},
            "node_groups": [P5_GROUP], "cluster_name": "train", "region": "us-east-1", "vpc_id": "vpc-1",
            "private_subnet_ids": SUBNETS, "public_subnet_ids": {z: f"subnet-public-{z[-1]}" for z in ZONES},
            "lustre_over_efa": True, "external_nodes": [catalog.get("p5.48xlarge")]}


def stack_config() -> dict[str, Any]:
    config = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    return {key.split(":", 1)[1]: value for key, value in config.items() if key.startswith("trainstack:")}


@dataclass(frozen=True)
class Case:
    component: str
    full_args: Callable[[], dict[str, Any]]
    """Every key of its Args, with simple valid values; built inside the mocked program (providers are resources)."""


CASES = [
    Case("Network", lambda: {"settings": {"zones": ZONES}, "region": "us-east-1"}),
    Case("GpuEksCluster", eks_cluster_args),
    Case("GpuNodeGroup", lambda: {"settings": P5_GROUP, "cluster": attachment()}),
    Case("TrainiumNodeGroup", lambda: {"settings": {**P5_GROUP, "name": "trn", "instanceType": "trn1.32xlarge"},
                                       "cluster": attachment()}),
    Case("KarpenterNodePool", lambda: {
        "settings": {**P5_GROUP, "autoscaler": "karpenter"}, "subnet_id": "subnet-a", "security_group_id": "sg-c",
        "node_role_name": "karpenter-nodes", "efa_security_group_id": "sg-efa", "provider": provider(),
        "depends_on": []}),
    Case("LustreFileSystem", lambda: {
        "settings": {"zone": "us-east-1a", "storageCapacityGiB": 1200,
                     "checkpoints": {"sizeGB": 100, "intervalMinutes": 30, "exportToBucket": True}},
        "vpc_id": "vpc-1", "subnet_id": "subnet-a", "client_security_group_ids": ["sg-clients"],
        "eks": {"cluster_name": "train", "provider": provider(), "depends_on": [], "job_namespaces": ["team-a"]},
        "checkpoint_writers": {"instance_type": "p5.48xlarge", "count": 2, "efa": True},
        "checkpoint_bucket": "train-checkpoints"}),
    Case("S3Datasets", lambda: {
        "datasets": [{"name": "c4", "bucket": "train-c4", "mountPath": "/datasets/c4"}], "region": "us-east-1",
        "namespaces": ["default"], "cluster_name": "train", "provider": provider(), "depends_on": []}),
    Case("CheckpointBucket", lambda: {"settings": {"noncurrentVersionDays": 14}}),
    Case("HyperPodCluster", lambda: {
        "settings": {"orchestrator": "eks", "clusterName": "ml", "trainingOperator": True,
                     "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]},
        "region": "us-east-1", "subnet_id": "subnet-a", "security_group_ids": ["sg-efa"],
        "fsx_mount": {"dns_name": "fs-1.fsx.us-east-1.amazonaws.com", "mount_name": "abcdef", "mount_path": "/fsx"},
        "lustre_over_efa": True,
        "eks": {"cluster_arn": "arn:aws:eks:us-east-1:123456789012:cluster/train", "authentication_mode": "API",
                "cluster_name": "train", "kubeconfig": "{}", "addon_versions": AddonVersions(),
                "ready_for_workloads": [], "training_operator": False, "mpi_operator": False}}),
    Case("ClusterAddons", lambda: {
        "observability": {"prometheus": True}, "operators": {"kueue": True},
        "cluster": trainstack.GpuEksCluster("cluster", {**eks_cluster_args(), "node_groups": []}),
        "kueue": KueueSetup(configuration={}, objects=[]), "block_ends": []}),
]
"""Every component ``trainstack`` exports, but the node groups' base (``AcceleratedNodeGroup``: no accelerator
of its own, so it is built only as ``GpuNodeGroup`` or ``TrainiumNodeGroup``) and ``TrainingStack`` (below)."""


def droppable(case: Case) -> list[str]:
    """The keys a caller may leave out: every key of the Args, and ``key.inner`` for the keys of an Args nested
    in it (of a dataclass such as ClusterAttachment, the optional fields only: leaving out a required one is a
    TypeError where the caller builds it, before any component runs)."""
    tables = reference_tables()
    args_name = args_of(case.component)
    keys = list(tables[args_name])
    for key, nested in nested_of(args_name).items():
        keys += [f"{key}.{inner}" for inner, required in tables[nested].items()
                 if not (required and nested == "ClusterAttachment")]
    return keys


def subsets(keys: list[str], at_least: int = 0) -> st.SearchStrategy[set[str]]:
    return st.sets(st.sampled_from(keys), min_size=at_least) if keys else st.just(set())


def called_required(tables: dict[str, dict[str, bool]], args_name: str, key: str) -> bool:
    """Whether the reference calls ``key`` (``inner.key`` for a nested Args' key) required."""
    if "." not in key:
        return tables[args_name][key]
    outer, inner = key.split(".", 1)
    return tables[nested_of(args_name)[outer]][inner]


def without(args: dict[str, Any], dropped: set[str]) -> dict[str, Any]:
    """``args`` less the dropped keys; a nested mapping that stands for a dataclass is built as one."""
    kept = {key: value for key, value in args.items() if key not in dropped}
    for key, value in kept.items():
        if isinstance(value, dict) and any(d.startswith(f"{key}.") for d in dropped):
            kept[key] = {inner: v for inner, v in value.items() if f"{key}.{inner}" not in dropped}
    if "cluster" in kept and isinstance(kept["cluster"], dict):
        kept["cluster"] = trainstack.ClusterAttachment(**kept["cluster"])
    return kept


def names_a_dropped_key(path: str, label: str, dropped: set[str]) -> bool:
    key = path.removeprefix(f"{label}:")
    return path.startswith(f"{label}:") and any(key == d or key.startswith(f"{d}.") for d in dropped)


# The children docs/library.md says each component holds ---------------------------------------------------

TYPE_ROOTS = {"aws": pulumi_aws, "eks": pulumi_eks, "k8s": pulumi_kubernetes, "aws_native": pulumi_aws_native}


def documented_children() -> list[tuple[str, str, type]]:
    """(component, attribute, type) for each row of docs/library.md's table of the resources each makes."""
    rows = re.findall(r"^\| `(\w+)\.(\w+)` \| `([\w.]+)` \|", LIBRARY.read_text(), re.M)
    found = []
    for component, attribute, written in rows:
        root, *path = written.split(".")
        kind: Any = TYPE_ROOTS[root]
        for part in path:
            kind = getattr(kind, part)
        found.append((component, attribute, kind))
    return found


def check_children(made: Any) -> None:
    for component, attribute, kind in documented_children():
        if isinstance(made, getattr(trainstack, component)):
            assert isinstance(getattr(made, attribute), kind), f"{component}.{attribute} is not a {kind}"


# The properties ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[case.component for case in CASES])
@given(data=st.data())
def test_any_args_left_out_construct_or_are_refused_naming_them_as_the_reference_says(case, data):
    tables, args_name, label = reference_tables(), args_of(case.component), f"{case.component}(x)"
    keys = droppable(case)
    needed = [key for key in keys if called_required(tables, args_name, key)]
    # Half the examples leave out optional keys alone, so that what may be left out is tried as often as what
    # may not.
    dropped = data.draw(subsets(sorted(set(keys) - set(needed))), label="optional, left out") \
        | data.draw(st.one_of(st.just(set()), subsets(needed, at_least=1)), label="required, left out")
    required = {key for key in dropped if "." not in key and tables[args_name][key]}
    nested = {key for key in dropped if "." in key and key.split(".")[0] not in dropped
              and called_required(tables, args_name, key)}
    component = getattr(trainstack, case.component)
    try:
        made = construct(lambda: component("x", without(case.full_args(), dropped)))
    except ConfigError as error:
        event("refused")
        paths = [issue.path for issue in error.issues]
        assert paths, error
        if required:
            assert set(paths) == {f"{label}:{key}" for key in required}, (dropped, paths)
        assert all(names_a_dropped_key(path, label, dropped) for path in paths), (dropped, paths)
        return
    event("constructed")
    assert not required and not nested, f"left out {sorted(required | nested)}, which the reference calls " \
                                        "required, and it constructed"
    check_children(made)


@settings(max_examples=5)
@given(dropped=st.sets(st.sampled_from(sorted(stack_config()))))
def test_a_training_stack_without_any_of_its_keys_constructs_or_is_refused_naming_a_key_left_out(dropped):
    """TrainingStack's Args is the stack configuration: its required fields are StackConfig's (pydantic's
    own account), named as a stack file spells them."""
    required = {key for key in dropped
                if next(f for n, f in StackConfig.model_fields.items() if (f.alias or n) == key).is_required()}
    config = {key: value for key, value in stack_config().items() if key not in dropped}
    try:
        construct(lambda: trainstack.TrainingStack("x", config))
    except ConfigError as error:
        event("refused")
        paths = {issue.path for issue in error.issues}
        assert {f"trainstack:{key}" for key in required} <= paths, (dropped, paths)
        # Keys depend on each other in a stack file (nodeGroups need eks, the profile sets defaults): an issue
        # may be another key's, but one of them names a key that was left out.
        assert any(key in f"{issue.path} {issue.message} {issue.fix}" for issue in error.issues
                   for key in dropped), (dropped, error)
        return
    event("constructed")
    assert not required, f"left out {sorted(required)}, which StackConfig requires, and it constructed"


def test_every_component_the_package_exports_is_held_to_the_property():
    exported = {name for name in trainstack.__all__
                if isinstance(getattr(trainstack, name), type)
                and issubclass(getattr(trainstack, name), pulumi.ComponentResource)}
    assert exported == {case.component for case in CASES} | {"AcceleratedNodeGroup", "TrainingStack"}

