"""One real control plane for the engine tests (support/control_plane.py), with the
operators' CRDs installed; each test registers the nodes of the stack it checks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.control_plane import Cluster, control_plane
from support.engine_cluster import install_crds
from trainstack.addons.device_plugins import NEURON_SCHEDULER_NAME


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """etcd, kube-apiserver and kube-scheduler (one profile per scheduler name the launchers use)."""
    with control_plane(["default-scheduler", NEURON_SCHEDULER_NAME]) as running:
        install_crds(running)
        yield running
