"""`trainstack rehearse` as a command: a stack with no Kubernetes layer says so and passes; a fault that does not
end as the stack is built for fails it (exit 1) though every job ran; engines that are not built, with no Go to
build them, are one line naming the engine and the fix (exit 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from trainstack import cli, rehearsal
from trainstack.rehearsal.run import Rehearsal

REPO = Path(__file__).resolve().parents[2]


def test_a_slurm_hyperpod_stack_has_nothing_to_rehearse_and_passes(capsys) -> None:
    assert cli.main(["rehearse", "--stack", "hyperpod", "--cwd", str(REPO), "--json", "--quiet"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["ok"] and record["jobs"] == [] and record["rehearsalVersion"] == 1
    assert record["notes"] == ["a Slurm-orchestrated HyperPod stack has no Kubernetes layer to rehearse"]


def test_a_fault_that_did_not_end_as_built_for_fails_the_rehearsal_though_every_job_ran(capsys, monkeypatch) -> None:
    held = {"fault": "a job without a queue name", "ok": False, "outcome": "created by the rehearsal's admin, not held"}

    def rehearsed(plan, **options) -> Rehearsal:
        assert options["faults"]
        return Rehearsal(plan.stack, faults=[held])

    monkeypatch.setattr(rehearsal, "rehearse", rehearsed)
    assert cli.main(["rehearse", "--stack", "kueue-p5", "--cwd", str(REPO), "--faults", "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Rehearsal of kueue-p5: a fault did not end as built for")
    assert "Fault a job without a queue name: created by the rehearsal's admin, not held" in out
    assert err.strip() == ("error: the fault 'a job without a queue name' did not end as kueue-p5 is built for (its "
                           "line above says how)")


def test_without_built_engines_or_go_the_command_says_which_engine_and_how_in_one_line(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sha256sum", "cat", "cut", "awk", "mkdir", "mktemp", "flock", "rm", "dirname"):
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    environment = {**os.environ, "PATH": str(bin_dir), "TRAINSTACK_ENGINES": str(tmp_path / "empty-cache")}
    environment.pop("TRAINSTACK_ENGINES_TEST")  # build.sh is meant to run here (and find no Go), not to refuse
    done = subprocess.run([sys.executable, "-m", "trainstack.cli", "rehearse", "--stack", "trn1", "--cwd", str(REPO)],
                          capture_output=True, text=True, env=environment, timeout=300)
    assert done.returncode == 3, done.stderr
    (line,) = [row for row in done.stderr.splitlines() if row.startswith("error:")]
    assert "engine 'kubernetes' is not built" in line and "install Go" in line
