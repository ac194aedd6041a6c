"""`trainstack preview` on a machine with a `pulumi` on PATH and an empty engine cache runs that CLI and builds
nothing. The CLI on PATH here is the one engines/build.sh built, put where a user's installed CLI would be, beside
the Kubernetes provider as a plugin the user installed; Go is not on PATH, so a build could not even start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.PULUMI, engines.PULUMI_KUBERNETES)

REPO = Path(__file__).resolve().parents[2]


def test_preview_of_byo_p5_runs_the_pulumi_on_path_and_builds_nothing(tmp_path: Path) -> None:
    installed = tmp_path / "usr-local-bin"
    installed.mkdir()
    (installed / "pulumi").symlink_to(engines.directory(engines.PULUMI) / "pulumi")
    plugin = "pulumi-resource-kubernetes"
    (installed / plugin).symlink_to(engines.directory(engines.PULUMI_KUBERNETES) / plugin)
    empty_cache = tmp_path / "engines"
    empty_cache.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (project / "Pulumi.byo-p5.yaml").write_text((REPO / "stacks" / "Pulumi.byo-p5.yaml").read_text())
    (tmp_path / "state").mkdir()
    env = {"PATH": os.pathsep.join([str(installed), str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
           "HOME": str(tmp_path / "home"), "TRAINSTACK_ENGINES": str(empty_cache),
           # The user's backend: a directory they logged in to (`pulumi login file://...`).
           "PULUMI_BACKEND_URL": (tmp_path / "state").as_uri(), "PULUMI_CONFIG_PASSPHRASE": "",
           "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
    done = subprocess.run([sys.executable, "-m", "trainstack.cli", "preview", "--stack", "byo-p5",
                           "--cwd", str(project)], env=env, capture_output=True, text=True, timeout=600, check=False)
    said = done.stderr + done.stdout
    assert f"the Pulumi CLI: {installed / 'pulumi'}; backend: PULUMI_BACKEND_URL" in done.stderr, said[-3000:]
    assert "building the engine" not in said and "Go source" not in said
    assert list(empty_cache.iterdir()) == []
    # The CLI ran the program, and started the user's Kubernetes provider: the engine registered the stack's
    # resources, and the provider refused the shipped stack's placeholder certificate authority (byo-p5's is the
    # first line of a PEM block alone), which is as far as a preview gets without the user's cluster.
    assert "  create   pulumi:pulumi:Stack trainstack-byo-p5" in done.stderr, said[-3000:]
    assert "pulumi:providers:kubernetes byo-p5-eks-k8s" in done.stderr
    assert done.returncode == 3 and "unable to load root certificates" in done.stderr, said[-3000:]
