"""One rehearsal of kueue-p5 for the doctor tests that need a live cluster: the real control plane, kwok's nodes
and the real controllers (rehearsal.cluster.cluster_for), started once per pytest-xdist worker.

The tests that use it share it: each makes its fault by a real mechanism, checks what doctor says, and takes the
fault away again before it returns, so that the next test starts from a healthy cluster. Mark each such module
with ``pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]`` so that pytest-xdist runs them
on one worker, against one cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.rendered_jobs import planned_record
from trainstack.plan import Plan
from trainstack.rehearsal.cluster import RehearsalCluster, cluster_for

STACK = "kueue-p5"
SHARED_REHEARSAL = pytest.mark.xdist_group(name="doctor: one kueue-p5 rehearsal")


@pytest.fixture(scope="session")
def kueue_p5_plan() -> Plan:
    return Plan.from_dict(planned_record(STACK))


@pytest.fixture(scope="session")
def kueue_p5(kueue_p5_plan: Plan) -> Iterator[RehearsalCluster]:
    with cluster_for(kueue_p5_plan, ["default-scheduler"]) as running:
        yield running
