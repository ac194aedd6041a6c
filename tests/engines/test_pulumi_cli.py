"""The real Pulumi CLI (v3.259.0, built from source by ``engines/build.sh pulumi``) on the
repository's component package: the schema it serves, and the Node.js and Go SDKs it
generates, which the TypeScript and Go examples must compile against.

The plugin is started as an executable provider (``pulumi-resource-trainstack`` running
this checkout's ``__main__.py`` in the test's Python) rather than through
``PulumiPlugin.yaml``: a Python plugin needs the Python language host
(github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3), which the Go module
proxy refuses at v3.259.0 (403 "This module version is not available"), so it cannot be
built here. Everything after the plugin starts is the CLI's own code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.control_plane import BUILD, REPO

EXAMPLES = REPO / "examples"


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, \
        f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def pulumi(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The CLI, and an environment that keeps it offline: its own home, no update check, no plugin downloads."""
    if shutil.which("go") is None:
        pytest.fail("no `go` on PATH: engines/build.sh needs Go >= 1.25 to build the Pulumi CLI")
    directory = Path(_run(["bash", str(BUILD), "pulumi"]).strip().splitlines()[-1])
    env = {**os.environ, "PULUMI_HOME": str(tmp_path_factory.mktemp("pulumi-home")),
           "PULUMI_SKIP_UPDATE_CHECK": "true", "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
    return directory / "pulumi", env


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The component package as an executable provider plugin."""
    path = tmp_path_factory.mktemp("plugin") / "pulumi-resource-trainstack"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "__main__.py"}" "$@"\n')
    path.chmod(0o755)
    return path


def test_get_schema_of_the_component_package_equals_the_committed_schema(pulumi, plugin) -> None:
    cli, env = pulumi
    served = json.loads(_run([str(cli), "package", "get-schema", str(plugin)], env=env))
    assert served == json.loads((REPO / "schema.json").read_text())


def _gen_sdk(cli: Path, env: dict[str, str], language: str, out: Path) -> Path:
    _run([str(cli), "package", "gen-sdk", str(REPO / "schema.json"), "--language", language, "--out", str(out)],
         env=env)
    return out / language


def test_typescript_example_type_checks_strictly_against_the_generated_nodejs_sdk(pulumi, tmp_path: Path) -> None:
    cli, env = pulumi
    example = tmp_path / "typescript"
    shutil.copytree(EXAMPLES / "typescript", example, ignore=shutil.ignore_patterns("node_modules", "sdks"))
    _run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=example)
    shutil.copytree(_gen_sdk(cli, env, "nodejs", tmp_path / "sdk"), example / "sdks" / "trainstack")
    _run(["npx", "--no-install", "tsc", "--strict", "-p", "tsconfig.json"], cwd=example)


def test_go_example_builds_against_the_generated_go_sdk(pulumi, tmp_path: Path) -> None:
    cli, env = pulumi
    example = tmp_path / "go"
    shutil.copytree(EXAMPLES / "go", example, ignore=shutil.ignore_patterns("sdks"))
    shutil.copytree(_gen_sdk(cli, env, "go", tmp_path / "sdk"), example / "sdks")
    _run(["go", "build", "-o", str(tmp_path / "example"), "."], cwd=example)
