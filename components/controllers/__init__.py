"""Models of the controllers that act on what trainstack renders, once it exists.

The policy rules check what a stack renders against AWS's static contracts; these
models check what the controllers that own those resources will then do with them:
the Cluster Autoscaler deciding whether a pending pod fits a group, EKS rolling a
managed node group, a HyperPod node joining its EKS cluster, the MPI and training
operators and Kubeflow Trainer starting and restarting a job's ranks. Each model is written from its
controller's source or documentation (file and version cited in the module) and
reads only a stack's resources (``policy.Stack``: from a plan record, or from what the
Pulumi engine hands the CrossGuard pack) and rendered objects, never the cloud.

One module per controller; each returns ``Finding``s (``model.py``):

* ``cluster_autoscaler``: every rendered job fits the template node of a group at zero
  and the allocatable of a running node (``scheduling`` holds the scheduler's filters);
  the autoscaler handles the claims of a DRA group it resizes.
* ``nodegroup_update``: no managed node group rollout needs capacity the group cannot get.
* ``versions``: every pinned component supports the cluster's Kubernetes version, within
  the version-skew policy.
* ``kueue``: a queued job names a queue and topology the stack has; a topology-aware flavor's
  group keeps the nodes its queues can give (Kueue places only onto nodes that exist) and is no
  DRA group (Kueue's topology-aware scheduling does not count claimed devices).
"""

from collections.abc import Callable

from . import cluster_autoscaler, cluster_controllers, hyperpod_eks, kueue, nodegroup_update, versions
from .cluster_controllers import one_controller_per_kind
from .hyperpod_eks import hyperpod_eks_findings
from .kueue import check_queued_job
from .model import Finding, Rendered, Report
from .mpi_operator import check_mpijob
from .restarts import check_restarts
from .trainer import check_trainjob
from .training_operator import check_pytorchjob

STACK_MODELS: dict[str, Callable[[Rendered], list[Finding]]] = {
    cluster_autoscaler.CONTROLLER: lambda r: (cluster_autoscaler.check_dra_handling(r.stack)
                                              + cluster_autoscaler.check(r.stack, r.jobs)),
    nodegroup_update.CONTROLLER: lambda r: nodegroup_update.check(r.stack),
    versions.CONTROLLER: lambda r: versions.check(r.stack),
    hyperpod_eks.CONTROLLER: lambda r: hyperpod_eks.check(r.stack),
    cluster_controllers.CONTROLLER: lambda r: one_controller_per_kind(r.stack, r.printed),
    kueue.CONTROLLER: lambda r: (kueue.check_topology_capacity(r.stack, r.outputs)
                                 + kueue.check_topology_on_dra(r.stack)),
}
"""Every stack-level model by the controller it models, in the order they run: ``trainstack plan`` runs them
all (:func:`check_stack`), the CrossGuard pack serves each as a policy (``analysis.crossguard``)."""


def check_stack(rendered: Rendered) -> Report:
    """Every stack-level model over one stack (a plan's or CrossGuard's, with its jobs, outputs and printed
    warnings). The job models (``check_mpijob``, ``check_pytorchjob``, ``check_restarts``) judge rendered jobs."""
    return Report([finding for model in STACK_MODELS.values() for finding in model(rendered)], list(STACK_MODELS))


__all__ = ["STACK_MODELS", "Finding", "Rendered", "Report", "check_mpijob", "check_pytorchjob", "check_queued_job",
           "check_restarts", "check_stack", "check_trainjob",
           "cluster_autoscaler", "hyperpod_eks_findings", "nodegroup_update", "one_controller_per_kind", "versions"]
