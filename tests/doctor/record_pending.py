"""Record what doctor's pending section reads of the kueue-p5 rehearsal under each fault (pending_faults.py), into
tests/data/doctor/pending/, for the unit tests (test_pending_unit.py): every object as the real API server, Kueue
v0.19.2, kube-scheduler and Karpenter left it.

    .venv/bin/python tests/doctor/record_pending.py [CASE ...]

All cases (or those named) on one fresh rehearsal: about 15 minutes on 2 cores, as ``evicted`` and ``readmitted``
wait out kueue-p5's 10-minute waitForPodsReady timeout, so that Kueue evicts the job, then admits it again.
``startup`` is the rehearsal just started: the stack's Job that makes the teams' FSx directories waits for its
claim, which kube-controller-manager binds once it runs."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

import pending_faults as faults  # noqa: E402 - found through the path set above, as a script
from support.rendered_jobs import planned_record  # noqa: E402
from trainstack.doctor import pending  # noqa: E402
from trainstack.kube.client import Cluster  # noqa: E402
from trainstack.plan import Plan  # noqa: E402
from trainstack.rehearsal.cluster import cluster_for  # noqa: E402

Case = Callable[[Cluster], AbstractContextManager[dict[str, Any]]]
CASES: dict[str, tuple[Case, str]] = {
    "short-now": (faults.short_now, "llm runs 12 p5 nodes; vision asks for 6 of the 4 left"),
    "never": (faults.never, "vision asks for 17 p5 nodes, one more than its queue can ever hold"),
    "split-block": (faults.split_block, "8 of the 16 p5 nodes relabelled under a second layer-3 network node; llm "
                                        "requires 10 nodes in one layer-3 block"),
    "maintenance": (faults.maintenance, "every p5 node tainted example.com/maintenance=true:NoSchedule; llm asks "
                                        "for 2"),
    "no-node-takes": (faults.no_node_takes, "llm's 1-node dev job pinned to us-east-1b, where no node is or can be "
                                            "launched"),
    "untolerated": (faults.untolerated, "vision's 1-node p5 job without the group's toleration"),
    "tainted-no-queue": (faults.tainted_no_queue, "every p5 node tainted example.com/maintenance=true:NoSchedule; a "
                                                  "1-node p5 Job in the default namespace, which no queue holds"),
    "check-inactive": (lambda c: faults.gated(c, active=False),
                       "vision's ClusterQueue requires an admission check no controller runs"),
    "check-pending": (lambda c: faults.gated(c, active=True),
                      "vision's ClusterQueue requires an active admission check that has not decided"),
}


def _pods_ready_timeout(cluster: Cluster) -> None:
    """no-node-takes left to Kueue's waitForPodsReady: recorded once Kueue has evicted it, and once it admitted it
    again after its backoff."""
    with faults.no_node_takes(cluster) as llm:
        # Evicted and its quota released: waiting out its requeue backoff (a minute, kueue-p5's waitForPodsReady).
        faults.workload(cluster, llm, lambda c: c.get("Evicted", {}).get("reason") == "PodsReadyTimeout"
                        and c["Evicted"].get("status") == "True"
                        and c.get("QuotaReserved", {}).get("status") == "False", timeout=900)
        print(faults.record(pending.read(cluster), "evicted", "no-node-takes, evicted by waitForPodsReady"))
        faults.workload(cluster, llm, lambda c: c.get("Evicted", {}).get("status") == "False"
                        and faults.admitted(c), timeout=300)
        time.sleep(5)  # the new pod's scheduling events
        print(faults.record(pending.read(cluster), "readmitted", "no-node-takes, admitted again after its eviction"))


def main(asked: list[str]) -> None:
    every = ["startup", "healthy", *CASES, "evicted"]
    unknown = sorted(set(asked) - {*every, "readmitted"})
    if unknown:
        raise SystemExit(f"no case {', '.join(unknown)}; the cases: {', '.join(every)}, readmitted")
    wanted = set(asked or every) | ({"evicted"} if "readmitted" in asked else set())
    plan = Plan.from_dict(planned_record(faults.STACK))
    with cluster_for(plan, ["default-scheduler"], progress=print) as rehearsal:
        cluster = rehearsal.cluster
        if "startup" in wanted:
            print(faults.record(pending.read(cluster), "startup", "the rehearsal just started"))
        cluster.wait_for("the rehearsal's own pods scheduled", lambda: not [
            p for p in cluster.list("v1", "Pod", fieldSelector="status.phase=Pending")
            if not p["spec"].get("nodeName")], timeout=120)
        if "healthy" in wanted:
            print(faults.record(pending.read(cluster), "healthy", "the rehearsal once its own jobs ran"))
        for case, (fault, how) in CASES.items():
            if case in wanted:
                with fault(cluster):
                    print(faults.record(pending.read(cluster), case, how))
        if "evicted" in wanted:
            _pods_ready_timeout(cluster)


if __name__ == "__main__":
    main(sys.argv[1:])
