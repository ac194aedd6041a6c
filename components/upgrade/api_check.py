"""What trainstack renders, judged against the Kubernetes API of the minor a cluster upgrades to, before the upgrade.

An upgrade breaks an object in one of two ways: its group/version is removed (the API server of the target minor no
longer has it), or the group/version still exists but the target's API server does not serve it by default. An EKS
cluster runs the default, so to EKS both are the same refusal. A deprecated group/version still works, and gets a
finding so it can be moved before its removal.

Two checks:

* ``static_findings``, offline: each object's group/version and kind looked up in ``LIFECYCLE``, the lifecycle that
  k8s.io/api publishes for every alpha and beta kind a 1.32 to 1.37 API server knows. Any other alpha or beta
  group/version of a group Kubernetes serves itself counts as not served (see ``BUILT_IN_GROUPS``).
* ``dry_run``, on a running API server of the target minor (``api_server``): each object sent by server-side dry-run.
  The server's refusal, or its deprecation warning, is the finding.

Checked against the real kube-apiserver v1.36.3 in tests/engines/test_target_apiserver.py: the table and the server
agree.

The objects to check are what a plan records (``rehearsal.stack_objects``). The charts' and kustomizations' own
manifests are left out: they belong to their pinned releases, whose Kubernetes bounds ``controllers/versions.py``
judges.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import requests

from ..boundary import cut
from ..kube.client import ApiError, Cluster
from ..rehearsal import engines
from ..rehearsal.control_plane import ControlPlane, control_plane

Verdict = Literal["removed", "not served", "deprecated", "needs its CRD", "refused"]
"""``removed``: the target minor no longer has the group/version. ``not served``: it has it, but its API server does
not serve it by default (EKS runs the default). ``deprecated``: served, to be removed in a later minor. The
dry-run adds two: ``needs its CRD`` (a custom resource whose CRD the server does not have), and ``refused`` (the
server refused the object for another reason, named in the finding's source)."""

LIFECYCLE_SOURCE = ("k8s.io/api v0.37.2 (the Go module of kubernetes/api's tag v0.37.2, 2026-10-28), "
                    "<group>/<version>/zz_generated.prerelease-lifecycle.go, read 2026-11-29")
DEFAULTS_SOURCE = ("k8s.io/kubernetes v1.37.2 pkg/controlplane/instance.go: "
                   "genericBetaAPIGroupVersionsDisabledByDefault, betaAPIGroupVersionsDisabledByDefault and the "
                   "alpha lists, read 2026-11-29")
EKS_SOURCE = ("awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions-standard.adoc @ 0e7fca37, "
              "read 2026-11-28")

FIRST_MINOR, LAST_MINOR = (1, 32), (1, 37)
"""The minors the table covers. Anything removed before 1.32 cannot be on a running EKS cluster (1.31's extended support
ended 2026-11-26; its API server already refused it). 1.37 is the newest upstream minor (released 2026-08-26,
kubernetes.io/releases/1.37)."""


@dataclass(frozen=True)
class Lifecycle:
    """Kinds of one group/version that share one lifecycle, as k8s.io/api's ``APILifecycleIntroduced``,
    ``APILifecycleDeprecated`` and ``APILifecycleRemoved`` give it."""

    group_version: str
    kinds: tuple[str, ...]
    introduced_in: str
    deprecated_in: str
    removed_in: str
    served_by_default: bool
    """Whether an upstream API server serves it without ``--runtime-config`` before its removal."""
    replacement: str
    served_on_eks: tuple[str, ...] = ()
    """Minors on which EKS turns it on although upstream does not (EKS_SOURCE)."""
    source: str = LIFECYCLE_SOURCE

    def served_on(self, minor: tuple[int, int]) -> bool:
        if minor >= _parse(self.removed_in):
            return False
        return self.served_by_default or _text(minor) in self.served_on_eks


def _parse(minor: str) -> tuple[int, int]:
    major, _, number = minor.partition(".")
    return int(major), int(number)


def _text(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


# Every alpha and beta kind of k8s.io/api v0.37.2 whose removal falls in 1.32 or later, grouped by group/version and
# lifecycle. The introduced, deprecated and removed minors come from the file (LIFECYCLE_SOURCE), except the one row
# whose types that version no longer has (its own source). tests/data/k8s-api-lifecycle.json is the excerpt of the
# module the tests hold each row to. "Served by default" comes from the API server's own lists (DEFAULTS_SOURCE;
# v1.35.4's and v1.36.3's turn off every alpha and beta they have too): every alpha and beta group/version is off by
# default, the two that 1.37 adds (lifecycle.k8s.io/v1alpha1, scheduling.k8s.io/v1beta1) too.
# The last beta that was on by default, flowcontrol v1beta3, was removed in 1.32; EKS's notes for 1.32 (EKS_SOURCE)
# tell users of it to "update your configurations ... before upgrading".
#
# Decided: a beta that still exists but is off by default counts as "not served", even though it has not been
# removed. Example: resource.k8s.io/v1beta1 from 1.34 on. An object that uses it fails on a default API server, and
# that is what EKS runs. EKS's release notes name the only exceptions (served_on_eks). On 1.33, "the Dynamic Resource
# Allocation beta Kubernetes API is enabled"; the notes do not say which beta version, and a 1.33 server has both, so
# both are counted. On 1.31 to 1.33, "the beta VolumeAttributesClass ... API resource is enabled" (AWS patches its
# sidecars for it "on EKS 1.31-1.33"). The 1.34 notes move both to v1 and turn no beta on. So from 1.34 on, EKS serves
# neither, and an object that still uses one must move before the upgrade.
#
# Left out: apidiscovery.k8s.io/v2beta1 APIGroupDiscovery (deprecated 1.32, removed 1.35 in the same file). It is a
# discovery response a client asks for in its Accept header, not an object a stack creates.
_V1 = "resource.k8s.io/v1"
_DRA_KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")
_VALIDATING = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
_MUTATING = ("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")
LIFECYCLE: tuple[Lifecycle, ...] = (
    Lifecycle("flowcontrol.apiserver.k8s.io/v1beta3", ("FlowSchema", "PriorityLevelConfiguration"),
              "1.26", "1.29", "1.32", True, "flowcontrol.apiserver.k8s.io/v1"),
    Lifecycle("admissionregistration.k8s.io/v1alpha1", _VALIDATING, "1.26", "1.29", "1.32", False,
              "admissionregistration.k8s.io/v1"),
    Lifecycle("authentication.k8s.io/v1alpha1", ("SelfSubjectReview",), "1.26", "1.29", "1.32", False,
              "authentication.k8s.io/v1"),
    Lifecycle("storage.k8s.io/v1alpha1", ("VolumeAttributesClass",), "1.29", "1.32", "1.35", False,
              "storage.k8s.io/v1"),
    Lifecycle("authentication.k8s.io/v1beta1", ("SelfSubjectReview",), "1.27", "1.30", "1.33", False,
              "authentication.k8s.io/v1"),
    Lifecycle("admissionregistration.k8s.io/v1beta1", _VALIDATING, "1.28", "1.31", "1.34", False,
              "admissionregistration.k8s.io/v1"),
    Lifecycle("certificates.k8s.io/v1alpha1", ("ClusterTrustBundle",), "1.26", "1.34", "1.37", False,
              "certificates.k8s.io/v1 (from 1.37)"),
    Lifecycle("networking.k8s.io/v1beta1", ("IPAddress", "ServiceCIDR"), "1.31", "1.34", "1.37", False,
              "networking.k8s.io/v1"),
    Lifecycle("storage.k8s.io/v1beta1", ("VolumeAttributesClass",), "1.31", "1.34", "1.37", False,
              "storage.k8s.io/v1", served_on_eks=("1.32", "1.33")),
    # k8s.io/api v0.35.4 to v0.37.2 no longer have these v1alpha3 DRA types (their resource/v1alpha3 holds
    # DeviceTaintRule, and ResourcePoolStatusRequest from v0.36.3, only), so the API servers checked here do not serve
    # them. The lifecycle is the one v0.33.0 published.
    Lifecycle("resource.k8s.io/v1alpha3", _DRA_KINDS, "1.31", "1.34", "1.37", False, _V1,
              source="k8s.io/api v0.33.0 resource/v1alpha3/zz_generated.prerelease-lifecycle.go, read 2026-11-28"),
    Lifecycle("admissionregistration.k8s.io/v1alpha1", _MUTATING, "1.32", "1.35", "1.38", False,
              "admissionregistration.k8s.io/v1 (from 1.36)"),
    Lifecycle("coordination.k8s.io/v1alpha2", ("LeaseCandidate",), "1.32", "1.35", "1.38", False,
              "coordination.k8s.io/v1beta1 (off by default too)"),
    Lifecycle("resource.k8s.io/v1beta1", _DRA_KINDS, "1.32", "1.35", "1.38", False, _V1, served_on_eks=("1.33",)),
    Lifecycle("resource.k8s.io/v1beta2", _DRA_KINDS, "1.33", "1.36", "1.39", False, _V1, served_on_eks=("1.33",)),
    Lifecycle("resource.k8s.io/v1alpha3", ("DeviceTaintRule",), "1.33", "1.36", "1.39", False,
              "resource.k8s.io/v1 (from 1.37)"),
    Lifecycle("coordination.k8s.io/v1beta1", ("LeaseCandidate",), "1.33", "1.36", "1.39", False,
              "none served by default"),
    Lifecycle("certificates.k8s.io/v1beta1", ("ClusterTrustBundle",), "1.33", "1.37", "1.40", False,
              "certificates.k8s.io/v1 (from 1.37)"),
    Lifecycle("admissionregistration.k8s.io/v1beta1", _MUTATING, "1.34", "1.37", "1.40", False,
              "admissionregistration.k8s.io/v1 (from 1.36)"),
    # v0.36.3 had these two at 1.38 and 1.41; v0.37.2, which adds their v1, brings both a minor earlier.
    Lifecycle("certificates.k8s.io/v1beta1", ("PodCertificateRequest",), "1.35", "1.37", "1.40", False,
              "certificates.k8s.io/v1 (from 1.37)"),
    Lifecycle("storagemigration.k8s.io/v1beta1", ("StorageVersionMigration",), "1.35", "1.37", "1.40", False,
              "storagemigration.k8s.io/v1 (from 1.37)"),
    Lifecycle("resource.k8s.io/v1alpha3", ("ResourcePoolStatusRequest",), "1.36", "1.39", "1.42", False,
              "none served by default"),
    Lifecycle("resource.k8s.io/v1beta2", ("DeviceTaintRule",), "1.36", "1.39", "1.42", False,
              "resource.k8s.io/v1 (from 1.37)"),
    Lifecycle("lifecycle.k8s.io/v1alpha1", ("Eviction", "EvictionRequest"), "1.37", "1.40", "1.43", False,
              "none served by default"),
    Lifecycle("scheduling.k8s.io/v1beta1", ("PodGroup", "Workload"), "1.37", "1.40", "1.43", False,
              "none served by default"),
)

BUILT_IN_GROUPS = frozenset({
    "", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "apps",
    "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
    "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "extensions", "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io", "lifecycle.k8s.io", "networking.k8s.io", "node.k8s.io", "policy",
    "rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io"})
"""The groups kube-apiserver serves itself (DEFAULTS_SOURCE's lists, the CRD and aggregation groups, and
``extensions``, which it no longer serves). An object of any other group is a custom resource. Its lifecycle belongs to
its project, and the dry-run needs its CRD."""

_PRERELEASE = re.compile(r"^v\d+(alpha|beta)\d+$")


@dataclass(frozen=True)
class ApiFinding:
    kind: str
    name: str
    """The object's ``metadata.name``, as ``namespace/name`` where it has a namespace."""
    api_version: str
    verdict: Verdict
    in_minor: str
    """The minor the verdict holds from: the removal, the deprecation, or the target minor itself where the
    group/version is off by default."""
    replacement: str
    source: str
    """Where the verdict comes from: the table's source, or the API server's version and its own words."""

    def __str__(self) -> str:
        move = f"; use {self.replacement}" if self.replacement else ""
        return f"{self.kind} {self.name} ({self.api_version}): {self.verdict} in {self.in_minor}{move} [{self.source}]"


def _target(target_minor: str) -> tuple[int, int]:
    if not isinstance(target_minor, str) or not re.fullmatch(r"1\.\d{1,2}", target_minor) or not (
            FIRST_MINOR <= _parse(target_minor) <= LAST_MINOR):
        raise ValueError(f"target_minor {cut(repr(target_minor))} is not a Kubernetes minor the API table covers: "
                         f"give one of {_text(FIRST_MINOR)} to {_text(LAST_MINOR)}, as text (e.g. '1.36')")
    return _parse(target_minor)


def _identity(obj: object, index: int) -> tuple[str, str, str]:
    """(apiVersion, kind, name) of ``obj``, or a ValueError that names the object's position and its missing field."""
    if not isinstance(obj, dict):
        raise ValueError(f"objects[{index}] is a {type(obj).__name__}, not a Kubernetes object: give each object as a "
                         "mapping with apiVersion, kind and metadata.name")
    given = obj.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}
    identity = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata.name": metadata.get("name")}
    for field, value in identity.items():
        if not isinstance(value, str) or not value:
            raise ValueError(f"objects[{index}].{field} is {cut(repr(value))}: every object needs a non-empty {field}")
    namespace = metadata.get("namespace")
    name = f"{namespace}/{metadata['name']}" if namespace else metadata["name"]
    return obj["apiVersion"], obj["kind"], name


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def lifecycle_of(api_version: str, kind: str) -> Lifecycle | None:
    """The table's row for ``kind`` in ``api_version``, if the table has one."""
    return next((row for row in LIFECYCLE if row.group_version == api_version and kind in row.kinds), None)


def static_findings(objects: Iterable[dict[str, Any]], target_minor: str) -> list[ApiFinding]:
    """Every object that uses a group/version the target minor removed, does not serve by default, or deprecates.

    ``target_minor``: the minor the cluster upgrades to, as text ("1.36"), one of 1.32 to 1.37."""
    target = _target(target_minor)
    findings = []
    for index, obj in enumerate(objects):
        api_version, kind, name = _identity(obj, index)
        finding = _judged(api_version, kind, name, target)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(api_version: str, kind: str, name: str, target: tuple[int, int]) -> ApiFinding | None:
    row = lifecycle_of(api_version, kind)
    if row is None:
        version = api_version.rpartition("/")[2]
        if _group(api_version) in BUILT_IN_GROUPS and _PRERELEASE.match(version):
            return ApiFinding(kind, name, api_version, "not served", _text(target), "", DEFAULTS_SOURCE)
        return None
    if target >= _parse(row.removed_in):
        return ApiFinding(kind, name, api_version, "removed", row.removed_in, row.replacement, row.source)
    if not row.served_on(target):
        source = f"{row.source}; {DEFAULTS_SOURCE}" + (f"; {EKS_SOURCE}" if row.served_on_eks else "")
        return ApiFinding(kind, name, api_version, "not served", _text(target), row.replacement, source)
    if target >= _parse(row.deprecated_in):
        return ApiFinding(kind, name, api_version, "deprecated", row.deprecated_in, row.replacement, row.source)
    return None


# ---- on the target minor's own API server --------------------------------------------------------------------------

API_SERVER_ENGINES = {"1.35": engines.KUBERNETES, "1.36": engines.KUBE_APISERVER_NEWEST}
"""The kube-apiserver built for each minor (engines/build.sh): v1.35.4 and v1.36.3."""


@contextmanager
def api_server(minor: str = "1.36", directory: Path | None = None) -> Iterator[ControlPlane]:
    """The kube-apiserver of ``minor``, with the ``kubernetes`` engine's etcd, on loopback. It is stopped on exit.
    ``directory`` keeps its certificates and logs (rehearsal.control_plane)."""
    if minor not in API_SERVER_ENGINES:
        raise ValueError(f"minor {minor!r} has no API server engine: give one of {', '.join(API_SERVER_ENGINES)} "
                         "(engines/build.sh builds them)")
    with control_plane(["default-scheduler"], directory=directory, apiserver_engine=API_SERVER_ENGINES[minor]) as plane:
        yield plane


def server_version(cluster: Cluster) -> tuple[str, tuple[int, int]]:
    """The server's ``gitVersion`` and its minor, from GET /version (the minor may carry a "+", as on EKS)."""
    version = cluster.get("/version")
    return version["gitVersion"], (int(version["major"]), int(version["minor"].rstrip("+")))


def install_crds(cluster: Cluster, crds: Iterable[dict[str, Any]], timeout: float = 60.0) -> list[str]:
    """Create each CRD (one already there is kept) and wait until the server serves it (Established)."""
    names = []
    for crd in crds:
        cluster.create_unless_there(crd)
        names.append(crd["metadata"]["name"])
    for name in names:
        cluster.wait_for(f"CRD {name} Established", functools.partial(_established, cluster, name), timeout)
    return names


def _established(cluster: Cluster, name: str) -> bool:
    crd = cluster.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
    conditions = crd.get("status", {}).get("conditions", [])
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def dry_run(objects: Iterable[dict[str, Any]], cluster: Cluster,
            crds: Iterable[dict[str, Any]] = ()) -> list[ApiFinding]:
    """Every object the API server of ``cluster`` refuses, or accepts with a deprecation warning, by server-side
    dry-run (strict field validation). The server's own minor is the target.

    ``crds``: the CRDs the custom resources among ``objects`` need, installed first. A custom resource whose CRD the
    server still lacks is reported as "needs its CRD". ``cluster`` should be a scratch server (``api_server``). The
    namespaces the objects name are created for real, because the server refuses an object in a namespace that does
    not exist, and a Namespace object sent by dry-run is not created."""
    git_version, minor = server_version(cluster)
    install_crds(cluster, crds)
    checked = [(obj, *_identity(obj, index)) for index, obj in enumerate(objects)]
    findings: list[ApiFinding] = []
    served: dict[str, set[str] | None] = {}
    for obj, api_version, kind, name in sorted(checked, key=lambda each: each[2] != "Namespace"):
        if kind == "Namespace" and api_version == "v1":
            finding = _created(cluster, obj, name, git_version, minor)
        else:
            finding = _sent(cluster, obj, (api_version, kind, name), served, (git_version, minor))
        if finding is not None:
            findings.append(finding)
    return findings


def _created(cluster: Cluster, namespace: dict[str, Any], name: str, git_version: str,
             minor: tuple[int, int]) -> ApiFinding | None:
    try:
        cluster.create_unless_there(namespace)
    except ApiError as error:
        return ApiFinding("Namespace", name, "v1", "refused", _text(minor), "", _server_said(git_version, str(error)))
    return None


def _served_kinds(cluster: Cluster, api_version: str, served: dict[str, set[str] | None]) -> set[str] | None:
    """The kinds the server serves in ``api_version`` (discovery), or None where it does not serve the version."""
    if api_version not in served:
        prefix = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        try:
            served[api_version] = {r["kind"] for r in cluster.get(prefix)["resources"] if "/" not in r["name"]}
        except ApiError as error:
            if error.status != 404:
                raise
            served[api_version] = None
    return served[api_version]


def _sent(cluster: Cluster, obj: dict[str, Any], identity: tuple[str, str, str],
          served: dict[str, set[str] | None], server: tuple[str, tuple[int, int]]) -> ApiFinding | None:
    (api_version, kind, name), (git_version, minor) = identity, server
    kinds = _served_kinds(cluster, api_version, served)
    row = lifecycle_of(api_version, kind)
    replacement = row.replacement if row else ""
    if kinds is None or kind not in kinds:
        if _group(api_version) not in BUILT_IN_GROUPS:
            return ApiFinding(kind, name, api_version, "needs its CRD", _text(minor), "",
                              _server_said(git_version, f"serves no {kind} in {api_version}"))
        if kinds is not None:  # the version is served, the kind is not: a kind it never had
            return ApiFinding(kind, name, api_version, "refused", _text(minor), "",
                              _server_said(git_version, f"serves no {kind} in {api_version}"))
        removed = row is not None and minor >= _parse(row.removed_in)
        return ApiFinding(kind, name, api_version, "removed" if removed else "not served",
                          row.removed_in if row and removed else _text(minor), replacement,
                          _server_said(git_version, f"GET /apis/{api_version}: 404"))
    namespace = obj["metadata"].get("namespace")
    if namespace:
        cluster.create_unless_there({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    # The client's create() gives the body alone; a deprecation is in the reply's Warning headers.
    reply = cluster.session.post(cluster.url + cluster.collection(api_version, kind, namespace), data=json.dumps(obj),
                                 params={"dryRun": "All", "fieldValidation": "Strict"},
                                 headers={"Content-Type": "application/json"}, timeout=60)
    if reply.status_code >= 400:
        return ApiFinding(kind, name, api_version, "refused", _text(minor), replacement,
                          _server_said(git_version, f"HTTP {reply.status_code}: {_message(reply)}"))
    deprecations = [w for w in warning_texts(reply.headers.get("Warning", "")) if "deprecated" in w]
    if deprecations:
        since = re.search(r"deprecated in v(\d+\.\d+)\+", deprecations[0])
        use = re.search(r"; use (.+)$", deprecations[0])
        return ApiFinding(kind, name, api_version, "deprecated", since.group(1) if since else _text(minor),
                          use.group(1) if use else replacement, _server_said(git_version, "; ".join(deprecations)))
    return None


def warning_texts(header: str) -> list[str]:
    """The texts of a reply's ``Warning`` headers (RFC 7234 section 5.5, as the API server writes them: code 299,
    agent "-", the text quoted; requests joins several headers with ", ")."""
    return [re.sub(r"\\(.)", r"\1", text) for text in re.findall(r'299 - "((?:[^"\\]|\\.)*)"', header)]


def _message(reply: requests.Response) -> str:
    try:
        return str(reply.json().get("message", reply.text))
    except ValueError:
        return reply.text.strip()


def _server_said(git_version: str, words: str) -> str:
    return f"kube-apiserver {git_version}, server-side dry-run: {words}"
