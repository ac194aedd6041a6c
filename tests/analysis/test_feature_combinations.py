"""Where features meet (issue 64): a property test over combinations of what a stack can turn on.

Each example is a shipped stack with its teams set (none, with members, without members) and some of: a
bring-your-own cluster, a DRA group, a Karpenter pool, a pool spanning several managed node groups, etcd, HyperPod
on EKS; at one minor of EKS's window (tests/support/feature_combinations.py). The config may refuse it with a
ConfigError; every other combination is planned offline and every launcher run on its outputs, for every team. Over
each planned combination, read from its plan record and from what the launchers print:

* every accelerator job a launcher renders for a team goes through the team's Kueue queue, or is refused;
* every boundary the access table shows is enforced by what the stack makes, or marked as not yet checked;
* every operation the plan estimates fits the timeout the engine is handed;
* the IP budget counts exactly the subnets the nodes are placed in, with their nodes;
* every service the teams share has a per-team boundary in the record, or a note in the docs saying so.

CI's share: the combinations of ``CHOSEN`` (each a seam where several features meet, every minor of the window
among them) and ``DRAWN`` more (two or three features each) drawn the same on every run (``SEED``), each planned
once for the five properties: about 20 s of one core. The night's size, drawn afresh with each seed
(CONTRIBUTING.md):

    TRAINSTACK_COMBINATIONS=200 TRAINSTACK_COMBINATIONS_SEED=$RANDOM \\
        .venv/bin/python -m pytest -q -n 0 tests/analysis/test_feature_combinations.py

A failure prints the combination (``note``) and the broken part; planning it again is
``support.feature_combinations.planned(combination(...))``.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from hypothesis import Phase, assume, event, example, given, note, seed, settings
from support import plan_records
from support.feature_combinations import (
    BASES,
    FEATURES,
    TEAMS,
    Combination,
    Launch,
    combination,
    combinations,
    kueue_configuration,
    launches,
    namespace_labels,
    of_kind,
    planned,
    refusal,
    resources,
    stack_file,
)
from support.record_timeouts import estimate, short_creations, short_rolls
from support.subnet_use import budgeted_in_record, placed
from trainstack.cli.launch import BY_NAME
from trainstack.config.cluster import EKS_VERSIONS
from trainstack.review.access_words import team_rows
from trainstack.tenancy.flows import selects

DRAWN = int(os.environ.get("TRAINSTACK_COMBINATIONS", "5"))
SEED = int(os.environ.get("TRAINSTACK_COMBINATIONS_SEED", "64"))
# Each example is a whole plan; a failure is shown as drawn (shrinking would plan it again and again). The same
# seed gives the five properties the same examples, so each combination is planned once (planned() keeps it).
COMBINED = settings(max_examples=DRAWN, phases=[Phase.explicit, Phase.generate], deadline=None, database=None)

CHOSEN = (
    # Two teams, their Karpenter pool, a pool of two reservations, etcd beside HyperPod's nodes.
    combination("kueue-p5", "with members", "span", "etcd", "hyperpod", minor="1.35"),
    # 2,048 nodes in eight managed node groups on DRA, three teams without members.
    combination("frontier-p5", "without members", "dra", minor="1.34"),
    # A cluster made elsewhere at the window's newest minor, with etcd, its group spanning reservations.
    combination("byo-p5", "with members", "etcd", "span", minor="1.36"),
    # DRA beside a Karpenter pool and etcd, two teams added.
    combination("b200-dra", "with members", "karpenter", "etcd", minor="1.34"),
    # HyperPod's nodes in the cluster of two teams, one of them in the FSx claim's namespace (kubeflow).
    combination("hyperpod-eks", "with members", "karpenter", minor="1.32"),
    # A small stack in extended support, its group split over two reservations, two teams added.
    combination("dev", "with members", "span", minor="1.33"),
    # Trainium made elsewhere, teams without members.
    combination("trn1", "without members", "existing cluster", "etcd", minor="1.34"),
    # No teams: HyperPod's nodes beside a pool of two reservations, datasets and etcd.
    combination("fsdp-p5", "none", "hyperpod", "etcd", "span", minor="1.35"),
)


def combined(test: Callable[..., None]) -> Callable[..., None]:
    """The property over ``CHOSEN`` and ``DRAWN`` drawn combinations that the config takes (what it refuses is
    the count test's)."""
    for chosen in CHOSEN:
        test = example(chosen=chosen)(test)
    return seed(SEED)(COMBINED(given(chosen=combinations())(test)))


def plan_of(chosen: Combination) -> dict[str, Any]:
    """The combination's plan record; a combination the config refuses is not an example of these properties."""
    note(str(chosen))
    refused = refusal(chosen)
    event("refused by the config" if refused else "planned")
    assume(refused is None)
    return planned(chosen)


# -- 1. every accelerator job a launcher renders for a team goes through its Kueue queue, or is refused ------------
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
WORKLOADS = {"Job": ("batch", "jobs"), "PyTorchJob": ("kubeflow.org", "pytorchjobs"),
             "MPIJob": ("kubeflow.org", "mpijobs"), "TrainJob": ("trainer.kubeflow.org", "trainjobs")}
"""The job kinds the launchers render: (API group, resource), as Kueue's integrations and the admission policy's
rules name them."""


@combined
def test_every_accelerator_job_a_launcher_renders_for_a_team_goes_through_its_kueue_queue_or_is_refused(chosen):
    """On a stack with teams, every launch kind on every group, for each team and for none named: either the
    launcher refuses (exit 2, one line), or the job names the team's LocalQueue, lies in the team's namespace with
    all it applies first, and that namespace is one Kueue manages (its Configuration's
    ``managedJobsNamespaceSelector``, with ``manageJobsWithoutQueueName``) and the admission policy guards for the
    job's kind. A launcher that takes no team (HyperPod's PyTorchJob) renders into no team's namespace: Kueue
    would hold its job there for ever, naming no queue."""
    document = plan_of(chosen)
    queues = (document["outputs"]["trainstack"].get("scheduling") or {}).get("queues") or {}
    if not queues:
        return
    problems = []
    for launch in launches(chosen):
        assert launch.code in (0, 2), f"{launch}: exit {launch.code}, not a refusal: {launch.said}"
        assert launch.code == 0 or "\n" not in launch.said.strip(), f"{launch}: refused in more than a line"
        if launch.code == 2 or launch.job is None:  # refused, or a Slurm script
            continue
        if not BY_NAME[launch.kind].queued:
            namespace = launch.job["metadata"].get("namespace")
            if namespace in {queue["namespace"] for queue in queues.values()}:
                problems.append(f"{launch}: a {launch.job['kind']} in team namespace {namespace}, naming no queue")
            continue
        team = launch.team or (next(iter(queues)) if len(queues) == 1 else None)
        if team is None:
            problems.append(f"{launch}: rendered with no team named on a stack of {len(queues)} teams")
            continue
        problems += [f"{launch}: {problem}" for problem in _outside_the_queue(document, launch, queues[team])]
    assert problems == [], "\n".join(problems)


def _outside_the_queue(document: dict[str, Any], launch: Launch, queue: dict[str, Any]) -> list[str]:
    """How the launched job (and what it applies first) escapes the team's queue, read from the record."""
    job, namespace = launch.job, queue["namespace"]
    problems = [f"{d['kind']} {d['metadata'].get('name')} in namespace {d['metadata'].get('namespace')}, not "
                f"{namespace}" for d in launch.documents if d["metadata"].get("namespace") != namespace]
    if (job.get("metadata", {}).get("labels") or {}).get(QUEUE_LABEL) != queue["localQueue"]:
        problems.append(f"{job['kind']} does not name LocalQueue {queue['localQueue']}")
    if not any(q["metadata"]["name"] == queue["localQueue"] for q in of_kind(document, "LocalQueue", namespace)):
        problems.append(f"the record makes no LocalQueue {queue['localQueue']} in {namespace}")
    group, resource = WORKLOADS[job["kind"]]
    kueue, labels = kueue_configuration(document) or {}, namespace_labels(document).get(namespace)
    if labels is None:
        return [*problems, f"the record makes no namespace {namespace}"]
    if not (kueue.get("manageJobsWithoutQueueName") and selects(kueue.get("managedJobsNamespaceSelector") or {},
                                                                labels)):
        problems.append(f"Kueue does not manage every job in {namespace}")
    if f"{group}/{job['kind'].lower()}" not in (kueue.get("integrations") or {}).get("frameworks", []):
        problems.append(f"Kueue's integrations leave out {group}/{job['kind'].lower()}")
    denied = {b["spec"]["policyName"] for b in of_kind(document, "ValidatingAdmissionPolicyBinding")
              if b["spec"].get("validationActions") == ["Deny"]}
    if not any(p["metadata"]["name"] in denied and selects(p["spec"]["matchConstraints"]["namespaceSelector"], labels)
               and any(group in r["apiGroups"] and resource in r["resources"] and "CREATE" in r["operations"]
                       for r in p["spec"]["matchConstraints"]["resourceRules"])
               for p in of_kind(document, "ValidatingAdmissionPolicy")):
        problems.append(f"no admission policy guards {group}/{resource} in {namespace}")
    return problems


# -- 2. every boundary the access table shows is enforced by the stack, or marked as not yet checked -----------------
Row = Callable[[dict[str, Any], dict[str, Any], str, Combination], list[str]]
"""(record, the team's access data, its row as the table words it, combination) -> what is shown but not there."""
NOT_ENFORCED = "not enforced"
LEFT_TO_THE_OWNER = "no access entry here; map it"


def _members(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """Each member reaches the team's group through an access entry the record makes, or the row says the
    cluster's owner maps it; no member the stack file names is left out."""
    entries = {r["inputs"]["principalArn"]: set(r["inputs"].get("kubernetesGroups") or [])
               for r in resources(document, "aws:eks/accessEntry:AccessEntry")}
    problems = [f"{m['principal']} has no access entry into {m['groups']}" for m in team["members"]
                if not set(m["groups"]) <= entries.get(m["principal"], set())]
    problems += [f"{m} is left to the cluster's owner, unsaid" for m in team["unmapped"]
                 if f"{m}: {LEFT_TO_THE_OWNER}" not in row]
    named = next(t for t in stack_file(chosen)["trainstack:scheduling"]["teams"] if t["name"] == team["team"])
    shown = {m["principal"] for m in team["members"]} | set(team["unmapped"])
    return problems + [f"{m}, a member in the stack file, is not in the table" for m in named["members"]
                       if m not in shown]


def _group(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The team's group is bound in its namespace, to a Role the record makes there, and bound nowhere cluster-wide."""
    namespace, problems = team["namespace"], []
    roles = {r["metadata"]["name"] for r in of_kind(document, "Role", namespace)}
    for group in team["groups"]:
        if not any(b["roleRef"]["kind"] == "Role" and b["roleRef"]["name"] in roles
                   and {"kind": "Group", "name": group} in [{k: s.get(k) for k in ("kind", "name")}
                                                            for s in b.get("subjects") or []]
                   for b in of_kind(document, "RoleBinding", namespace)):
            problems.append(f"group {group} is bound to no Role of {namespace}")
        if any(s.get("name") == group for b in of_kind(document, "ClusterRoleBinding")
               for s in b.get("subjects") or []):
            problems.append(f"group {group} is bound cluster-wide")
    return problems


def _namespace(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The Pod Security level shown is the label of the namespace the record makes."""
    labels = namespace_labels(document).get(team["namespace"])
    if labels is None:
        return [f"the record makes no namespace {team['namespace']}"]
    enforced = labels.get("pod-security.kubernetes.io/enforce")
    return [] if enforced == team["podSecurity"] else [f"Pod Security shown {team['podSecurity']}, labelled {enforced}"]


def _queue(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The LocalQueue shown is in the namespace, behind a ClusterQueue that admits that namespace, with Kueue
    installed."""
    local = next((q for q in of_kind(document, "LocalQueue", team["namespace"])
                  if q["metadata"]["name"] == team["queue"]), None)
    if local is None or kueue_configuration(document) is None:
        return [f"no LocalQueue {team['queue']} in {team['namespace']}, or no Kueue"]
    cluster_queue = _cluster_queue(document, local["spec"]["clusterQueue"])
    labels = namespace_labels(document).get(team["namespace"], {})
    if cluster_queue is None or not selects(cluster_queue["spec"].get("namespaceSelector") or {}, labels):
        return [f"ClusterQueue {local['spec']['clusterQueue']} is missing or does not admit {team['namespace']}"]
    return []


def _cluster_queue(document: dict[str, Any], name: str) -> Optional[dict[str, Any]]:
    return next((q for q in of_kind(document, "ClusterQueue") if q["metadata"]["name"] == name), None)


def _reaches(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """Kueue holds what the row says of each group: the team's ClusterQueue is guaranteed its nodes' accelerators,
    and the most it can be admitted on is what its cohort holds of the group (its own quota, where it does not
    borrow)."""
    local = next((q for q in of_kind(document, "LocalQueue", team["namespace"])
                  if q["metadata"]["name"] == team["queue"]), None)
    queue = _cluster_queue(document, local["spec"]["clusterQueue"]) if local else None
    if queue is None:
        return ["no ClusterQueue behind the team's LocalQueue"]
    groups = document["outputs"]["trainstack"]["acceleratedGroups"]
    cohort = [o for o in of_kind(document, "Cohort") if o["metadata"]["name"] == queue["spec"].get("cohortName")]
    members = [q for q in of_kind(document, "ClusterQueue")
               if q["spec"].get("cohortName") == queue["spec"]["cohortName"]]
    problems = []
    for name, reach in team["reach"].items():
        flavor = next((f["metadata"]["name"] for f in of_kind(document, "ResourceFlavor")
                       if f["spec"].get("nodeLabels", {}).get("trainstack.io/node-group") == name), None)
        per_node, resource = groups[name]["acceleratorsPerNode"], groups[name]["acceleratorResource"]
        own = _nominal([queue], flavor, resource)
        most = _nominal(cohort + members, flavor, resource) if _borrows(queue, flavor, resource) else own
        if (own, most) != (reach["guaranteedNodes"] * per_node, reach["maxNodes"] * per_node):
            problems.append(f"{name}: shown {reach['guaranteedNodes']} guaranteed, up to {reach['maxNodes']} nodes "
                            f"of {per_node} {resource}; Kueue holds {own} guaranteed, up to {most}")
    return problems


def _quotas(holders: list[dict[str, Any]], flavor: Optional[str], resource: str) -> list[dict[str, Any]]:
    return [r for holder in holders for group in holder["spec"].get("resourceGroups") or []
            for f in group["flavors"] if f["name"] == flavor for r in f["resources"] if r["name"] == resource]


def _nominal(holders: list[dict[str, Any]], flavor: Optional[str], resource: str) -> int:
    return sum(int(r["nominalQuota"]) for r in _quotas(holders, flavor, resource))


def _borrows(queue: dict[str, Any], flavor: Optional[str], resource: str) -> bool:
    return all(r.get("borrowingLimit") != "0" for r in _quotas([queue], flavor, resource))


def _kubernetes(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """What the group may do is granted by Roles of the team's namespace only (the record's RBAC)."""
    return [f"granted outside {team['namespace']}: {line}" for line in team["kubernetes"]
            if not line.endswith(f" in {team['namespace']}")]


def _ingress(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """A fence shown (the namespace's NetworkPolicies) is enforced by the stack's own vpc-cni add-on with
    enableNetworkPolicy, or the row says it is not enforced (until checked, where the network plugin is the
    cluster owner's)."""
    if team["ingress"] is None:  # shown open to every pod: no fence claimed
        return []
    if not of_kind(document, "NetworkPolicy", team["namespace"]):
        return [f"a fence is shown, and the record makes no NetworkPolicy in {team['namespace']}"]
    addons = [json.loads(a["inputs"].get("configurationValues") or "{}")
              for a in resources(document, "aws:eks/addon:Addon") if a["inputs"]["addonName"] == "vpc-cni"]
    enforced = bool(addons) and all(a.get("enableNetworkPolicy") == "true" for a in addons)
    marked = NOT_ENFORCED in row and (bool(addons) or "until checked" in row)
    return [] if enforced != marked else [f"enforced by the record's vpc-cni: {enforced}; the row: {row!r}"]


def _runs_as(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """Each ServiceAccount shown is made in the namespace and given its role by an EKS Pod Identity association,
    with the Pod Identity agent installed."""
    if not team["roles"]:
        return [] if row == "no Pod Identity role in this stack" else [f"no role, and the row says {row!r}"]
    associated = {(a["inputs"]["namespace"], a["inputs"]["serviceAccount"])
                  for a in resources(document, "aws:eks/podIdentityAssociation:PodIdentityAssociation")}
    made = {s["metadata"]["name"] for s in of_kind(document, "ServiceAccount", team["namespace"])}
    agent = any(a["inputs"]["addonName"] == "eks-pod-identity-agent"
                for a in resources(document, "aws:eks/addon:Addon"))
    return [f"{team['namespace']}/{account}: made {account in made}, associated "
            f"{(team['namespace'], account) in associated}, agent {agent}" for account in team["serviceAccounts"]
            if not (account in made and (team["namespace"], account) in associated and agent)]


def _checkpoints(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The team's pods reach the checkpoint bucket under its own prefix only."""
    bucket = document["outputs"]["trainstack"].get("checkpointBucket")
    own = f"s3://{bucket}/teams/{team['team']}/ ("
    return [f"reaches {line}, not under {own[:-2]}" for line in team["checkpoints"] if not line.startswith(own)]


def _datasets(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The team reads only the datasets the stack file gives it."""
    given = {d["name"] for d in stack_file(chosen).get("trainstack:datasets") or []
             if d.get("teams") is None or team["team"] in d["teams"]}
    return [f"reads {line}, not given it" for line in team["datasets"] if line.split(" (")[0] not in given]


def _fsx(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The claim mounts the team's own directory, which the record's job makes; or the row says it is the whole
    file system."""
    if team["fsx"] is None or "(the whole file system" in row:
        return []
    directory = f"teams/{team['team']}"
    made = any(directory in json.dumps(job["spec"]["template"]["spec"]["containers"])
               for job in of_kind(document, "Job", "trainstack-system"))
    return [] if team["fsx"].endswith(f"/{directory}") and made else [f"mounts {team['fsx']}; {directory} made: {made}"]


def _quota(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """The quota shown is the namespace's ResourceQuota in the record."""
    held = [q["spec"]["hard"] for q in of_kind(document, "ResourceQuota", team["namespace"])]
    return [] if team["quota"] in held or not team["quota"] else [f"shown {team['quota']}, the record holds {held}"]


def _said_only(document: dict[str, Any], team: dict[str, Any], row: str, chosen: Combination) -> list[str]:
    """A row that names what the others check (the group) or what IAM holds as the record shows it (other AWS)."""
    return []


ROWS: dict[str, Row] = {
    "members": _members, "group": _group, "namespace": _namespace, "queue": _queue, "reaches": _reaches,
    "kubernetes": _kubernetes, "ingress": _ingress, "runs as": _runs_as, "checkpoints": _checkpoints,
    "datasets": _datasets, "fsx": _fsx, "quota": _quota, "other AWS": _said_only,
}
"""Each row of a team's access table and what in the record enforces it."""


@combined
def test_every_boundary_the_access_table_shows_is_enforced_by_the_stack_or_marked_as_not_yet_checked(chosen):
    """Each row of each team's access table (as `trainstack plan` and the report word it) is held by an object the
    record makes (access entries, Roles and bindings, Pod Security labels, Kueue's queues and quotas,
    NetworkPolicies with the VPC CNI enforcing them, Pod Identity, the IAM prefix, the team's FSx directory, the
    ResourceQuota), or says that it is not: left to the cluster's owner, not enforced until checked."""
    document = plan_of(chosen)
    teams = (document.get("access") or {}).get("teams", [])
    named = (stack_file(chosen).get("trainstack:scheduling") or {}).get("teams", [])
    assert sorted(t["team"] for t in teams) == sorted(t["name"] for t in named), "every team has its table"
    problems = []
    for team in teams:
        for label, row in team_rows(team):
            assert label in ROWS, f"the access table has a row '{label}' that nothing here checks"
            problems += [f"{team['team']} {label}: {problem}" for problem in ROWS[label](document, team, row, chosen)]
    assert problems == [], "\n".join(problems)


# -- 3. every estimated operation fits its timeout -----------------------------------------------------------------
def short_timeouts(document: dict[str, Any]) -> list[str]:
    """Each operation of the record whose estimate passes what the engine is handed: a timed resource's creation
    and a managed node group's roll of every node it may have, with catalog/timeouts.py's margin
    (support/record_timeouts.py); a chart's install, within its release's own timeout."""
    charts = [f"{item['name']}: install estimated {estimate(item):g} min, its release waits "
              f"{item['inputs'].get('timeout')} s" for item in document["resources"]
              if item["type"] == "kubernetes:helm.sh/v3:Release"
              and (item["inputs"].get("timeout") is None or item["inputs"]["timeout"] / 60 < estimate(item))]
    return [*charts, *short_creations(document), *short_rolls(document)]


@combined
def test_every_operation_the_plan_estimates_fits_the_timeout_the_engine_is_handed(chosen):
    """Creating each resource the plan times (node groups, pools' parts, FSx, HyperPod) and rolling each managed node
    group at its largest take no longer, with catalog/timeouts.py's margin, than their recorded customTimeouts, and
    each chart installs within its release's timeout: else the engine gives up while AWS carries on."""
    assert short_timeouts(plan_of(chosen)) == []


# -- 4. the IP budget counts only the subnets that nodes use --------------------------------------------------------
@combined
def test_the_ip_budget_counts_exactly_the_subnets_the_nodes_are_placed_in_with_their_nodes(chosen):
    """The record's IP budget counts each group's nodes in each subnet the record places them in (managed node
    groups and every part of a pool, Karpenter's pools by their EC2NodeClass, HyperPod's instance groups), and no
    other subnet; a stack that places no node (a cluster made elsewhere) has no budget."""
    document = plan_of(chosen)
    assert budgeted_in_record(document) == placed(document)


# -- 5. no service shared between team namespaces lacks a per-team boundary or a note saying so ----------------------
Queues = dict[str, dict[str, Any]]


def _etcd_refused_to_every_team(document: dict[str, Any], chosen: Combination, queues: Queues) -> list[str]:
    """No launcher renders a job that meets its peers on the one etcd: every `--rendezvous etcd` is refused."""
    return [f"{launch} was rendered" for launch in launches(chosen) if launch.rendezvous == "etcd" and launch.code == 0]


def _own_fsx_directory(document: dict[str, Any], chosen: Combination, queues: Queues) -> list[str]:
    """Each team namespace's claims mount only the team's directory; a volume of the file system's root is
    claimed only outside every team's namespace."""
    mounts = {v["metadata"]["name"]: v["spec"]["csi"]["volumeAttributes"]["mountname"]
              for v in of_kind(document, "PersistentVolume")
              if (v["spec"].get("csi") or {}).get("driver") == "fsx.csi.aws.com"}
    owners = {queue["namespace"]: team for team, queue in queues.items()}
    problems = []
    for claim in of_kind(document, "PersistentVolumeClaim"):
        mounted, team = mounts.get(claim["spec"].get("volumeName")), owners.get(claim["metadata"].get("namespace"))
        if mounted is not None and team is not None and not mounted.endswith(f"/teams/{team}"):
            problems.append(f"claim {claim['metadata']['name']} of team {team} mounts {mounted}")
    return problems


def _own_checkpoint_prefix(document: dict[str, Any], chosen: Combination, queues: Queues) -> list[str]:
    """Each team's Pod Identity role reaches the checkpoint bucket under ``teams/<team>/`` only."""
    bucket = document["outputs"]["trainstack"]["checkpointBucket"]
    arns = {r["outputs"].get("arn"): r["outputs"].get("name") for r in resources(document, "aws:iam/role:Role")}
    policies = resources(document, "aws:iam/rolePolicy:RolePolicy")
    problems = []
    for team, queue in queues.items():
        roles = {arns.get(a["inputs"]["roleArn"]) for a in
                 resources(document, "aws:eks/podIdentityAssociation:PodIdentityAssociation")
                 if a["inputs"]["namespace"] == queue["namespace"]}
        for policy in (p for p in policies if p["inputs"]["role"] in roles):
            for statement in json.loads(policy["inputs"]["policy"])["Statement"]:
                problems += [f"{team}: {statement.get('Sid')} reaches {target}" for target in
                             _bucket_targets(statement, bucket) if not target.startswith(f"teams/{team}/")]
    return problems


def _bucket_targets(statement: dict[str, Any], bucket: str) -> list[str]:
    """The keys (prefixes) of ``bucket`` an Allow statement reaches: its objects' ARNs, or the ``s3:prefix`` a
    listing is conditioned on ('' where it is not)."""
    targets = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
    found = [t.removeprefix(f"arn:aws:s3:::{bucket}/") for t in targets if t.startswith(f"arn:aws:s3:::{bucket}/")]
    if f"arn:aws:s3:::{bucket}" in targets:
        found += (statement.get("Condition") or {}).get("StringLike", {}).get("s3:prefix") or [""]
    return found if statement.get("Effect") == "Allow" else []


def _node_role_out_of_reach(document: dict[str, Any], chosen: Combination, queues: Queues) -> list[str]:
    """Every node the record launches (managed node groups' launch templates, Karpenter's EC2NodeClasses) answers
    the instance metadata service only with a token and one hop: a pod off the host network (which Pod Security
    baseline forbids) cannot take the node's role."""
    options = [(r["name"], r["inputs"].get("metadataOptions")) for r in
               resources(document, "aws:ec2/launchTemplate:LaunchTemplate")]
    options += [(r["name"], r["inputs"]["spec"].get("metadataOptions")) for r in
                resources(document, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")]
    return [f"{name}: metadata options {given}" for name, given in options
            if (given or {}).get("httpTokens") != "required" or (given or {}).get("httpPutResponseHopLimit") != 1]


@dataclass(frozen=True)
class Shared:
    """A service every team's pods can reach, how the record shows it is there, and what keeps teams apart in it:
    a per-team boundary the record holds, or the note in the docs that says there is none."""

    name: str
    present: Callable[[dict[str, Any]], bool]
    boundary: Optional[Callable[[dict[str, Any], Combination, Queues], list[str]]] = None
    note: Optional[tuple[str, str]] = None
    """(doc, words it must hold)."""


def _efa_interfaces(document: dict[str, Any]) -> bool:
    return any(i.get("interfaceType") in ("efa", "efa-only")
               for r in resources(document, "aws:ec2/launchTemplate:LaunchTemplate")
               for i in r["inputs"].get("networkInterfaces") or [])


def _other_namespace_admitted(document: dict[str, Any]) -> bool:
    return any("namespaceSelector" in peer for policy in of_kind(document, "NetworkPolicy")
               for rule in policy["spec"].get("ingress") or [] for peer in rule.get("from") or [])


SHARED = (
    Shared("the stack's etcd", lambda d: bool(d["outputs"]["trainstack"]["operators"].get("etcdEndpoint")),
           _etcd_refused_to_every_team, ("docs/teams.md", "also the stack's etcd where it runs one")),
    Shared("the EFA security group", _efa_interfaces,
           note=("docs/teams.md", "One EFA security group serves every team")),
    Shared("the FSx file system", lambda d: any((v["spec"].get("csi") or {}).get("driver") == "fsx.csi.aws.com"
                                                for v in of_kind(d, "PersistentVolume")), _own_fsx_directory),
    Shared("the checkpoint bucket", lambda d: bool(d["outputs"]["trainstack"].get("checkpointBucket")),
           _own_checkpoint_prefix),
    Shared("the nodes' instance roles", lambda d: bool(resources(d, "aws:ec2/launchTemplate:LaunchTemplate")),
           _node_role_out_of_reach),
    Shared("the queue viewers' ClusterRole", lambda d: bool(of_kind(d, "ClusterRoleBinding")),
           note=("docs/teams.md", "a viewer reads every team's job definitions")),
    Shared("a namespace every team's fence admits (Prometheus)", _other_namespace_admitted,
           note=("docs/teams.md", "and Prometheus's namespace where the stack runs it")),
    Shared("the image repository", lambda d: bool(resources(d, "aws:ecr/repository:Repository")),
           note=("docs/teams.md", "any team's job can run any image another team pushed")),
)
"""Every service the teams of a stack share, as the record holds it."""


def _words(path: Path) -> str:
    """A page's text with its lines joined, as a reader reads it."""
    return " ".join(path.read_text().split())


@combined
def test_every_service_the_teams_share_has_a_per_team_boundary_in_the_record_or_a_note_saying_so(chosen):
    """On a stack with teams, each shared service the record holds (``SHARED``) keeps each team to its own part
    (its FSx directory, its checkpoint prefix, no team's job on the one etcd, no pod with the node's role), or the
    docs say, in so many words, that the teams share it."""
    document = plan_of(chosen)
    queues = (document["outputs"]["trainstack"].get("scheduling") or {}).get("queues") or {}
    problems = []
    for service in SHARED if queues else ():
        if not service.present(document):
            continue
        if service.boundary is None and service.note is None:
            problems.append(f"{service.name}: shared by every team, with no boundary and no note saying so")
        if service.boundary is not None:
            problems += [f"{service.name}: {problem}" for problem in service.boundary(document, chosen, queues)]
        if service.note is not None and service.note[1] not in _words(plan_records.REPO / service.note[0]):
            problems.append(f"{service.name}: {service.note[0]} no longer says '{service.note[1]}'")
    assert problems == [], "\n".join(problems)


# -- what the config refuses -----------------------------------------------------------------------------------------
SAMPLED = int(os.environ.get("TRAINSTACK_COMBINATIONS_CHECKED", "300"))
"""How many of every combination the config is asked about (validating one takes milliseconds)."""


def every_combination() -> list[Combination]:
    """Each shipped stack, with each teams setting, up to three features and each minor (or its own)."""
    subsets = [frozenset(s) for size in range(4) for s in itertools.combinations(FEATURES, size)]
    return [Combination(base, teams, features, minor) for base in BASES for teams in TEAMS for features in subsets
            for minor in (None, *EKS_VERSIONS)]


def test_the_config_takes_each_combination_or_refuses_it_with_the_key_and_the_fix_and_takes_enough_of_them():
    """A combination is planned or refused with a ConfigError whose every issue names the key, says what is wrong
    and how to fix it (nothing else is raised where features meet); the chosen ones are all planned, and among a
    sample of every combination a third or more are, with each feature and each minor of the window."""
    everything = every_combination()
    sample = random.Random(SEED).sample(everything, min(SAMPLED, len(everything)))
    planned_ones, refused = [], collections.Counter()
    for chosen in [*CHOSEN, *sample]:
        error = refusal(chosen)
        if error is None:
            planned_ones.append(chosen)
            continue
        assert all(issue.path and issue.message and issue.fix for issue in error.issues), (str(chosen), str(error))
        refused.update(issue.path for issue in error.issues)
    assert set(CHOSEN) <= set(planned_ones), [str(c) for c in CHOSEN if c not in planned_ones]
    taken = [c for c in sample if c in planned_ones]
    assert 3 * len(taken) >= len(sample), f"{len(taken)} of {len(sample)} taken; refused by key: {refused}"
    assert {f for c in taken for f in c.features} == set(FEATURES)
    assert {c.minor for c in taken} >= set(EKS_VERSIONS)
