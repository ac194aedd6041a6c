"""trainstack's torch training runtime for Kubeflow Trainer v2, as data: the blueprint of the JobSet a TrainJob on a
GPU group becomes.

Two places build it, so it lives here, below both: the stack installs it as a ClusterTrainingRuntime
(addons/trainer.py), and a TrainJob on a DRA group brings its own copy as a namespaced TrainingRuntime that also
carries the group's device claim (launch/trainjob_runtime.py says why Trainer v2.3.0 leaves no other way).

API: ``trainer.kubeflow.org/v1alpha1`` (kubeflow/trainer ``pkg/apis/trainer/v1alpha1/trainingruntime_types.go``
at v2.3.0; the runtime's shape follows ``manifests/base/runtimes/torch_distributed.yaml``).
"""

from __future__ import annotations

from typing import Any, Optional

API_VERSION = "trainer.kubeflow.org/v1alpha1"
TORCH_RUNTIME = "trainstack-torch"
# The same pods for checks that end with a verdict (the all-reduce): a missed floor must fail
# once, and a TrainJob cannot patch its runtime's failurePolicy (v2.3.0 runtimePatches carry
# replicatedJobs only), so checks name a runtime that never restarts.
CHECK_RUNTIME = "trainstack-torch-check"
# The runtime's replicated job and container TrainJob's trainer settings apply to.
NODE = "node"
# A training job restarts within a limit, as a whole: a failed node pod fails its Job at
# once (backoffLimit 0: a lone restarted rank could not rejoin a running torchrun group) and
# JobSet recreates every Job, up to this many times (JobSet v1alpha2 FailurePolicy.maxRestarts);
# the script resumes from its checkpoint. The v1 launchers' default limit
# (launch/restarts.py DEFAULT_BACKOFF_LIMIT); tests/addons/test_trainer.py keeps them equal.
RESTARTS = 3
# The image of Trainer's own torch runtime at the pinned release (kubeflow/trainer v2.3.0
# manifests/base/runtimes/torch_distributed.yaml, and the chart's files/runtimes/torch-distributed.yaml), where
# tests/catalog/test_pinned_images.py reads it again. A TrainJob's trainer.image replaces it
# (pkg/runtime/framework/plugins/jobset/builder.go at v2.3.0), and the launcher sets one on every GPU group.
TORCH_IMAGE = "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
# The same size the v1 launchers give /dev/shm (launch/placement.py SHM_SIZE): NCCL and
# dataloader workers share memory through it.
SHM_SIZE = "64Gi"


def torch_runtime(name: str = TORCH_RUNTIME, restarts: int = RESTARTS, *, namespaced: bool = False,
                  namespace: Optional[str] = None) -> dict[str, Any]:
    """The ClusterTrainingRuntime TrainJobs on GPU groups name (``CHECK_RUNTIME``, 0 restarts: checks); with
    ``namespaced``, the same runtime as a TrainingRuntime (of ``namespace``, or of wherever it is applied)."""
    pod = {"volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_SIZE}}],
           "containers": [{"name": NODE, "image": TORCH_IMAGE,
                           "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}]}]}
    metadata: dict[str, Any] = {"name": name, "labels": {"trainer.kubeflow.org/framework": "torch"}}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": API_VERSION, "kind": "TrainingRuntime" if namespaced else "ClusterTrainingRuntime",
        "metadata": metadata,
        "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
                 "template": {"spec": {
                     "failurePolicy": {"maxRestarts": restarts},
                     "replicatedJobs": [{"name": NODE, "template": {
                         "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                         "spec": {"backoffLimit": 0, "template": {"spec": pod}}}}]}}},
    }
