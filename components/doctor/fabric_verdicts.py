"""The last validation job of each node group, judged by its own verdict: the device check (``launch.validation``
``render_device_check``, which runs launch/programs/device_check.sh in one pod per node) and the all-reduce
(``render_all_reduce``, launch/programs/all_reduce.py over every GPU of its nodes).

Each prints its verdict and exits by it: the device check one line per check (``EFA devices: 0 of 32: EFA ABSENT``)
and ``device check: PASS|FAIL``, exit 0 or 1, in every pod; the all-reduce one line from rank 0 (``report``: its bus
bandwidth, its floor, NCCL's transport and ``PASS`` or ``FAIL: ...``) and the same exit code in every rank. So the
pods' exit status says which failed, and doctor reads the logs of those alone: the tail of rank 0's for the
all-reduce, and at most ``FAILED_PODS_READ`` failed pods' for the device check, small logs both.

"Last" is by when the job's pods finished: a job is judged once its pods have ended (Succeeded or Failed, which the
launchers' pods keep until their job is deleted)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Optional

from .fabric_pods import ALL_REDUCE, DEVICE_CHECK, Job, LogReader
from .finding import Finding

VERDICT_TAIL_LINES = 20
VERDICT_BYTES = 64 * 1024
FAILED_PODS_READ = 3
CHECK_LOG_BYTES = 16 * 1024
"""A device check prints a dozen short lines."""
ALL_REDUCE_VERDICT = re.compile(
    r"all-reduce bus bandwidth (?P<measured>[\d.]+) Gbit/s over (?P<gpus>\d+) GPUs on (?P<nodes>\d+) node\(s\); "
    r".*?; floor (?P<floor>[\d.]+) Gbit/s; (?P<transport>.*?): (?P<outcome>PASS|FAIL: .*)$")
"""The line ``launch.programs.all_reduce.report`` prints."""
DEVICE_COUNT = re.compile(r": (\d+) of (\d+)\b")
DEVICE_CHECK_FAILURES = ("ABSENT", "TOO LOW", "NOT READY", "IMPORT FAILED", "unknown")
"""The words device_check.sh's failing lines carry, besides a count below what was expected."""
Logs = dict[str, Optional[str]]
"""The logs read of a job's pods, by pod name (None: could not be read)."""


def latest_validations(jobs: Sequence[Job]) -> list[Job]:
    """The validation job that finished last, of each group and kind."""
    latest: dict[tuple[str, str], Job] = {}
    for job in jobs:
        if job.kind not in VERDICT_READS:
            continue
        key = (job.group, job.kind)
        if key not in latest or finished_at(job) > finished_at(latest[key]):
            latest[key] = job
    return [latest[key] for key in sorted(latest)]


def finished_at(job: Job) -> str:
    """When the job's last pod ended (RFC 3339, UTC, as the API serves it: such strings sort as times)."""
    ends = [str(status["state"]["terminated"].get("finishedAt") or "") for pod in job.pods
            for status in (pod.get("status") or {}).get("containerStatuses") or []
            if (status.get("state") or {}).get("terminated")]
    return max(ends or [str(pod["metadata"].get("creationTimestamp") or "") for pod in job.pods])


def exit_code(pod: dict[str, Any]) -> Optional[int]:
    """The first non-zero exit code of the pod's containers, 0 if all ended well, None if none has ended."""
    codes = [int(status["state"]["terminated"].get("exitCode", 0))
             for status in (pod.get("status") or {}).get("containerStatuses") or []
             if (status.get("state") or {}).get("terminated")]
    return next((code for code in codes if code), 0 if codes else None)


def failed(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Failed" or bool(exit_code(pod))


def read_all_reduce(job: Job, read: LogReader) -> Logs:
    pod = job.rank_zero
    return {pod["metadata"]["name"]: read(pod, pod["spec"]["containers"][0]["name"], {
        "tailLines": str(VERDICT_TAIL_LINES), "limitBytes": str(VERDICT_BYTES)})}


def read_device_check(job: Job, read: LogReader) -> Logs:
    return {pod["metadata"]["name"]: read(pod, pod["spec"]["containers"][0]["name"], {
        "limitBytes": str(CHECK_LOG_BYTES)}) for pod in [p for p in job.pods if failed(p)][:FAILED_PODS_READ]}


VERDICT_READS: dict[str, Callable[[Job, LogReader], Logs]] = {DEVICE_CHECK: read_device_check,
                                                               ALL_REDUCE: read_all_reduce}


def judge_verdicts(jobs: Sequence[Job], logs: Sequence[Logs]) -> list[Finding]:
    return [finding for job, read in zip(jobs, logs, strict=True)
            for finding in (judge_device_check if job.kind == DEVICE_CHECK else judge_all_reduce)(job, read)]


def judge_all_reduce(job: Job, logs: Logs) -> list[Finding]:
    """The all-reduce's verdict: rank 0's line, or its exit status where its log holds none."""
    pod = job.rank_zero
    name = pod["metadata"]["name"]
    verdicts = [m for line in (logs.get(name) or "").splitlines() if (m := ALL_REDUCE_VERDICT.search(line))]
    if verdicts:
        verdict = verdicts[-1]
        if verdict["outcome"] == "PASS":
            return []
        return [Finding(
            "fabric", job.subject("all-reduce"),
            f"bus bandwidth at or above its floor of {verdict['floor']} Gbit/s over {verdict['gpus']} GPUs, the sum "
            "right, NCCL over EFA where the group has it",
            f"{verdict['measured']} Gbit/s on {verdict['nodes']} node(s); {verdict['transport']}: "
            f"{verdict['outcome']}", _all_reduce_fix(job, verdict["outcome"]))]
    if not failed(pod):
        return []
    floor = _option(job.command, "--floor-gbps")
    return [Finding(
        "fabric", job.subject("all-reduce"), f"rank 0's verdict line, at or above the floor of {floor} Gbit/s",
        f"rank 0's pod {name} failed (exit code {exit_code(pod)}) and the last {VERDICT_TAIL_LINES} lines of its "
        "log hold no verdict", f"read why: kubectl -n {job.namespace} logs {name}")]


def _all_reduce_fix(job: Job, outcome: str) -> str:
    check = (f"pulumi stack output --json | trainstack launch device-check --group {job.group} --nodes {job.nodes} "
             "--image IMAGE | kubectl create -f -")
    if outcome.startswith("FAIL: wrong transport"):
        return (f"NCCL did not run over aws-ofi-nccl and EFA on every rank: the image lacks aws-ofi-nccl, or a pod "
                f"got no EFA device. Count each node's devices with the device check: {check}")
    if outcome.startswith("FAIL: all-reduce returned a wrong sum"):
        return (f"a GPU or a link corrupts data: find its node with the device check ({check}), then keep jobs off "
                "it: kubectl cordon NODE")
    return (f"a healthy fabric clears the floor by far (trainstack.launch.floors): find the node short of GPUs or EFA "
            f"devices with the device check: {check}")


def judge_device_check(job: Job, logs: Logs) -> list[Finding]:
    """The device check's verdict: which pods failed, and what the first of them lacked."""
    failures = [pod for pod in job.pods if failed(pod)]
    if not failures:
        return []
    pod = failures[0]
    name, node = pod["metadata"]["name"], pod["spec"].get("nodeName", "its node")
    kind, accelerators, efa = [*job.command[4:7], "?", "?", "?"][:3]
    lines = failing_lines(logs.get(name) or "") or [f"exit code {exit_code(pod)}, its log not read"]
    return [Finding(
        "fabric", job.subject("device check"),
        f"every pod to see its node's {accelerators} {kind} accelerators and {efa} EFA devices (device check: PASS)",
        f"{len(failures)} of {len(job.pods)} pods failed; {name} on node {node}: {'; '.join(lines)}",
        f"see the node's devices: kubectl get node {node} -o jsonpath='{{.status.allocatable}}', and the pod's "
        f"log: kubectl -n {job.namespace} logs {name}; keep jobs off the node until it is repaired or replaced: "
        f"kubectl cordon {node}")]


def failing_lines(log: str) -> list[str]:
    """The lines of a device check's log that say what failed."""
    def short(line: str) -> bool:
        count = DEVICE_COUNT.search(line)
        return count is not None and count.group(1) != count.group(2)
    return [line.strip() for line in log.splitlines()
            if short(line) or any(word in line for word in DEVICE_CHECK_FAILURES)]


def _option(command: list[str], option: str) -> str:
    return command[command.index(option) + 1] if option in command[:-1] else "?"
