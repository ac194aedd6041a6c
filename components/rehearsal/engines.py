"""Where the rehearsal's binaries come from: ``engines/build.sh`` builds each engine from source
through the Go module proxy into a cache, once per pin (see that script), and prints its directory.

In a checkout the script is ``engines/build.sh``; an installed trainstack carries the same
directory as ``trainstack/engines`` (package data), so ``trainstack rehearse`` builds what it
needs wherever it is installed, with Go on PATH.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

# Every engine the rehearsal may start (engines/build.sh's names).
KUBERNETES, KWOK, KUEUE, JOBSET, TRAINER, MPI_OPERATOR, TRAINING_OPERATOR = (
    "kubernetes", "kwok", "kueue", "jobset", "trainer", "mpi-operator", "training-operator")
KARPENTER_KWOK = "karpenter-kwok"
"""Karpenter with its kwok cloud provider: it launches a NodePool's nodes as Node objects (rehearsal.karpenter)."""
REHEARSAL = (KUBERNETES, KWOK, KUEUE, JOBSET, TRAINER, MPI_OPERATOR, TRAINING_OPERATOR, KARPENTER_KWOK)
# And the engine that deploys (trainstack.deploy): the Pulumi CLI and the Kubernetes provider.
PULUMI, PULUMI_KUBERNETES = "pulumi", "pulumi-kubernetes"
DEPLOY = (KUBERNETES, KWOK, PULUMI, PULUMI_KUBERNETES)
"""What ``trainstack up`` starts against the rehearsal's cluster (trainstack.deploy)."""
KUBE_APISERVER_NEWEST = "kube-apiserver-newest"
"""The kube-apiserver of the newest Kubernetes minor EKS offers (v1.36.3: engines/kube-apiserver-newest/go.mod), run on
the etcd of KUBERNETES: what a stack renders is dry-run on it before an upgrade (trainstack.upgrade.api_check)."""
BUILD_ORDER = (*REHEARSAL, PULUMI, PULUMI_KUBERNETES, KUBE_APISERVER_NEWEST)
"""The order of ``engines/build.sh all``: the rehearsal's engines first, the Pulumi CLI and provider, the longest
builds, then the newest minor's kube-apiserver, last so that no other engine test waits for it. The test suite runs
its engine tests in the same order (tests/conftest.py), so that on a machine whose caches are empty each test starts
as soon as the engines it names are built."""


class EnginesMissing(RuntimeError):
    """An engine is not built and cannot be built here (no Go toolchain, or no build script)."""


def build_script() -> Path:
    checkout = Path(__file__).resolve().parents[2] / "engines" / "build.sh"
    if checkout.is_file():
        return checkout
    installed = Path(__file__).resolve().parents[1] / "engines" / "build.sh"
    if installed.is_file():
        return installed
    raise EnginesMissing("no engines/build.sh beside the trainstack package: reinstall trainstack")


@functools.cache
def directory(engine: str) -> Path:
    """The directory of ``engine``'s binaries (and upstream manifests), building it if its cache is stale."""
    script = build_script()
    # The script prints a current cache without calling Go; only a build needs it.
    done = subprocess.run(["bash", str(script), engine], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        hint = (f"there is no `go` on PATH to build it: install Go >= 1.26 and run `{script} {engine}`"
                if shutil.which("go") is None else f"{script} {engine} failed:\n{done.stderr[-4000:]}")
        raise EnginesMissing(f"engine '{engine}' is not built: {hint}")
    return Path(done.stdout.strip().splitlines()[-1])
