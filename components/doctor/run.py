"""``doctor``: the live cluster (and, asked, the AWS account) read against the stack's plan record, section by
section, into one diagnosis: its findings in the order of the questions (``finding.SECTIONS``), what was checked,
and a verdict: healthy, findings, or out of reach.

Read only. Every section reads the cluster through ``ReadOnlyCluster``, which refuses any request but a GET before
it leaves, so no section can change the cluster it diagnoses, and counts what each LIST returned (what the healthy
line says was checked). What doctor cannot read (the API server refusing the credentials, no connection, an exec
plugin that gives no token, AWS credentials missing) is ``Unreachable``, naming what and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import requests

from ..boundary import cut
from ..kube.client import ApiError, Cluster
from ..kube.kubeconfig import CredentialError
from ..names import HELM_RELEASE
from ..plan import Plan
from . import addons, aws, fabric, nodes, pending
from .finding import SECTIONS, Finding, Section, Unreachable
from .groups import planned_groups

RECORD_VERSION = 1
CLUSTER_SECTIONS: tuple[Section, ...] = tuple(s for s in SECTIONS if s != "aws")
"""What doctor answers unless asked otherwise: everything the cluster itself holds (``aws`` needs ``--aws``)."""
Check = Callable[[Plan, Any], list[Finding]]
CHECKS: dict[Section, tuple[tuple[str, Check], ...]] = {
    "cluster": (("nodes", nodes.findings), ("addons", addons.findings)),
    "pending": (("pending", pending.findings),),
    "fabric": (("fabric", fabric.findings),),
    "aws": (("aws", aws.findings),),
}
"""The checks that answer each section, by name, in the order their findings are told: each asked ``(plan, the
cluster)``, ``aws`` ``(plan, its clients)``."""
READ_SHOWN = {"nodes": "nodes", "workloads": "workloads", "pods": "pods"}
"""Collections whose count the healthy line gives (by the plural the API server serves them as)."""
WHY_SHOWN = 300
"""Characters of an API server's or a client library's own message an unreachable line keeps."""


class WriteRefused(RuntimeError):
    """A section asked to change the cluster: a defect of doctor's, refused before the request is sent."""


class ReadOnlyCluster(Cluster):
    """``cluster`` for doctor's sections: its requests, GET only, and a count of the objects each LIST returned per
    collection. Every other verb of the client (list, get, collection) goes through ``request``."""

    def __init__(self, cluster: Cluster):
        # Not Cluster.__init__: a view of a client already made, sharing its session, address and discovery.
        self.inner = cluster
        self.url, self.session = cluster.url, cluster.session
        self._resources, self._impersonating = cluster._resources, None
        self.listed: dict[str, set[str]] = {}
        """The objects each collection's LISTs returned (by its plural, ``nodes``), each once however often read."""

    def request(self, method: str, path: str, body: Any = None, content_type: str = "application/json",
                **params: str) -> dict[str, Any]:
        if method != "GET":
            raise WriteRefused(f"doctor only reads, and a section asked to {method} {cut(path, 200)}")
        document = self.inner.request(method, path, body, content_type, **params)
        items = document.get("items")
        if isinstance(items, list):
            seen = self.listed.setdefault(path.rstrip("/").rsplit("/", 1)[-1], set())
            seen.update(str((item.get("metadata") or {}).get("uid") or id(item)) for item in items)
        return document


@dataclass(frozen=True)
class Diagnosis:
    """What doctor found, in section order, and what it checked."""

    stack: str
    server: str
    sections: tuple[Section, ...]
    findings: tuple[Finding, ...]
    checked: dict[str, int] = field(default_factory=dict)
    """What was checked: node groups and charts of the plan, nodes, workloads and pods read."""
    left_out: dict[str, str] = field(default_factory=dict)
    """Checks not run (a module of a section asked for), each with why."""

    @property
    def healthy(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        # "1 pod", "2 pods": each kind is named in the plural, less its s for one.
        checked = ", ".join(f"{count} {what.removesuffix('s') if count == 1 else what}"
                            for what, count in self.checked.items()) or "nothing"
        left_out = "".join(f"; {name} not checked: {why}" for name, why in self.left_out.items())
        if self.healthy:
            return f"healthy: {checked} checked{left_out}"
        per_section = Counter(f.section for f in self.findings)
        sections = ", ".join(f"{section} {per_section[section]}" for section in SECTIONS if per_section[section])
        return f"unhealthy: {len(self.findings)} finding{'s' if len(self.findings) != 1 else ''} ({sections}); " \
               f"{checked} checked{left_out}"

    def render_text(self) -> str:
        lines = [f"Doctor of stack {self.stack} through {self.server} ({', '.join(self.sections)})", ""]
        lines += [finding.line() for finding in self.findings]
        return "\n".join([*lines, *([""] if self.findings else []), self.summary()])

    def as_dict(self) -> dict[str, Any]:
        return {"doctorVersion": RECORD_VERSION, "stack": self.stack, "server": self.server,
                "sections": list(self.sections), "healthy": self.healthy, "summary": self.summary(),
                "checked": dict(self.checked), "notChecked": dict(self.left_out),
                "findings": [f.as_dict() for f in self.findings]}


def doctor(plan: Plan, cluster: Optional[Cluster], sections: Iterable[Section] = CLUSTER_SECTIONS,
           aws_clients: Optional[aws.DoctorClients] = None, left_out: Optional[Mapping[str, str]] = None) -> Diagnosis:
    """The diagnosis of ``cluster`` against ``plan`` for ``sections`` (``aws`` reads the account through
    ``aws_clients``, which it then needs; ``cluster`` may be None when ``aws`` is all that is asked). ``left_out``:
    checks of ``CHECKS`` not to run, by name, each with why (said in the diagnosis). Raises ``Unreachable`` when the
    cluster or the account cannot be read."""
    skipped = dict(left_out or {})
    unknown = sorted(set(skipped) - {name for checks in CHECKS.values() for name, _ in checks})
    if unknown:
        raise ValueError(f"doctor has no check {', '.join(unknown)} to leave out; its checks: {_check_names()}")
    asked = tuple(s for s in SECTIONS if s in set(sections))
    if "aws" in asked and aws_clients is None:
        raise ValueError("doctor's aws section reads the account: give aws_clients")
    if cluster is None and any(s != "aws" for s in asked):
        raise ValueError(f"doctor's {', '.join(s for s in asked if s != 'aws')} sections read a cluster: give one")
    reader = ReadOnlyCluster(cluster) if cluster is not None else None
    found: list[Finding] = []
    for section in asked:
        for name, answer in CHECKS[section]:
            if name in skipped:
                continue
            if section == "aws":
                found += _read("the AWS account", answer, plan, aws_clients)
            elif reader is not None:
                found += _read(f"the API server {reader.url}", answer, plan, reader)
    server = reader.url if reader is not None else "no cluster (the AWS account only)"
    return Diagnosis(plan.stack, server, asked, tuple(found), _checked(plan, asked, reader),
                     {name: why for name, why in skipped.items()
                      if any(name == check for s in asked for check, _ in CHECKS[s])})


def _check_names() -> str:
    return ", ".join(name for checks in CHECKS.values() for name, _ in checks)


def _read(what: str, answer: Callable[[Plan, Any], list[Finding]], plan: Plan, source: Any) -> list[Finding]:
    """The section's findings (``answer`` asked of ``source``); what it could not read raised as ``Unreachable``,
    naming ``what`` and why."""
    try:
        return list(answer(plan, source))
    except ApiError as error:
        if error.status in (401, 403):
            raise Unreachable(f"{what} could not be read: {_refused(error)}") from None
        raise
    except (requests.ConnectionError, requests.Timeout) as error:
        raise Unreachable(f"{what} could not be read: no answer ({cut(_root(error), WHY_SHOWN)}); check the server's "
                          "address and that it can be reached from here (an EKS private endpoint only from inside "
                          "its VPC)") from None
    except CredentialError as error:
        raise Unreachable(f"{what} could not be read: {error}") from None
    except Exception as error:  # botocore's credential errors, told apart without importing botocore
        from ..preflight.credentials import credentials_problem

        problem = credentials_problem(error)
        if problem is None:
            raise
        raise Unreachable(f"{what} could not be read: {problem}") from None


def _refused(error: ApiError) -> str:
    said = cut(str(error.body.get("message") or error), WHY_SHOWN)
    if error.status == 401:
        return (f"HTTP 401, the credentials were refused ({said}); refresh them (EKS: aws eks update-kubeconfig "
                "--name CLUSTER, or check the kubeconfig's token)")
    # Kubernetes' built-in view ClusterRole reads no Secrets (where Helm keeps its release records), Nodes or
    # ResourceSlices (kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), so it is
    # not enough; EKS's AmazonEKSAdminViewPolicy lists and reads every resource, Secrets included (EKS user guide,
    # access-policy-permissions.html).
    return (f"HTTP 403, not allowed ({said}); doctor needs get and list on what it reads (nodes, resourceslices, "
            "pods, pods/log, events, Helm's release Secrets, Kueue's objects): an EKS access entry with "
            "AmazonEKSAdminViewPolicy, or a ClusterRole granting those (the built-in view role reads no Secrets "
            "or Nodes)")


def _root(error: BaseException) -> str:
    """The innermost reason of a connection error (``Connection refused``), not urllib3's whole chain."""
    while error.__context__ is not None and error.__context__ is not error:
        error = error.__context__
    return str(error) or type(error).__name__


def _checked(plan: Plan, sections: tuple[Section, ...], reader: Optional[ReadOnlyCluster]) -> dict[str, int]:
    checked: dict[str, int] = {}
    listed = {plural: len(seen) for plural, seen in (reader.listed if reader is not None else {}).items()}
    if "cluster" in sections:
        checked["node groups"] = len(planned_groups(plan))
    if "nodes" in listed:
        checked["nodes"] = listed["nodes"]
    if "cluster" in sections:
        checked["charts"] = sum(1 for r in plan.resources if r.type == HELM_RELEASE)
    for plural, shown in READ_SHOWN.items():
        if plural != "nodes" and plural in listed:
            checked[shown] = listed[plural]
    return checked

