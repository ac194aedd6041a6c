"""Every engine's steps that read upstream modules (``prepare``, ``manifests``) work on a machine whose Go module cache
is empty: CI's machines are new, and a step that asks for a module's directory before anything downloaded it gets an
empty path (it did: pulumi-kubernetes' prepare failed with "cannot stat '/cmd/pulumi-resource-kubernetes/schema.json'"
on a fresh machine, while every run on a machine that had built once passed).

Each step runs through ``engines/build.sh ENGINE --sources DIR`` with GOMODCACHE pointed at a new directory. So that
this costs a copy rather than the network, the modules come from this machine's own module cache used as a proxy
(its ``cache/download`` directory is a GOPROXY tree), falling back to the configured proxy for what it lacks. No engine
is built or started: these tests are not marked ``engines``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parents[2] / "engines"
WITH_SOURCES = sorted(module.name for module in ENGINES.iterdir()
                      if (module / "prepare").is_file() or (module / "manifests").is_file())


def _go_env(name: str) -> str:
    return subprocess.run(["go", "env", name], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def empty_module_cache(tmp_path: Path) -> dict[str, str]:
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain on PATH (engines/build.sh needs one)")
    downloads = Path(_go_env("GOMODCACHE")) / "cache" / "download"
    environment = {key: value for key, value in os.environ.items() if key != "TRAINSTACK_ENGINES_TEST"}
    return {**environment, "GOMODCACHE": str(tmp_path / "empty-module-cache"),
            "GOPROXY": f"file://{downloads},{_go_env('GOPROXY')}",
            # Module cache files are read-only by default: writable, so that the temporary directory can go.
            "GOFLAGS": f"{_go_env('GOFLAGS')} -modcacherw".strip()}


def test_the_engines_with_steps_that_read_modules_are_the_ones_expected() -> None:
    assert WITH_SOURCES == ["jobset", "karpenter-kwok", "kueue", "kwok", "mpi-operator", "pulumi-kubernetes", "trainer",
                            "training-operator"]


@pytest.mark.parametrize("engine", WITH_SOURCES)
def test_the_steps_that_read_upstream_modules_work_on_an_empty_module_cache(
        engine: str, empty_module_cache: dict[str, str], tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(ENGINES / "build.sh"), engine, "--sources", str(tmp_path / "sources")],
                          capture_output=True, text=True, env=empty_module_cache, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    sources = tmp_path / "sources"
    if (ENGINES / engine / "prepare").is_file():
        written = {path.name for path in (sources / "src").rglob("*") if path.is_file()} - {
            path.name for path in (ENGINES / engine).rglob("*") if path.is_file()}
        assert written, f"{engine}'s prepare wrote nothing"
        assert all((path.stat().st_size > 0) for path in (sources / "src").rglob("*") if path.name in written)
    if (ENGINES / engine / "manifests").is_file():
        for line in (ENGINES / engine / "manifests").read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                path = sources / "manifests" / line.split()[1]
                assert path.exists() and (path.is_dir() or path.stat().st_size > 0), f"{engine}: no {path}"
