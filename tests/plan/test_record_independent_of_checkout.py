"""A plan record is the same bytes wherever the checkout is: the pull-request workflow plans the base
in one directory and the head in another, and a record names no runner's directory, user or host.

Two copies of the checkout (the program, the stacks and the library, imported from the copy) at
different depths plan the dev stack (which installs the training operator from a kustomization
shipped with trainstack) in two processes; the records are compared byte for byte."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Imports trainstack from the copy (ahead of the editable install) and writes `trainstack plan --json`.
PLAN = """
import sys
sys.path.insert(0, sys.argv[1])
import trainstack
assert trainstack.__file__.startswith(sys.argv[1]), trainstack.__file__
from trainstack import cli
sys.exit(cli.main(["plan", "--stack", "dev", "--cwd", sys.argv[2], "--json"]))
"""


def checkout(at: Path) -> Path:
    """A copy of the repository's program and library at ``at`` (the library under ``site/trainstack``)."""
    at.mkdir(parents=True)
    shutil.copy(REPO / "Pulumi.yaml", at / "Pulumi.yaml")
    shutil.copytree(REPO / "stacks", at / "stacks", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "components", at / "site" / "trainstack", ignore=shutil.ignore_patterns("__pycache__"))
    return at


def planned(root: Path) -> bytes:
    result = subprocess.run([sys.executable, "-c", PLAN, str(root / "site"), str(root)], capture_output=True,
                            timeout=600, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=False)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    return result.stdout


def test_two_checkouts_in_different_directories_plan_the_same_bytes_naming_neither(tmp_path):
    first = checkout(tmp_path / "runner-a" / "trainstack")
    second = checkout(tmp_path / "b" / "work" / "deeper" / "pr-head")
    one, other = planned(first), planned(second)
    assert b'"kubernetes:kustomize/v2:Directory"' in one  # the add-on that recorded the directory before
    assert one == other
    for name in (str(tmp_path), str(REPO), str(Path.home()), socket.gethostname()):
        assert name.encode() not in one, f"the record names {name!r}"
