"""The resource-type table: one row per type the library renders, read by every tool that needs a
fact about a type; no reader keeps its own table keyed by type."""

import ast
from pathlib import Path

import pytest
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from trainstack import names
from trainstack.catalog import resource_types
from trainstack.catalog.resource_types import RESOURCE_TYPES, node_group_minutes
from trainstack.plan.fixtures import SHAPES
from trainstack.policy import REMOVED_RULES, RULES
from trainstack.review import locate

PACKAGE = Path(__file__).resolve().parents[2] / "components"
TABLE = PACKAGE / "catalog" / "resource_types.py"
TYPE_NAMES = {key for key, value in vars(names).items()
              if key.isupper() and isinstance(value, str) and value.count(":") == 2}
"""The names of the type tokens in ``trainstack.names`` (``NODE_GROUP``, ``GPU_NODE_GROUP_COMPONENT``)."""


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_type_a_shipped_stack_plans_has_a_row(stack):
    # The engine's own resources (the stack, the providers) are not the library's types.
    planned = {r["type"] for r in planned_record(stack)["resources"] if not r["type"].startswith("pulumi:")}
    assert sorted(t for t in planned if resource_types.find(t) is None) == []


def test_each_type_has_one_row():
    tokens = [row.token for row in RESOURCE_TYPES]
    assert len(tokens) == len(set(tokens))


def test_every_timed_row_says_where_its_time_comes_from():
    assert [row.token for row in RESOURCE_TYPES if (row.minutes or row.minutes_for) and not row.minutes_source] == []


def test_every_offline_output_shape_a_row_names_is_a_fixture():
    assert {row.outputs.shape for row in RESOURCE_TYPES if row.outputs} <= set(SHAPES)


def test_an_accelerated_node_group_takes_longer_than_a_cpu_one():
    assert node_group_minutes({"amiType": "AL2023_x86_64_NVIDIA"}) == 8.0
    assert node_group_minutes({"amiType": "AL2023_x86_64_NEURON"}) == 8.0
    assert node_group_minutes({"amiType": "AL2023_x86_64_STANDARD"}) == 2.0


def _keys_naming_a_type(node: ast.Dict) -> list[str]:
    found = []
    for key in node.keys:
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        for part in parts:
            name = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else None
            if name in TYPE_NAMES:
                found.append(name)
    return found


def test_no_module_but_the_table_keeps_a_dict_keyed_by_resource_type():
    # A second table keyed by type is a second place to add a type: readers look the row up instead.
    tables = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict) and _keys_naming_a_type(node):
                tables.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {_keys_naming_a_type(node)}")
    assert tables == []


def test_the_scan_sees_a_dict_keyed_by_type():
    tree = ast.parse("RUNNING = {NODE_GROUP: 'node group', (names.VPC, 'cidrBlock'): 'vpcCidr'}")
    (table,) = [node for node in ast.walk(tree) if isinstance(node, ast.Dict)]
    assert _keys_naming_a_type(table) == ["NODE_GROUP", "VPC"]


def test_every_rule_the_review_points_at_is_a_registered_policy_rule():
    registered = {rule.id for rule in RULES}
    assert set(locate.RULE_LEAVES) <= registered
    assert set(locate.STACK_WIDE_RULES) <= registered


def test_no_module_outside_policy_names_a_removed_rule():
    # policy/ keeps the removed rules' ids to tell a configuration that names one where it went.
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "policy" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in REMOVED_RULES:
                named.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value}")
    assert named == []
