"""The rehearsal's control plane (``trainstack.rehearsal.control_plane``) for the engine tests that
write Node objects and pods themselves: etcd, kube-apiserver and kube-scheduler, without the
controller manager (whose node lifecycle controller would mark nodes no kubelet heartbeats
for as unreachable). The rehearsal tests (tests/rehearsal) run the whole thing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from trainstack.kube.client import ApiError, Cluster
from trainstack.rehearsal.control_plane import control_plane as rehearsal_control_plane

__all__ = ["ApiError", "Cluster", "control_plane"]


@contextmanager
def control_plane(scheduler_names: list[str]) -> Iterator[Cluster]:
    """etcd, kube-apiserver and kube-scheduler on free loopback ports, stopped on exit."""
    with rehearsal_control_plane(scheduler_names) as plane:
        yield plane.cluster
