"""The real Pulumi CLI (v3.259.0, built from source by ``engines/build.sh pulumi``) on the
repository's component package: the schema the CLI reads from the running plugin is the
committed ``schema.json``.

The plugin is started as an executable provider (``pulumi-resource-trainstack`` running
this checkout's ``__main__.py`` in the test's Python) rather than through
``PulumiPlugin.yaml``: a Python plugin needs the Python language host
(github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3), which the Go module
proxy refuses at v3.259.0 (403 "This module version is not available"), so it cannot be
built here. Everything after the plugin starts is the CLI's own code.

Not run: ``pulumi package gen-sdk`` needs the language plugins pulumi-language-nodejs and
pulumi-language-go, whose modules the proxy refuses the same way (docs/real-engines.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from trainstack.rehearsal import engines
from trainstack.rehearsal.engines import build_script

pytestmark = pytest.mark.engines(engines.PULUMI)

REPO = Path(__file__).resolve().parents[2]
BUILD = build_script()

TYPE_SPEC_KEYS = ("items", "additionalProperties")


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, \
        f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def pulumi(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """The CLI, a directory to run it in (not the checkout: the CLI refuses a directory holding
    both Pulumi.yaml and PulumiPlugin.yaml), and an environment that keeps it offline."""
    directory = tmp_path_factory.mktemp("pulumi")
    env = {**os.environ, "PULUMI_HOME": str(directory / "home"), "PULUMI_SKIP_UPDATE_CHECK": "true",
           "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
    engines = Path(_run(["bash", str(BUILD), "pulumi"], directory, env).strip().splitlines()[-1])
    return engines / "pulumi", directory, env


def as_package_spec(schema: Any, in_type_spec: bool = False) -> Any:
    """``schema`` as the CLI writes it back from its PackageSpec (pkg/codegen/schema/schema.go at
    v3.259.0): a TypeSpec (an array's ``items``, a map's ``additionalProperties``) has no
    ``description``; ``dependencies`` is omitted when empty; ``config`` is always written."""
    if isinstance(schema, list):
        return [as_package_spec(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: as_package_spec(value, key in TYPE_SPEC_KEYS) for key, value in schema.items()
            if not (in_type_spec and key == "description")}


def test_get_schema_of_the_running_component_package_is_the_committed_schema(pulumi, tmp_path: Path) -> None:
    cli, directory, env = pulumi
    plugin = tmp_path / "pulumi-resource-trainstack"
    plugin.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "__main__.py"}" "$@"\n')
    plugin.chmod(0o755)
    served = json.loads(_run([str(cli), "package", "get-schema", str(plugin)], directory, env))
    committed = as_package_spec(json.loads((REPO / "components" / "package" / "schema.json").read_text()))
    if committed.get("dependencies") == []:
        del committed["dependencies"]
    committed.setdefault("config", {})
    assert served == committed
    assert set(served["resources"]) == {f"trainstack:index:{name}" for name in (
        "TrainingStack", "Network", "GpuEksCluster", "LustreFileSystem", "HyperPodCluster")}
