"""One rehearsal of kueue-p5 for the doctor tests that need a live cluster: the real control plane, kwok's nodes
and the real controllers (rehearsal.cluster.cluster_for), started once for the tests of this folder that run one
after another, and stopped when the next test is another folder's: the training operator serves its webhook from one
fixed directory under /tmp, so no other rehearsal may run beside it (tests/conftest.py keeps every test of the
rehearsal's controllers on one pytest-xdist worker; tests/test_engine_marks.py holds that).

The tests that use it share it: each makes its fault by a real mechanism, checks what doctor says, and takes the
fault away again before it returns, so that the next test starts from a healthy cluster. Mark each such module
with ``pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]``: the worker group of every test
of the rehearsal's controllers."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.rendered_jobs import planned_record
from trainstack.kube.client import Cluster
from trainstack.plan import Plan
from trainstack.rehearsal.cluster import RehearsalCluster, cluster_for

STACK = "kueue-p5"
SHARED_REHEARSAL = pytest.mark.xdist_group(name="engines: the rehearsal's controllers")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """kueue-p5's plan record, as `trainstack plan --json` writes it, in a file: what `doctor --plan` reads."""
    path = tmp_path_factory.mktemp("record") / f"{STACK}.json"
    path.write_text(json.dumps(planned_record(STACK)))
    return path


@pytest.fixture(scope="session")
def kueue_p5_plan() -> Plan:
    return Plan.from_dict(planned_record(STACK))


_RUNNING: dict[str, Any] = {}
"""The rehearsal the doctor tests share while they run one after another: its cluster and what stops it."""
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def kueue_p5(kueue_p5_plan: Plan) -> RehearsalCluster:
    """The shared rehearsal, started by the first test of this folder that needs it. Module-scoped so that each
    module's own fixtures may use it; it outlives the module while the next test is this folder's too."""
    if "cluster" not in _RUNNING:
        stop = contextlib.ExitStack()
        _RUNNING["cluster"] = stop.enter_context(cluster_for(kueue_p5_plan, ["default-scheduler"]))
        _RUNNING["stop"] = stop
    running: RehearsalCluster = _RUNNING["cluster"]
    return running


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Stop the shared rehearsal once the tests that use it are done: after the last of this folder's tests in a
    row (every fixture that uses it torn down first), before another folder's test starts its own."""
    result = yield
    if "stop" in _RUNNING and (nextitem is None or HERE not in Path(str(nextitem.path)).parents):
        _RUNNING.pop("cluster")
        _RUNNING.pop("stop").close()
    return result


def settle(cluster: Cluster) -> None:
    """Wait until no pod of the rehearsal waits for a node: just after it starts, the stack's Job that makes the
    teams' FSx directories waits for kube-controller-manager to bind its claim, and a pending pod is doctor's to
    name."""
    cluster.wait_for("the rehearsal's own pods placed", lambda: not [
        pod for pod in cluster.list("v1", "Pod", fieldSelector="status.phase=Pending")
        if not pod["spec"].get("nodeName")], timeout=120)
