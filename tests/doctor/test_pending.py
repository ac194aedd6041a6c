"""Why is my job pending: doctor on the rehearsal of kueue-p5, where the real Kueue v0.19.2, kube-scheduler and
Karpenter decide what becomes of each job, each fault made by a real mechanism (pending_faults.py) and taken away
before the test returns. Doctor reads through the read-only client doctor's gatherer uses, so a test also fails
if the section tried to change the cluster."""

from __future__ import annotations

from typing import Any

import pytest
from trainstack.doctor import pending
from trainstack.doctor.finding import Finding
from trainstack.doctor.run import ReadOnlyCluster
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import RehearsalCluster

from . import pending_faults as faults
from .conftest import SHARED_REHEARSAL, settle

pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]


@pytest.fixture(autouse=True)
def _settled(kueue_p5: RehearsalCluster) -> None:
    settle(kueue_p5.cluster)


def _doctor(rehearsal: RehearsalCluster, plan: Plan) -> list[Finding]:
    found = pending.findings(plan, ReadOnlyCluster(rehearsal.cluster))
    for finding in found:  # what doctor prints, in the test's output (pytest -s)
        print(finding.line())
    return found


def _about(found: list[Finding], job: dict[str, Any]) -> Finding:
    """The one finding about ``job``, and nothing about any other job."""
    named = f"({job['kind']} {job['metadata']['name']})"
    assert [f.subject.endswith(named) for f in found] == [True], [f.line() for f in found]
    return found[0]


def test_a_healthy_rehearsal_has_no_pending_job(kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    assert _doctor(kueue_p5, kueue_p5_plan) == []


def test_a_job_wider_than_its_teams_free_quota_is_told_how_short_whose_nodes_hold_it_and_what_fits_now(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.short_now(kueue_p5.cluster) as vision:
        finding = _about(_doctor(kueue_p5, kueue_p5_plan), vision)
    assert finding.section == "pending"
    assert "may hold up to 16 p5 nodes: 4 guaranteed" in finding.expected
    assert "asks for 6 nodes (48 nvidia.com/gpu, 192 vpc.amazonaws.com/efa)" in finding.actual
    assert "4 are free to its queue now, so 2 more nodes are needed" in finding.actual
    assert "Kueue: 16 nvidia.com/gpu, 64 vpc.amazonaws.com/efa more" in finding.actual
    assert "of cohort p5-pool's 16 p5 nodes, llm 12 (6 borrowed), vision 0 are held and 4 free" in finding.actual
    assert "trainstack launch device-check --group p5 --team vision --nodes 4" in finding.fix
    assert "held by llm/" in finding.fix and "raise its guaranteedNodes on p5 (4)" in finding.fix


def test_a_job_wider_than_its_team_can_ever_hold_is_told_it_would_wait_for_ever(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.never(kueue_p5.cluster) as vision:
        finding = _about(_doctor(kueue_p5, kueue_p5_plan), vision)
    assert ("never admitted: it asks for 17 nodes (136 nvidia.com/gpu, 544 vpc.amazonaws.com/efa), more than the 16 "
            "nodes (128 nvidia.com/gpu, 512 vpc.amazonaws.com/efa) team vision's queue can ever hold") in finding.actual
    assert "--nodes 16" in finding.fix
    assert f"raise its maxSize (16) and its capacity reservation's instanceCount in {kueue_p5_plan.stack_file}" \
        in finding.fix


def test_a_job_whose_required_network_block_is_too_small_is_told_how_many_fit_and_which_layer_holds_it(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.split_block(kueue_p5.cluster) as llm:
        finding = _about(_doctor(kueue_p5, kueue_p5_plan), llm)
    assert "its 10 pods must share one topology.k8s.aws/network-node-layer-3 block (required)" in finding.actual
    assert "fits only 8 of them (topology ec2-network-3-layers)" in finding.actual
    assert "the group's 16 nodes sit in 2 such blocks (8, 8 nodes)" in finding.actual
    assert "--nodes 10 --topology required --layer 2" in finding.fix
    assert "one topology.k8s.aws/network-node-layer-2 block holds 16 nodes" in finding.fix
    assert "a job of 8 nodes fits now" in finding.fix and "--nodes 8" in finding.fix


def test_a_job_on_nodes_tainted_for_maintenance_is_told_the_taint_and_how_to_lift_it(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.maintenance(kueue_p5.cluster) as llm:
        finding = _about(_doctor(kueue_p5, kueue_p5_plan), llm)
    assert "Kueue's topology-aware scheduling fits none of them" in finding.actual
    assert "of the 16 nodes it looked at, 16 carry the taint example.com/maintenance=true:NoSchedule, which the " \
           "pods do not tolerate" in finding.actual
    assert "kubectl taint nodes -l trainstack.io/node-group=p5 example.com/maintenance:NoSchedule-" in finding.fix


def test_an_admitted_job_no_node_takes_is_told_the_schedulers_and_karpenters_reasons(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.no_node_takes(kueue_p5.cluster) as llm:
        finding = _about(_doctor(kueue_p5, kueue_p5_plan), llm)
    assert "admitted by Kueue to ClusterQueue llm at " in finding.actual
    assert ", but 1 pod waits for a node" in finding.actual
    assert "node group dev has no node now; no node has topology.kubernetes.io/zone=us-east-1b" in finding.actual
    assert "karpenter: " in finding.actual and "topology.kubernetes.io/zone In [us-east-1b]" in finding.actual
    assert "not all ready 10 min after admission" in finding.actual
    assert "drop the selector topology.kubernetes.io/zone=us-east-1b, which no node has" in finding.fix


def test_a_job_no_queue_holds_on_nodes_tainted_for_maintenance_is_told_the_taint_the_scheduler_counts(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    with faults.tainted_no_queue(kueue_p5.cluster):
        found = _doctor(kueue_p5, kueue_p5_plan)
    assert [f.subject for f in found] == ["Job default/platform-check"]
    assert "16 nodes carry a taint the pods do not tolerate (example.com/maintenance=true:NoSchedule on 16)" \
        in found[0].actual
    assert "kubectl taint nodes -l trainstack.io/node-group=p5 example.com/maintenance:NoSchedule-" in found[0].fix

