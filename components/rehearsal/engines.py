"""Where the rehearsal's binaries come from: ``engines/build.sh`` builds each engine from source
through the Go module proxy into a cache, once per pin (see that script), and prints its directory.

In a checkout the script is ``engines/build.sh``; an installed trainstack carries the same
directory as ``trainstack/engines`` (package data), so ``trainstack rehearse`` builds what it
needs wherever it is installed, with Go on PATH.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
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


COLD_BUILD_SECONDS = {KUBERNETES: 596, KWOK: 229, KUEUE: 566, JOBSET: 554, TRAINER: 207, MPI_OPERATOR: 354,
                      TRAINING_OPERATOR: 342, KARPENTER_KWOK: 349, PULUMI: 396, PULUMI_KUBERNETES: 422,
                      KUBE_APISERVER_NEWEST: 262}
"""Seconds each engine took to build from empty caches on a 2-core machine of CI's kind (docs/real-engines.md:
2026-11-27 and 28; kubernetes with kubectl, 2026-11-29), what a build is announced with before it starts."""
MEASURED_CORES = 2
Announce = Callable[[str], None]


def _to_standard_error(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


announce: Announce = _to_standard_error
"""Where a build from source is said before it starts and while it runs (standard error; the CLI's is its own)."""


@functools.cache
def directory(engine: str) -> Path:
    """The directory of ``engine``'s binaries (and upstream manifests), building it if its cache is stale: a build
    is announced first, with the time it takes on this machine's cores, then each binary as it starts."""
    script = build_script()
    # The script prints a current cache without calling Go, and with --cached builds nothing.
    cached = subprocess.run(["bash", str(script), engine, "--cached"], capture_output=True, text=True, check=False)
    if cached.returncode == 0:
        return Path(cached.stdout.strip().splitlines()[-1])
    if cached.returncode in (2, 3):  # not an engine, or refused (a test that does not name it)
        raise EnginesMissing(f"engine '{engine}' is not built: {script} {engine} failed:\n{cached.stderr[-4000:]}")
    if shutil.which("go") is None:
        raise EnginesMissing(f"engine '{engine}' is not built, and there is no `go` on PATH to build it from source: "
                             f"install Go >= 1.26 and run `{script} {engine}`")
    announce(build_announcement(engine))
    began = time.monotonic()
    with subprocess.Popen(["bash", str(script), engine], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as build:
        assert build.stderr is not None and build.stdout is not None
        said = []
        for line in build.stderr:
            said.append(line)
            if line.startswith("engines/build.sh: "):  # what starts, and what is done; not Go's downloads
                announce(f"  {time.monotonic() - began:5.0f} s  {line.removeprefix('engines/build.sh: ').strip()}")
        printed = build.stdout.read()
    if build.returncode != 0:
        raise EnginesMissing(f"engine '{engine}' is not built: {script} {engine} failed:\n{''.join(said)[-4000:]}")
    return Path(printed.strip().splitlines()[-1])


def build_announcement(engine: str, cores: int | None = None) -> str:
    """What is said before ``engine`` is built from source: that it is, and about how long it takes here."""
    cores = cores or os.cpu_count() or 1
    measured = COLD_BUILD_SECONDS.get(engine)
    if measured is None:
        return f"building the engine '{engine}' from Go source (once; cached after): its time was never measured"
    # go build compiles packages on every core, so the time scales with them (no faster than a quarter).
    minutes = max(1, round(measured * MEASURED_CORES / min(cores, 4 * MEASURED_CORES) / 60))
    return (f"building the engine '{engine}' from Go source (once; cached after): about {minutes} min on this "
            f"machine's {cores} cores ({measured} s on {MEASURED_CORES} cores from empty caches); less where "
            "Go's caches already hold its modules")
