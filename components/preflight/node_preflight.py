"""``trainstack preflight nodes``: one read of a running cluster, every node check judged on it.

Two checks per group: the 2 MiB huge pages each EFA group's pods request (nodes.py) and the devices each
accelerated node must show (node_devices.py, read by devices.py); and one per claim the stack makes whose class a
CSI driver provisions (volume_drivers.py: etcd's); and, on a stack with teams, one for their NetworkPolicies
(network_policy.py: does the cluster's VPC CNI enforce them?). The Nodes are listed once, ResourceSlices once where
a group is on DRA, StorageClasses and CSIDrivers once where a claim needs them, and the VPC CNI's DaemonSet and
ConfigMap once where teams are fenced. With a wait (``--wait MINUTES``) the nodes are first read again, as
``trainstack up`` does, until every accelerated node shows its devices or the time passes; the checks then judge one
reading taken after it. Reads only; changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import requests

from ..boundary import cut
from ..config.device_wait import DeviceNeed, DeviceWait
from ..kube.client import ApiError
from ..kube.kubeconfig import Access, CredentialError, connect
from ..launch.node_needs import HugePagesNeed
from . import network_policy, node_devices, nodes, volume_drivers
from .check import Check
from .checks import Scope
from .devices import read_group, read_objects, wait_for_devices
from .network_policy import NetworkPolicyNeed
from .volume_drivers import VolumeNeed

CLUSTER = Scope("the cluster", "give a kubeconfig whose user may list nodes, and let a node of each group join",
                "no group of this stack has accelerators or runs pods that request hugepages-2Mi, and it makes no "
                "claim a CSI driver must provision or team a NetworkPolicy fences")


def run_node_preflight(hugepages: list[HugePagesNeed], devices: list[DeviceNeed], access: Access,
                       uncounted: str = "", wait: DeviceWait | None = None,
                       progress: Callable[[str], None] = lambda line: None, volumes: list[VolumeNeed] | None = None,
                       cluster_name: str | None = None, network: NetworkPolicyNeed | None = None) -> list[Check]:
    """The cluster's nodes judged against ``hugepages`` and ``devices`` (``uncounted``: why the groups' node
    counts are not checked, empty where they are; ``wait``: read the devices again until they show or its
    ``timeoutMinutes`` pass, before the one reading judged), and its CSI drivers against ``volumes`` (the fix names
    ``cluster_name``), and its network plugin against ``network`` (the teams' NetworkPolicies). Where the cluster
    cannot be read (the exec plugin gives no token, the server is out of reach, the user may not list nodes,
    ResourceSlices, StorageClasses or CSIDrivers, or read the VPC CNI's DaemonSet and ConfigMap), every check could
    not run, with why: not a pass (``verdict``)."""
    volumes = volumes or []
    if not hugepages and not devices and not volumes and network is None:
        return []
    try:
        with connect(access) as cluster:
            if wait is not None and devices:
                wait_for_devices(cluster, devices, wait.timeout_minutes * 60, wait.poll_seconds, progress)
            listed, slices = read_objects(cluster, devices) if hugepages or devices else ([], [])
            classes, drivers = volume_drivers.read_volume_drivers(cluster, volumes)
            cni = network_policy.read_network_policy(cluster, network)
    except CredentialError as error:
        return _unchecked(hugepages, devices, volumes, network, str(error))
    except ApiError as error:
        return _unchecked(hugepages, devices, volumes, network, f"reading nodes at {access.server} answered {error}")
    except requests.RequestException as error:
        return _unchecked(hugepages, devices, volumes, network,
                          f"{access.server} is out of reach: {cut(_cause(error), 200)}")
    readings = [read_group(need, listed, slices) for need in devices]
    return [*nodes.check_nodes(hugepages, listed), *node_devices.check_devices(readings, uncounted),
            *volume_drivers.check_volume_drivers(volumes, classes, drivers, cluster_name),
            *network_policy.check_network_policy(network, cni, cluster_name)]


def _cause(error: requests.RequestException) -> str:
    """What went wrong, without requests' wrapping: urllib3's MaxRetryError names the URL again, its reason
    says why (refused, TLS verification, timeout)."""
    wrapped = error.args[0] if error.args else error
    return f"{type(error).__name__}: {getattr(wrapped, 'reason', None) or wrapped}"


def _unchecked(hugepages: list[HugePagesNeed], devices: list[DeviceNeed], volumes: list[VolumeNeed],
               network: NetworkPolicyNeed | None, reason: str) -> list[Check]:
    return [*(Check(nodes.CHECK, nodes.subject(need), "could-not-check", reason) for need in hugepages),
            *(Check(node_devices.CHECK, node_devices.subject(need), "could-not-check", reason) for need in devices),
            *(Check(volume_drivers.CHECK, volume_drivers.subject(need), "could-not-check", reason) for need in volumes),
            *([Check(network_policy.CHECK, network_policy.subject(network), "could-not-check", reason)]
              if network is not None else [])]
