"""What each team of a stack can reach, read from a plan record: the access the stack would deploy.

The record, not the config, is the source: the Teams component's EKS access entries (principal -> Kubernetes
groups), every Role, ClusterRole and binding the record holds (in a ConfigGroup's objects or as a resource of its
own), the Pod Identity associations and the IAM policies of the roles they give, and each team namespace's
labels, NetworkPolicies, ResourceQuota and FSx claim. So a hand-edited or mis-rendered record shows what it would
really grant, and the plan's access table (``analysis/access_table.py``) and the diff's widening findings
(``review/widening.py``) read one view.

Kubernetes access is a set of grants ``(scope, API group, resource, verb)``, ``scope`` a namespace or ``*``
(cluster-wide): RBAC only adds permissions, so what a group may do is the union of the rules of the roles bound
to it (Kubernetes docs, Using RBAC Authorization, "Role and ClusterRole": "Permissions are purely additive (there
are no 'deny' rules)"). IAM access is a set of ``(action, resource, condition)`` Allow statements; the EKS Pod
Identity role of a team's ServiceAccount is what its pods act as (EKS user guide, pod-identities.html).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Optional

from ..names import (
    EKS_ACCESS_ENTRY,
    EKS_ADDON,
    EKS_COMPONENT_CLUSTER,
    IAM_ROLE,
    IAM_ROLE_POLICY,
    IAM_ROLE_POLICY_ATTACHMENT,
    NAMESPACE,
    POD_IDENTITY_ASSOCIATION,
    TEAMS_COMPONENT,
    YAML_CONFIG_GROUP,
)
from ..plan import Plan, ResourceRecord

CLUSTER = "*"
"""The scope of a grant through a ClusterRoleBinding: every namespace and the cluster's own objects."""
PSA_ENFORCE = "pod-security.kubernetes.io/enforce"
# Pod Security Standards from loosest to strictest (Kubernetes docs, Pod Security Standards). A namespace without
# the label gets the admission controller's default, `privileged` unless the API server is configured otherwise
# (Kubernetes docs, Pod Security Admission, "Pod Security admission labels for namespaces").
PSA_LEVELS = ("privileged", "baseline", "restricted")
# Built-in ClusterRoles the record does not hold (Kubernetes docs, Using RBAC Authorization, "User-facing roles"):
# cluster-admin is every verb on everything; the others are named grants, compared by name.
SUPERUSER = "cluster-admin"
FSX_DRIVER = "fsx.csi.aws.com"
VPC_CNI = "vpc-cni"
ENFORCED, OFF, UNCHECKED = "enforced", "off", "unchecked"
"""Whether NetworkPolicy is enforced: by the record's own vpc-cni add-on, not by it, or not known from the record."""


@dataclass(frozen=True, order=True)
class Grant:
    """One thing a Kubernetes group may do: ``verb`` on ``resource`` of ``api_group`` in ``scope``."""

    scope: str
    api_group: str
    resource: str
    verb: str

    def covers(self, other: Grant) -> bool:
        return (self.scope in (CLUSTER, other.scope) and self.api_group in ("*", other.api_group)
                and (self.resource in ("*", other.resource) or other.resource.startswith(self.resource + "#"))
                and self.verb in ("*", other.verb))


@dataclass(frozen=True, order=True)
class Allow:
    """One IAM permission: ``action`` on ``resource`` (IAM's ``*`` and ``?`` wildcards), under ``condition``."""

    action: str
    resource: str
    condition: str = ""
    """The statement's Condition as canonical JSON; empty for none."""

    def covers(self, other: Allow) -> bool:
        """True when every request ``other`` allows is allowed by this one too (conditions: none covers any; an
        ``s3:prefix`` pattern list covers one whose each pattern it matches; else equal)."""
        if not (_glob(self.action.lower()).fullmatch(other.action.lower())
                and _glob(self.resource).fullmatch(other.resource)):
            return False
        if not self.condition or self.condition == other.condition:
            return True
        mine, theirs = _prefixes(self.condition), _prefixes(other.condition)
        return mine is not None and theirs is not None and all(
            any(_glob(pattern).fullmatch(value) for pattern in mine) for value in theirs)

    @property
    def said(self) -> str:
        return f"{self.action} on {self.resource}" + (f" if {self.condition}" if self.condition else "")


@dataclass(frozen=True)
class TeamAccess:
    """One team as the record deploys it."""

    team: str
    namespace: str
    queue: Optional[str]
    """Its LocalQueue (the outputs contract's)."""
    reach: dict[str, tuple[int, int]]
    """Node group -> (guaranteed nodes, the most nodes one of its jobs can be admitted on)."""
    groups: tuple[str, ...]
    """The Kubernetes groups bound by a RoleBinding in its namespace."""
    members: tuple[str, ...]
    """The principals the Teams component's access entries put in one of those groups."""
    service_accounts: tuple[str, ...]
    """ServiceAccounts of its namespace with an EKS Pod Identity role."""
    roles: tuple[str, ...]
    """The IAM roles those give its pods (names, or ARNs where the record has no such role)."""
    allows: frozenset[Allow]
    """What its pods may do in AWS: the union of those roles' Allow statements."""
    pod_security: Optional[str]
    """The namespace's enforced Pod Security level (None: no label or no Namespace in the record)."""
    ingress: Optional[frozenset[str]]
    """Who may connect to its pods (each NetworkPolicy peer, with its ports, as JSON); None: any pod of the
    cluster, since no NetworkPolicy selects all of the namespace's pods for ingress."""
    quota: dict[str, str]
    fsx: Optional[str]
    """What its FSx claim mounts (``<file system>:/<mount name>[/<directory>]``); None without one."""


@dataclass(frozen=True)
class StackAccess:
    """Every team's access, and every principal and group the Teams component names."""

    teams: dict[str, TeamAccess]
    entries: dict[str, tuple[str, ...]]
    """Principal -> Kubernetes groups, from the Teams component's access entries."""
    grants: dict[str, frozenset[Grant]]
    """Kubernetes group -> what it may do, for every group bound anywhere in the record."""
    urns: dict[str, str] = field(default_factory=dict)
    """Where each thing lives in the record, for findings: ``entry:<principal>``, ``team:<team>`` (its
    ConfigGroup), ``policy:<team>``, ``namespace:<namespace>``."""
    checkpoint_bucket: Optional[str] = None
    datasets: tuple[dict[str, Any], ...] = ()
    """The contract's datasets (name, bucket, prefix, read only), to name what a statement reaches."""
    existing_cluster: bool = False
    """The cluster was made elsewhere: the record has no access entries or IAM of its own."""
    network_policy: str = UNCHECKED
    """Whether the teams' NetworkPolicies are enforced by what the record installs (``network_policy``)."""

    def of_principal(self, principal: str) -> frozenset[Grant]:
        return frozenset().union(*(self.grants.get(g, frozenset()) for g in self.entries.get(principal, ())))

    @property
    def viewers(self) -> dict[str, tuple[str, ...]]:
        """Principals of the Teams' access entries in no team's group, with their groups."""
        members = {m for team in self.teams.values() for m in team.members}
        return {p: groups for p, groups in self.entries.items() if p not in members}


def read_access(plan: Plan) -> Optional[StackAccess]:
    """The record's team access; None where it has no Teams component (a stack without teams, or a record made
    before teams were tenants)."""
    teams_urns = {r.urn for r in plan.resources if r.type == TEAMS_COMPONENT}
    if not teams_urns:
        return None
    contract = (plan.outputs.get("trainstack") or {}) if isinstance(plan.outputs.get("trainstack"), dict) else {}
    queues = ((contract.get("scheduling") or {}).get("queues") or {})
    objects = list(_objects(plan.resources))
    grants = _grants(objects)
    entries, urns = {}, {}
    for resource in plan.resources:
        if resource.type == EKS_ACCESS_ENTRY and resource.parent in teams_urns:
            principal = str(resource.inputs.get("principalArn"))
            entries[principal] = tuple(str(g) for g in resource.inputs.get("kubernetesGroups") or [])
            urns[f"entry:{principal}"] = resource.urn
        if resource.type == NAMESPACE:
            urns[f"namespace:{_metadata(resource.inputs).get('name')}"] = resource.urn
    policies = _role_policies(plan.resources)
    associations = [r for r in plan.resources if r.type == POD_IDENTITY_ASSOCIATION]
    teams = {}
    for team, queue in sorted(queues.items()):
        namespace = str(queue.get("namespace"))
        in_namespace = [(urn, o) for urn, o in objects if _metadata(o).get("namespace") == namespace]
        groups = sorted({s["name"] for _, o in in_namespace if o.get("kind") == "RoleBinding"
                         for s in o.get("subjects") or [] if s.get("kind") == "Group"})
        config_group = next((urn for urn, o in in_namespace if o.get("kind") == "RoleBinding"), None)
        if config_group:
            urns[f"team:{team}"] = config_group
        given = [a for a in associations if a.inputs.get("namespace") == namespace]
        roles = [policies.role_of(str(a.inputs.get("roleArn"))) for a in given]
        allows = frozenset().union(*(policies.allows.get(role, frozenset()) for role in roles))
        for role in roles:
            if role in policies.urns:
                urns.setdefault(f"policy:{team}", policies.urns[role])
        teams[team] = TeamAccess(
            team=team, namespace=namespace, queue=queue.get("localQueue"),
            reach={group: (int(q.get("guaranteedNodes") or 0), int(q.get("maxNodes") or 0))
                   for group, q in sorted((queue.get("quotas") or {}).items())},
            groups=tuple(groups), members=tuple(sorted(p for p, g in entries.items() if set(g) & set(groups))),
            service_accounts=tuple(sorted(str(a.inputs.get("serviceAccount")) for a in given)),
            roles=tuple(sorted(roles)), allows=allows,
            pod_security=_pod_security(plan.resources, namespace),
            ingress=_ingress([o for _, o in in_namespace if o.get("kind") == "NetworkPolicy"]),
            quota=next((dict((o.get("spec") or {}).get("hard") or {}) for _, o in in_namespace
                        if o.get("kind") == "ResourceQuota"), {}),
            fsx=_fsx(plan.resources, namespace))
    return StackAccess(teams=teams, entries=entries, grants=grants, urns=urns,
                       checkpoint_bucket=contract.get("checkpointBucket"),
                       datasets=tuple(d for d in contract.get("datasets") or [] if isinstance(d, dict)),
                       existing_cluster=not any(r.type == EKS_COMPONENT_CLUSTER for r in plan.resources),
                       network_policy=network_policy(plan.resources))


def network_policy(resources: Iterable[ResourceRecord]) -> str:
    """Whether the record itself turns on NetworkPolicy enforcement: ``enforced`` where its vpc-cni add-on sets
    ``enableNetworkPolicy`` to "true" (the VPC CNI enforces NetworkPolicy only then; it is off by default: EKS user
    guide, cni-network-policy-configure.html), ``off`` where its vpc-cni add-on does not, and ``unchecked`` where the
    record installs no vpc-cni add-on (a cluster made elsewhere: its network plugin is its owner's, which
    ``trainstack preflight nodes`` reads, preflight/network_policy.py). A value the record does not hold as JSON
    text (known only at deploy) is not enforcement it can show: ``off``."""
    found = UNCHECKED
    for resource in resources:
        if resource.type != EKS_ADDON or resource.inputs.get("addonName") != VPC_CNI:
            continue
        try:
            values = json.loads(str(resource.inputs.get("configurationValues") or "{}"))
        except ValueError:
            values = {}
        if not (isinstance(values, dict) and values.get("enableNetworkPolicy") == "true"):
            return OFF
        found = ENFORCED
    return found


# -- Kubernetes ---------------------------------------------------------------------------------------------------
def _objects(resources: Iterable[ResourceRecord]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(URN, object) of every Kubernetes object the record holds: a ConfigGroup's ``objs`` and any resource whose
    inputs are an object (``apiVersion`` and ``kind``)."""
    for resource in resources:
        if resource.type == YAML_CONFIG_GROUP:
            for item in resource.inputs.get("objs") or []:
                if isinstance(item, dict):
                    yield resource.urn, item
        elif "apiVersion" in resource.inputs and "kind" in resource.inputs:
            yield resource.urn, resource.inputs


def _metadata(item: Mapping[str, Any]) -> dict[str, Any]:
    metadata = item.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _grants(objects: list[tuple[str, dict[str, Any]]]) -> dict[str, frozenset[Grant]]:
    """Group -> grants, through every RoleBinding and ClusterRoleBinding the record holds."""
    roles: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _, item in objects:
        if item.get("kind") in ("Role", "ClusterRole"):
            scope = _metadata(item).get("namespace") if item["kind"] == "Role" else CLUSTER
            roles[(str(scope), str(_metadata(item).get("name")))] = list(item.get("rules") or [])
    found: dict[str, set[Grant]] = {}
    for _, item in objects:
        if item.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        scope = str(_metadata(item).get("namespace")) if item["kind"] == "RoleBinding" else CLUSTER
        ref = item.get("roleRef") or {}
        name = str(ref.get("name"))
        rules = roles.get((scope, name) if ref.get("kind") == "Role" else (CLUSTER, name))
        if rules is not None:
            granted = {g for rule in rules for g in _rule_grants(scope, rule)}
        elif name == SUPERUSER and ref.get("kind") == "ClusterRole":
            granted = {Grant(scope, "*", "*", "*")}
        else:
            granted = {Grant(scope, "rbac.authorization.k8s.io", f"{str(ref.get('kind')).lower()}:{name}", "bind")}
        for subject in item.get("subjects") or []:
            if subject.get("kind") == "Group":
                found.setdefault(str(subject.get("name")), set()).update(granted)
    return {group: frozenset(grants) for group, grants in sorted(found.items())}


def _rule_grants(scope: str, rule: Mapping[str, Any]) -> Iterator[Grant]:
    names = list(rule.get("resourceNames") or [])
    for verb in rule.get("verbs") or []:
        for url in rule.get("nonResourceURLs") or []:
            yield Grant(scope, "", f"url:{url}", str(verb))
        for group in rule.get("apiGroups") or []:
            for resource in rule.get("resources") or []:
                for target in ([f"{resource}#{n}" for n in names] if names else [resource]):
                    yield Grant(scope, str(group), str(target), str(verb))


def _pod_security(resources: Iterable[ResourceRecord], namespace: str) -> Optional[str]:
    for resource in resources:
        if resource.type == NAMESPACE and _metadata(resource.inputs).get("name") == namespace:
            return str((_metadata(resource.inputs).get("labels") or {}).get(PSA_ENFORCE) or PSA_LEVELS[0])
    return None


def _ingress(policies: list[dict[str, Any]]) -> Optional[frozenset[str]]:
    """The peers the namespace's NetworkPolicies admit; None where one pod or more is selected by no ingress
    policy, which leaves it open to every pod (Kubernetes docs, Network Policies, "The two sorts of pod
    isolation"). A rule without ``from`` admits every source: its peer is ``any``."""
    ingress = [p for p in policies if "Ingress" in ((p.get("spec") or {}).get("policyTypes") or ["Ingress"])]
    if not any(((p.get("spec") or {}).get("podSelector") or {}) == {} for p in ingress):
        return None
    peers: set[str] = set()
    for policy in ingress:
        for rule in (policy.get("spec") or {}).get("ingress") or []:
            ports = rule.get("ports")
            for peer in rule.get("from") or ["any"]:
                peers.add(json.dumps({"from": peer, **({"ports": ports} if ports else {})}, sort_keys=True))
    return frozenset(peers)


def _fsx(resources: list[ResourceRecord], namespace: str) -> Optional[str]:
    """What the namespace's FSx claim mounts: the file system and the mount name (a directory below it, where the
    PersistentVolume names one: aws-fsx-csi-driver mounts ``<dnsname>@tcp:/<mountname>``, examples/kubernetes/
    static_provisioning)."""
    volumes = {_metadata(r.inputs).get("name"): r.inputs for r in resources
               if r.inputs.get("kind") == "PersistentVolume"
               and ((r.inputs.get("spec") or {}).get("csi") or {}).get("driver") == FSX_DRIVER}
    for resource in resources:
        spec = resource.inputs.get("spec") or {}
        if (resource.inputs.get("kind") == "PersistentVolumeClaim" and _metadata(resource.inputs).get("namespace")
                == namespace and spec.get("volumeName") in volumes):
            csi = (volumes[spec["volumeName"]].get("spec") or {}).get("csi") or {}
            # A handle is the file system id, or ``<id>::<volume name>`` (storage/lustre_directories.volume_handle).
            file_system = str(csi.get("volumeHandle")).split("::", 1)[0]
            return f"{file_system}:/{(csi.get('volumeAttributes') or {}).get('mountname', '')}"
    return None


# -- IAM ----------------------------------------------------------------------------------------------------------
@dataclass
class _Policies:
    by_arn: dict[str, str]
    """Role ARN -> role name."""
    allows: dict[str, frozenset[Allow]]
    """Role name -> its Allow statements, inline and attached."""
    urns: dict[str, str]
    """Role name -> its first inline policy's URN."""

    def role_of(self, arn: str) -> str:
        return self.by_arn.get(arn, arn)


def _role_policies(resources: list[ResourceRecord]) -> _Policies:
    by_arn = {str(r.outputs.get("arn")): str(r.outputs.get("name")) for r in resources if r.type == IAM_ROLE}
    allows: dict[str, set[Allow]] = {}
    urns: dict[str, str] = {}
    for resource in resources:
        role = str(resource.inputs.get("role"))
        if resource.type == IAM_ROLE_POLICY:
            allows.setdefault(role, set()).update(statement_allows(resource.inputs.get("policy")))
            urns.setdefault(role, resource.urn)
        elif resource.type == IAM_ROLE_POLICY_ATTACHMENT:
            # A managed policy's document is not in the record: it is one grant, named by its ARN.
            allows.setdefault(role, set()).add(Allow(f"managed-policy:{resource.inputs.get('policyArn')}", "*"))
    return _Policies(by_arn, {role: frozenset(found) for role, found in allows.items()}, urns)


def statement_allows(document: Any) -> Iterator[Allow]:
    """The Allow statements of a policy document (JSON text or a mapping), one per action and resource. A
    document the record does not hold as JSON (a secret, a value known only at deploy) is one grant of
    everything: nothing says it is narrower."""
    try:
        policy = json.loads(document) if isinstance(document, str) else document
        statements = policy["Statement"]
    except (ValueError, TypeError, KeyError):
        yield Allow("*", "*", "the policy is not known offline")
        return
    for statement in statements if isinstance(statements, list) else [statements]:
        if statement.get("Effect") != "Allow":
            continue
        condition = json.dumps(statement["Condition"], sort_keys=True) if statement.get("Condition") else ""
        # NotAction and NotResource allow everything but what they name: as wide as "*" for this view.
        actions = _listed(statement.get("Action", "*")) if "NotAction" not in statement else ["*"]
        targets = _listed(statement.get("Resource", "*")) if "NotResource" not in statement else ["*"]
        for action in actions:
            for target in targets:
                yield Allow(str(action), str(target), condition)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> re.Pattern[str]:
    """IAM's wildcards: ``*`` any run of characters, ``?`` any one (IAM User Guide, reference_policies_elements_
    resource.html, "Including wildcard characters"); nothing else is special."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def _prefixes(condition: str) -> Optional[list[str]]:
    """The ``s3:prefix`` patterns of a ``StringLike`` condition and nothing else; None for any other condition."""
    try:
        parsed = json.loads(condition)
    except ValueError:
        return None
    if set(parsed) != {"StringLike"} or set(parsed["StringLike"]) != {"s3:prefix"}:
        return None
    return [str(v) for v in _listed(parsed["StringLike"]["s3:prefix"])]


VERB_ORDER = ("create", "get", "list", "watch", "update", "patch", "delete", "deletecollection", "bind", "*")


def grants_said(grants: Iterable[Grant]) -> list[str]:
    """Grants in words, one line per scope and set of verbs: ``create, get, list, watch, delete batch/jobs,
    kubeflow.org/pytorchjobs in llm``."""
    verbs: dict[tuple[str, str, str], set[str]] = {}
    for grant in grants:
        verbs.setdefault((grant.scope, grant.api_group, grant.resource), set()).add(grant.verb)
    lines: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (scope, group, resource), found in sorted(verbs.items()):
        ordered = tuple(sorted(found, key=lambda v: (VERB_ORDER.index(v) if v in VERB_ORDER else len(VERB_ORDER), v)))
        lines.setdefault((scope, ordered), []).append(f"{group}/{resource}" if group else resource)
    return [f"{', '.join(ordered)} {', '.join(resources)} "
            f"{'cluster-wide' if scope == CLUSTER else 'in ' + scope}" for (scope, ordered), resources in lines.items()]


def covered(item: Any, base: Iterable[Any]) -> bool:
    """``item`` (a Grant or an Allow) is covered by one of ``base``."""
    return any(b.covers(item) for b in base)
