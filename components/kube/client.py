"""A Kubernetes API server's REST interface: create, read, patch, delete, wait. Collections are
found by discovery (``/api/v1``, ``/apis/<group>/<version>``), so any kind a CRD adds is reachable
without a table of plurals.

One client for the rehearsal's local control plane (its admin token, its own CA) and for a running
cluster read through a kubeconfig (``kube.kubeconfig``: a bearer token or an exec plugin's, such as
``aws eks get-token``). Small on purpose: requests and nothing else, no client library to pin."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import requests

if TYPE_CHECKING:
    from urllib3 import HTTPHeaderDict

T = TypeVar("T")


class ApiError(RuntimeError):
    def __init__(self, status: int, body: dict[str, Any]):
        super().__init__(f"HTTP {status}: {body.get('message', body)}")
        self.status, self.body = status, body


def _with_impersonation(headers: Mapping[str, str | bytes], user: str, groups: tuple[str, ...]) -> HTTPHeaderDict:
    """``headers`` with the impersonation headers: requests keeps one value per header name, while urllib3 sends
    every value its HTTPHeaderDict holds (urllib3 2's public class; the pinned release, constraints.txt). A value
    requests left as bytes is read as latin-1, as http.client writes it."""
    from urllib3 import HTTPHeaderDict

    result = HTTPHeaderDict({name: value if isinstance(value, str) else value.decode("latin-1")
                             for name, value in headers.items()})
    result["Impersonate-User"] = user
    for group in groups:
        result.add("Impersonate-Group", group)
    return result


CONNECTIONS = 32
"""Connections kept open to the API server, for callers that share one client between threads."""


class Cluster:
    """A client of one API server, authenticated by a bearer token and trusting one CA (``ca_file``;
    None: the CAs requests trusts, certifi's, for a server whose certificate a public CA signed)."""

    def __init__(self, url: str, ca_file: Path | None, token: str):
        self.url = url.rstrip("/")
        self.session = requests.Session()
        # Only the given CA, and no proxy: the environment's REQUESTS_CA_BUNDLE would override
        # `verify` (requests merges it into every request) and a proxy must not see loopback.
        self.session.trust_env = False
        self.session.verify = str(ca_file) if ca_file is not None else True
        self.session.headers["Authorization"] = f"Bearer {token}"
        # Callers may share the client between threads (the rehearsal registers nodes side by side): a connection
        # each, kept, rather than urllib3's default pool of 10 that drops the rest after each request.
        self.session.mount("https://", requests.adapters.HTTPAdapter(pool_maxsize=CONNECTIONS))
        self._resources: dict[tuple[str, str], tuple[str, bool]] = {}
        self._impersonating: tuple[str, tuple[str, ...]] | None = None

    def as_user(self, user: str, groups: Sequence[str] = ()) -> Cluster:
        """This server, asked as ``user`` in ``groups``: every request carries ``Impersonate-User`` and one
        ``Impersonate-Group`` header per group, so the API server authorizes and admits it as that user (Kubernetes
        docs, "User Impersonation": the headers, a group given once per header; the server adds
        ``system:authenticated``). This client's own identity must be allowed to impersonate (the rehearsal's
        admin, in ``system:masters``, is). Shares this client's connection settings and what discovery found."""
        other = copy.copy(self)
        other._impersonating = (user, tuple(groups))
        return other

    def request(self, method: str, path: str, body: Any = None, content_type: str = "application/json",
                **params: str) -> dict[str, Any]:
        data = json.dumps(body) if body is not None and not isinstance(body, str) else body
        prepared = self.session.prepare_request(requests.Request(
            method, self.url + path, data=data, params=params, headers={"Content-Type": content_type}))
        if self._impersonating is not None:
            prepared.headers = _with_impersonation(  # type: ignore[assignment]
                prepared.headers, *self._impersonating)
        reply = self.session.send(prepared, timeout=60)
        try:
            document: dict[str, Any] = reply.json() if reply.content else {}
        except ValueError:  # a plain-text answer, such as "404 page not found" for a group nothing serves
            document = {"message": reply.text.strip()}
        if reply.status_code >= 400:
            raise ApiError(reply.status_code, document)
        return document

    def collection(self, api_version: str, kind: str, namespace: str | None = None) -> str:
        """The path of ``kind``'s collection (in ``namespace`` where the kind is namespaced)."""
        plural, namespaced = self._resource(api_version, kind)
        prefix = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        return f"{prefix}/namespaces/{namespace or 'default'}/{plural}" if namespaced else f"{prefix}/{plural}"

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        if (api_version, kind) not in self._resources:
            prefix = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
            for resource in self.get(prefix)["resources"]:
                if "/" not in resource["name"]:
                    self._resources[(api_version, resource["kind"])] = (resource["name"], resource["namespaced"])
        try:
            return self._resources[(api_version, kind)]
        except KeyError:
            raise ApiError(404, {"message": f"the API server serves no {kind} in {api_version}"}) from None

    def path_of(self, obj: dict[str, Any]) -> str:
        metadata = obj["metadata"]
        return f"{self.collection(obj['apiVersion'], obj['kind'], metadata.get('namespace'))}/{metadata['name']}"

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """POST ``obj`` to its collection; strict field validation, so an unknown field is refused."""
        params = {"fieldValidation": "Strict"}
        if dry_run:
            params["dryRun"] = "All"
        collection = self.collection(obj["apiVersion"], obj["kind"], obj["metadata"].get("namespace"))
        return self.request("POST", collection, obj, **params)

    def create_unless_there(self, obj: dict[str, Any]) -> None:
        """Create ``obj``; one of its name already there (409 Conflict) is kept as it is."""
        try:
            self.create(obj)
        except ApiError as error:
            if error.status != 409:
                raise

    def apply(self, obj: dict[str, Any], manager: str = "trainstack-rehearsal") -> dict[str, Any]:
        """Server-side apply: create or update ``obj`` as ``pulumi up`` with the Kubernetes provider would."""
        return self.request("PATCH", self.path_of(obj), obj, "application/apply-patch+yaml",
                            fieldManager=manager, force="true", fieldValidation="Strict")

    def patch(self, obj: dict[str, Any], patch: dict[str, Any], subresource: str = "") -> dict[str, Any]:
        path = self.path_of(obj) + (f"/{subresource}" if subresource else "")
        return self.request("PATCH", path, patch, "application/merge-patch+json")

    def patch_status(self, obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        return self.patch(obj, {"status": status}, "status")

    def get(self, path: str, **params: str) -> dict[str, Any]:
        return self.request("GET", path, **params)

    def list(self, api_version: str, kind: str, namespace: str | None = None, **params: str) -> list[dict[str, Any]]:
        """Every ``kind`` (in ``namespace``, or in all namespaces when it is None)."""
        plural, namespaced = self._resource(api_version, kind)
        prefix = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        path = f"{prefix}/namespaces/{namespace}/{plural}" if namespaced and namespace else f"{prefix}/{plural}"
        items: list[dict[str, Any]] = self.get(path, **params)["items"]
        return items

    def delete(self, obj: dict[str, Any], **params: str) -> None:
        self.request("DELETE", self.path_of(obj), **params)

    def wait_for(self, what: str, check: Callable[[], T | None], timeout: float = 60.0,
                 interval: float = 0.2) -> T:
        deadline = time.monotonic() + timeout
        while True:
            result = check()
            if result:
                return result
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(interval)
