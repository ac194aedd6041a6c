"""Is the fabric in use? Doctor's third question, answered from what the jobs' own pods say.

* Each running job trainstack's launchers rendered on an EFA group (``fabric_pods``): the network NCCL chose, read
  from rank 0's log through the API server, and the EFA interfaces its pods requested against the catalog's count for
  the instance type. A job over TCP sockets on an EFA group is a finding.
* The last validation job of each group (``trainstack launch device-check`` and ``all-reduce``): its verdict and its
  figure against its floor (``fabric_verdicts``).

What NCCL prints: ``Using network <name>`` at INFO under its ``INIT`` subsystem, one of the subsystems logged by
default (NVIDIA/nccl v2.28.9-1 src/init.cc, src/debug.cc), so ``NCCL_DEBUG=INFO`` alone prints it. The network is
aws-ofi-nccl's ``Libfabric`` (aws/aws-ofi-nccl v1.19.2 src/nccl_ofi_interface_nvidia.cpp; ``AWS Libfabric`` before),
whose ``NET/OFI Selected provider is efa`` line names the libfabric provider (src/nccl_ofi_net.cpp), or NCCL's own
``IB`` or ``Socket`` (src/transport/net_socket.cc, which prints ``NET/Socket : Using [0]eth0...``). NCCL tries the
external plugin first and falls back to its own networks (src/plugin/net.cc ``ncclNetInit``): a job whose image
lacks aws-ofi-nccl, or whose pods got no EFA device, runs over TCP without a word of warning. The lines are judged by
the all-reduce program's own reader (``launch.programs.all_reduce``), so the validation job and doctor agree.

Bounded, so that a 2,048-node cluster is read in seconds: one log read per running job, rank 0's, and only its first
``LOG_HEAD_BYTES``, where NCCL's start-up lines are. Rank 0's pod is rank 0's node: its log has that node's ranks'
lines (one process per GPU). NCCL chooses its network in each process, so a lone node whose pods lost their EFA
devices shows only in that node's pods, which doctor does not read; the all-reduce reads every rank's (its ranks
reduce their transport verdicts into one), and its verdict is read here."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from .. import catalog
from ..catalog.efa_layout import efa_layout
from ..catalog.fabric_env import gpudirect_rdma
from ..kube.client import Cluster
from ..launch.programs.all_reduce import OFI_NETWORKS, nccl_transport, transport_problem
from ..outputs import AcceleratedGroup, parse_outputs
from ..plan import Plan
from .fabric_pods import FINISHED, RUNNING, TRAINING, Job, job_pods, jobs_of, log_reader, rank_container, requested
from .fabric_verdicts import VERDICT_READS, judge_verdicts, latest_validations
from .finding import Finding

LOG_HEAD_BYTES = 256 * 1024
"""How much of rank 0's log is read. NCCL's network lines come within the first few kilobytes its ranks print (each
of eight ranks prints a dozen lines before ``Using network``); the rest is room for what the training script prints
before it starts NCCL. One job costs one read of at most this, whatever its size."""
LOG_READERS = 8
"""Logs read at once: each read waits on a kubelet, through the API server."""
DEBUG_LEVELS = ("INFO", "TRACE")
"""``NCCL_DEBUG`` levels that print ``Using network`` (src/debug.cc)."""


def findings(plan: Plan, cluster: Cluster) -> list[Finding]:
    """The fabric of every EFA group of ``plan`` as its running jobs and its last validation jobs show it."""
    groups = parse_outputs(plan.outputs).accelerated_groups
    if not groups:
        return []
    read = log_reader(cluster)
    running = [job for job in jobs_of(job_pods(cluster, RUNNING), groups)
               if job.kind == TRAINING and groups[job.group].efa_interfaces_per_node]
    validations = latest_validations(jobs_of(job_pods(cluster, FINISHED), groups))

    def head(job: Job) -> Optional[str]:
        pod = job.rank_zero
        return read(pod, rank_container(pod, groups[job.group].accelerator_resource),
                    {"limitBytes": str(LOG_HEAD_BYTES)})

    with ThreadPoolExecutor(max_workers=LOG_READERS) as readers:
        heads = list(readers.map(head, running))
        verdict_logs = list(readers.map(lambda job: VERDICT_READS[job.kind](job, read), validations))
    found = [finding for job, text in zip(running, heads, strict=True)
             for finding in judge_running(job, groups[job.group], text)]
    return found + judge_verdicts(validations, verdict_logs)


def judge_running(job: Job, group: AcceleratedGroup, head: Optional[str]) -> list[Finding]:
    """A running training job on an EFA group: its pods' EFA requests, and the network rank 0's log ``head`` names
    (None: the log could not be read, and nothing is said of it)."""
    return _efa_requests(job, group) + ([] if head is None else _transport(job, group, head))


def efa_interfaces(group: AcceleratedGroup) -> int:
    """The EFA interfaces a node of the group has: the catalog's layout for its type (one per EFA card,
    catalog.efa_layout), or the outputs' count where the catalog has no layout for it."""
    instance = catalog.find(group.instance_type)
    if instance is None or not instance.efa.supported or not instance.efa.cards:
        return group.efa_interfaces_per_node
    return sum(slot.is_efa for slot in efa_layout(instance))


def _efa_requests(job: Job, group: AcceleratedGroup) -> list[Finding]:
    if group.device_allocation == "dra":  # the EFA interfaces come with the pods' claims, not as a resource count
        return []
    expected = efa_interfaces(group)
    ranks = [pod for pod in job.pods if requested(pod, group.accelerator_resource)]
    short = [(pod, requested(pod, catalog.EFA_RESOURCE)) for pod in ranks
             if requested(pod, catalog.EFA_RESOURCE) < expected]
    if not short:
        return []
    pod, got = short[0]
    name = pod["metadata"]["name"]
    return [Finding(
        "fabric", job.subject(),
        f"each pod with {group.accelerator_resource} to request all {expected} EFA interfaces of a "
        f"{group.instance_type} ({catalog.EFA_RESOURCE})",
        f"{len(short)} of {len(ranks)} pods request fewer: {name} requests {got}",
        f"a pod gets only the EFA devices it requests, and NCCL falls back to TCP sockets without them: relaunch the "
        f"job with `trainstack launch`, which requests every interface (the pod's requests: kubectl -n "
        f"{job.namespace} get pod {name} -o jsonpath='{{.spec.containers[*].resources.limits}}')")]


def _transport(job: Job, group: AcceleratedGroup, head: str) -> list[Finding]:
    transport = nccl_transport(head.splitlines())
    pod = job.rank_zero
    name, node = pod["metadata"]["name"], pod["spec"].get("nodeName", "its node")
    if transport.network is None:
        return [] if _debug_printed(pod) else [Finding(
            "fabric", job.subject(), "NCCL's INFO lines in rank 0's log, which name the network NCCL chose",
            f"no NCCL network named in the first {LOG_HEAD_BYTES // 1024} KiB of pod {name}'s log, and its "
            "containers do not set NCCL_DEBUG to INFO",
            "set NCCL_DEBUG=INFO in the job's environment (NCCL then prints 'Using network ...' once as it starts), "
            f"relaunch, and read it: kubectl -n {job.namespace} logs {name} | grep -E 'Using network|NET/OFI'")]
    rdma = gpudirect_rdma(group.instance_type)
    problem = transport_problem(transport, "efa", job.nodes, rdma=rdma)
    if problem is None:
        return []
    return [Finding(
        "fabric", job.subject(),
        f"NCCL over EFA on a {group.instance_type}: aws-ofi-nccl's network ({' or '.join(OFI_NETWORKS)}) with "
        f"libfabric provider efa{', GPUDirect RDMA on every connection' if rdma else ''}",
        f"{transport.describe()}, in rank 0's log (pod {name} on node {node})",
        wrong_transport_fix(problem, job, node, efa_interfaces(group)))]


def wrong_transport_fix(problem: str, job: Job, node: str, interfaces: int) -> str:
    """What to look at when NCCL did not run over EFA, and the all-reduce that confirms the repair."""
    name = job.rank_zero["metadata"]["name"]
    return (f"{problem}. See what the node advertises and the pod was given: kubectl get node {node} -o "
            f"jsonpath='{{.status.allocatable}}' (vpc.amazonaws.com/efa: {interfaces}); kubectl -n {job.namespace} "
            f"get pod {name} -o jsonpath='{{.spec.containers[*].resources.limits}}'; the EFA device plugin's pod on "
            f"the node: kubectl -n kube-system get pods --field-selector spec.nodeName={node} | grep efa. The pods "
            "keep FI_PROVIDER=efa, the image carries aws-ofi-nccl, and the EFA security group allows all traffic from "
            "itself. Then confirm with the all-reduce: pulumi stack output --json | trainstack launch all-reduce "
            f"--group {job.group} --nodes 2 --image IMAGE | kubectl create -f -")


def _debug_printed(pod: dict[str, Any]) -> bool:
    """Whether NCCL in ``pod`` prints its INFO lines, or may (a variable from a ConfigMap is not read here)."""
    containers = pod["spec"]["containers"]
    return any(container.get("envFrom") for container in containers) or any(
        variable.get("name") == "NCCL_DEBUG" and str(variable.get("value", "")).upper() in DEBUG_LEVELS
        for container in containers for variable in container.get("env") or [])
