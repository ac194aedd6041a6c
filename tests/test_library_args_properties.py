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

The Args are as strict as a stack file. A full, valid Args with one key misspelled (at the top, in an Args nested
in it, in a config block, in an entry of a list) is refused naming the misspelled key as an unknown key; with one
value replaced by a value of another JSON type, refused naming that key. Either way a ``ConfigError`` whose every
path is ``Component(x):...`` (a stack file's ``trainstack:...`` for TrainingStack), never a ``KeyError``,
``AttributeError`` or ``TypeError``; and never constructed, which would mean the key was dropped or the value bent.
"""

from __future__ import annotations

import contextvars
import re
import typing
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
from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from trainstack import ConfigError, StackConfig, catalog
from trainstack.addons.kueue import KueueSetup
from trainstack.config import AddonVersions, ConfigModel
from trainstack.config.errors import format_path
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



# Misspelled keys and values of another type ---------------------------------------------------------------

FEW = max(5, settings.default.max_examples // 3)
"""Examples per component and property: a third of the profile's (8 in CI, 333 nightly); each is refused before
any resource is registered, but ClusterAddons builds a whole cluster for its Args."""

ONE_GROUP = {"GpuNodeGroup", "TrainiumNodeGroup", "KarpenterNodePool"}
"""Components whose ``settings`` are one node group, whose keys their errors name at the top (``GpuNodeGroup(x):efa``,
as tests/nodegroups do)."""

Position = tuple[str | int, ...]
"""Where a key sits in the Args: ``("node_groups", 0, "instanceType")``."""


def key_types(args_name: str) -> dict[str, str]:
    """Each key of a reference table with its type as the reference writes it (``Sequence[NodeGroupConfig | dict]``)."""
    section = re.search(rf"#{{3,4}} `{args_name}` .*?(?=\n#{{3,4}} |\Z)", REFERENCE.read_text(), re.S)
    assert section, args_name
    return {key: kind.replace("\\|", "|") for key, kind in re.findall(r"\| `(\w+)` \| (?:yes|no) \| `([^`]*)` \|",
                                                                      section.group(0))}


def block_model(kind: str) -> type[BaseModel] | None:
    """The config model a key of this type holds (``EksConfig`` for ``EksConfig | dict``), if any."""
    models = [getattr(trainstack.config, word, None) for word in re.findall(r"\w+", kind)]
    return next((m for m in models if isinstance(m, type) and issubclass(m, BaseModel)), None)


def field_model(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    """The model of a block's key that holds a block, or a list of them (not a mapping of names to blocks, whose
    keys are names, not keys)."""
    field = next((f for name, f in model.model_fields.items() if key in (name, f.alias)), None)
    kind = field.annotation if field else None
    while typing.get_origin(kind) in (typing.Union, list) or str(typing.get_origin(kind)) == "types.UnionType":
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def block_positions(block: Any, model: type[BaseModel], at: Position) -> list[Position]:
    """Each key of a config block as given, and of the blocks in it, in lists too."""
    if not isinstance(block, dict):
        return []
    found: list[Position] = []
    for key, value in block.items():
        found.append((*at, key))
        inner = field_model(model, key)
        for index, item in (enumerate(value) if isinstance(value, list) else [(None, value)]) if inner else []:
            found += block_positions(item, inner, (*at, key) if index is None else (*at, key, index))
    return found


def args_positions(component: str, args: dict[str, Any]) -> list[tuple[Position, bool]]:
    """Each key of the Args, of the Args nested in them, and of their config blocks, with whether it can be
    misspelled (a ClusterAttachment's cannot: it is a dataclass, whose constructor refuses an unknown field)."""
    if component == "TrainingStack":
        return [(position, True) for position in block_positions(args, StackConfig, ())]
    args_name = args_of(component)
    types, nested = key_types(args_name), nested_of(args_name)
    found: list[tuple[Position, bool]] = []
    for key, value in args.items():
        found.append(((key,), True))
        if key in nested and isinstance(value, dict):
            found += [((key, inner), nested[key] != "ClusterAttachment") for inner in value]
        model = block_model(types[key])
        for index, item in enumerate(value) if model and isinstance(value, list) else []:
            found += [(position, True) for position in block_positions(item, model, (key, index))]
        if model and isinstance(value, dict):
            found += [(position, True) for position in block_positions(value, model, (key,))]
    return found


def named(component: str, position: Position) -> str:
    """How the component's errors name the key at ``position``: a list of config blocks as a stack file spells it
    (``GpuEksCluster(x):nodeGroups[0].instanceType``), every other Args key as the Args spell it."""
    if component == "TrainingStack":
        return format_path(position)
    head, *rest = position
    kind = key_types(args_of(component)).get(str(head), "")
    if component in ONE_GROUP and head == "settings" and rest:
        parts: Position = tuple(rest)
    elif kind.startswith("Sequence[") and block_model(kind):
        parts = (to_camel(str(head)), *rest)
    else:
        parts = position
    return format_path(parts, f"{component}(x)")


def known_keys() -> set[str]:
    """Every key any Args or config block has, by every spelling it is taken in: a slip that makes another real key
    is no misspelling."""
    keys = {key for table in reference_tables().values() for key in table}
    models, seen = [ConfigModel], set()
    while models:
        model = models.pop()
        seen.add(model)
        keys |= {spelling for name, f in model.model_fields.items() for spelling in (name, f.alias) if spelling}
        models += [sub for sub in model.__subclasses__() if sub not in seen]
    return keys


KNOWN = known_keys()


def slips(key: str) -> st.SearchStrategy[str]:
    """A slip of the keyboard in ``key``: a letter left out, doubled, swapped with the next, or its case changed."""
    def slip(index: int, how: str) -> str:
        if how == "drop":
            return key[:index] + key[index + 1:]
        if how == "double":
            return key[:index] + key[index] + key[index:]
        if how == "swap":
            return key[:index] + key[index + 1:index + 2] + key[index] + key[index + 2:]
        return key[:index] + key[index].swapcase() + key[index + 1:]

    return st.builds(slip, st.integers(0, len(key) - 1), st.sampled_from(["drop", "double", "swap", "case"])) \
        .filter(lambda typo: typo != key and typo not in KNOWN)


def edited(args: dict[str, Any], position: Position, change: Callable[[Any, str | int], None]) -> dict[str, Any]:
    """``args`` with ``change(container, key)`` applied where ``position`` ends; every container on the way copied,
    the rest (resources, providers) shared."""
    top = dict(args)
    container: Any = top
    for part in position[:-1]:
        inner = container[part]
        container[part] = copy = list(inner) if isinstance(inner, list) else dict(inner)
        container = copy
    change(container, position[-1])
    return top


def value_at(args: dict[str, Any], position: Position) -> Any:
    value: Any = args
    for part in position:
        value = value[part]
    return value


def renamed(args: dict[str, Any], position: Position, new: str) -> dict[str, Any]:
    def rename(container: dict, key: str | int) -> None:
        items = list(container.items())
        container.clear()
        container.update((new if k == key else k, v) for k, v in items)

    return edited(args, position, rename)


def replaced(args: dict[str, Any], position: Position, value: Any) -> dict[str, Any]:
    return edited(args, position, lambda container, key: container.__setitem__(key, value))


def as_passed(component: str, args: dict[str, Any]) -> Any:
    """The Args as a program passes them: a node group's cluster as the ClusterAttachment it is."""
    if component not in ("GpuNodeGroup", "TrainiumNodeGroup") or not isinstance(args.get("cluster"), dict):
        return args
    return {**args, "cluster": trainstack.ClusterAttachment(**args["cluster"])}


def json_type(value: Any) -> str:
    for kind, test in (("boolean", bool), ("number", int | float), ("string", str), ("list", list | tuple),
                       ("mapping", dict)):
        if isinstance(value, test):
            return kind
    return "object"  # a resource, a provider, a model, a ClusterAttachment: no JSON value is one


OTHER_JSON = {"boolean": st.just(True), "number": st.sampled_from([7, 1.30]), "string": st.just("text"),
              "list": st.just(["text"]), "mapping": st.just({"key": "text"})}
"""A value of each JSON type but null, which an optional key may rightly hold."""


def where(position: Position) -> str:
    return "in a list" if any(isinstance(p, int) for p in position) else "top" if len(position) == 1 else "nested"


ALL = [*CASES, Case("TrainingStack", stack_config)]


def refusal(component: str, build: Callable[[], Any]) -> ConfigError:
    """The ConfigError construction raises, every issue of it named from the component."""
    label = "trainstack" if component == "TrainingStack" else f"{component}(x)"
    try:
        construct(build)
    except ConfigError as error:
        assert all(i.path == label or i.path.startswith(f"{label}:") for i in error.issues), error
        return error
    raise AssertionError("constructed")


@pytest.mark.parametrize("case", ALL, ids=[case.component for case in ALL])
@settings(max_examples=FEW)
@given(data=st.data())
def test_a_misspelled_key_anywhere_in_the_args_is_refused_by_its_misspelled_name(case, data):
    component = getattr(trainstack, case.component)
    drawn: dict[str, Any] = {}

    def build() -> Any:
        args = case.full_args()
        places = [position for position, can in args_positions(case.component, args) if can]
        kinds = sorted({where(position) for position in places})
        kind = data.draw(st.sampled_from(kinds), label="where")
        position = data.draw(st.sampled_from([p for p in places if where(p) == kind]), label="key")
        typo = data.draw(slips(str(position[-1])), label="misspelled")
        drawn.update(kind=kind, position=(*position[:-1], typo))
        return component("x", as_passed(case.component, renamed(args, position, typo)))

    error = refusal(case.component, build)
    event(f"misspelled {drawn['kind']}")
    path = named(case.component, drawn["position"])
    assert any(i.path == path and i.message.startswith("unknown key") for i in error.issues), (path, str(error))


@pytest.mark.parametrize("case", ALL, ids=[case.component for case in ALL])
@settings(max_examples=FEW)
@given(data=st.data())
def test_a_value_of_another_json_type_anywhere_in_the_args_is_refused_naming_its_key(case, data):
    component = getattr(trainstack, case.component)
    drawn: dict[str, Any] = {}

    def build() -> Any:
        args = case.full_args()
        position = data.draw(st.sampled_from([position for position, _ in args_positions(case.component, args)]),
                             label="key")
        drawn["old"] = value_at(args, position)
        kinds = sorted(set(OTHER_JSON) - {json_type(drawn["old"])})
        value = data.draw(st.sampled_from(kinds).flatmap(OTHER_JSON.__getitem__), label="replaced by")
        drawn.update(position=position, value=value)
        return component("x", as_passed(case.component, replaced(args, position, value)))

    error = refusal(case.component, build)
    event(f"{json_type(drawn['old'])} replaced by a {json_type(drawn['value'])}")
    path = named(case.component, drawn["position"])
    assert path in [i.path for i in error.issues], (path, drawn["value"], str(error))
