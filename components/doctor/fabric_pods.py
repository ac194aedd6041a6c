"""The jobs trainstack's launchers rendered, as their pods show them on a live cluster, and their pods' logs: what
doctor's fabric section reads (``fabric``, ``fabric_verdicts``).

A launcher's job is known by its pods: they select their group by ``trainstack.io/node-group`` (the outputs
contract's ``nodeSelector``, which every launcher gives its pods) and belong to a job of a controller the launchers
render for, named by that controller's label. Its kind is in its first container's command: the validation jobs run
the programs ``launch.validation`` renders.

Read-only and bounded: pods are listed by the job controllers' labels and phase (a field selector the API server
applies), page by page, never every pod of the cluster (DaemonSets' pods are most of them); a log is read with the
limits its caller gives."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Optional

import requests

from ..kube.client import Cluster
from ..kube.quantity import quantity
from ..launch.validation import ALL_REDUCE_LAUNCH
from ..names import NODE_GROUP_LABEL
from ..outputs import AcceleratedGroup

PAGE_SIZE = 500
READ_TIMEOUT = 20.0
JOB_NAME_LABELS = (
    "training.kubeflow.org/job-name",  # PyTorchJob, MPIJob: training-operator v1.9.3, mpi-operator v0.8.2
    "jobset.sigs.k8s.io/jobset-name",  # a TrainJob's JobSet, named after it: jobset v0.12.0 jobset_types.go
    "batch.kubernetes.io/job-name",  # a batch Job's: the device check, an MPIJob's launcher
)
"""The label that names a pod's job, the outermost first (a JobSet's pods are its Jobs' pods too)."""
LISTED_BY = ("training.kubeflow.org/job-name", "batch.kubernetes.io/job-name")
"""Every job pod carries one of these (a JobSet's are batch Job pods)."""
ROLE_LABELS = ("training.kubeflow.org/job-role", "training.kubeflow.org/replica-type",
               "jobset.sigs.k8s.io/replicatedjob-name")
FIRST_ROLES = ("master", "launcher")
"""Rank 0's pod: a PyTorchJob's master, an MPIJob's launcher, the launcher job of Trainer's MPI runtime."""
INDEX_LABELS = ("jobset.sigs.k8s.io/job-index", "training.kubeflow.org/replica-index",
                "batch.kubernetes.io/job-completion-index")
RUNNING, FINISHED = "status.phase=Running", "status.phase!=Running,status.phase!=Pending"
DEVICE_CHECK, ALL_REDUCE, TRAINING = "device check", "all-reduce", "training"
DEVICE_CHECK_ARGV0 = "device_check"
"""The ``$0`` ``launch.validation.render_device_check`` gives its script: ``sh -c SCRIPT device_check KIND ...``."""

LogReader = Callable[[dict[str, Any], str, dict[str, str]], Optional[str]]
"""Reads a pod's container's log with the API's parameters (``limitBytes``, ``tailLines``); None where it cannot."""


@dataclass(frozen=True)
class Job:
    """A job's pods as listed, on one node group of the plan."""

    namespace: str
    name: str
    group: str
    pods: tuple[dict[str, Any], ...]

    @property
    def rank_zero(self) -> dict[str, Any]:
        return min(self.pods, key=_rank_order)

    @property
    def nodes(self) -> int:
        return len({pod["spec"].get("nodeName") for pod in self.pods if pod["spec"].get("nodeName")})

    @property
    def command(self) -> list[str]:
        """Rank 0's first container's command (a validation job's pods all run the same)."""
        return [str(part) for part in self.rank_zero["spec"]["containers"][0].get("command") or []]

    @property
    def kind(self) -> str:
        command = self.command
        if command[3:4] == [DEVICE_CHECK_ARGV0] and command[:2] == ["/bin/sh", "-c"]:
            return DEVICE_CHECK
        return ALL_REDUCE if command[2:3] == [ALL_REDUCE_LAUNCH] else TRAINING

    def subject(self, what: str = "job") -> str:
        return f"{what} {self.namespace}/{self.name} on node group {self.group}"


def jobs_of(pods: Iterable[dict[str, Any]], groups: dict[str, AcceleratedGroup]) -> list[Job]:
    """``pods`` as jobs: those that select a group of the plan and belong to a job, in name order."""
    members: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        name = next((labels[label] for label in JOB_NAME_LABELS if label in labels), None)
        group = (pod["spec"].get("nodeSelector") or {}).get(NODE_GROUP_LABEL)
        if name is not None and group in groups:
            members[(pod["metadata"]["namespace"], name, group)].append(pod)
    return [Job(namespace, name, group, tuple(pods)) for (namespace, name, group), pods in sorted(members.items())]


def _rank_order(pod: dict[str, Any]) -> tuple[bool, tuple[int, ...], str]:
    labels = pod["metadata"].get("labels") or {}
    role = next((labels[label] for label in ROLE_LABELS if label in labels), "")
    indexes = tuple(int(labels[label]) if str(labels.get(label, "")).isdigit() else 0 for label in INDEX_LABELS)
    return role.lower() not in FIRST_ROLES, indexes, pod["metadata"]["name"]


def requested(pod: dict[str, Any], resource: str) -> int:
    """How many of an extended resource ``pod``'s containers request (their limits; requests equal them)."""
    total = 0
    for container in pod["spec"]["containers"]:
        wanted = container.get("resources") or {}
        value = (wanted.get("limits") or {}).get(resource) or (wanted.get("requests") or {}).get(resource)
        total += int(quantity(value)) if value is not None else 0
    return total


def rank_container(pod: dict[str, Any], resource: str) -> str:
    """The container that runs the ranks: the one with the group's accelerators, else the first (a launcher's)."""
    containers = pod["spec"]["containers"]
    with_devices = [c for c in containers if requested({"spec": {"containers": [c]}}, resource)]
    return str((with_devices or containers)[0]["name"])


def job_pods(cluster: Cluster, phases: str) -> list[dict[str, Any]]:
    """The job pods in ``phases`` (a field selector), page by page, each once (a pod may carry both labels)."""
    seen: dict[str, dict[str, Any]] = {}
    for label in LISTED_BY:
        params = {"labelSelector": label, "fieldSelector": phases, "limit": str(PAGE_SIZE)}
        while True:
            page = cluster.get("/api/v1/pods", **params)
            seen.update((pod["metadata"]["uid"], pod) for pod in page["items"])
            params["continue"] = (page.get("metadata") or {}).get("continue") or ""
            if not params["continue"]:
                break
    return list(seen.values())


def log_reader(cluster: Cluster) -> LogReader:
    """A container's log as the API server serves it (GET ``pods/log``, what ``kubectl logs`` reads), or None where
    it cannot (a container not started, a kubelet out of reach). Text, which the client's JSON reader would not
    keep as it is. A read cut at ``limitBytes`` drops its last line, which may be cut too."""
    def read(pod: dict[str, Any], container: str, params: dict[str, str]) -> Optional[str]:
        path = f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}/log"
        try:
            reply = cluster.session.get(cluster.url + path, params={"container": container, **params},
                                        timeout=READ_TIMEOUT)
        except requests.RequestException:
            return None
        if reply.status_code != 200:
            return None
        text = reply.text
        if "limitBytes" in params and len(reply.content) >= int(params["limitBytes"]) and not text.endswith("\n"):
            text = text.rpartition("\n")[0]
        return text
    return read
