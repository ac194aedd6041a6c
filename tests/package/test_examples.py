"""The examples in examples/ stay in step with the schema and with the dev stack: every
component, property and output they use exists in the committed schema.json with the right
type, every required input is set, and what they configure is stacks/Pulumi.dev.yaml.

They are read, not run (no Pulumi CLI here). The TypeScript example keeps its component
arguments to JSON-shaped object literals so that they can be read without a TypeScript
compiler; the test refuses anything else there."""

import json
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SCHEMA = json.loads((REPO / "components" / "package" / "schema.json").read_text())
TYPES = {bool: "boolean", str: "string", int: "integer", float: "number"}


def dev_stack_config() -> dict:
    config = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    return {key.removeprefix("trainstack:"): value for key, value in config.items() if key.startswith("trainstack:")}


def problems(value, prop: dict, where: str) -> list[str]:
    """What is wrong with ``value`` as a value of the schema property ``prop``."""
    if "$ref" in prop:
        type_ = SCHEMA["types"][prop["$ref"].removeprefix("#/types/")]
        return object_problems(value, type_["properties"], type_.get("required", []), where)
    if prop["type"] == "array":
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [p for i, item in enumerate(value) for p in problems(item, prop["items"], f"{where}[{i}]")]
    if prop["type"] == "object":
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a map"]
        return [p for key, item in value.items()
                for p in problems(item, prop["additionalProperties"], f"{where}.{key}")]
    kind = TYPES.get(type(value))
    if kind == prop["type"] or (kind == "integer" and prop["type"] == "number"):
        return []
    return [f"{where}: {value!r} is not of type {prop['type']}"]


def object_problems(value, properties: dict, required: list, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object"]
    found = [f"{where}.{key}: no such property in the schema" for key in value if key not in properties]
    found += [f"{where}.{key}: required, not set" for key in required if key not in value]
    return found + [p for key, item in value.items() if key in properties
                    for p in problems(item, properties[key], f"{where}.{key}")]


def resource_problems(token: str, properties: dict, where: str) -> list[str]:
    resource = SCHEMA["resources"].get(token)
    if resource is None:
        return [f"{where}: {token} is not in the schema"]
    return object_problems(properties, resource["inputProperties"], resource.get("requiredInputs", []), where)


def output_problems(token: str, names: list[str], where: str) -> list[str]:
    outputs = SCHEMA["resources"][token]["properties"]
    return [f"{where}: {token} has no output {name}" for name in names if name not in outputs]


# YAML


@pytest.fixture(scope="module")
def yaml_program():
    return yaml.safe_load((EXAMPLES / "yaml" / "Pulumi.yaml").read_text())


def test_the_yaml_example_uses_the_schema_as_it_is(yaml_program):
    found = []
    for name, resource in yaml_program["resources"].items():
        found += resource_problems(resource["type"], resource["properties"], f"yaml {name}")
    types = {name: resource["type"] for name, resource in yaml_program["resources"].items()}
    for output, expression in yaml_program["outputs"].items():
        name, attribute = re.fullmatch(r"\$\{(\w+)\.(\w+)\}", expression).groups()
        found += output_problems(types[name], [attribute], f"yaml output {output}")
    assert found == []


def test_the_yaml_example_builds_the_dev_stack(yaml_program):
    assert yaml_program["packages"] == {"trainstack": "../.."}
    assert yaml_program["resources"]["dev"]["properties"] == dev_stack_config()


# TypeScript

NEW = re.compile(r"new trainstack\.(\w+)\(\"(\w+)\", (\{.*?\n\})\);", re.S)


def typescript_arguments(source: str) -> list[tuple[str, str, dict]]:
    """(component, name, arguments) of each ``new trainstack.X("name", {...});``: the literal
    with its keys quoted and trailing commas dropped must be JSON."""
    found = []
    for component, name, literal in NEW.findall(source):
        quoted = re.sub(r"([{,]\s*)([A-Za-z_]\w*):", r'\1"\2":', literal)
        found.append((component, name, json.loads(re.sub(r",(\s*[}\]])", r"\1", quoted))))
    return found


@pytest.fixture(scope="module")
def typescript_source():
    return (EXAMPLES / "typescript" / "index.ts").read_text()


def test_the_typescript_example_uses_the_schema_as_it_is(typescript_source):
    components = typescript_arguments(typescript_source)
    assert [c for c, _, _ in components] == ["TrainingStack"]
    found = []
    variables = {}
    for component, name, arguments in components:
        found += resource_problems(f"trainstack:index:{component}", arguments, f"typescript {name}")
        variables[name] = f"trainstack:index:{component}"
    for variable, attribute in re.findall(r"= (\w+)\.(\w+);", typescript_source):
        found += output_problems(variables[variable], [attribute], f"typescript {variable}.{attribute}")
    assert found == []


def test_the_typescript_example_builds_the_dev_stack(typescript_source):
    (_, name, arguments), = typescript_arguments(typescript_source)
    assert (name, arguments) == ("dev", dev_stack_config())


def test_the_check_catches_a_property_the_schema_does_not_have():
    bad = {**dev_stack_config(), "nodeGroups": [{"name": "gpu", "instanceType": "g5.2xlarge", "maxSize": "2",
                                                 "zone": "us-east-1a", "rootVolume": {"sizeGib": 200}}]}
    found = resource_problems("trainstack:index:TrainingStack", bad, "x")
    assert set(found) == {"x.nodeGroups[0].rootVolume.sizeGib: no such property in the schema",
                          "x.nodeGroups[0].maxSize: '2' is not of type integer"}


# The snippets of docs/other-languages.md


def page_block(language: str) -> str:
    section = (REPO / "docs" / "other-languages.md").read_text()
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def test_the_docs_typescript_and_yaml_use_the_schema_as_it_is():
    (component, name, arguments), = typescript_arguments(page_block("typescript"))
    found = resource_problems(f"trainstack:index:{component}", arguments, f"docs/other-languages.md typescript {name}")
    program = yaml.safe_load(page_block("yaml"))
    for name, resource in program["resources"].items():
        found += resource_problems(resource["type"], resource["properties"], f"docs/other-languages.md yaml {name}")
    assert found == []
