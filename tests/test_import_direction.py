"""Imports run one way (docs/ARCHITECTURE.md): the catalog is a leaf, config reads only the
catalog, the components never reach up into the stack, the CLI or the plan engine, and the
outputs contract is assembled from parts handed to it, not from the TrainingStack.

Every import counts, those under ``if TYPE_CHECKING:`` too: a type-only import is still a
dependency a reader has to follow."""

import ast

import pytest
from support.module_imports import PACKAGE, imports_in

COMPONENTS = ("network", "cluster", "nodegroups", "storage", "hyperpod", "addons", "tenancy")
ABOVE_COMPONENTS = {"cli", "analysis", "plan", "launch", "estimate", "policy", "preflight", "report", "training_stack",
                    "stack_contract", "package"}


LEAVES = {"names", "version", "cidrs"}
"""The leaves of shared names (type tokens, labels, taints), the library's version and CIDR sets (what
addresses blocks hold together): below every unit, so any may import them."""


def imports_of(unit: str) -> set[str]:
    """The top-level trainstack modules and packages that ``unit`` (a package or module) imports,
    the leaves left out."""
    path = PACKAGE / unit
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    found = set()
    for file in files:
        for target, names in imports_in(file):
            found |= {target[0]} if target else set(names)
    return found - {unit, *LEAVES}


@pytest.mark.parametrize("leaf", ["names", "cidrs"])
def test_the_shared_names_and_cidr_sets_import_nothing_of_trainstack(leaf):
    tree = ast.parse((PACKAGE / f"{leaf}.py").read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                and (getattr(node, "level", 0) or (getattr(node, "module", "") or "").startswith("trainstack"))]


def test_the_catalog_imports_nothing_of_trainstack_but_the_shared_names():
    assert imports_of("catalog") == set()


def test_the_file_boundary_imports_nothing_of_trainstack_but_the_yaml_readers_rules():
    # Every reader of a file or a user's value stands on it, so it stands on nothing but a leaf: how the YAML
    # readers it writes for and reads as type a scalar.
    assert imports_of("boundary") <= {"yaml_scalars"}
    assert imports_of("yaml_scalars") == set()


def test_the_kubernetes_client_stands_on_the_file_boundary_alone():
    # The rehearsal, the preflight of nodes and the controller models all use it.
    assert imports_of("kube") <= {"boundary"}


def test_the_preflight_reads_the_config_the_catalog_the_launchers_requests_the_outputs_and_the_kubernetes_client():
    # Nodes are judged against what the launchers' pods request (launch.node_needs), not a copy of it; the node
    # preflight's groups are the outputs contract's (a leaf the launchers read too).
    assert imports_of("preflight") <= {"config", "catalog", "launch", "kube", "boundary", "outputs"}


def test_config_reads_only_the_catalog():
    assert imports_of("config") <= {"catalog", "boundary"}


def test_the_plan_engine_names_no_component():
    # The catalog's resource-type table says which fixture makes a type's outputs.
    assert imports_of("plan") <= {"boundary", "catalog", "yaml_scalars"}


def test_the_outputs_contract_reads_only_the_boundary():
    assert imports_of("outputs") <= {"boundary"}


def test_launchers_read_the_outputs_contract_and_only_the_catalog_besides():
    # The catalog holds no stack's state, only hardware facts (the all-reduce floor's peaks):
    # a launcher still knows a stack only through its outputs.
    assert imports_of("launch") <= {"outputs", "catalog", "boundary"}


def test_the_estimates_read_records_and_the_catalog_and_the_cost_ceiling_reads_the_estimate():
    # One cost computation: the policy rule calls the estimate, the estimate never calls a rule.
    assert imports_of("estimate") <= {"plan", "catalog"}
    assert imports_of("policy") <= {"plan", "catalog", "estimate"}


def test_the_review_reads_records_not_programs():
    assert imports_of("review") <= {"plan", "policy", "estimate", "boundary", "catalog"}


def test_the_analysis_plans_and_judges_below_the_cli_and_builds_nothing():
    # The CLI and programs call it; it calls the plan engine and the tools that read the plan.
    assert imports_of("analysis") <= {"plan", "config", "controllers", "estimate", "launch", "outputs", "policy",
                                      "review", "report", "boundary"}


def test_the_report_draws_records_with_the_estimates_and_the_review_and_builds_nothing():
    assert imports_of("report") <= {"plan", "estimate", "review", "catalog"}


@pytest.mark.parametrize("component", COMPONENTS)
def test_components_do_not_reach_up_into_the_stack_the_cli_or_the_tools(component):
    assert not imports_of(component) & ABOVE_COMPONENTS


def test_the_outputs_contract_is_built_from_parts_not_from_the_training_stack():
    assert "training_stack" not in imports_of("stack_contract")
    assert "stack_contract" in imports_of("training_stack")


def test_the_component_package_serves_the_library_and_nothing_imports_it():
    # trainstack.package sits on top: the served components, the config models, the outputs' names.
    assert imports_of("package") <= {"training_stack", "network", "cluster", "storage", "hyperpod", "config", "outputs"}
    units = [unit.stem for unit in PACKAGE.iterdir()
             if (unit.is_dir() and (unit / "__init__.py").is_file()) or unit.suffix == ".py"]
    importers = {unit for unit in units if unit not in ("package", "__init__") and "package" in imports_of(unit)}
    assert importers == set()


def test_controller_models_read_records_and_rendered_objects_and_build_nothing():
    assert imports_of("controllers") <= {"plan", "policy", "catalog", "outputs", "kube"}


def test_doctor_reads_the_record_and_the_cluster_and_builds_nothing():
    # Doctor judges a running cluster by the same readings of a record as the plan's tools (policy's view, the
    # controller models', the rehearsal's node shapes, the preflight's devices, the launchers' needs): never a
    # component, the stack or the CLI.
    assert imports_of("doctor") <= {"plan", "policy", "controllers", "rehearsal", "preflight", "launch", "config",
                                    "catalog", "outputs", "kube", "boundary"}
