"""The package root is the library's front door: the mission's components (TrainingStack,
GpuEksCluster, TrainiumNodeGroup, HyperPodCluster, LustreFileSystem), the network and the node
groups import from ``trainstack``, each documented with a typed Args, and docs/library.md
("Library API: components") lists exactly what ``__all__`` exports."""

import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import pulumi
import pytest
import trainstack
from pydantic import BaseModel
from trainstack.plan import run_program

ROOT = Path(__file__).resolve().parent.parent
MISSION = ("GpuEksCluster", "TrainiumNodeGroup", "HyperPodCluster", "LustreFileSystem", "TrainingStack")
CONFIG = ("StackConfig", "ConfigError", "load_stack_config", "validate_stack_config")


def _library_page() -> str:
    text = (ROOT / "docs" / "library.md").read_text()
    return re.search(r"^# Library API: components\n(.*)", text, re.S).group(1)


def _exported(kind):
    return [name for name in trainstack.__all__ if kind(getattr(trainstack, name))]


def _is_component(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, pulumi.ComponentResource)


def _args_type(component: type) -> type:
    """The type of the constructor's ``args`` (its first member where it is a union)."""
    args = typing.get_type_hints(component.__init__)[list(inspect.signature(component.__init__).parameters)[2]]
    return typing.get_args(args)[0] if typing.get_origin(args) in (typing.Union, types.UnionType) else args


def _fields(args: type) -> dict:
    if isinstance(args, type) and issubclass(args, BaseModel):
        return {name: field.annotation for name, field in args.model_fields.items()}
    return dict(args.__annotations__)  # as written: some name types imported only for type checking


def test_the_missions_components_import_from_the_package_root():
    for name in MISSION:
        assert name in trainstack.__all__
        assert _is_component(getattr(trainstack, name)), name


def test_the_network_and_the_node_groups_import_from_the_package_root():
    from trainstack import (
        AcceleratedNodeGroup,
        GpuNodeGroup,
        KarpenterNodePool,
        Network,
        TrainiumNodeGroup,
        efa_security_group,
        system_node_group,
    )

    assert issubclass(GpuNodeGroup, AcceleratedNodeGroup) and issubclass(TrainiumNodeGroup, AcceleratedNodeGroup)
    assert all(map(_is_component, (Network, KarpenterNodePool, AcceleratedNodeGroup)))
    assert callable(efa_security_group) and callable(system_node_group)


@pytest.mark.parametrize("name", sorted(trainstack.__all__))
def test_every_export_is_a_component_an_args_or_a_documented_config_or_helper(name):
    obj = getattr(trainstack, name)
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else obj.__doc__
    assert doc and doc.strip(), f"{name} has no docstring of its own"
    if _is_component(obj) or name in CONFIG:
        return
    if name.endswith("Args"):
        assert typing.is_typeddict(obj), f"{name} is not a TypedDict"
        assert _fields(obj), f"{name} has no fields"
        return
    # A helper: a dataclass of annotated fields or a function with every parameter annotated.
    parameters = inspect.signature(obj).parameters
    assert all(p.annotation is not inspect.Parameter.empty for p in parameters.values()), name


@pytest.mark.parametrize("name", sorted(_exported(_is_component)))
def test_every_component_takes_a_typed_args_whose_fields_are_annotated(name):
    args = _args_type(getattr(trainstack, name))
    fields = _fields(args)
    assert fields and all(annotation is not None for annotation in fields.values())
    # The Args a user needs to spell is exported beside its component.
    assert args.__name__ in trainstack.__all__, f"{name}'s Args {args.__name__} is not exported"


def test_the_library_page_lists_exactly_what_all_exports_and_each_components_args():
    section = _library_page()
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    assert listed == set(trainstack.__all__) - {n for n in trainstack.__all__ if n.endswith("Args")}
    args_listed = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[3])}
    assert args_listed == {_args_type(getattr(trainstack, n)).__name__ for n in _exported(_is_component)}


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", _library_page(), re.S)


def test_the_library_pages_whole_program_is_the_consumer_examples_program():
    assert _examples()[0] == (ROOT / "examples" / "consumer" / "__main__.py").read_text()
    assert "stack.export_outputs()" in _examples()[0]


def test_the_library_pages_parts_plan_a_network_a_cluster_and_a_file_system_and_export_them():
    plan = run_program(lambda: exec(_examples()[1], {}), project="example", stack="dev")
    types = {r.type for r in plan.resources}
    assert {"trainstack:index:Network", "trainstack:index:GpuEksCluster", "trainstack:index:GpuNodeGroup",
            "trainstack:index:LustreFileSystem"} <= types
    assert plan.get("trainstack:index:LustreFileSystem", "train-fsx") is not None
    assert set(plan.outputs) == {"kubeconfig", "fileSystem"}
    assert set(plan.outputs["fileSystem"]) == {"id", "dnsName", "mountName"}


def test_importing_the_package_root_does_not_load_pulumi_aws():
    # The CLI and the config models import trainstack; the provider SDK waits for the first component.
    code = "import sys, trainstack; print('pulumi_aws' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
