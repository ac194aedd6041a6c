"""The checks of a HyperPod cluster (``hyperpod``, config/hyperpod.py): its instance groups and switches, and its
place in the stack (the EKS cluster it joins, its zone, FSx's zone, one Kueue)."""

from __future__ import annotations

from ...catalog import hyperpod_eks
from ..base import ConfigValueError
from ..cluster import vpc_cni_version_tuple
from ..hyperpod import HyperPodConfig
from ..stack import StackConfig


def check_instance_groups(hyperpod: HyperPodConfig) -> None:
    """A Slurm cluster has one controller and no EKS add-on, an EKS one no Slurm group; names, partitions and
    users are each listed once; a connectivity health check has two instances to connect."""
    if hyperpod.orchestrator == "slurm":
        if hyperpod.controller is None:
            raise ConfigValueError("a Slurm cluster needs a controller group.",
                                   fix="add controller: {name: controller, instanceType: ml.c5.xlarge, count: 1}.",
                                   path=("controller",), value=None)
        if hyperpod.controller.count != 1:
            raise ConfigValueError("the Slurm controller group has exactly one instance.",
                                   fix="set controller.count: 1.", path=("controller", "count"),
                                   value=hyperpod.controller.count)
        _eks_only_switches(hyperpod)
    elif hyperpod.controller is not None or hyperpod.login is not None:
        raise ConfigValueError("EKS-orchestrated HyperPod has no Slurm controller or login group.",
                               fix="remove controller and login, or use orchestrator: slurm.",
                               path=("controller" if hyperpod.controller else "login",),
                               value=next(g.name for g in (hyperpod.controller, hyperpod.login) if g is not None))
    names = [g.name for g in hyperpod.groups]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ConfigValueError(f"instance group name '{duplicate}' is used twice.",
                               fix="give each group its own name.", path=("workers",), value=duplicate)
    partitions = [w.slurm_partition for w in hyperpod.workers]
    duplicate = next((p for p in partitions if partitions.count(p) > 1), None)
    if duplicate:
        raise ConfigValueError(f"Slurm partition '{duplicate}' is used by two worker groups.",
                               fix="give each worker group its own partition (HyperPod maps one partition "
                               "per group).", path=("workers",), value=duplicate)
    for key in ("name", "uid"):
        values = [getattr(user, key) for user in hyperpod.users]
        repeated = next((v for v in values if values.count(v) > 1), None)
        if repeated is not None:
            raise ConfigValueError(f"user {key} {repeated} is listed twice.", fix=f"give each user its own {key}.",
                                   path=("users",), value=repeated)
    for index, worker in enumerate(hyperpod.workers):
        if "InstanceConnectivity" in worker.deep_health_checks and worker.count < 2:
            raise ConfigValueError("the InstanceConnectivity deep health check needs two or more instances.",
                                   fix="raise count to 2, or run only InstanceStress.",
                                   path=("workers", index, "deepHealthChecks"), value=worker.deep_health_checks)


def _eks_only_switches(hyperpod: HyperPodConfig) -> None:
    for key, on in (("trainingOperator", hyperpod.training_operator), ("taskGovernance", hyperpod.task_governance)):
        if on:
            raise ConfigValueError(f"{key} is an EKS add-on; a Slurm cluster has no EKS cluster to run it.",
                                   fix=f"remove {key}, or use orchestrator: eks.", path=(key,), value=True)


def check_hyperpod_in_stack(stack: StackConfig) -> None:
    """HyperPod on EKS needs the stack's cluster, on a Kubernetes version and VPC CNI HyperPod supports; its zone
    has a private subnet and is FSx's; task governance brings the one Kueue."""
    if stack.hyperpod is None:
        return
    if stack.hyperpod.orchestrator == "eks" and stack.eks is None:
        raise ConfigValueError("HyperPod with EKS orchestration needs the EKS cluster.",
                               fix="add an eks block, or use orchestrator: slurm.",
                               path=("hyperpod", "orchestrator"), value="eks")
    if stack.hyperpod.orchestrator == "eks" and stack.eks is not None and \
            stack.eks.version not in hyperpod_eks.HYPERPOD_EKS_KUBERNETES_VERSIONS:
        supported = ', '.join(hyperpod_eks.HYPERPOD_EKS_KUBERNETES_VERSIONS)
        raise ConfigValueError(
            f"SageMaker HyperPod does not support Kubernetes {stack.eks.version} for EKS orchestration "
            f"(it supports {supported}; {hyperpod_eks.HYPERPOD_EKS_VERSIONS_SOURCE}).",
            fix=f"set eks.version to one of {supported}, "
            "or use orchestrator: slurm.", path=("eks", "version"), value=stack.eks.version)
    pinned_cni = stack.eks.addon_versions.vpc_cni if stack.eks is not None else None
    if stack.hyperpod.orchestrator == "eks" and pinned_cni and \
            vpc_cni_version_tuple(pinned_cni) < hyperpod_eks.HYPERPOD_EKS_MIN_VPC_CNI:
        raise ConfigValueError(
            f"SageMaker HyperPod needs the VPC CNI 1.18.3 or later; vpc-cni is pinned to {pinned_cni}.",
            fix="pin vpc-cni v1.18.3-eksbuild.1 or later, or remove the pin.",
            path=("eks", "addonVersions", "vpcCni"), value=pinned_cni)
    zone = stack.hyperpod_zone
    if zone not in stack.network.private_zones:
        raise ConfigValueError(f"HyperPod zone {zone} has no private subnet in the network.",
                               fix=f"use one of {', '.join(stack.network.private_zones)}.",
                               path=("hyperpod", "zone"), value=zone)
    if stack.hyperpod.task_governance and stack.operators.kueue:
        # Task governance is Kueue-based (EKS user guide, add-on list) and runs its own Kueue;
        # a second Kueue release would fight it over the same CRDs and webhooks. That the add-on
        # bundles Kueue is an assumption not confirmed from a primary source here, so the
        # conservative choice is to refuse both together.
        raise ConfigValueError("HyperPod task governance brings its own Kueue; operators.kueue would install "
                               "a second one.", fix="remove operators.kueue (or set it to false).",
                               path=("operators", "kueue"), value=True)
    if stack.fsx is not None and stack.fsx.zone != zone:
        raise ConfigValueError(
            f"HyperPod runs in {zone} but FSx is in {stack.fsx.zone}; the file system must share the zone.",
            fix="set hyperpod.zone and fsx.zone to the same zone.", path=("hyperpod", "zone"), value=zone)
