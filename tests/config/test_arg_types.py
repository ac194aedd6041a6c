"""A component's Args are as strict as a stack file (config/arg_types.py, config/component_args.py).

A key the Args do not have is refused as a stack file's unknown key is, with the key it is closest to; a value of
another type is refused naming its key, never bent (the number 1.30 is no version) and never left to fail later as
a ``KeyError`` or ``AttributeError``; a config block's keys are named from the component
(``GpuEksCluster(train):nodeGroups[0].instanceTyp``). Every check here runs before any resource is registered, so
no Pulumi runtime is needed. tests/test_library_args_properties.py holds every component to the same, drawn.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest
import trainstack
from trainstack import (
    ClusterAttachment,
    ConfigError,
    GpuEksCluster,
    GpuNodeGroup,
    HyperPodCluster,
    LustreFileSystem,
    TrainingStack,
    validate_stack_config,
)
from trainstack.cluster.eks_cluster import GpuEksClusterArgs
from trainstack.config import FsxConfig, HyperPodConfig, validate
from trainstack.config.arg_types import evaluated, understood
from trainstack.config.component_args import check_args
from trainstack.hyperpod.cluster import HyperPodClusterArgs
from trainstack.storage.lustre import LustreFileSystemArgs

SUBNETS = {"us-east-1a": "subnet-a", "us-east-1b": "subnet-b"}
GROUP = {"name": "gpu", "instanceType": "p5.48xlarge", "minSize": 0, "maxSize": 2, "zone": "us-east-1a"}
CLUSTER = {"cluster_name": "train", "region": "us-east-1", "vpc_id": "vpc-1", "private_subnet_ids": SUBNETS,
           "node_groups": [GROUP]}
ATTACHMENT = {"cluster_name": "train", "kubernetes_version": "1.33", "cluster_security_group_id": "sg-cluster",
              "node_role_arn": "arn:aws:iam::123456789012:role/train-nodes", "subnet_ids": SUBNETS,
              "efa_security_group_id": "sg-efa"}
LUSTRE = {"settings": {"zone": "us-east-1a", "storageCapacityGiB": 1200}, "vpc_id": "vpc-1", "subnet_id": "subnet-a"}
HYPERPOD = {"settings": {"clusterName": "ml", "controller": {"name": "c", "instanceType": "ml.c5.xlarge", "count": 1},
                         "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]},
            "region": "us-east-1", "subnet_id": "subnet-a", "security_group_ids": ["sg-efa"]}
STACK = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
         "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "nodeGroups": [GROUP]}


def test_the_args_these_tests_break_are_valid_as_they_stand():
    """Each test below breaks one key of these: anything else they refuse would hide what it checks."""
    check_args("GpuEksCluster(train)", GpuEksClusterArgs, CLUSTER)
    check_args("LustreFileSystem(fsx)", LustreFileSystemArgs, LUSTRE)
    check_args("HyperPodCluster(hp)", HyperPodClusterArgs, HYPERPOD)
    validate_stack_config(STACK)
    validate(HyperPodConfig, HYPERPOD["settings"], prefix="HyperPodCluster(hp)")
    validate(FsxConfig, LUSTRE["settings"], prefix="LustreFileSystem(fsx)")


def refused(build: Any) -> ConfigError:
    with pytest.raises(ConfigError) as error:
        build()
    return error.value


def test_a_misspelled_args_key_is_refused_with_the_key_it_is_closest_to_not_dropped():
    """Dropped, ``node_group`` made a cluster with no GPU groups."""
    args = {**{k: v for k, v in CLUSTER.items() if k != "node_groups"}, "node_group": [GROUP]}
    (issue,) = refused(lambda: check_args("GpuEksCluster(train)", GpuEksClusterArgs, args)).issues
    assert (issue.path, issue.message) == ("GpuEksCluster(train):node_group", "unknown key 'node_group'.")
    assert issue.fix.startswith("did you mean 'node_groups'? Keys allowed here: cluster_name, external_nodes")


def test_a_misspelled_key_of_an_args_nested_in_the_args_is_refused_by_its_path():
    args = {**LUSTRE, "eks": {"cluster_name": "train", "depends_on": [], "job_namespace": ["a"]}}
    issues = refused(lambda: check_args("LustreFileSystem(fsx)", LustreFileSystemArgs, args)).issues
    assert "LustreFileSystem(fsx):eks.job_namespace" in [i.path for i in issues]
    assert next(i for i in issues if i.path.endswith("job_namespace")).fix.startswith("did you mean 'job_namespaces'")


def test_a_misspelled_key_of_a_node_group_is_named_from_the_component_as_a_stack_file_names_it():
    args = {**CLUSTER, "node_groups": [{**GROUP, "instanceTyp": "p5.48xlarge"}]}
    issues = refused(lambda: GpuEksCluster("train", args)).issues
    assert "GpuEksCluster(train):nodeGroups[0].instanceTyp" in [i.path for i in issues]


@pytest.mark.parametrize("build, path", [
    (lambda: GpuNodeGroup("gpu", {"settings": GROUP, "cluster": ClusterAttachment(
        **{**ATTACHMENT, "kubernetes_version": 1.30})}), "GpuNodeGroup(gpu):cluster.kubernetes_version"),
    (lambda: GpuEksCluster("train", {**CLUSTER, "settings": {"version": 1.30}}),
     "GpuEksCluster(train):settings.version"),
    (lambda: validate_stack_config({**STACK, "eks": {**STACK["eks"], "version": 1.30}}), "trainstack:eks.version"),
], ids=["ClusterAttachment", "GpuEksCluster settings", "stack file"])
def test_a_kubernetes_version_given_as_the_number_1_30_is_refused_asking_for_it_in_quotes(build, path):
    """Unquoted, 1.30 is the number 1.3: a node group's version was bent to 1.3 on its way to EKS."""
    (issue,) = [i for i in refused(build).issues if i.path == path]
    assert issue.value == 1.3
    assert 'write "1.30" in quotes' in issue.fix


@pytest.mark.parametrize("build, path", [
    (lambda: GpuEksCluster("train", {**CLUSTER, "region": 3}), "GpuEksCluster(train):region"),
    (lambda: validate_stack_config({**STACK, "nodeGroups": [{**GROUP, "name": 3}]}), "trainstack:nodeGroups[0].name"),
], ids=["Args", "stack file"])
def test_a_number_where_text_belongs_is_refused_asking_for_it_in_quotes(build, path):
    (issue,) = [i for i in refused(build).issues if i.path == path]
    assert issue.fix.startswith('write "3" in quotes')


@pytest.mark.parametrize("build, path, message", [
    (lambda: GpuEksCluster("train", {**CLUSTER, "private_subnet_ids": ["subnet-a"]}),
     "GpuEksCluster(train):private_subnet_ids", "this key takes a mapping of keys to values, not a list."),
    (lambda: GpuEksCluster("train", {**CLUSTER, "node_groups": "gpu"}),
     "GpuEksCluster(train):nodeGroups", "this key takes a list, not a string."),
    (lambda: GpuEksCluster("train", {**CLUSTER, "settings": None}),
     "GpuEksCluster(train):settings", "this key takes an EksConfig or a mapping of keys to values, not None."),
    (lambda: GpuNodeGroup("gpu", {"settings": GROUP, "cluster": ATTACHMENT}),
     "GpuNodeGroup(gpu):cluster", "this key takes a ClusterAttachment, not a mapping."),
    (lambda: LustreFileSystem("fsx", {**LUSTRE, "eks": ["train"]}),
     "LustreFileSystem(fsx):eks", "this key takes a mapping of EksMountArgs's keys, not a list."),
    (lambda: HyperPodCluster("hp", {**HYPERPOD, "security_group_ids": "sg-efa"}),
     "HyperPodCluster(hp):security_group_ids", "this key takes a list, not a string."),
    (lambda: TrainingStack("train", [STACK]),
     "TrainingStack(train)", "the arguments are a list, not a mapping of StackConfig's keys."),
], ids=["mapping", "list", "block", "dataclass", "nested Args", "Input list", "TrainingStack"])
def test_a_value_of_the_wrong_shape_is_refused_naming_its_key_before_anything_reads_it(build, path, message):
    """Read as they were, these stopped the program with an AttributeError ('list' object has no attribute
    'values'), iterated a string's letters as node groups, or took a TrainingStack's list for its keys."""
    (issue,) = refused(build).issues
    assert (issue.path, issue.message) == (path, message)


def public_args() -> list[type]:
    """Every Args ``trainstack`` exports, and the TypedDicts and dataclasses nested in them."""
    found: list[type] = []
    waiting = [getattr(trainstack, name) for name in trainstack.__all__ if name.endswith("Args")]
    while waiting:
        holder = waiting.pop()
        if holder in found:
            continue
        found.append(holder)
        try:
            hints = evaluated(holder)
        except NameError:
            continue  # the test below names it
        for annotation in hints.values():
            waiting += [inner for inner in within(annotation)
                        if typing.is_typeddict(inner) or (isinstance(inner, type) and dataclasses.is_dataclass(inner))]
    return found


def within(annotation: Any) -> list[Any]:
    return [annotation, *(inner for arg in typing.get_args(annotation) for inner in within(arg))]


@pytest.mark.parametrize("holder", public_args(), ids=lambda holder: holder.__qualname__)
def test_every_type_of_every_args_is_one_the_check_judges(holder):
    """A type the check cannot evaluate or does not understand would let any value through unchecked."""
    for key, annotation in evaluated(holder).items():
        assert understood(annotation), f"{holder.__qualname__}.{key}: {annotation}"


def test_the_args_checked_include_every_component_args_and_what_is_nested_in_them():
    names = {holder.__qualname__ for holder in public_args()}
    assert {"ClusterAttachment", "EksMountArgs", "CheckpointWriters", "HyperPodEksArgs", "KueueSetup"} <= names
