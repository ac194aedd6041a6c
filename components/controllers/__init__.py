"""Models of the controllers that act on what trainstack renders, once it exists.

The policy rules check what a stack renders against AWS's static contracts; these
models check what the controllers that own those resources will then do with them:
the Cluster Autoscaler deciding whether a pending pod fits a group, EKS rolling a
managed node group, a HyperPod node joining its EKS cluster, the MPI and training
operators and Kubeflow Trainer starting and restarting a job's ranks. Each model is written from its
controller's source or documentation (file and version cited in the module) and
reads only plan records and rendered objects, never the cloud.

One module per controller; each returns ``Finding``s (``model.py``):

* ``cluster_autoscaler``: every rendered job fits the template node of a group at zero
  and the allocatable of a running node (``scheduling`` holds the scheduler's filters).
* ``nodegroup_update``: no managed node group rollout needs capacity the group cannot get.
* ``versions``: every pinned component supports the cluster's Kubernetes version, within
  the version-skew policy.
* ``kueue``: a queued job names a queue and topology the stack has; a topology-aware flavor's
  group keeps the nodes its queues can give (Kueue places only onto nodes that exist).
"""

from collections.abc import Iterable
from typing import Any, Optional

from ..outputs import StackOutputs
from ..plan.record import Plan
from ..policy import stack_from_plan
from . import cluster_autoscaler, cluster_controllers, hyperpod_eks, kueue, nodegroup_update, versions
from .cluster_controllers import one_controller_per_kind
from .hyperpod_eks import hyperpod_eks_findings
from .kueue import check_queued_job
from .model import Finding, Report
from .mpi_operator import check_mpijob
from .restarts import check_restarts
from .trainer import check_trainjob
from .training_operator import check_pytorchjob


def check_stack(plan: Plan, jobs: Iterable[tuple[str, Any]], outputs: Optional[StackOutputs] = None) -> Report:
    """Every stack-level model over one plan; ``jobs`` are ``(id, rendered document)`` the autoscaler model
    judges; ``outputs`` (the stack's outputs contract) feed the Kueue capacity check. The job models
    (``check_mpijob``, ``check_pytorchjob``, ``check_restarts``) judge rendered jobs."""
    stack = stack_from_plan(plan)
    findings = [*cluster_autoscaler.check(stack, jobs), *nodegroup_update.check(stack), *versions.check(stack),
                *hyperpod_eks_findings(plan), *kueue.check_topology_capacity(stack, outputs)]
    return Report(findings, [cluster_autoscaler.CONTROLLER, nodegroup_update.CONTROLLER, versions.CONTROLLER,
                             hyperpod_eks.CONTROLLER, cluster_controllers.CONTROLLER, kueue.CONTROLLER])


__all__ = ["Finding", "Report", "check_mpijob", "check_pytorchjob", "check_queued_job", "check_restarts",
           "check_stack", "check_trainjob",
           "cluster_autoscaler", "hyperpod_eks_findings", "nodegroup_update", "one_controller_per_kind", "versions"]
