"""A rehearsal as people and CI read it: a table per job, and a JSON record."""

from __future__ import annotations

from typing import Any

from ..doctor.finding import Finding
from .run import Rehearsal
from .submission import JobResult

RECORD_VERSION = 1


def as_dict(rehearsal: Rehearsal) -> dict[str, Any]:
    return {
        "rehearsalVersion": RECORD_VERSION,
        "stack": rehearsal.stack,
        "ok": rehearsal.ok,
        "controllers": dict(sorted(rehearsal.controllers.items())),
        "groups": rehearsal.groups,
        "jobs": [_job(job) for job in rehearsal.jobs],
        "faults": rehearsal.faults,
        "notRehearsed": rehearsal.not_rehearsed,
        "notes": rehearsal.notes,
        "seconds": rehearsal.seconds,
        "peakMemoryMiB": rehearsal.peak_memory_mib,
        "doctor": rehearsal.doctor,
    }


def _job(job: JobResult) -> dict[str, Any]:
    seen = job.seen
    return {
        "id": job.id, "launcher": job.launcher, "group": job.group, "nodes": job.nodes, "kind": seen.kind,
        "name": seen.name, "namespace": seen.namespace, "ok": job.ok, "problem": job.problem,
        "queued": seen.queued, "admitted": seen.admitted, "clusterQueue": seen.cluster_queue,
        "flavors": seen.flavors, "topologyDomains": seen.topology, "reason": seen.reason,
        "pods": {"expected": seen.expected, "created": seen.created, "bound": seen.bound, "running": seen.running},
        "nodesUsed": len(seen.nodes), "nodesPerBlock": seen.blocks, "nodesAddedByAutoscaler": job.scaled_up,
        "seconds": seen.seconds,
        "wait": job.wait.as_dict() if job.wait is not None else None,
    }


def _verdict(rehearsal: Rehearsal) -> str:
    if not all(job.ok for job in rehearsal.jobs):
        return "a job cannot run"
    return "a fault did not end as built for" if rehearsal.failed_faults else "every job ran"


def render_text(rehearsal: Rehearsal) -> str:
    lines = [f"Rehearsal of {rehearsal.stack}: {_verdict(rehearsal)}", ""]
    if rehearsal.controllers:
        lines.append("Controllers: " + ", ".join(f"{name} {version}" for name, version in
                                                   sorted(rehearsal.controllers.items())))
    for name, group in rehearsal.groups.items():
        at_end = group.get("registeredAtEnd", group["registered"])
        grown = f", grown to {at_end}" if at_end != group["registered"] else ""
        lines.append(f"Group {name}: {group['instanceType']} ({group['kind']}), {group['registered']} registered"
                     f"{grown}, at most {group['maximum']}")
    if rehearsal.jobs:
        lines += ["", f"{'job':<44} {'admitted':<22} {'pods c/b/r':<11} {'running after':>13}  result"]
        for job in rehearsal.jobs:
            seen = job.seen
            admitted = (f"yes: {','.join(seen.flavors)}" if seen.admitted else "no") if seen.queued else "(no queue)"
            pods = f"{seen.created}/{seen.bound}/{seen.running}"
            running = f"{seen.seconds['running']:.1f} s" if "running" in seen.seconds else "-"
            lines.append(f"{job.id:<44} {admitted:<22} {pods:<11} {running:>13}  {'ok' if job.ok else job.problem}")
            if not job.ok and job.wait is not None:  # how long it was given, and why that long
                lines.append(f"{'':<4}waited {job.wait.seconds:.0f} s: {job.wait.why}")
            if len(seen.blocks) > 1:  # a job that spans network blocks: where it landed
                lines.append(f"{'':<4}nodes per network block: "
                             + ", ".join(f"{block.rsplit('=', 1)[1]} {count}" for block, count in seen.blocks.items()))
    for fault in rehearsal.faults:
        lines.append(f"Fault {fault['fault']}: {fault['outcome']}")
    for item in rehearsal.not_rehearsed:
        lines.append(f"Not rehearsed: {item}")
    for note in rehearsal.notes:
        lines.append(f"Note: {note}")
    lines += _doctor_lines(rehearsal.doctor)
    lines.append("")
    lines.append(f"{rehearsal.seconds.get('total', 0):.1f} s in all; controllers' peak memory "
                 f"{rehearsal.peak_memory_mib} MiB")
    return "\n".join(lines)


def _doctor_lines(diagnosis: dict[str, Any] | None) -> list[str]:
    """Doctor's verdict on the cluster the rehearsal built, and each of its findings with the fix."""
    if diagnosis is None:
        return []
    findings = diagnosis.get("findings") or []
    return [f"Doctor: {diagnosis['summary']}",
            *(f"    {Finding(**finding).line()}" for finding in findings)]
