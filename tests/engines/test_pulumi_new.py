"""The real Pulumi CLI (built by ``engines/build.sh pulumi``) makes a project from
``examples/consumer`` as a template: ``pulumi new <dir> --generate-only``.

The CLI writes the project (the chosen name and description, the template section dropped,
the program, requirements and dev stack file copied) and then asks the Python language host
about the project's dependencies; that host cannot be built here (the Go module proxy refuses
github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python at this version), so the
command ends with that error, after the files are written. Everything checked is the CLI's
own work.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from trainstack.rehearsal import engines
from trainstack.rehearsal.engines import build_script

pytestmark = pytest.mark.engines(engines.PULUMI)

REPO = Path(__file__).resolve().parents[2]
BUILD = build_script()

CONSUMER = REPO / "examples" / "consumer"
LANGUAGE_HOST_MISSING = "no language plugin 'pulumi-language-python' found"


def test_pulumi_new_makes_a_project_of_ones_own_from_the_consumer_template(tmp_path: Path) -> None:
    env = {**os.environ, "PULUMI_HOME": str(tmp_path / "home"), "PULUMI_SKIP_UPDATE_CHECK": "true",
           "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
    built = subprocess.run(["bash", str(BUILD), "pulumi"], capture_output=True, text=True, check=True, env=env)
    cli = Path(built.stdout.strip().splitlines()[-1]) / "pulumi"
    made = tmp_path / "my-cluster"
    done = subprocess.run([str(cli), "new", str(CONSUMER), "--generate-only", "--yes", "--name", "my-cluster",
                           "--description", "FSDP on p5", "--dir", str(made)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=300)
    assert "Created project 'my-cluster'" in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == 0 or LANGUAGE_HOST_MISSING in done.stderr, done.stderr

    project = yaml.safe_load((made / "Pulumi.yaml").read_text())
    assert (project["name"], project["description"]) == ("my-cluster", "FSDP on p5")
    assert "template" not in project
    assert project["runtime"] == yaml.safe_load((CONSUMER / "Pulumi.yaml").read_text())["runtime"]
    for copied in ("__main__.py", "requirements.txt", "Pulumi.dev.yaml"):
        assert (made / copied).read_text() == (CONSUMER / copied).read_text(), copied
