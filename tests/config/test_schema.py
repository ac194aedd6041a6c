"""The stack file's JSON Schema is the config models' own: committed as the generator makes it, named on the
first line of every shipped stack (where editors read it), passed by every shipped stack, and refusing a wrong
key or a wrong type that ``trainstack plan`` refuses too."""

import copy
import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from trainstack import cli
from trainstack.config import schema

REPO = Path(__file__).resolve().parents[2]
MODELINE = "# yaml-language-server: $schema="
SHIPPED = sorted((REPO / "stacks").glob("Pulumi.*.yaml"))


def _validator(path: Path) -> jsonschema.Draft202012Validator:
    document = json.loads(path.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(document, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _named_schema(stack: Path) -> Path:
    first = stack.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(MODELINE), f"{stack.name}'s first line is {first!r}, not the schema's modeline"
    return (stack.parent / first.removeprefix(MODELINE)).resolve()


def test_the_committed_schema_is_what_the_models_make():
    assert schema.SCHEMA_FILE.read_text(encoding="utf-8") == schema.render(), (
        "components/config/stack.schema.json is stale: run `python -m trainstack.config.schema` and commit it")


def test_the_schema_is_a_2020_12_schema_of_every_stackconfig_key_in_camel_case():
    document = json.loads(schema.SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    keys = document["properties"]["config"]["properties"]
    assert set(keys) == {f"trainstack:{field.alias}" for field in schema.StackConfig.model_fields.values()}
    assert "trainstack:nodeGroups" in keys and "trainstack:node_groups" not in keys
    group = document["$defs"]["NodeGroupConfig"]
    assert group["additionalProperties"] is False and "instanceType" in group["properties"]
    # Descriptions are the fields' docstrings, in Markdown.
    assert keys["trainstack:region"]["description"] == "AWS region of every resource in the stack, e.g. us-east-1."
    assert "``" not in json.dumps(document)


@pytest.mark.parametrize("stack", SHIPPED, ids=lambda path: path.name)
def test_every_shipped_stack_names_the_committed_schema_first_and_passes_it(stack):
    named = _named_schema(stack)
    assert named == schema.SCHEMA_FILE
    errors = [f"{error.json_path}: {error.message}" for error in _validator(named).iter_errors(
        yaml.safe_load(stack.read_text(encoding="utf-8")))]
    assert not errors, errors


def test_the_consumer_template_passes_the_schema_it_is_told_to_write(tmp_path):
    project = tmp_path / "my-training-cluster"
    shutil.copytree(REPO / "examples" / "consumer", project)
    stack = project / "Pulumi.dev.yaml"
    assert "python -m trainstack.config.schema --output stack.schema.json" in stack.read_text(encoding="utf-8")

    assert schema.main(["--output", str(project / "stack.schema.json")]) == 0

    named = _named_schema(stack)
    assert named == project / "stack.schema.json"
    assert not list(_validator(named).iter_errors(yaml.safe_load(stack.read_text(encoding="utf-8"))))


def _group(**changes):
    def mutate(config):
        config["nodeGroups"][0].update(changes)
        return config
    return mutate


# Each: how the configuration is broken, where the schema says so, and the key trainstack plan names.
WRONG = {
    "a mistyped key in a node group": (
        _group(maxsize=2), "$.config['trainstack:nodeGroups'][0]", "'maxsize' was unexpected",
        "trainstack:nodeGroups[0].maxsize"),
    "a mistyped top-level key": (
        lambda c: {**c, "nodegroups": c.pop("nodeGroups")}, "$.config",
        "'trainstack:nodegroups' does not match any of the regexes", "trainstack:nodegroups"),
    "a word where a count goes": (
        _group(maxSize="two"), "$.config['trainstack:nodeGroups'][0].maxSize", "'two' is not of type 'integer'",
        "trainstack:nodeGroups[0].maxSize"),
    "a list where a mapping goes": (
        lambda c: {**c, "network": ["us-east-1a"]}, "$.config['trainstack:network']", "is not of type 'object'",
        "trainstack:network"),
    "a profile that is not one": (
        lambda c: {**c, "profile": "staging"}, "$.config['trainstack:profile']", "is not one of ['dev', 'production']",
        "trainstack:profile"),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_key_or_type_is_flagged_by_the_schema_and_refused_by_plan(case, valid_config, scratch_project,
                                                                          capsys):
    mutate, where, says, key = WRONG[case]
    config = mutate(copy.deepcopy(valid_config))
    document = {"config": {f"trainstack:{name}": value for name, value in config.items()}}
    assert not list(_validator(schema.SCHEMA_FILE).iter_errors(
        {"config": {f"trainstack:{name}": value for name, value in valid_config.items()}}))

    flagged = [(error.json_path, error.message) for error in _validator(schema.SCHEMA_FILE).iter_errors(document)]
    assert any(path == where and says in message for path, message in flagged), flagged

    project = scratch_project("wrong", config)
    exit_code = cli.main(["plan", "--stack", "wrong", "--cwd", project])
    stderr = capsys.readouterr().err
    assert exit_code == 2, stderr
    assert f"  {key}" in stderr and "Traceback" not in stderr, stderr


def _shown(page: str, command: str) -> list[str]:
    marker = f"<!-- {command}: tests/config/test_schema.py checks it -->\n```text\n"
    return page.split(marker, 1)[1].split("```", 1)[0].splitlines()


def test_the_stack_files_page_shows_what_the_validator_and_plan_say_of_a_broken_file(tmp_path, monkeypatch):
    """docs/stack-files.md, "What a validator says of a broken file": the file made as the page says, then
    check-jsonschema (the validator editors' language servers resemble) and trainstack plan, word for word."""
    import contextlib
    import io
    import subprocess
    import sys

    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(REPO / "examples" / "consumer" / name, tmp_path)
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["init", "--workload", "dev", "--stack", "broken", "--cwd", str(tmp_path)]) == 0
    stack = tmp_path / "Pulumi.broken.yaml"
    text = stack.read_text(encoding="utf-8")
    assert text.count("      instanceType: g5.2xlarge\n") == 1 and text.count("      maxSize: 2\n") == 1
    stack.write_text(text.replace("      instanceType: g5.2xlarge\n", "      instanceTyp: g5.2xlarge\n")
                     .replace("      maxSize: 2\n", "      maxSize: two\n"), encoding="utf-8")
    page = (REPO / "docs" / "stack-files.md").read_text(encoding="utf-8")

    validator = Path(sys.executable).with_name("check-jsonschema")
    checked = subprocess.run([str(validator), "--schemafile", "stack.schema.json", "Pulumi.broken.yaml"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert checked.returncode == 1
    shown = _shown(page, "check-jsonschema --schemafile stack.schema.json Pulumi.broken.yaml")
    assert [line.rstrip() for line in checked.stdout.splitlines() if line.strip()] == shown

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert cli.main(["plan", "--stack", "broken", "--cwd", str(tmp_path)]) == 2
    assert err.getvalue().splitlines() == _shown(page, "trainstack plan --stack broken")
