"""Shared names have one home: ``trainstack.names``.

A resource type token, a node label, a taint key or a device resource spelled as a string
in a second module of ``components/`` is a second place to change (and to get wrong) when
it changes: every module imports it from ``trainstack.names`` instead. Docstrings may name
them in prose; the kustomize YAML under ``addons/`` is applied as written and keeps its own.
"""

import ast
import re
from pathlib import Path

from trainstack import names

PACKAGE = Path(__file__).resolve().parent.parent / "components"
SHARED = {value: key for key, value in vars(names).items() if key.isupper() and isinstance(value, str)}
TYPE_TOKEN = re.compile(r"^(aws|aws-native|eks|kubernetes|trainstack|pulumi):[\w./-]+:[A-Z]\w*$")
"""A Pulumi resource type token: package, module, a capitalised type name."""


def string_literals(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of a module that are values, not docstrings or f-string pieces."""
    prose = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            prose.add(id(node.value))
        if isinstance(node, ast.JoinedStr):
            prose |= {id(part) for part in ast.walk(node)}
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose]


def spelled_outside_names() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "names.py":
            continue
        for node in string_literals(ast.parse(path.read_text())):
            if node.value in SHARED or TYPE_TOKEN.match(node.value):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value!r}"
                             f" (use names.{SHARED.get(node.value, '<add it>')})")
    return found


def test_type_tokens_labels_taints_and_device_resources_are_spelled_only_in_the_names_module():
    assert spelled_outside_names() == []


def test_the_names_module_holds_the_tokens_and_labels_the_issue_names():
    assert names.NODE_GROUP == "aws:eks/nodeGroup:NodeGroup"
    assert names.NODE_GROUP_LABEL == "trainstack.io/node-group"
    assert names.GPU_TAINT == {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    assert set(names.RESERVED_LABELS) == {"nvidia.com/gpu.present", "vpc.amazonaws.com/efa.present",
                                          "aws.amazon.com/neuron.present"}


def test_each_shared_name_is_spelled_once_in_the_names_module():
    values = [value for key, value in vars(names).items() if key.isupper() and isinstance(value, str)]
    assert len(values) == len(set(values))


def test_the_scan_sees_a_type_token_spelled_outside_the_names_module(tmp_path):
    # The scan itself can fail: a module spelling a token is caught.
    tree = ast.parse('"""Docstring naming aws:eks/nodeGroup:NodeGroup."""\nGROUP = "aws:eks/nodeGroup:NodeGroup"\n')
    assert [node.value for node in string_literals(tree)] == ["aws:eks/nodeGroup:NodeGroup"]
