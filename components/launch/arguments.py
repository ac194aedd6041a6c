"""The launchers' own arguments checked as Kubernetes, the job operators and Slurm will
check them, so a job that renders is a job the cluster accepts.

Names. Kubernetes object names are DNS-1123 subdomains, and Services DNS-1035 labels
(apimachinery ``pkg/util/validation/validation.go``: ``IsDNS1123Subdomain``,
``IsDNS1035Label``, ``IsDNS1123Label``; lower-case letters, digits and ``-``, a label at
most 63 characters). The operators derive further names from a job's:

* Kubeflow training operator v1.8.1 (the version trainstack installs) refuses a
  PyTorchJob whose name is not a DNS-1035 label (``pkg/webhooks/pytorch/
  pytorchjob_webhook.go``, ``validatePyTorchJob``), and names each replica's pod and
  headless Service ``<job>-<replica type>-<index>`` (``pkg/controller.v1/common/util.go``,
  ``GenGeneralName``), so ``<job>-master-0`` and ``<job>-worker-<n-1>`` must be DNS-1035
  labels too, or the Service is refused after the job was accepted.
* MPI operator v0.8.0 refuses an MPIJob unless ``<job>-worker-<replicas-1>`` is a
  DNS-1035 label (``pkg/apis/kubeflow/validation/validation.go``,
  ``validateMPIJobName``) and creates its launcher as the batch Job ``<job>-launcher``
  (``pkg/controller/mpi_job_controller.go``, ``launcherSuffix``).
* Kubeflow Trainer v2 makes a TrainJob's JobSet under the TrainJob's name, and JobSet's webhook
  refuses a set whose longest Job name ``<set>-<replicated job>-<index>`` or pod name
  ``<set>-<replicated job>-<job index>-<pod index>-<5 random>`` is not a DNS-1035 label
  (kubernetes-sigs/jobset ``pkg/webhooks/jobset_webhook.go``, ValidateCreate): the TrainJob
  launcher checks those (``launch/trainjob.py``, ``derived_names``).
* A batch Job's name is a DNS-1123 subdomain that is at most 63 characters: the Job
  controller copies it into the pods' ``batch.kubernetes.io/job-name`` label, and a
  label value holds at most 63 (Kubernetes documentation, "Jobs", Writing a Job spec).

A namespace is a DNS-1123 label. An image is required and has no white space (the
API server: ``validateContainers``, "must not have leading or trailing whitespace"; an
image reference has no spaces at all). A Slurm job name is written into a
``#SBATCH --job-name=`` line, so it may not hold white space or control characters, and it names
the job's checkpoint directory on FSx (restarts.py), so it holds no ``/`` and is not ``.`` or ``..``.

Every refusal is a :class:`LaunchError` naming the argument, the value (cut) and the fix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from ..boundary import cut
from .placement import LaunchError

LABEL_MAX = 63
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_WHITE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")


def check_replica_job_name(name: str, derived: Iterable[str], kind: str) -> None:
    """A PyTorchJob or MPIJob name: itself and every pod/Service name the operator derives
    from it (``derived``, e.g. ``<name>-worker-7``) must be DNS-1035 labels."""
    _check_label(name, name, kind, _DNS1035_LABEL, "begin with a lower-case letter")
    for full in derived:
        _check_label(name, full, kind, _DNS1035_LABEL, "begin with a lower-case letter")


def check_batch_job_name(name: str) -> None:
    """A batch Job's name: a DNS-1123 subdomain of at most 63 characters (its pods' job-name label)."""
    if not name or len(name) > LABEL_MAX or not _DNS1123_SUBDOMAIN.fullmatch(name):
        raise LaunchError(f"name {cut(name)!s}: a Job name is lower-case letters, digits, '-' and '.', beginning "
                          f"and ending with a letter or digit, at most {LABEL_MAX} characters (its pods carry it "
                          f"as a label value){_length(name)}. Fix: pass --name such as 'device-check-1'.")


def check_namespace(namespace: str | None) -> None:
    if namespace is not None and (len(namespace) > LABEL_MAX or not _DNS1123_LABEL.fullmatch(namespace)):
        raise LaunchError(f"namespace {cut(namespace)!s}: a namespace is a DNS-1123 label (lower-case letters, "
                          f"digits and '-', beginning and ending with a letter or digit, at most {LABEL_MAX} "
                          f"characters){_length(namespace)}. Fix: pass --namespace such as 'kubeflow'.")


def check_image(image: str) -> None:
    if not image or _WHITE_OR_CONTROL.search(image):
        raise LaunchError(f"image {cut(image)!r}: the container image is required and holds no spaces or control "
                          "characters. Fix: pass --image such as "
                          "'123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1.0'.")


def check_slurm_job_name(name: str) -> None:
    if not name or _WHITE_OR_CONTROL.search(name) or "/" in name or name in (".", ".."):
        raise LaunchError(f"name {cut(name)!r}: a Slurm job name goes into an '#SBATCH --job-name=' line and names "
                          "the job's checkpoint directory, so it is not empty, holds no spaces, control characters "
                          "or '/', and is not '.' or '..'. Fix: pass --name such as 'llama-pretrain'.")


def check_floor(floor_gbps: float) -> None:
    """A bandwidth floor is a finite number of Gbit/s above 0 (``nan`` would never fail, ``inf`` always)."""
    if not (math.isfinite(floor_gbps) and floor_gbps > 0):
        raise LaunchError(f"floor_gbps {cut(floor_gbps)}: the all-reduce floor is a finite bus bandwidth in "
                          "Gbit/s above 0. Fix: pass --floor-gbps such as 100, or leave it out for the type's "
                          "default.")


def _check_label(name: str, full: str, kind: str, pattern: re.Pattern[str], start: str) -> None:
    if len(full) <= LABEL_MAX and pattern.fullmatch(full):
        return
    derived = "" if full == name else f" (the operator derives the name {cut(full)!s} from it)"
    article = "an" if kind[0] in "AEIMO" else "a"  # an MPIJob, a PyTorchJob
    raise LaunchError(f"name {cut(name)!s}: {article} {kind} name must be a DNS-1035 label{derived}: lower-case "
                      f"letters, digits and '-', {start} and end with a letter or digit, at most {LABEL_MAX} "
                      f"characters{_length(full)}. Fix: pass --name with a shorter lower-case name such as "
                      "'llama-pretrain'.")


def _length(text: str) -> str:
    return f"; it has {len(text)}" if len(text) > LABEL_MAX else ""
