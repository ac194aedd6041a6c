"""Doctor's fabric section on the rehearsal of kueue-p5: a TrainJob the launcher renders, run by the real Kueue,
Trainer and JobSet on kwok's nodes, whose rank 0 pod's log says NCCL chose TCP sockets. The log reaches doctor as a
kubelet's would: the real kube-apiserver's ``pods/log`` proxies to kwok's kubelet server, which serves the file a
``Logs`` object names (rehearsal.kwok ``container_log``). The NCCL logs are the ones test_fabric_unit.py describes."""

from __future__ import annotations

from pathlib import Path

import pytest
from trainstack import launch
from trainstack.doctor import fabric
from trainstack.doctor.fabric_pods import log_reader
from trainstack.outputs import parse_outputs
from trainstack.plan import Plan
from trainstack.rehearsal import engines, kwok
from trainstack.rehearsal.cluster import RehearsalCluster
from trainstack.rehearsal.jobs import IMAGE, RenderedJob
from trainstack.rehearsal.submission import delete_job, submit
from trainstack.rehearsal.watch import pods_of

from .conftest import SHARED_REHEARSAL

pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]

HERE = Path(__file__).resolve().parent
SOCKETS, OFI_EFA = ((HERE / name).read_text().splitlines() for name in ("nccl_socket.log", "nccl_ofi_efa.log"))
NAME, TEAM = "fabric-p5-2", "llm"
SUBJECT = f"job {TEAM}/{NAME} on node group p5"


def test_a_job_whose_rank_0_log_says_nccl_chose_sockets_is_named_with_its_fix_and_one_over_efa_is_not(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan) -> None:
    cluster, plane = kueue_p5.cluster, kueue_p5.plane
    outputs = parse_outputs(kueue_p5_plan.outputs)
    document = launch.render_trainjob(outputs, name=NAME, group_name="p5", nodes=2, image=IMAGE,
                                      command=["torchrun", "train.py"], queue=launch.QueueRequest(team=TEAM))
    job = RenderedJob(outputs.stack, "render_trainjob", "p5", 2, document)
    try:
        result = submit(cluster, kueue_p5.nodes, job, timeout=180, progress=lambda line: None)
        assert result.seen.running_whole, result.problem
        # Rank 0 is the node Job's pod of completion index 0 (Trainer's torch plugin: its node rank).
        (rank_zero,) = [pod for pod in pods_of(cluster, "TrainJob", NAME, TEAM)
                        if pod["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") == "0"]
        name, node = rank_zero["metadata"]["name"], rank_zero["spec"]["nodeName"]
        # kwok serves no log for a pod until told to: doctor cannot read it, and says nothing of its transport.
        assert [f for f in fabric.findings(kueue_p5_plan, cluster) if f.subject == SUBJECT] == []

        with kwok.container_log(plane, rank_zero, "node", SOCKETS):
            (finding,) = [f for f in fabric.findings(kueue_p5_plan, cluster) if f.subject == SUBJECT]
            assert f"NCCL network Socket, 2 connection(s) over it, in rank 0's log (pod {name} on node {node})" == (
                finding.actual)
            assert "provider efa" in finding.expected
            assert f"kubectl get node {node}" in finding.fix and "FI_PROVIDER=efa" in finding.fix
            # A read cut at limitBytes keeps whole lines only.
            head = log_reader(cluster)(rank_zero, "node", {"limitBytes": "300"})
            assert head is not None and head.splitlines() == SOCKETS[:len(head.splitlines())]

        with kwok.container_log(plane, rank_zero, "node", OFI_EFA):
            assert [f for f in fabric.findings(kueue_p5_plan, cluster) if f.subject == SUBJECT] == []
    finally:
        delete_job(cluster, document)
