"""Why is my job pending, sentence by sentence: doctor's pending section on reads recorded from the kueue-p5
rehearsal (tests/data/doctor/pending/, written by record_pending.py: real kube-apiserver, Kueue v0.19.2,
kube-scheduler and Karpenter under each fault of pending_faults.py), against kueue-p5's own plan record."""

from __future__ import annotations

import dataclasses

import pytest
from support.rendered_jobs import planned_record
from trainstack.doctor import pending
from trainstack.doctor.finding import Finding
from trainstack.doctor.pending_kueue import read_pending
from trainstack.doctor.pending_queues import Stack, stack_of
from trainstack.plan import Plan

from .pending_faults import STACK, recorded


@pytest.fixture(scope="module")
def stack() -> Stack:
    return stack_of(Plan.from_dict(planned_record(STACK)))


def _judged(stack: Stack, case: str, **changed: object) -> list[Finding]:
    _, read = recorded(case)
    return pending.judge(stack, dataclasses.replace(read, **changed) if changed else read)


def _one(found: list[Finding], job: str) -> Finding:
    assert [f.subject.split(" (")[-1] for f in found] == [f"Job {job})"], [f.line() for f in found]
    assert found[0].section == "pending"
    return found[0]


def test_a_rehearsal_whose_jobs_all_run_has_nothing_pending(stack):
    assert _judged(stack, "healthy") == []


def test_a_teams_queue_short_of_free_quota_says_how_many_nodes_it_lacks_whose_nodes_hold_them_and_what_fits(stack):
    finding = _one(_judged(stack, "short-now"), "vision-6")
    assert finding.expected == ("admitted by team vision's queue (ClusterQueue vision), which may hold up to 16 p5 "
                                "nodes: 4 guaranteed, the rest borrowed from cohort p5-pool while other teams leave it "
                                "unused")
    assert ("it asks for 6 nodes (48 nvidia.com/gpu, 192 vpc.amazonaws.com/efa); 4 are free to its queue now, so 2 "
            "more nodes are needed (Kueue: 16 nvidia.com/gpu, 64 vpc.amazonaws.com/efa more)") in finding.actual
    assert ("Team vision's guarantee is 4 nodes, 0 in use; of cohort p5-pool's 16 p5 nodes, llm 12 (6 borrowed), "
            "vision 0 are held and 4 free") in finding.actual
    fixes = finding.fix.split("; or ")
    assert fixes[0] == ("a job of 4 nodes fits now: kubectl -n vision delete job vision-6, then trainstack launch "
                        "device-check --group p5 --team vision --nodes 4 with its other options as before")
    assert fixes[1].startswith("wait for the borrowed nodes to come back (held by llm/job-llm-12-")
    assert fixes[2] == "guarantee team vision more: raise its guaranteedNodes on p5 (4) in Pulumi.kueue-p5.yaml"
    assert fixes[3].startswith("add p5 capacity: raise its maxSize (16) and its capacity reservation's instanceCount")


def test_a_job_wider_than_its_queue_can_ever_hold_is_told_it_waits_for_ever_and_the_most_it_may_ask(stack):
    finding = _one(_judged(stack, "never"), "vision-17")
    assert ("never admitted: it asks for 17 nodes (136 nvidia.com/gpu, 544 vpc.amazonaws.com/efa), more than the 16 "
            "nodes (128 nvidia.com/gpu, 512 vpc.amazonaws.com/efa) team vision's queue can ever hold") in finding.actual
    assert "(Kueue: 136 nvidia.com/gpu > 128, 544 vpc.amazonaws.com/efa > 512)" in finding.actual
    assert finding.fix.startswith("ask for at most 16 nodes: kubectl -n vision delete job vision-17, then trainstack "
                                  "launch device-check --group p5 --team vision --nodes 16")


def test_a_required_block_too_small_is_read_from_kueues_events_when_its_last_attempt_named_another_flavor(stack):
    how, read = recorded("split-block")
    held = next(w for w in read.workloads if w["metadata"]["name"].startswith("job-llm-10-one-block-"))
    last = next(c for c in held["status"]["conditions"] if c["type"] == "QuotaReserved")
    assert last["message"].endswith('Flavor "dev" does not support TopologyAwareScheduling'), how
    finding = _one(pending.judge(stack, read), "llm-10-one-block")
    assert ("its 10 pods must share one topology.k8s.aws/network-node-layer-3 block (required), and Kueue's "
            "topology-aware scheduling fits only 8 of them (topology ec2-network-3-layers); the group's 16 nodes sit "
            "in 2 such blocks (8, 8 nodes)") in finding.actual
    assert "--nodes 10 --topology required --layer 2" in finding.fix
    assert "(one topology.k8s.aws/network-node-layer-2 block holds 16 nodes)" in finding.fix
    assert "the same with --topology preferred" in finding.fix
    assert "a job of 8 nodes fits now: " in finding.fix and "--nodes 8 with" in finding.fix


def test_without_kueues_events_a_last_attempt_at_another_flavor_is_said_to_explain_nothing(stack):
    finding = _one(_judged(stack, "split-block", workload_events=[]), "llm-10-one-block")
    assert finding.actual == ("not admitted; Kueue's last attempt looked only at flavors its pods do not select "
                              "(flavor dev: it has no topology and the pods ask to be placed by one) and has not said "
                              "why p5 will not take them")
    assert finding.fix.endswith("(its events hold each attempt's reason)")


def test_nodes_tainted_for_maintenance_are_named_with_the_taint_and_the_command_that_lifts_it(stack):
    finding = _one(_judged(stack, "maintenance"), "llm-2")
    assert ("its 2 pods prefer one network block, then any nodes of p5, and Kueue's topology-aware scheduling fits "
            "none of them (topology ec2-network-3-layers); of the 16 nodes it looked at, 16 carry the taint "
            "example.com/maintenance=true:NoSchedule, which the pods do not tolerate") in finding.actual
    assert finding.fix == ("if the taint example.com/maintenance=true:NoSchedule is no longer wanted: kubectl taint "
                           "nodes -l trainstack.io/node-group=p5 example.com/maintenance:NoSchedule-")


def test_an_admitted_job_no_node_takes_is_told_the_schedulers_reasons_the_label_no_node_has_and_karpenters(stack):
    finding = _one(_judged(stack, "no-node-takes"), "llm-dev-1b")
    assert "1 pod waits for a node: none of the 18 nodes takes them: 18 nodes lack the labels the pods select " \
           "(node group dev has no node now; no node has topology.kubernetes.io/zone=us-east-1b)" in finding.actual
    assert "(karpenter: Failed to schedule pod, incompatible requirements, key topology.kubernetes.io/zone" \
        in finding.actual
    assert finding.fix.startswith("drop the selector topology.kubernetes.io/zone=us-east-1b, which no node has")
    assert "kubectl -n llm describe pod llm-dev-1b-" in finding.fix


def test_the_nodes_are_read_only_where_a_sentence_names_their_taints_labels_or_blocks(stack):
    def refused() -> list[dict[str, object]]:
        raise AssertionError("the nodes were read")

    for case in ("healthy", "short-now", "never", "check-pending"):
        _judged(stack, case, load_nodes=refused)
    with pytest.raises(AssertionError, match="the nodes were read"):
        _judged(stack, "split-block", load_nodes=refused)


def test_a_job_no_queue_holds_on_tainted_nodes_is_told_the_taint_the_scheduler_does_not_name(stack):
    # kube-scheduler v1.35.4 says "16 node(s) had untolerated taint(s)"; the taint is read from the nodes.
    (finding,) = _judged(stack, "tainted-no-queue")
    assert finding.subject == "Job default/platform-check"
    assert finding.actual == ("1 pod waits for a node: none of the 18 nodes takes them: 16 nodes carry a taint the "
                              "pods do not tolerate (example.com/maintenance=true:NoSchedule on 16); 2 nodes lack "
                              "the labels the pods select")
    assert finding.fix.startswith("if the taint example.com/maintenance=true:NoSchedule is no longer wanted: kubectl "
                                  "taint nodes -l trainstack.io/node-group=p5 example.com/maintenance:NoSchedule-; ")


def test_a_job_without_its_groups_toleration_is_told_no_flavor_takes_it_and_why(stack):
    finding = _one(_judged(stack, "untolerated"), "vision-no-toleration")
    assert finding.actual == ("no flavor takes its pods: flavor p5: its nodes' taint nvidia.com/gpu=true:NoSchedule, "
                              "which the pods do not tolerate; flavor dev: it has no topology and the pods ask to be "
                              "placed by one")
    assert finding.fix.startswith("give the pods the group's nodeSelector and tolerations, as trainstack launch ... "
                                  "--team vision renders them")


def test_a_queue_made_inactive_by_an_admission_check_no_controller_runs_says_so(stack):
    finding = _one(_judged(stack, "check-inactive"), "vision-gated")
    assert finding.actual == ("ClusterQueue vision is inactive, so it admits nothing (its Active condition: "
                              "AdmissionCheckInactive, Can't admit new workloads: references inactive "
                              "AdmissionCheck(s): capacity-gate.)")
    assert finding.fix.startswith("read its conditions: kubectl get clusterqueue vision -o yaml")


def test_quota_reserved_but_an_admission_check_undecided_names_the_check_and_its_state(stack):
    finding = _one(_judged(stack, "check-pending"), "vision-gated")
    assert finding.actual == ("quota reserved in ClusterQueue vision, admission waits on its checks: capacity-gate: "
                              "Pending")
    assert finding.fix == ("ask the check's controller (its spec.controllerName): kubectl get admissioncheck "
                           "capacity-gate -o yaml")


@pytest.mark.parametrize("case", ["evicting", "evicted"])
def test_a_job_evicted_by_waitforpodsready_is_told_once_with_its_requeue_and_where_to_look(stack, case):
    finding = _one(_judged(stack, case), "llm-dev-1b")
    assert finding.expected == "its pod ready within 10 min of admission (waitForPodsReady)"
    assert finding.actual.startswith("evicted: its pods were not all ready in time, and Kueue gave its nodes back "
                                     "(Kueue: Exceeded the PodsReady timeout llm/job-llm-dev-1b-")
    assert "; requeued 1 time, back in the queue at " in finding.actual
    assert "kubectl -n llm get events --field-selector reason=FailedScheduling" in finding.fix


def test_a_job_admitted_again_after_an_eviction_counts_the_evictions_beside_the_schedulers_reasons(stack):
    finding = _one(_judged(stack, "readmitted"), "llm-dev-1b")
    assert "(waitForPodsReady), as it already did 1 time" in finding.actual
    assert "no node has topology.kubernetes.io/zone=us-east-1b" in finding.actual


def test_a_job_no_queue_holds_whose_pod_waits_for_its_claim_is_said_so(stack):
    (finding,) = _judged(stack, "startup")
    assert finding.subject == "Job trainstack-system/fsx-team-directories"
    assert finding.actual == ("1 pod waits for a node: none of the 18 nodes takes them: its PersistentVolumeClaims "
                              "are not bound to a volume yet")
    assert finding.fix.startswith("see why its claims are not bound: kubectl -n trainstack-system get "
                                  "persistentvolumeclaims; the scheduler's whole account: kubectl -n "
                                  "trainstack-system describe pod fsx-team-directories-")


def test_kueues_quota_and_topology_messages_are_read_into_their_numbers():
    _, read = recorded("never")
    never = next(c["message"] for w in read.workloads for c in w["status"]["conditions"]
                 if c["type"] == "QuotaReserved" and "maximum capacity" in c.get("message", ""))
    said = read_pending(never)
    assert [(n.resource, n.flavor, n.request, n.maximum) for n in said.never] == [
        ("nvidia.com/gpu", "p5", 136, 128), ("vpc.amazonaws.com/efa", "p5", 544, 512)]
    assert [u.flavor for u in said.unmatched] == ["dev"] and said.decisive
    _, read = recorded("maintenance")
    room = read_pending(next(e["message"] for e in read.workload_events if "excluded" in e["message"])).no_room
    assert [(r.topology, r.fit, r.count, r.unit, r.nodes, r.excluded) for r in room] == [
        ("ec2-network-3-layers", 0, 2, "pod", 16, {"taint example.com/maintenance=true:NoSchedule": 16})]
    assert not read_pending('couldn\'t assign flavors to pod set main: Flavor "dev" does not support '
                            'TopologyAwareScheduling').decisive
