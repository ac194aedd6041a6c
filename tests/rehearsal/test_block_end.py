"""A capacity block's wind-down against the real Kueue and the real kube-controller-manager: the steps of the
CronJob the plan records (addons/block_end.py) are done at the API server (support/kubectl_steps.py), and then
Kueue admits no new job onto the block while the admitted one keeps running, and the NoExecute taint reaches the
running job's pods (the taint manager deletes them: SIGTERM and their grace period, on a real kubelet)."""

from __future__ import annotations

from typing import Any

import pytest
from support import kubectl_steps, rendered_jobs
from trainstack import launch
from trainstack.names import YAML_CONFIG_GROUP
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import cluster_for
from trainstack.rehearsal.jobs import IMAGE, RenderedJob
from trainstack.rehearsal.submission import submit
from trainstack.rehearsal.watch import pods_of, workload_of

pytestmark = pytest.mark.engines(*engines.REHEARSAL)

VARIANT = "p5-kueue-capacity-block"


def _job(outputs: Any, name: str) -> RenderedJob:
    document = launch.render_device_check(outputs, name=name, group_name="p5", nodes=1, image=IMAGE,
                                          queue=launch.QueueRequest(team="llm"))
    return RenderedJob(outputs.stack, "render_device_check", "p5", 1, document)


def _wind_down(record: dict[str, Any]) -> dict[str, Any]:
    # The wind-down is the ConfigGroup with a CronJob (the teams' and the FSx directories' ConfigGroups are not).
    (cron,) = [o for r in record["resources"] if r["type"] == YAML_CONFIG_GROUP for o in r["inputs"]["objs"]
               if o["kind"] == "CronJob"]
    spec: dict[str, Any] = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return spec


def _admitted(cluster: Any, document: dict[str, Any]) -> bool:
    workload = workload_of(cluster, document["kind"], document["metadata"]["name"], document["metadata"]["namespace"])
    return workload is not None and any(c["type"] == "Admitted" and c["status"] == "True"
                                        for c in workload.get("status", {}).get("conditions", []))


def _may(cluster: Any, user: str, verb: str, group: str, resource: str, name: str) -> bool:
    """What the API server's RBAC authorizer answers for ``user`` (a SubjectAccessReview)."""
    review = cluster.create({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "metadata": {},
                             "spec": {"user": user, "resourceAttributes": {
                                 "verb": verb, "group": group, "resource": resource, "name": name}}})
    return bool(review["status"]["allowed"])


def test_a_held_block_admits_no_new_job_keeps_the_running_one_and_signals_its_pods() -> None:
    record = rendered_jobs.variant_record(VARIANT)
    outputs = rendered_jobs.variant_outputs(VARIANT)
    pod = _wind_down(record)
    with cluster_for(Plan.from_dict(record), ["default-scheduler"]) as running:
        cluster, quiet = running.cluster, (lambda line: None)
        # The real API server took the wind-down's objects as recorded, and its RBAC lets the Job's ServiceAccount
        # do its steps and no more.
        cron = cluster.get("/apis/batch/v1/namespaces/kube-system/cronjobs/capacity-block-end-p5")
        assert cron["spec"]["schedule"] == "30 10 1 12 *"
        account = f"system:serviceaccount:kube-system:{pod['serviceAccountName']}"
        assert [_may(cluster, account, *step) for step in (
            ("patch", "kueue.x-k8s.io", "clusterqueues", "llm"), ("patch", "kueue.x-k8s.io", "clusterqueues", "other"),
            ("patch", "", "nodes", "p5-0"), ("delete", "", "nodes", "p5-0"))] == [True, False, True, False]
        before = _job(outputs, "before-the-hold")
        assert submit(cluster, running.nodes, before, timeout=60, progress=quiet).seen.running_whole
        for step in pod["initContainers"]:
            kubectl_steps.run(cluster, step["command"])
        assert {cluster.get(f"/apis/kueue.x-k8s.io/v1beta2/clusterqueues/{q}")["spec"]["stopPolicy"]
                for q in ("llm", "vision")} == {"Hold"}

        after = submit(cluster, running.nodes, _job(outputs, "after-the-hold"), timeout=15, progress=quiet)
        assert not after.seen.admitted, after.problem
        assert isinstance(before.document, dict) and _admitted(cluster, before.document)
        pods = pods_of(cluster, "Job", "before-the-hold", "llm")
        assert pods and all(p["status"].get("phase") == "Running" for p in pods)

        (taint,) = pod["containers"]
        kubectl_steps.run(cluster, taint["command"])
        names = {p["metadata"]["name"] for p in pods}

        def signalled() -> bool | None:
            left = [p for p in pods_of(cluster, "Job", "before-the-hold", "llm") if p["metadata"]["name"] in names]
            return all("deletionTimestamp" in p["metadata"] for p in left) or None

        cluster.wait_for("the running job's pods deleted by the taint manager", signalled, timeout=60)
