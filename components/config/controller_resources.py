"""The job controllers' resources and client rates, sized from the stack (issue 55): Kueue, JobSet, Trainer, the
training operator and the MPI operator; and the Cluster Autoscaler's requests (issue 64).

A controller's memory is mostly its informer cache, and what the cache holds depends on the kinds the controller
watches at its pinned tag, named beside each one below. Its memory is a base plus every cached object at a
measured size, in 256 MiB steps:

* a Pod 8 KiB, a Node 64 KiB. Measured on a controller-runtime cache on EKS: NVIDIA/NVSentinel issue #1705 (scale
  test, 2026), about 4.4 to 6.2 KB per cached Pod at peak, and Node objects of 13.4 KB on the wire held at 2.7 to
  4.5 times that; rounded up.
* The 2,048-node rehearsal (``bench/rehearse_time.py --frontier 2048``, 2026-11-27, real controllers on kwok nodes)
  measured JobSet at 136 MiB, Kueue at 304 MiB and Trainer under 50 MiB at peak: each below what it gets here at
  that size (tests/config/test_controller_resources.py holds the figures).

Only a large stack (config/cluster_size.py: beyond 300 nodes or 5,000 pods) is sized; below that every controller
keeps its chart's or manifest's own resources, and the records of the shipped small stacks do not move.

Three of the five ship no resources at all (Trainer's chart, the training and MPI operators' manifests): their pods
are BestEffort, the first the kubelet evicts when a system node runs short of memory (Kubernetes docs, "Node-pressure
Eviction"). On a large stack each gets a memory request equal to its limit, so the scheduler reserves it on the
system nodes, and a CPU request without a CPU limit (a limit would throttle a controller reconciling thousands of
pods).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from .cluster_size import ClusterSize

KIB_PER_POD = 8
KIB_PER_NODE = 64
MEMORY_STEP_MI = 256


def _memory_mi(base_mi: int, *, pods: int = 0, nodes: int = 0) -> int:
    """``base_mi`` plus ``pods`` and ``nodes`` cached objects at the sizes above, rounded up to 256 MiB steps."""
    cached = (pods * KIB_PER_POD + nodes * KIB_PER_NODE) / 1024
    return math.ceil((base_mi + cached) / MEMORY_STEP_MI) * MEMORY_STEP_MI


def _requests_only_cpu(cpu: str, memory_mi: int) -> dict[str, Any]:
    return {"requests": {"cpu": cpu, "memory": f"{memory_mi}Mi"}, "limits": {"memory": f"{memory_mi}Mi"}}


# --- Kueue ------------------------------------------------------------------------------------------------------
# The chart's manager resources at v0.19.2 (kubernetes-sigs/kueue charts/kueue/values.yaml,
# controllerManager.manager.resources): requests 500m CPU and 512Mi, limits 2 CPU and 512Mi. With topology-aware
# scheduling the manager caches every Node (pkg/controller/tas/node_controller.go, ``For`` Node and ``Watches``
# Pod) and every Pod of the cluster (pkg/controller/tas/non_tas_usage_controller.go) at v0.19.2, so its memory
# grows with the cluster, which 512Mi does not. Kueue publishes no sizing at v0.19.2 (its docs and
# test/performance configs name none). CPU and the client's QPS stay at the chart's (300 QPS, burst 500): the
# topology ungater patches each pod of an admitted gang once (pkg/controller/tas/topology_ungater.go), 2,048
# patches in about 7 s at 300 QPS, well inside the pods-ready timeout.
KUEUE_BASE_MEMORY_MI = 512
KUEUE_CHART_CPU_REQUEST, KUEUE_CHART_CPU_LIMIT = "500m", "2"


def kueue_memory_mi(size: ClusterSize) -> int:
    """The manager's memory (request and limit alike, as the chart sets them) for ``size``, in MiB."""
    return _memory_mi(KUEUE_BASE_MEMORY_MI, pods=size.pods, nodes=size.nodes)


def kueue_manager_resources(size: Optional[ClusterSize]) -> Optional[dict[str, Any]]:
    """The chart's ``controllerManager.manager.resources`` for a large stack; None (the chart's own) otherwise."""
    if size is None or not size.large:
        return None
    memory = f"{kueue_memory_mi(size)}Mi"
    return {"requests": {"cpu": KUEUE_CHART_CPU_REQUEST, "memory": memory},
            "limits": {"cpu": KUEUE_CHART_CPU_LIMIT, "memory": memory}}


# --- JobSet -----------------------------------------------------------------------------------------------------
# JobSet v0.12.0, installed by Trainer's chart as its dependency. Its pod controller watches every Pod
# (pkg/controllers/pod_controller.go, ``For(&corev1.Pod{})``) and main.go sets no cache filter, so the whole
# cluster's pods are cached, beside a Job per replicated job. The chart (charts/jobset/values.yaml,
# controller.resources) requests 500m and 128Mi and limits 2 CPU and 4Gi. The limit covers any size here; the
# request, what the scheduler reserves on a system node, does not (136 MiB measured at 2,048 nodes). Decided: the
# request grows, the limit stays the chart's unless the request passes it. The client keeps the chart's 500 QPS.
JOBSET_BASE_MEMORY_MI = 128
JOBSET_CHART_LIMIT_MI = 4096
JOBSET_CHART_CPU_REQUEST, JOBSET_CHART_CPU_LIMIT = "500m", "2"


def jobset_controller_resources(size: Optional[ClusterSize]) -> Optional[dict[str, Any]]:
    """JobSet's chart ``controller.resources`` for a large stack; None (the chart's own) otherwise."""
    if size is None or not size.large:
        return None
    memory_mi = _memory_mi(JOBSET_BASE_MEMORY_MI, pods=size.pods)
    return {"requests": {"cpu": JOBSET_CHART_CPU_REQUEST, "memory": f"{memory_mi}Mi"},
            "limits": {"cpu": JOBSET_CHART_CPU_LIMIT, "memory": f"{max(memory_mi, JOBSET_CHART_LIMIT_MI)}Mi"}}


# --- Kubeflow Trainer -------------------------------------------------------------------------------------------
# Trainer v2.3.0's chart sets no resources (charts/kubeflow-trainer/values.yaml ``manager.resources: {}``); its
# commented example is 100m and 300Mi, the only figure Kubeflow publishes, taken here as the base. The manager
# caches TrainJobs, (Cluster)TrainingRuntimes and the JobSets it makes (pkg/controller/trainjob_controller.go,
# pkg/runtime/framework/plugins/jobset/jobset.go), not Pods: the coscheduling plugin, the one that watches more,
# is not in trainstack's runtimes. So it grows with jobs, not pods: at most one whole-node TrainJob per node, a
# TrainJob and its JobSet each counted at a Node's 64 KiB, the largest object measured above.
KUBEFLOW_BASE_MEMORY_MI = 300
KUBEFLOW_CPU_REQUEST = "100m"


def trainer_manager_resources(size: Optional[ClusterSize]) -> Optional[dict[str, Any]]:
    """Trainer's chart ``manager.resources`` for a large stack; None (the chart's none) otherwise."""
    if size is None or not size.large:
        return None
    return _requests_only_cpu(KUBEFLOW_CPU_REQUEST, _memory_mi(KUBEFLOW_BASE_MEMORY_MI, nodes=2 * size.nodes))


# --- The training operator (v1) ---------------------------------------------------------------------------------
# v1.8.1's manifest (manifests/base/deployment.yaml) sets no resources. Its cache is cluster-wide unless
# ``--namespace`` is set (cmd/training-operator.v1/main.go), and its controllers watch Pods and Services, one
# headless Service per replica (pkg/controller.v1/common/service.go ``CreateNewService``): two objects per worker
# pod, both counted at a Pod's 8 KiB. Base: Kubeflow's 300Mi (Trainer above).
# Its client rate has no flag: ``ctrl.GetConfigOrDie`` leaves controller-runtime's 20 QPS and burst 30
# (controller-runtime v0.17.2 pkg/client/config/config.go, set when the config has none), so a 2,048-worker
# PyTorchJob's 4,096 creates take at least 205 s. Nothing here can raise it; at that size the TrainJob is the
# path (one JobSet create; the pods come from the Job controller), which frontier-p5 takes.
TRAINING_OPERATOR_CLIENT_QPS = 20


def training_operator_resources(size: Optional[ClusterSize]) -> Optional[dict[str, Any]]:
    """The training operator container's resources for a large stack; None (the manifest's none) otherwise."""
    if size is None or not size.large:
        return None
    return _requests_only_cpu(KUBEFLOW_CPU_REQUEST, _memory_mi(KUBEFLOW_BASE_MEMORY_MI, pods=2 * size.pods))


# --- The MPI operator -------------------------------------------------------------------------------------------
# v0.8.0's manifest (deploy/v2beta1/mpi-operator.yaml) sets no resources. Its pod informer covers every namespace
# (cmd/mpi-operator/app/server.go, the kube informer factory takes only a namespace option), beside a launcher
# Job, a Service, a ConfigMap and a Secret per MPIJob; counted as every pod at 8 KiB. Base: Kubeflow's 300Mi.
# It creates every worker pod itself, one request each, at ``--kube-api-qps`` 5 and ``--kube-api-burst`` 10 by
# default (cmd/mpi-operator/app/options/options.go): 2,048 workers would take 410 s to create. Decided: the rate
# creates a job spanning every node of the stack within 30 s, half of the shortest pods-ready timeout a stack
# may set (scheduling.podsReadyTimeoutMinutes, 1 minute), so creation never decides whether a gang starts in time;
# never below the default, never above JobSet chart's 500 QPS, the highest any controller of the stack is given;
# burst twice the rate, as the defaults are.
MPI_OPERATOR_DEFAULT_QPS = 5
MPI_OPERATOR_CREATE_SECONDS = 30
MPI_OPERATOR_MOST_QPS = 500


def mpi_operator_client_qps(size: ClusterSize) -> int:
    """The MPI operator's ``--kube-api-qps`` on a stack of ``size``: one worker per node, created in 30 s."""
    wanted = math.ceil(size.nodes / MPI_OPERATOR_CREATE_SECONDS)
    return min(max(wanted, MPI_OPERATOR_DEFAULT_QPS), MPI_OPERATOR_MOST_QPS)


def mpi_operator_settings(size: Optional[ClusterSize]) -> Optional[tuple[dict[str, Any], list[str]]]:
    """The MPI operator container's resources and the flags added to its args for a large stack; None (the
    manifest's own) otherwise."""
    if size is None or not size.large:
        return None
    qps = mpi_operator_client_qps(size)
    resources = _requests_only_cpu(KUBEFLOW_CPU_REQUEST, _memory_mi(KUBEFLOW_BASE_MEMORY_MI, pods=size.pods))
    return resources, [f"--kube-api-qps={qps}", f"--kube-api-burst={2 * qps}"]


# --- The Cluster Autoscaler -------------------------------------------------------------------------------------
# Its chart sets no resources (kubernetes/autoscaler cluster-autoscaler-chart-9.59.0, charts/cluster-autoscaler
# values.yaml ``resources: {}``; the commented example requests and limits 100m and 300Mi), and trainstack requests
# that example's 100m and 300Mi, no limit. At scale, two sources: the autoscaler's FAQ at the same tag ("What are the
# Service Level Objectives for Cluster Autoscaler?": "It is also important to request full 1 core (or make it
# available) for CA pod in a bigger clusters"; tested to 1,000 nodes of 30 pods, proposals/scalability_tests.md, "We
# didn't run any performance tests on clusters bigger than 1000 nodes"), and the EKS Best Practices Guide, Cluster
# Autoscaler, "Vertically Autoscaling the Cluster Autoscaler" (https://docs.aws.amazon.com/eks/latest/best-practices/
# cas.html; aws/aws-eks-best-practices content/cluster-autoscaling/index.md @1712ffcd): "The autoscaling algorithm
# stores all pods and nodes in memory, which can result in a memory footprint larger than a gigabyte in some cases".
# Decided: on a large stack a full core is requested, and memory is the example's 300Mi plus every Pod and Node at
# the sizes above. No limit, as today: an autoscaler killed for memory adds no node, and the guide's "larger than a
# gigabyte" is more than this model gives frontier-p5 (768Mi); the request is what the scheduler reserves for it.
AUTOSCALER_CPU_REQUEST, AUTOSCALER_LARGE_CPU_REQUEST = "100m", "1"
AUTOSCALER_BASE_MEMORY_MI = 300


def cluster_autoscaler_resources(size: Optional[ClusterSize]) -> dict[str, Any]:
    """The autoscaler chart's ``resources``: the chart example's requests, and on a large stack a core and memory
    for every cached Pod and Node."""
    if size is None or not size.large:
        return {"requests": {"cpu": AUTOSCALER_CPU_REQUEST, "memory": f"{AUTOSCALER_BASE_MEMORY_MI}Mi"}}
    memory_mi = _memory_mi(AUTOSCALER_BASE_MEMORY_MI, pods=size.pods, nodes=size.nodes)
    return {"requests": {"cpu": AUTOSCALER_LARGE_CPU_REQUEST, "memory": f"{memory_mi}Mi"}}


# --- What they all request of the system nodes --------------------------------------------------------------------
# The scheduler reserves requests, so the system group is sized by them (config/system_load.py): each controller's
# as rendered above, else its chart's own (Kueue's and JobSet's, named above; the others ship none).
_CHART_REQUESTS = {"Kueue": (KUEUE_CHART_CPU_REQUEST, f"{KUEUE_BASE_MEMORY_MI}Mi"),
                   "JobSet": (JOBSET_CHART_CPU_REQUEST, f"{JOBSET_BASE_MEMORY_MI}Mi")}


def controller_requests(size: ClusterSize) -> dict[str, tuple[int, int]]:
    """What each controller sized here requests on a stack of ``size``, as (CPU millicores, memory MiB): the
    Cluster Autoscaler and the five job controllers, whether or not the stack turns the latter on."""
    mpi = mpi_operator_settings(size)
    rendered = {"the Cluster Autoscaler": cluster_autoscaler_resources(size), "Kueue": kueue_manager_resources(size),
                "JobSet": jobset_controller_resources(size), "Trainer": trainer_manager_resources(size),
                "the training operator": training_operator_resources(size),
                "the MPI operator": mpi[0] if mpi else None}
    found = {}
    for name, resources in rendered.items():
        cpu, memory = (resources["requests"]["cpu"], resources["requests"]["memory"]) if resources else \
            _CHART_REQUESTS.get(name, ("0", "0Mi"))
        found[name] = (_millicores(cpu), int(memory.removesuffix("Mi")))
    return found


def _millicores(cpu: str) -> int:
    return int(cpu.removesuffix("m")) if cpu.endswith("m") else int(cpu) * 1000
