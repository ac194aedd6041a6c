"""Finding the project and reading a stack file as the engine would."""

import json
import re

import pytest
from trainstack.plan import ProjectError, find_project, load_stack
from trainstack.plan.project import SECRET_PLACEHOLDER


def _project(tmp_path, stack_yaml):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\nmain: prog/\nstackConfigDir: stacks\n")
    (tmp_path / "prog").mkdir()
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(stack_yaml)
    return tmp_path


def test_the_nearest_pulumi_yaml_upward_is_the_project(tmp_path):
    root = _project(tmp_path, "config: {}\n")
    nested = root / "prog" / "deep"
    nested.mkdir()
    project = find_project(nested)
    assert (project.root, project.name) == (root, "demo")
    assert project.main == root / "prog" and project.stack_config_dir == root / "stacks"
    assert project.stacks() == ["dev"]


def test_no_project_is_a_clear_error(tmp_path):
    with pytest.raises(ProjectError, match=re.escape("no Pulumi.yaml")):
        find_project(tmp_path)


def test_a_missing_stack_names_the_stacks_that_exist(tmp_path):
    project = find_project(_project(tmp_path, "config: {}\n"))
    with pytest.raises(ProjectError, match=r"stack 'prod' .* \(stacks here: dev\)"):
        load_stack(project, "prod")


def test_values_reach_the_program_as_the_engine_passes_them_and_secrets_become_placeholders(tmp_path):
    project = find_project(_project(tmp_path, """
config:
  aws:region: us-east-1
  demo:size: 3
  demo:groups: [{name: a}]
  demo:password:
    secure: AAABAKzzz
  demo:nested:
    key: {secure: AAABAyyy}
"""))
    settings = load_stack(project, "dev")
    assert settings.config["aws:region"] == "us-east-1"
    assert settings.config["demo:size"] == "3"
    assert json.loads(settings.config["demo:groups"]) == [{"name": "a"}]
    assert settings.config["demo:password"] == SECRET_PLACEHOLDER
    assert json.loads(settings.config["demo:nested"]) == {"key": SECRET_PLACEHOLDER}
    assert settings.secret_keys == ["demo:password", "demo:nested"]


def test_a_misspelled_top_level_key_is_named_with_the_nearest_known_one(tmp_path):
    # Read as missing, `configs:` used to surface as three missing keys (profile, region, network).
    from trainstack.plan.project import StackFileProblem

    project = find_project(_project(tmp_path, "configs:\n  trainstack:region: us-east-1\n"))
    with pytest.raises(StackFileProblem) as problem:
        load_stack(project, "dev")
    assert str(problem.value) == (f"stack file {tmp_path / 'stacks' / 'Pulumi.dev.yaml'}: unknown top-level key "
                                  "'configs'; did you mean 'config'? a stack file holds config, environment, "
                                  "secretsprovider, encryptedkey, encryptionsalt")


def test_every_key_pulumi_documents_for_a_stack_file_is_accepted(tmp_path):
    project = find_project(_project(tmp_path, "secretsprovider: passphrase\nencryptionsalt: v1:abc\n"
                                              "encryptedkey: xyz\nenvironment: [team/dev]\nconfig: {}\n"))
    assert load_stack(project, "dev").config == {}
