"""Reading a rendered job the way its operator does: replicas, their main container, what
the container runs, its environment and its device limits.

Both Kubeflow operators treat the first container of a replica's pod template as the one
they configure (training-operator v1.8.1 ``pkg/controller.v1/pytorch/envvar.go`` sets the
PET_* variables on every container; mpi-operator v0.8.0 ``mpi_job_controller.go`` takes
``Containers[0]`` for the ssh mount, the command default and its variables).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..names import GPU_RESOURCE, NEURON_RESOURCE

Job = Mapping[str, Any]


def job_name(job: Job) -> str:
    return f"{job.get('kind', '?')} {job.get('metadata', {}).get('name', '?')}"


def replica_specs(job: Job) -> Mapping[str, Any]:
    """``{"Master": spec, "Worker": spec}`` or ``{"Launcher": ..., "Worker": ...}``."""
    spec = job.get("spec", {})
    result: Mapping[str, Any] = spec.get("pytorchReplicaSpecs") or spec.get("mpiReplicaSpecs") or {}
    return result


def pod_spec(replica: Mapping[str, Any]) -> Mapping[str, Any]:
    result: Mapping[str, Any] = replica.get("template", {}).get("spec", {})
    return result


def main_container(replica: Mapping[str, Any]) -> Mapping[str, Any]:
    containers = pod_spec(replica).get("containers") or [{}]
    result: Mapping[str, Any] = containers[0]
    return result


def argv(container: Mapping[str, Any]) -> list[str]:
    """The command and its arguments, as the container runtime joins them."""
    return [str(part) for part in list(container.get("command") or []) + list(container.get("args") or [])]


def runs(container: Mapping[str, Any], program: str) -> bool:
    """Whether the container starts ``program``: as an argument, or inside a ``sh -c`` script."""
    words = argv(container)
    return any(os.path.basename(word) == program for word in words) or any(
        f"{program} " in word or f"/{program} " in word or word.endswith(f" {program}") for word in words)


def env(container: Mapping[str, Any]) -> dict[str, str]:
    """Literal variables (``value``); a ``valueFrom`` variable maps to an empty string."""
    return {e["name"]: str(e.get("value", "")) for e in container.get("env") or []}


def limit(container: Mapping[str, Any], resource: str) -> int:
    value = (container.get("resources") or {}).get("limits", {}).get(resource)
    return int(value) if value is not None else 0


def accelerator_kind(container: Mapping[str, Any]) -> str | None:
    if limit(container, NEURON_RESOURCE):
        return "neuron"
    if limit(container, GPU_RESOURCE):
        return "nvidia-gpu"
    return None


def run_as_user(replica: Mapping[str, Any]) -> int | None:
    """The user the main container runs as, when the pod says (container settings win)."""
    container = main_container(replica)
    for context in ((container.get("securityContext") or {}), (pod_spec(replica).get("securityContext") or {})):
        if "runAsUser" in context:
            return int(context["runAsUser"])
    return None
