"""The offline plan reads a stack file as the Pulumi engine reads it, or refuses it: for every scalar a stack file
may hold, the string trainstack's reader hands the program is the one the real Pulumi CLI (v3.259.0, built from
source) hands it, as ``pulumi config --json`` shows the stack's configuration.

Before the reader followed go-yaml v3 (trainstack.boundary.read_pulumi_yaml), it read stack files with PyYAML
(YAML 1.1): ``yes`` was ``true`` to the plan and the text ``yes`` to the engine, ``1:30`` was 90 to the plan, and a
mapping's keys reached the program in the file's order while the engine sorts them."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from support.yaml_scalars import PLAIN_SCALARS
from trainstack.boundary import FileProblem
from trainstack.plan import find_project
from trainstack.plan.project import load_stack
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.PULUMI)

STACK = "oracle"


class PulumiConfig:
    """One Pulumi project with one stack on a local backend, whose stack file each example rewrites."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.cli = str(engines.directory(engines.PULUMI) / "pulumi")
        (directory / "state").mkdir()
        (directory / "Pulumi.yaml").write_text("name: trainstack\nruntime: python\n")
        self.env = {**os.environ, "PULUMI_HOME": str(directory / "home"), "PULUMI_SKIP_UPDATE_CHECK": "true",
                    "PULUMI_BACKEND_URL": (directory / "state").as_uri(), "PULUMI_CONFIG_PASSPHRASE": "",
                    "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
        self._pulumi("stack", "init", STACK, "--non-interactive")
        # The passphrase's salt, which the CLI wrote into the stack file and needs to read its config.
        self.salt = [line for line in self.stack_file.read_text().splitlines() if line.startswith("encryptionsalt")]

    @property
    def stack_file(self) -> Path:
        return self.directory / f"Pulumi.{STACK}.yaml"

    def _pulumi(self, *arguments: str) -> str:
        done = subprocess.run([self.cli, *arguments, "--cwd", str(self.directory)], env=self.env,
                              capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, f"pulumi {' '.join(arguments)}: {done.stderr[-2000:]}"
        return done.stdout

    def read(self, config: str) -> dict[str, str]:
        """``namespace:key`` to the string the engine hands the program, for the stack file holding ``config``."""
        self.stack_file.write_text("\n".join([*self.salt, "config:", config, ""]))
        shown = json.loads(self._pulumi("config", "--json", "--stack", STACK))
        return {key: entry["value"] for key, entry in shown.items()}


@pytest.fixture(scope="module")
def pulumi_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulumiConfig]:
    yield PulumiConfig(tmp_path_factory.mktemp("stack-files"))


def in_order(value: Any) -> Any:
    """A decoded JSON value with each mapping as the list of its items, so that key order is compared too."""
    if isinstance(value, dict):
        return [(key, in_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [in_order(item) for item in value]
    return value


@settings(max_examples=25)
@example(scalar="yes")
@example(scalar="1:30")
@example(scalar="1.30")
@example(scalar="1e3")
@given(scalar=PLAIN_SCALARS)
def test_every_plain_scalar_a_stack_file_holds_reaches_the_program_as_the_engine_passes_it_or_is_refused(
        pulumi_config: PulumiConfig, scalar: str) -> None:
    config = (f"  trainstack:top: {scalar}\n  trainstack:nested:\n    zone: b\n    key: {scalar}\n"
              f"    list:\n      - {scalar}\n      - text\n  trainstack:abc: [{scalar}]")
    engine = pulumi_config.read(config)
    pulumi_config.stack_file.write_text(f"config:\n{config}\n")
    try:
        plan = load_stack(find_project(pulumi_config.directory), STACK).config
    except FileProblem as refused:
        assert f"line 2: {scalar}" in str(refused) or "trainstack:top has no value (null)" in str(refused)
        return
    assert plan["trainstack:top"] == engine["trainstack:top"]
    for key in ("trainstack:nested", "trainstack:abc"):
        assert in_order(json.loads(plan[key])) == in_order(json.loads(engine[key]))


def test_the_engine_hands_the_program_a_mappings_keys_sorted_as_the_plan_now_does(pulumi_config: PulumiConfig):
    config = "  trainstack:tags:\n    team: ml\n    environment: dev\n    owner: a"
    engine = pulumi_config.read(config)
    assert list(json.loads(engine["trainstack:tags"])) == ["environment", "owner", "team"]
    pulumi_config.stack_file.write_text(f"config:\n{config}\n")
    assert load_stack(find_project(pulumi_config.directory), STACK).config["trainstack:tags"] == \
        engine["trainstack:tags"]


SHIPPED = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                 for path in (Path(__file__).resolve().parents[2] / "stacks").glob("Pulumi.*.yaml"))


@pytest.mark.parametrize("workload", SHIPPED)
def test_each_shipped_stack_file_and_the_one_init_writes_from_it_reach_the_program_as_the_plan_reads_them(
        pulumi_config: PulumiConfig, workload: str) -> None:
    from trainstack import cli

    shipped = (Path(__file__).resolve().parents[2] / "stacks" / f"Pulumi.{workload}.yaml").read_text()
    pulumi_config.stack_file.unlink()
    assert cli.main(["init", "--workload", workload, "--stack", STACK, "--cwd", str(pulumi_config.directory)]) == 0
    written = pulumi_config.stack_file.read_text()
    for text in (shipped, written):
        config = text.split("\nconfig:\n", 1)[1] if "\nconfig:\n" in text else text.split("config:\n", 1)[1]
        engine = pulumi_config.read(config.rstrip("\n"))
        plan = load_stack(find_project(pulumi_config.directory), STACK).config
        assert plan.keys() == engine.keys()
        for key, value in plan.items():
            if value.startswith(("{", "[")):
                assert in_order(json.loads(value)) == in_order(json.loads(engine[key])), key
            else:
                assert value == engine[key], key
