"""A kubeconfig read into a client (``client.Cluster``): the context's server, its CA and a bearer token.

What it supports, as kubectl reads the same fields (k8s.io/client-go ``tools/clientcmd``):

* the cluster's ``server``, with ``certificate-authority-data`` (base64 PEM, as EKS writes it) or
  ``certificate-authority`` (a file, relative to the kubeconfig's directory), or neither (the CAs
  requests trusts);
* the user's ``token``, ``tokenFile``, or ``exec``: a credential plugin (``aws eks get-token``, the
  kubeconfig of an EKS cluster and of a trainstack stack's ``kubeconfig`` output), run once without a
  terminal, its ``ExecCredential`` read for ``status.token`` (client-go ``plugin/pkg/client/auth/exec``;
  ``client.authentication.k8s.io`` v1 and v1beta1).

What it refuses, naming the field, rather than ignoring it and talking to the wrong place or as the
wrong user: client certificates (``client-certificate[-data]``, ``client-key[-data]``, and an exec
plugin that answers with them), ``username``/``password``, ``auth-provider``, impersonation (``as``,
``as-groups``, ``as-uid``, ``as-user-extra``), an exec plugin with ``interactiveMode: Always``, and the
cluster's ``insecure-skip-tls-verify``, ``proxy-url`` and ``tls-server-name``. No proxy is used
(``HTTPS_PROXY`` neither): reach the API server directly (an EKS private endpoint: from inside the VPC).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..boundary import cut, shown_path
from .client import Cluster

EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
"""The ExecCredential versions client-go reads (v1alpha1 was removed in Kubernetes 1.24)."""
EXEC_TIMEOUT_S = 60
"""Seconds a credential plugin may take (``aws eks get-token`` signs a request locally: well under one)."""
UNSUPPORTED_USER = {
    "client-certificate": "client certificates", "client-certificate-data": "client certificates",
    "client-key": "client certificates", "client-key-data": "client certificates",
    "username": "basic authentication", "password": "basic authentication",
    "auth-provider": "auth providers (removed from kubectl in 1.26: use an exec plugin)",
    "as": "impersonation", "as-uid": "impersonation", "as-groups": "impersonation", "as-user-extra": "impersonation",
}
UNSUPPORTED_CLUSTER = {
    "insecure-skip-tls-verify": "trainstack always verifies the server against the cluster's CA",
    "proxy-url": "trainstack reaches the server directly, through no proxy",
    "tls-server-name": "trainstack checks the server's certificate against the server's own host name",
}
SUPPORTED = "a bearer token (token, tokenFile) or an exec plugin such as `aws eks get-token`"


class KubeconfigError(ValueError):
    """The kubeconfig cannot be used as it is; one line naming the field, its value and the fix."""


class CredentialError(RuntimeError):
    """The user's exec plugin gave no token (not found, failed, timed out, answered in another shape)."""


@dataclass(frozen=True)
class ExecPlugin:
    """A credential plugin as the kubeconfig names it, checked, not yet run."""

    api_version: str
    command: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    cluster_info: Optional[dict[str, Any]]
    """What the plugin is told of the cluster (``provideClusterInfo``); None when it does not ask."""
    install_hint: Optional[str]
    where: str

    def token(self) -> str:
        """Run the plugin once, as client-go does without a terminal, and return its token."""
        env = {**os.environ, **dict(self.env)}
        # Every plugin is told it runs without a terminal; the cluster only when it asks (provideClusterInfo).
        spec: dict[str, Any] = {"interactive": False, **({"cluster": self.cluster_info} if self.cluster_info else {})}
        env["KUBERNETES_EXEC_INFO"] = json.dumps({"apiVersion": self.api_version, "kind": "ExecCredential",
                                                  "spec": spec})
        shown = cut(" ".join([self.command, *self.args]), 120)
        try:
            done = subprocess.run([self.command, *self.args], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=EXEC_TIMEOUT_S, check=False)
        except FileNotFoundError:
            hint = cut(self.install_hint.strip(), 200) if self.install_hint else (
                "install it (EKS: the AWS CLI) or put it on PATH")
            raise CredentialError(f"{self.where}: the exec plugin `{cut(self.command)}` is not found: {hint}") \
                from None
        except subprocess.TimeoutExpired:
            raise CredentialError(f"{self.where}: the exec plugin `{shown}` did not answer in {EXEC_TIMEOUT_S} s") \
                from None
        if done.returncode != 0:
            said = cut(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "nothing on stderr", 200)
            raise CredentialError(f"{self.where}: the exec plugin `{shown}` exited {done.returncode}: {said}")
        return _credential_token(done.stdout, self.api_version, self.where, shown)


@dataclass(frozen=True)
class Access:
    """Where the API server is, what to trust, and the token to show it (or the plugin that prints one)."""

    server: str
    context: str
    token: Optional[str] = None
    plugin: Optional[ExecPlugin] = None
    ca_pem: Optional[bytes] = None
    """The cluster's CA, PEM; None: ``ca_file`` or the CAs requests trusts."""
    ca_file: Optional[Path] = None


def read_access(document: Mapping[str, Any], name: str, directory: Path, context: Optional[str] = None) -> Access:
    """The server, CA and credentials of ``context`` (default: the current context, or the only one) in the
    kubeconfig ``document``; ``name`` says whose kubeconfig in messages, ``directory`` anchors relative
    paths. Checks every field it reads; runs nothing (``connect`` runs an exec plugin)."""
    chosen = _context(document, name, context)
    entry = _named(document, "contexts", chosen, name, "context")
    cluster_name, user_name = entry.get("cluster"), entry.get("user")
    if not isinstance(cluster_name, str) or not cluster_name:
        raise KubeconfigError(f"{name}: context '{cut(chosen)}' names no cluster; set contexts[].context.cluster")
    cluster = _named(document, "clusters", cluster_name, name, "cluster")
    user = _named(document, "users", user_name, name, "user") if isinstance(user_name, str) and user_name else {}
    where = f"{name}: cluster '{cut(cluster_name)}'"
    for field, what in UNSUPPORTED_CLUSTER.items():
        if cluster.get(field):
            raise KubeconfigError(f"{where}: {field} ({cut(cluster[field])}) is not supported ({what}); remove "
                                  "it, or use a kubeconfig without it")
    server = cluster.get("server")
    if not isinstance(server, str) or not server.startswith(("https://", "http://")):
        raise KubeconfigError(f"{where}: server is {cut(server)}, not a URL; set clusters[].cluster.server to the "
                              "API server's https:// address")
    ca_pem, ca_file = _ca(cluster, where, directory)
    user_where = f"{name}: user '{cut(user_name)}'"
    cluster_info = {"server": server, **({"certificate-authority-data": cluster["certificate-authority-data"]}
                                         if ca_pem else {})}
    token, plugin = _credentials(user, user_where, directory, cluster_info)
    return Access(server=server, context=chosen, token=token, plugin=plugin, ca_pem=ca_pem, ca_file=ca_file)


@contextmanager
def connect(access: Access) -> Iterator[Cluster]:
    """A client of ``access``'s API server; an inline CA lives in a temporary file while it is open. Runs the
    exec plugin first, if the user has one (``CredentialError`` when it gives no token)."""
    token = access.token if access.plugin is None else access.plugin.token()
    with tempfile.TemporaryDirectory(prefix="trainstack-kube-") as directory:
        ca_file = access.ca_file
        if access.ca_pem is not None:
            ca_file = Path(directory) / "ca.crt"
            ca_file.write_bytes(access.ca_pem)
        cluster = Cluster(access.server, ca_file, token or "")
        try:
            yield cluster
        finally:
            cluster.session.close()


def _context(document: Mapping[str, Any], name: str, context: Optional[str]) -> str:
    if context:
        return context
    current = document.get("current-context")
    if isinstance(current, str) and current:
        return current
    contexts = [c.get("name") for c in document.get("contexts") or [] if isinstance(c, Mapping)]
    if len(contexts) == 1 and isinstance(contexts[0], str):
        return contexts[0]
    listed = ", ".join(cut(str(c), 40) for c in contexts[:5]) or "none"
    raise KubeconfigError(f"{name} has no current-context and {len(contexts)} contexts ({listed}); give --context")


def _named(document: Mapping[str, Any], section: str, wanted: Any, name: str, key: str) -> Mapping[str, Any]:
    """The ``key`` mapping of the entry named ``wanted`` in ``document[section]`` (kubeconfig's named lists)."""
    entries = document.get(section)
    if not isinstance(entries, list):
        raise KubeconfigError(f"{name} has no {section} list; it is not a kubeconfig (kind: Config)")
    for entry in entries:
        if isinstance(entry, Mapping) and entry.get("name") == wanted:
            value = entry.get(key)
            if not isinstance(value, Mapping):
                raise KubeconfigError(f"{name}: {section} entry '{cut(wanted)}' has no {key} mapping")
            return value
    known = ", ".join(cut(str(e.get("name")), 40) for e in entries[:5] if isinstance(e, Mapping)) or "none"
    fix = "give --context with one of the contexts" if section == "contexts" else f"add it to {section}"
    raise KubeconfigError(f"{name}: no {key} named '{cut(wanted)}' in {section} ({known}); {fix}")


def _ca(cluster: Mapping[str, Any], where: str, directory: Path) -> tuple[Optional[bytes], Optional[Path]]:
    data = cluster.get("certificate-authority-data")
    if data:
        try:
            pem = base64.b64decode("".join(str(data).split()), validate=True)
        except (binascii.Error, ValueError):
            raise KubeconfigError(f"{where}: certificate-authority-data ({cut(data)}) is not base64; set it to the "
                                  "base64 of the CA's PEM, as `aws eks update-kubeconfig` writes it") from None
        if b"-----BEGIN CERTIFICATE-----" not in pem:
            raise KubeconfigError(f"{where}: certificate-authority-data decodes to no PEM certificate; set it to the "
                                  "base64 of the CA's PEM")
        return pem, None
    path = cluster.get("certificate-authority")
    if path:
        ca_file = (directory / str(path)).resolve()
        if not ca_file.is_file():
            raise KubeconfigError(f"{where}: certificate-authority {shown_path(ca_file)} is not a file; point it at "
                                  "the cluster's CA, or inline it as certificate-authority-data")
        return None, ca_file
    return None, None


def _credentials(user: Mapping[str, Any], where: str, directory: Path,
                 cluster_info: dict[str, Any]) -> tuple[Optional[str], Optional[ExecPlugin]]:
    """The user's bearer token (``token``, else ``tokenFile``: client-go's order), else its exec plugin."""
    for field, what in UNSUPPORTED_USER.items():
        if user.get(field):
            raise KubeconfigError(f"{where}: {field} is set, but trainstack does not support {what}; it reads "
                                  f"{SUPPORTED}")
    token = user.get("token")
    if isinstance(token, str) and token:
        return token, None
    token_file = user.get("tokenFile")
    if token_file:
        path = (directory / str(token_file)).resolve()
        try:
            return path.read_text().strip(), None
        except OSError as error:
            raise KubeconfigError(f"{where}: tokenFile {shown_path(path)} cannot be read "
                                  f"({error.strerror or type(error).__name__})") from None
    plugin = user.get("exec")
    if isinstance(plugin, Mapping):
        return None, _plugin(plugin, where, directory, cluster_info)
    raise KubeconfigError(f"{where} gives no credentials; trainstack reads {SUPPORTED}")


def _plugin(plugin: Mapping[str, Any], where: str, directory: Path, cluster_info: dict[str, Any]) -> ExecPlugin:
    api_version = plugin.get("apiVersion")
    if not isinstance(api_version, str) or api_version not in EXEC_API_VERSIONS:
        raise KubeconfigError(f"{where}: exec apiVersion is {cut(api_version)}; trainstack runs plugins of "
                              f"{' or '.join(EXEC_API_VERSIONS)}")
    if plugin.get("interactiveMode") == "Always":
        raise KubeconfigError(f"{where}: exec interactiveMode is Always, and trainstack runs plugins without a "
                              "terminal; use a plugin that needs none (IfAvailable or Never)")
    command = plugin.get("command")
    if not isinstance(command, str) or not command:
        raise KubeconfigError(f"{where}: exec has no command; set users[].user.exec.command")
    # client-go resolves a command with a path separator against the kubeconfig's directory, and
    # leaves a bare name to PATH (tools/clientcmd/loader.go, GetAuthInfoFileReferences).
    if os.sep in command:
        command = str((directory / command).resolve())
    env = tuple((str(e.get("name")), str(e.get("value"))) for e in plugin.get("env") or [] if isinstance(e, Mapping))
    hint = plugin.get("installHint")
    return ExecPlugin(api_version=api_version, command=command, args=tuple(str(a) for a in plugin.get("args") or []),
                      env=env, cluster_info=cluster_info if plugin.get("provideClusterInfo") else None,
                      install_hint=str(hint) if hint else None, where=where)


def _credential_token(stdout: str, api_version: str, where: str, shown: str) -> str:
    """``status.token`` of the ExecCredential the plugin printed (client-go refuses another kind or version)."""
    try:
        credential = json.loads(stdout)
    except ValueError:
        raise CredentialError(f"{where}: the exec plugin `{shown}` printed no ExecCredential JSON "
                              f"({cut(stdout.strip() or 'nothing')})") from None
    if not isinstance(credential, dict) or credential.get("kind") != "ExecCredential" \
            or credential.get("apiVersion") != api_version:
        kind = credential.get("kind") if isinstance(credential, dict) else type(credential).__name__
        raise CredentialError(f"{where}: the exec plugin `{shown}` printed {cut(kind)}, not an ExecCredential of "
                              f"{api_version}")
    status = credential.get("status")
    status = status if isinstance(status, dict) else {}
    if status.get("clientCertificateData") or status.get("clientKeyData"):
        raise CredentialError(f"{where}: the exec plugin `{shown}` answers with a client certificate, which is not "
                              f"supported; trainstack reads {SUPPORTED}")
    token = status.get("token")
    if not isinstance(token, str) or not token:
        raise CredentialError(f"{where}: the exec plugin `{shown}` gave no status.token")
    return token
