"""The component package's schema, as Pulumi's analyzer infers it in-process: every served
component, input and output is there, typed and documented; the input types say exactly
what the config models accept; and the committed schema.json is the one the code infers,
so a change to the public API shows in the pull request."""

import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel
from trainstack.config import StackConfig
from trainstack.package import generate, host
from trainstack.package.components import COMPONENTS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def schema():
    return host.schema()


def models_reachable_from(root: type[BaseModel]) -> list[type[BaseModel]]:
    found = [root]
    for model in found:
        for field in model.model_fields.values():
            generate._annotation(field.annotation, found)
    return found


def test_the_committed_schema_is_the_one_the_code_infers():
    committed = (REPO / "components" / "package" / "schema.json").read_text()
    assert committed == host.schema_text(), (
        "schema.json is out of date: run `.venv/bin/python -m trainstack.package.host --write-schema` "
        "and commit it with the change to the public API")


def test_the_input_types_are_generated_from_the_current_config_models():
    assert generate.TARGET.read_text() == generate.render(), (
        "components/package/config_types.py is out of date: run `.venv/bin/python -m trainstack.package.generate`")


def test_the_package_is_trainstack_at_the_python_package_version(schema):
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert (schema["name"], schema["version"]) == ("trainstack", version)


def test_every_served_component_has_its_token(schema):
    assert set(schema["resources"]) == {f"trainstack:index:{c.__name__}" for c in COMPONENTS}
    assert {c.__name__ for c in COMPONENTS} >= {"TrainingStack", "GpuEksCluster", "LustreFileSystem"}
    assert all(r["isComponent"] for r in schema["resources"].values())


def properties(schema):
    """(where, property) for every property of every component and type, items and map values too."""
    for token, resource in schema["resources"].items():
        assert resource.get("description") and "\n" not in resource["description"], f"{token}'s description"
        for kind in ("inputProperties", "properties"):
            for name, prop in resource[kind].items():
                yield f"{token} {kind}.{name}", prop
    for token, type_ in schema["types"].items():
        assert type_.get("description"), f"{token} has no description"
        for name, prop in type_["properties"].items():
            yield f"{token}.{name}", prop


ANY_ALLOWED = "trainstack:index:TrainingStack properties.contract"
"""The outputs contract is a JSON document with its own version (trainstack.outputs); its values are Any."""


def test_every_input_and_output_is_typed_and_documented(schema):
    checked = 0
    for where, prop in properties(schema):
        assert prop.get("description"), f"{where} has no description"
        # One line in the source: Python 3.13 dedents a class's __doc__ where 3.11 does not.
        assert "\n " not in prop["description"], f"{where}: a description's lines are indented"
        for part in (prop, prop.get("items"), prop.get("additionalProperties")):
            if part is not None:
                assert part.get("type") or part.get("$ref"), f"{where} has no type"
                ref = part.get("$ref", "")
                if where != ANY_ALLOWED:
                    assert not ref.startswith("pulumi.json#/Any"), f"{where} is untyped (Any)"
                if ref.startswith("#/types/"):
                    assert ref[len("#/types/"):] in schema["types"], f"{where} refers to a missing type {ref}"
        checked += 1
    assert checked > 150


def test_each_input_type_has_exactly_its_config_models_keys_and_required_keys(schema):
    for model in models_reachable_from(StackConfig)[1:]:
        type_ = schema["types"][f"trainstack:index:{model.__name__}"]
        aliases = {field.alias or name for name, field in model.model_fields.items()}
        required = {field.alias or name for name, field in model.model_fields.items() if field.is_required()}
        assert set(type_["properties"]) == aliases, model.__name__
        assert set(type_.get("required", [])) == required, model.__name__


def test_training_stack_takes_the_keys_of_a_stack_file(schema):
    stack = schema["resources"]["trainstack:index:TrainingStack"]
    assert set(stack["inputProperties"]) == {f.alias or n for n, f in StackConfig.model_fields.items()}
    assert set(stack["requiredInputs"]) == {"profile", "region", "network"}
    assert stack["inputProperties"]["nodeGroups"]["items"]["$ref"] == "#/types/trainstack:index:NodeGroupConfig"
    # A stack file's spelling, not the analyzer's default camelCase of a Python name.
    root_volume = schema["types"]["trainstack:index:RootVolume"]["properties"]
    assert {"sizeGiB", "throughputMiBps"} <= set(root_volume)


def test_the_configuration_is_plain_and_resource_ids_may_be_outputs(schema):
    """Configuration is validated before anything is registered, so it must be known at preview;
    ids of resources made elsewhere may come from their outputs."""
    cluster = schema["resources"]["trainstack:index:GpuEksCluster"]["inputProperties"]
    assert cluster["settings"]["plain"] and cluster["nodeGroups"]["plain"]
    assert "plain" not in cluster["vpcId"]
    assert "plain" not in cluster["privateSubnetIds"]["additionalProperties"]


def test_a_literal_is_a_string_with_its_allowed_values_in_the_description(schema):
    profile = schema["resources"]["trainstack:index:TrainingStack"]["inputProperties"]["profile"]
    assert profile["type"] == "string" and "One of: 'dev', 'production'." in profile["description"]
    threads = schema["types"]["trainstack:index:WorkerGroupConfig"]["properties"]["threadsPerCore"]
    assert threads["type"] == "integer"


def test_outputs_are_typed(schema):
    cluster = schema["resources"]["trainstack:index:GpuEksCluster"]["properties"]
    assert {name: prop["type"] for name, prop in cluster.items()} == {
        "clusterName": "string", "kubeconfig": "string", "clusterSecurityGroupId": "string"}
    stack = schema["resources"]["trainstack:index:TrainingStack"]
    assert set(stack["properties"]) == {"contract", "kubeconfig"}
    assert "kubeconfig" not in stack.get("required", [])
    lustre = schema["resources"]["trainstack:index:LustreFileSystem"]["properties"]
    assert lustre["throughputMbps"]["type"] == "integer"
    assert lustre["clientSecurityGroupIds"]["items"]["type"] == "string"
