"""What a node with EFA interfaces offers its pods, beside the instance's own facts.

One place for the names and amounts that the node groups tag for the Cluster
Autoscaler, the launchers request and the controller models check against each
other: if they drifted apart, a group at zero would never scale up for its jobs.
"""

from __future__ import annotations

EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""The extended resource the EFA device plugin advertises, one per EFA interface."""

HUGEPAGES_RESOURCE = "hugepages-2Mi"
"""The kubelet's resource for 2 MiB huge pages."""

# The EKS user guide (node-efa, its example pod spec) has each EFA pod request 5120Mi of
# 2 MiB huge pages. Pods request this amount; groups at zero are tagged with it; the
# controller models take it as what a node offers.
# Why: docs/adr/0005-efa-huge-pages.md
EFA_HUGEPAGES = "5120Mi"

# Locked memory (RLIMIT_MEMLOCK) in an EFA pod. libfabric's EFA provider registers (pins) its buffers and the
# job's, the huge pages above among them; the kernel refuses a registration past the limit unless the process
# holds CAP_IPC_LOCK, which Baseline Pod Security does not let a pod add. So the limit is raised node-side.
# What a pod gets on the AL2023 EKS AMI (awslabs/amazon-eks-ami v20260724, catalog.addons.EKS_AMI_RELEASE):
# * nodeadm's default base runtime spec (nodeadm/internal/containerd/base-runtime-spec.json) lists only
#   RLIMIT_NOFILE; every other limit is inherited from containerd.
# * The AMI adds no LimitMEMLOCK to containerd (templates/al2023/runtime/rootfs/etc/systemd/system/
#   containerd.service.d/ holds only 00-runtime-slice.conf), so containerd keeps systemd's default: 8 MiB,
#   as measured in NVIDIA/nvidia-container-toolkit#2037 and as Bottlerocket's schnauzer says ("the default
#   8096KB", bottlerocket-os/bottlerocket-core-kit v3.1.0 sources/api/schnauzer/src/helpers/mod.rs).
# Bottlerocket, AWS's other EKS OS, raises it to unlimited whenever an EFA device is attached (same file,
# generate_oci_resource_limits). trainstack sets the same through NodeConfig spec.containerd.baseRuntimeSpec.
# Why not RLIM_INFINITY itself: nodeadm merges baseRuntimeSpec through encoding/json into interface{}
# (nodeadm/internal/containerd/base_runtime_spec.go, util.Merge), so each number becomes a float64. 2**64-1
# comes out as 18446744073709552000, which containerd cannot read into the spec's uint64: every pod on the
# node would fail. 2**53 is the largest value every float64 step keeps exact; 8 PiB exceeds any instance's
# memory, and a pod cannot pin more than its node has, so it limits nothing.
EFA_MEMLOCK_BYTES = 2 ** 53
"""RLIMIT_MEMLOCK, soft and hard, of every container on an EFA node: unlimited in effect."""

NODEADM_NOFILE = (65536, 1048576)
"""nodeadm's own RLIMIT_NOFILE (soft, hard) at v20260724. A baseRuntimeSpec ``rlimits`` list replaces the
default list whole (mergo.WithOverride replaces slices), so trainstack's list repeats it."""


def efa_container_rlimits() -> list[dict[str, int | str]]:
    """The ``process.rlimits`` of the base runtime spec of an EFA node: nodeadm's own, plus locked memory."""
    soft_files, hard_files = NODEADM_NOFILE
    return [{"type": "RLIMIT_NOFILE", "soft": soft_files, "hard": hard_files},
            {"type": "RLIMIT_MEMLOCK", "soft": EFA_MEMLOCK_BYTES, "hard": EFA_MEMLOCK_BYTES}]
