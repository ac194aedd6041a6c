"""`trainstack doctor` as a command, against the rehearsal of kueue-p5 through its kubeconfig file: exit 0 when
healthy, 1 with findings (each line what the plan expected, what is there and the fix), 2 when the API server cannot
be read (a dead port, credentials it refuses), with what and why; --json's document and --section's choice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from trainstack import cli
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import RehearsalCluster
from trainstack.rehearsal.control_plane import free_port

from .conftest import SHARED_REHEARSAL, STACK, settle

pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]
REPO = Path(__file__).resolve().parents[2]


def _doctor(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = cli.main(["doctor", *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def _kubectl(running: RehearsalCluster, *arguments: str) -> None:
    subprocess.run([str(engines.directory(engines.KUBERNETES) / "kubectl"), f"--kubeconfig={running.plane.kubeconfig}",
                    *arguments], check=True, capture_output=True, text=True, timeout=60)


def test_a_healthy_section_exits_0_and_says_what_it_checked(kueue_p5: RehearsalCluster, record: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    settle(kueue_p5.cluster)
    code, out, err = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(kueue_p5.plane.kubeconfig),
                             "--section", "pending", "--section", "fabric")
    assert (code, err) == (0, ""), out
    assert out.splitlines()[0] == f"Doctor of stack {STACK} through {kueue_p5.cluster.url} (pending, fabric)"
    assert out.splitlines()[-1].startswith("healthy: ")


def test_a_cordoned_node_exits_1_with_its_line_and_fix(kueue_p5: RehearsalCluster, record: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    name = "p5-11"
    _kubectl(kueue_p5, "cordon", name)
    try:
        code, out, err = _doctor(capsys, "--stack", STACK, "--cwd", str(REPO), "--kubeconfig",
                                 str(kueue_p5.plane.kubeconfig), "--section", "cluster")
    finally:
        _kubectl(kueue_p5, "uncordon", name)
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith(f"cluster: node {name}: "))
    assert line.startswith(f"cluster: node {name}: expected schedulable (the plan cordons no node); found cordoned "
                           "(spec.unschedulable) by kubectl")
    assert line.endswith(f"Fix: if what it was cordoned for is over: kubectl uncordon {name}; if it is to go: "
                         f"kubectl drain {name} --ignore-daemonsets --delete-emptydir-data")
    assert out.splitlines()[-1].startswith("unhealthy: ")
    assert err.startswith(f"error: doctor of stack {STACK}: unhealthy: ")


def test_json_is_one_document_with_each_finding_and_what_was_checked(kueue_p5: RehearsalCluster, record: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    name = "p5-10"
    _kubectl(kueue_p5, "cordon", name)
    try:
        code, out, _ = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(kueue_p5.plane.kubeconfig),
                               "--section", "cluster", "--json")
    finally:
        _kubectl(kueue_p5, "uncordon", name)
    document = json.loads(out)
    assert code == 1
    assert set(document) == {"doctorVersion", "stack", "server", "sections", "healthy", "summary", "checked",
                             "notChecked", "findings"}
    assert (document["doctorVersion"], document["stack"], document["sections"], document["healthy"]) == (
        1, STACK, ["cluster"], False)
    assert document["checked"]["node groups"] == 3 and document["checked"]["nodes"] == 18
    cordon = next(f for f in document["findings"] if f["subject"] == f"node {name}")
    assert set(cordon) == {"section", "subject", "expected", "actual", "fix"} and cordon["section"] == "cluster"


def test_one_section_answers_that_part_only(kueue_p5: RehearsalCluster, record: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(kueue_p5.plane.kubeconfig),
                           "--section", "fabric", "--json")
    document = json.loads(out)
    assert document["sections"] == ["fabric"] and all(f["section"] == "fabric" for f in document["findings"])
    assert "node groups" not in document["checked"] and code == (0 if document["healthy"] else 1)


def _kubeconfig(path: Path, server: str, token: str, ca: str | None) -> Path:
    cluster: dict[str, Any] = {"server": server, **({"certificate-authority": ca} if ca else {})}
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}))
    return path


def test_a_server_nothing_answers_on_exits_2_saying_what_and_why(record: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    server = f"https://127.0.0.1:{free_port()}"
    config = _kubeconfig(tmp_path / "dead.kubeconfig", server, "any", None)
    code, out, err = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(config))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: the API server {server} could not be read: no answer (")
    assert "Connection refused" in err and "check the server's address" in err
    code, out, _ = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(config), "--json")
    unreachable = json.loads(out)["unreachable"]
    assert code == 2 and unreachable.startswith(f"the API server {server} could not be read: no answer (")


def test_credentials_the_api_server_refuses_exit_2_with_the_fix(kueue_p5: RehearsalCluster, record: Path,
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    admin = yaml.safe_load(kueue_p5.plane.kubeconfig.read_text())
    ca = admin["clusters"][0]["cluster"]["certificate-authority"]
    config = _kubeconfig(tmp_path / "stale.kubeconfig", kueue_p5.cluster.url, "a-token-it-never-issued", ca)
    code, _, err = _doctor(capsys, "--plan", str(record), "--kubeconfig", str(config), "--section", "cluster")
    assert code == 2
    assert err.startswith(f"error: the API server {kueue_p5.cluster.url} could not be read: HTTP 401, the "
                          "credentials were refused (Unauthorized); refresh them (EKS: aws eks update-kubeconfig")
