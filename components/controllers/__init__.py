"""Models of the controllers that act on what trainstack renders, once it exists.

The policy rules check what a stack renders against AWS's static contracts; these
models check what the controllers that own those resources will then do with them:
the Cluster Autoscaler deciding whether a pending pod fits a group, EKS rolling a
managed node group, a HyperPod node joining its EKS cluster, the MPI and training
operators and Kubeflow Trainer starting and restarting a job's ranks. Each model is written from its
controller's source or documentation (file and version cited in the module) and
reads only plan records and rendered objects, never the cloud.

One module per controller; each returns ``Finding``s (``model.py``).
"""

from .kueue import check_queued_job
from .model import Finding
from .mpi_operator import check_mpijob
from .restarts import check_restarts
from .trainer import check_trainjob
from .training_operator import check_pytorchjob

__all__ = ["Finding", "check_mpijob", "check_queued_job", "check_pytorchjob", "check_restarts", "check_trainjob"]
