"""Go modules at a version, as the Go module proxy serves them: whether the version exists, and what a file of the
module says at it. The release tags of the controllers trainstack installs (Kueue, JobSet, Trainer, Karpenter, the
DRA driver, the operators, Kubernetes and etcd themselves) are Go module versions, so the proxy is a record of which
tags exist that this machine can read; container registries are not reachable here.

The local module cache is read first (``GOMODCACHE``: the engines' builds fill it with the same modules), and only
what it lacks is asked of the proxy, through the go command: ``go list -m`` for a version (its ``.info``, a few
hundred bytes), ``go mod download`` for a file (the module's zip, which then stays in the cache for the next run and
for the engines). Protocol: https://go.dev/ref/mod#goproxy-protocol (``$module/@v/$version.info`` and ``.zip``; a
module path's capitals are written ``!`` and the lower-case letter).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class Unreachable(Exception):
    """The proxy gave no answer about a version: no go command, no proxy configured, or the network failed."""


class NotServed(Exception):
    """The proxy answered that it serves no such version (or the module holds no such file): the go command's
    message, or what is missing."""


GO_TIMEOUT_S = 60
# Errors that say nothing about the version, only that the proxy could not be asked (the go command's wording, as
# net/http and cmd/go/internal/modfetch print it).
_NO_ANSWER = re.compile(r"dial tcp|i/o timeout|TLS handshake|connection (refused|reset)|no such host|"
                        r"network is unreachable|GOPROXY=off|unexpected EOF|: 5\d\d ")


def escape(path: str) -> str:
    """A module path or version as the proxy and the cache spell it: each capital as ``!`` and its lower case."""
    return re.sub(r"[A-Z]", lambda capital: "!" + capital.group(0).lower(), path)


def _go_env() -> dict[str, str]:
    """The go command's environment, asking the configured proxies only.

    Why not ``direct``: on a proxy's 404 or 410 the go command falls back to the origin's version control (git),
    so a tag that does not exist would end in a git error, and a machine that reaches the proxy but not GitHub would
    read as unreachable. The proxy's answer is the verdict."""
    if shutil.which("go") is None:
        raise Unreachable("the go command is not on PATH, and the module cache does not hold this version")
    setting = subprocess.run(["go", "env", "GOPROXY"], capture_output=True, text=True, check=True).stdout.strip()
    proxies = [p for p in re.split(r"[,|]", setting) if p and p not in ("direct", "off")]
    if not proxies:
        raise Unreachable(f"GOPROXY={setting!r} names no module proxy to ask")
    return dict(os.environ, GOPROXY=",".join(proxies), GOFLAGS="-mod=mod", GOWORK="off")


def _go_json(*args: str) -> dict[str, Any]:
    """``go <args> -json`` run outside any module; its ``Error`` turned into NotServed or Unreachable."""
    with tempfile.TemporaryDirectory() as outside:
        try:
            done = subprocess.run(["go", *args], cwd=outside, env=_go_env(), capture_output=True, text=True,
                                  timeout=GO_TIMEOUT_S)
        except subprocess.TimeoutExpired as timeout:
            raise Unreachable(f"go {' '.join(args)} took more than {GO_TIMEOUT_S} s") from timeout
    try:
        answer: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise Unreachable(f"go {' '.join(args)} printed no JSON: {done.stderr.strip()}") from None
    error = answer.get("Error")
    message = error.get("Err", "") if isinstance(error, dict) else str(error or "")
    if message:
        raise (Unreachable if _NO_ANSWER.search(message) else NotServed)(message)
    return answer


@dataclass(frozen=True)
class ModuleCache:
    root: Path
    """``GOMODCACHE``: extracted modules under ``<module>@<version>/``, downloads under ``cache/download/``."""

    @classmethod
    def here(cls) -> ModuleCache:
        """This machine's module cache: ``GOMODCACHE``, else the go command's, else Go's default under ``~/go``."""
        configured = os.environ.get("GOMODCACHE")
        if not configured and shutil.which("go"):
            configured = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True).stdout.strip()
        return cls(Path(configured) if configured else Path.home() / "go" / "pkg" / "mod")

    def _download(self, module: str, version: str, suffix: str) -> Path:
        return self.root / "cache" / "download" / escape(module) / "@v" / f"{escape(version)}{suffix}"

    def info(self, module: str, version: str) -> dict[str, Any]:
        """The version's ``.info`` (its time and, from the proxy, the tag it was made from); NotServed where the
        proxy serves no such version."""
        cached = self._download(module, version, ".info")
        if cached.is_file():
            answer: dict[str, Any] = json.loads(cached.read_text())
            return answer
        return _go_json("list", "-m", "-e", "-json", f"{module}@{version}")

    def read(self, module: str, version: str, file: str) -> str:
        """The text of ``file`` (a path inside the module) at ``version``: from the extracted module, the cached
        zip, or the zip the go command downloads into the cache."""
        extracted = self.root / f"{escape(module)}@{escape(version)}" / file
        if extracted.is_file():
            return extracted.read_text()
        archive = self._download(module, version, ".zip")
        if not archive.is_file():
            archive = Path(_go_json("mod", "download", "-json", f"{module}@{version}")["Zip"])
        with zipfile.ZipFile(archive) as members:
            try:
                return members.read(f"{module}@{version}/{file}").decode()
            except KeyError:
                raise NotServed(f"{module}@{version} holds no file {file}") from None
