"""`trainstack up`, `preview` and `destroy`: the offline plan gates the engine; nothing is deployed from a stack whose
plan fails a mandatory policy."""

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml
from trainstack import cli
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(*engines.DEPLOY)

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


def test_up_of_a_waiting_stack_whose_kubeconfig_cannot_be_used_fails_the_wait_not_the_command(tmp_path, monkeypatch):
    """The engine's part stood in for (tests/engines/test_device_wait.py runs the wait against the API server)."""
    from trainstack.deploy import engine

    kubeconfig = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
                  "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:9"}}],
                  "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                  "users": [{"name": "u", "user": {"client-certificate-data": "x", "client-key-data": "y"}}]}
    monkeypatch.setattr(engine, "run", lambda *args, **kwargs: engine.Outcome(
        "up", [], {"create": 1}, {"kubeconfig": json.dumps(kubeconfig)}, 0.1, []))
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.b200-dra.yaml").write_text((REPO / "stacks" / "Pulumi.b200-dra.yaml").read_text())
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["up", "--stack", "b200-dra", "--cwd", str(tmp_path)])
    assert code == cli.EXIT_FAILURE
    assert "b200-dra is deployed, but not every accelerated node shows its devices" in err.getvalue()
    assert "the cluster could not be read: " in err.getvalue() and "client-certificate-data" in err.getvalue()


def test_up_says_which_hyperpod_workers_in_the_cluster_it_does_not_wait_for(tmp_path, monkeypatch):
    from trainstack.deploy import engine

    monkeypatch.setattr(engine, "run", lambda *args, **kwargs: engine.Outcome(
        "up", [], {"create": 1}, {"kubeconfig": "{}"}, 0.1, []))
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.b200-dra.yaml").read_text())
    document["config"]["trainstack:hyperpod"] = {
        "orchestrator": "eks", "clusterName": "ml-cluster",
        "workers": [{"name": "h100", "instanceType": "ml.p5.48xlarge", "count": 2}]}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.b200-dra.yaml").write_text(yaml.safe_dump(document))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        cli.main(["up", "--stack", "b200-dra", "--cwd", str(tmp_path)])
    assert "HyperPod h100 (ml.p5.48xlarge, 2 instances): not waited for: HyperPod checks the instances" in \
        err.getvalue(), err.getvalue()
