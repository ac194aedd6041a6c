"""A local git mirror of an upstream repository at one tag, for kustomize's remote bases, which the provider
fetches with ``git fetch --depth=1 <url> <tag>``: no repository host is reachable here.

The mirror's tree is the upstream module's at the same tag from the Go module cache (the engines' builds put it
there: the training operator's wrapper pins v1.8.1), committed and tagged; git's ``url.<mirror>.insteadOf`` sends
the fetch there, as an air-gapped site's git configuration does. A module zip holds the repository's files except
nested modules and vendor directories: the manifests kustomize reads are all there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ENGINES = Path(__file__).resolve().parents[2] / "engines"
MIRRORED = {"https://github.com/kubeflow/training-operator": (
    "training-operator", "github.com/kubeflow/training-operator", "v1.8.1")}
"""Upstream URL: (the engine whose wrapper pins the module, the module, the tag the kustomization asks for)."""


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=trainstack", "-c", "user.email=tests@trainstack.invalid", *args],
                   cwd=cwd, check=True, capture_output=True)


def git_mirrors(directory: Path) -> Path:
    """Mirror each of ``MIRRORED`` under ``directory``; return a git config file that redirects to them."""
    lines = []
    for url, (engine, module, tag) in MIRRORED.items():
        # Downloaded first: `go list -m` prints an empty directory for a module not yet in the module cache.
        subprocess.run(["go", "mod", "download", module], cwd=ENGINES / engine, check=True, capture_output=True)
        source = subprocess.run(["go", "list", "-m", "-f", "{{.Dir}}", module], cwd=ENGINES / engine, check=True,
                                capture_output=True, text=True).stdout.strip()
        repository = directory / engine
        shutil.copytree(source, repository)
        subprocess.run(["chmod", "-R", "u+w", str(repository)], check=True)
        _git("init", "-q", cwd=repository)
        _git("add", "-A", cwd=repository)
        _git("commit", "-q", "-m", f"{module} {tag} from the Go module cache", cwd=repository)
        _git("tag", tag, cwd=repository)
        lines += [f'[url "file://{repository}"]', f"\tinsteadOf = {url}"]
    config = directory / "gitconfig"
    config.write_text("\n".join(lines) + "\n")
    return config
