"""`trainstack up`, `preview` and `destroy`: the offline plan gates the engine; nothing is deployed from a stack whose
plan fails a mandatory policy."""

import contextlib
import io
from pathlib import Path

import yaml
from trainstack import cli

REPO = Path(__file__).resolve().parents[2]


def test_up_refuses_a_stack_whose_plan_fails_and_deploys_nothing(tmp_path):
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["trainstack:cost"] = {"maxHourlyUsd": 1}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["up", "--stack", "dev", "--cwd", str(tmp_path), "--state", str(tmp_path / "state")])
    assert code == cli.EXIT_POLICY
    assert "did not pass" in err.getvalue() and "Nothing was deployed" in err.getvalue()
    assert not (tmp_path / "state").exists()
