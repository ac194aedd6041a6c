"""Every config key trainstack's texts name is a real one: each string in components/ (errors, fixes,
warnings, findings, docstrings) is searched for a key path under a top-level stack key
(``fsx.minThroughputPerAcceleratorMbps``, ``nodeGroups[].taints``, ``eks.vpcCni.warmIpTarget``), and
each path is walked through the config models by the keys Pulumi YAML spells. A message that names
a key the models do not have sends a user to a setting that would be refused as unknown."""

import ast
import re
import typing
from pathlib import Path

import trainstack
from pydantic import BaseModel
from pydantic.alias_generators import to_camel
from trainstack.config import StackConfig

COMPONENTS = Path(trainstack.__file__).parent
# Host names and Kubernetes API groups that begin like a key: not keys.
NOT_KEYS = {"eks.amazonaws.com", "fsx.csi.aws.com", "scheduling.k8s.io"}


def _keys(model: type[BaseModel]) -> dict[str, typing.Any]:
    return {(field.alias or to_camel(name)): field.annotation for name, field in model.model_fields.items()}


TOP = _keys(StackConfig)
KEY_PATH = re.compile(r"(?<![\w./:-])(" + "|".join(sorted(TOP, key=len, reverse=True))
                      + r")((?:\.[A-Za-z][A-Za-z0-9]*|\[[^\]]*\])+)")


def _models(annotation: typing.Any) -> list[type[BaseModel]]:
    """The config models a field's type holds (through Optional, unions, lists and dicts)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for argument in typing.get_args(annotation) for model in _models(argument)]


def resolves(path: str) -> bool:
    top, *rest = re.findall(r"[A-Za-z][A-Za-z0-9]*|\[[^\]]*\]", path)
    types = [TOP[top]]
    for step in rest:
        if step.startswith("["):
            continue  # an index into a list: the same item models
        found = [annotation for t in types for model in _models(t) for key, annotation in _keys(model).items()
                 if key == step]
        if not found:
            return False
        types = found
    return True


def named_key_paths() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(COMPONENTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [(str(path.relative_to(COMPONENTS)), node.lineno, m.group(0))
                          for m in KEY_PATH.finditer(node.value) if m.group(0) not in NOT_KEYS]
    return found


def test_the_texts_name_config_keys_at_all():
    # The search finds what it is for: keys the texts name, in errors and warnings alike.
    paths = {key for _, _, key in named_key_paths()}
    assert {"fsx.minThroughputPerAcceleratorMbps", "eks.publicAccessCidrs", "operators.kueue"} <= paths


def test_every_config_key_a_text_names_is_one_the_config_models_have():
    unknown = [f"{where}:{line}: {key}" for where, line, key in named_key_paths() if not resolves(key)]
    assert not unknown, "texts name config keys that do not exist:\n" + "\n".join(unknown)


def test_the_walk_refuses_a_key_that_is_not_there():
    assert resolves("eks.vpcCni.warmIpTarget") and resolves("nodeGroups[0].efa")
    assert not resolves("fsx.minThroughputPerAcceleratorMBps") and not resolves("eks.vpcCni.warmIPTarget")
