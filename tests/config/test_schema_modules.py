"""config/ reads schema first and checks second. A schema module declares its keys, their types and what one key
alone must be (a field validator beside the key). What spans keys, blocks or the stack is a check: a function of
config/checks/ that takes the built block. One function runs them (config/checks/__init__.py: ``run_checks`` over
the table ``CHECKS``), and ``config.validate`` is the one place that asks for it. So "where is this key checked?"
has two answers: beside the key, or in the table.

Imports run one way: schema modules <- check modules <- the runner <- ``config/__init__.py``."""

import copy
from pathlib import Path

import pytest
from support.module_imports import PACKAGE, imports_in, module_name
from trainstack.config import ConfigError, ConfigModel, NodeGroupConfig, StackConfig, validate, validate_stack_config
from trainstack.config.checks import CHECKS

CONFIG = PACKAGE / "config"
CHECK_PACKAGE = CONFIG / "checks"
ENTRY_POINT = CONFIG / "__init__.py"
RUNNER = "config.checks"


def modules_imported(file: Path) -> set[str]:
    """The modules and packages of components/ that ``file`` imports, at any level of the file (under
    ``if TYPE_CHECKING:`` and inside functions too): ``from .checks import nodegroups`` is
    ``config.checks.nodegroups``, ``from .checks import run_checks`` is ``config.checks``."""
    known = {module_name(f) for f in PACKAGE.rglob("*.py")}
    found: set[str] = set()
    for target, names in imports_in(file):
        found |= {".".join([*target, name]) if ".".join([*target, name]) in known else ".".join(target)
                  for name in names or [""]}
    return {name.rstrip(".") for name in found}


def is_check(module: str) -> bool:
    return module == RUNNER or module.startswith(RUNNER + ".")


def schema_files() -> list[Path]:
    """Every module of config/ but the check package and the entry point (config/__init__.py: ``validate``)."""
    return [f for f in sorted(CONFIG.glob("*.py")) if f != ENTRY_POINT]


def test_no_schema_module_imports_a_check():
    offenders = [f"{module_name(f)} imports {', '.join(sorted(filter(is_check, modules_imported(f))))}"
                 for f in schema_files() if any(map(is_check, modules_imported(f)))]
    assert len(schema_files()) > 30
    assert offenders == []


def test_only_the_entry_point_runs_the_checks_and_only_the_runner_names_each_check():
    """Outside config/checks/, config/__init__.py alone imports the runner, and no module imports a check module:
    a check registered anywhere else would be a second place to look for it."""
    outside = [f for f in sorted(PACKAGE.rglob("*.py")) if CHECK_PACKAGE not in f.parents]
    importers = {module_name(f): sorted(filter(is_check, modules_imported(f))) for f in outside}
    assert {name: checks for name, checks in importers.items() if checks} == {"config": [RUNNER]}


def test_no_config_model_checks_itself():
    """A model's only validators are field validators, and before-validators that shape the input (the profile's
    defaults, a retired key's refusal); its one after- or wrap-validator is ConfigModel's hand-over to the runner."""
    def models(base: type) -> list[type]:
        return [m for sub in base.__subclasses__() for m in (sub, *models(sub))]

    def defined_in(model: type, name: str) -> type:
        return next(klass for klass in model.__mro__ if name in vars(klass))

    found = [f"{model.__qualname__}.{name} ({decorator.info.mode})"
             for model in models(ConfigModel) if model.__module__.startswith("trainstack.config")
             for name, decorator in model.__pydantic_decorators__.model_validators.items()
             if decorator.info.mode != "before" and defined_in(model, name) is not ConfigModel]
    assert len(models(ConfigModel)) > 30
    assert found == []


def test_every_check_in_the_table_lives_in_a_check_module_and_every_check_module_is_run():
    checks = [check for listed in CHECKS.values() for check in listed]
    assert [f"{c.__module__}.{c.__qualname__}" for c in checks
            if not c.__module__.startswith(f"trainstack.{RUNNER}.")] == []
    assert [model.__qualname__ for model in CHECKS if is_check(model.__module__.removeprefix("trainstack."))] == []
    files = [f for f in CHECK_PACKAGE.glob("*.py") if f.name != "__init__.py"]
    run = {c.__module__.removeprefix("trainstack.") for c in checks}
    used = run | {m for f in files for m in modules_imported(f) if is_check(m)}
    assert {module_name(f) for f in files} - used == set()


def test_a_block_built_on_its_own_has_its_schema_alone_and_validate_adds_its_checks():
    group = {"name": "gpu", "instanceType": "p5.48xlarge", "zone": "us-east-1a", "maxSize": 1, "desiredSize": 3}
    built = NodeGroupConfig.model_validate(group)
    assert (built.desired_size, built.max_size) == (3, 1)
    for given in (group, built):
        with pytest.raises(ConfigError) as raised:
            validate(NodeGroupConfig, given, prefix="GpuEksCluster(x)", at=("nodeGroups", 0))
        assert [i.path for i in raised.value.issues] == ["GpuEksCluster(x):nodeGroups[0].desiredSize"]
        assert "minSize <= desiredSize <= maxSize" in raised.value.issues[0].message
    valid = NodeGroupConfig.model_validate({**group, "desiredSize": 1})
    assert validate(NodeGroupConfig, valid, prefix="GpuEksCluster(x)") is valid


def test_a_failing_check_is_reported_with_every_other_problem_of_the_input_in_the_keys_order(valid_config):
    valid_config["nodeGroups"][0].update(desiredSize=3, maxSize=2)
    valid_config["eks"]["bogus"] = 1
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(valid_config)
    assert [i.path for i in raised.value.issues] == ["trainstack:eks.bogus", "trainstack:nodeGroups[0].desiredSize"]


def test_a_blocks_first_failing_check_is_its_issue_and_the_stacks_checks_wait_for_its_blocks(valid_config):
    broken = copy.deepcopy(valid_config)
    broken["nodeGroups"][0]["zone"] = "us-east-1c"  # a stack check: no subnet in that zone
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(broken)
    assert [i.path for i in raised.value.issues] == ["trainstack:nodeGroups[0].zone"]
    broken["nodeGroups"][0].update(desiredSize=3, maxUnavailable=1, maxUnavailablePercentage=10)
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(broken)
    assert [i.path for i in raised.value.issues] == ["trainstack:nodeGroups[0].desiredSize"]


def test_a_stack_built_on_its_own_is_checked_when_it_is_validated(valid_config):
    valid_config["nodeGroups"][0]["zone"] = "us-east-1c"
    built = StackConfig.model_validate(valid_config)
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(built)
    assert [i.path for i in raised.value.issues] == ["trainstack:nodeGroups[0].zone"]
