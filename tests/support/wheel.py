"""trainstack as its users get it: the sdist and wheel built by PyPA's ``build``, the wheel
installed into a new virtualenv outside the checkout, and commands run there.

The wheel is built from the sdist (``python -m build``'s default), so what a user installs
from either is the same; the checkout's files are copied first (what git tracks or would
track), so no ``build/`` directory left in the checkout can add a stale file.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "constraints.txt"
BUILD_TIMEOUT_S = 600


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path

    def wheel_files(self) -> list[str]:
        with zipfile.ZipFile(self.wheel) as archive:
            return archive.namelist()


@dataclass(frozen=True)
class Installed:
    """A virtualenv holding the wheel (and its dependencies at the constraints' versions)."""

    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def trainstack(self) -> Path:
        return self.root / "bin" / "trainstack"

    @functools.cached_property
    def package_dir(self) -> Path:
        found = self.run([str(self.python), "-c", "import trainstack, os; print(os.path.dirname(trainstack.__file__))"],
                         cwd=self.root)
        return Path(found.stdout.strip())

    def run(self, command: list[str], cwd: Path, extra_env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        return run(command, cwd, env=clean_env(extra_env), check=check)


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a user's shell gives: none of the test run's Python paths or virtualenv."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSAFEPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if str(REPO) not in p)
    return {**env, "PULUMI_SKIP_UPDATE_CHECK": "true", **(extra or {})}


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env if env is not None else clean_env(), capture_output=True,
                          text=True, check=False, timeout=BUILD_TIMEOUT_S)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} (in {cwd}) exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def source_tree(into: Path) -> Path:
    """The checkout's files as a fresh clone would have them (tracked, or new and not ignored)."""
    listed = run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], REPO).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


def build(tree: Path, out: Path, *, wheel_only: bool = False) -> list[Path]:
    """``python -m build`` of ``tree``: the sdist, then the wheel from the sdist (or the wheel alone)."""
    run([sys.executable, "-m", "build", *(["--wheel"] if wheel_only else []), "--outdir", str(out), str(tree)], tree)
    return sorted(out.iterdir())


def install(wheel: Path, root: Path) -> Installed:
    """A new virtualenv at ``root`` with the wheel installed as users install it (not editable)."""
    venv.EnvBuilder(with_pip=True, clear=True).create(root)
    installed = Installed(root)
    constraints = ["-c", str(CONSTRAINTS)] if CONSTRAINTS.is_file() else []
    installed.run([str(installed.python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                   *constraints, str(wheel)], cwd=root)
    return installed
