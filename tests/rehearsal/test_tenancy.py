"""Teams as tenants, as the real API server (kube-apiserver v1.35.4, RBAC, Pod Security admission on by default)
answers: the multi-team stacks' Kubernetes objects are applied as their plans record them (rehearsal/stack_objects.py)
beside the operators' CRDs at their pinned tags (tests/data/crds), and then

* the access matrix: each member of kueue-p5, impersonated as EKS names them (its access entry's groups), asks for
  one action in one namespace, and the server's answer is checked cell by cell, each cross-checked with the
  authorizer's own SelfSubjectAccessReview;
* Pod Security: every pod every launcher's jobs make on the multi-team stacks is admitted in its team's namespace,
  and each job itself is admitted as a member of its team; a privileged pod is refused there, and what `restricted`
  would refuse in each launcher's pods is printed in the server's own words;
* the NetworkPolicies are admitted as rendered (which flows they allow: tests/tenancy/test_flows.py; their
  enforcement needs the VPC CNI's agent on real nodes, which is not run).

Run with -s to see the matrix and the Pod Security findings."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from support import operator_pods, plan_records
from support.engine_cluster import install_crds
from support.rendered_jobs import IMAGE, jobs_for, outputs_of, planned_record, variant_outputs
from trainstack import launch
from trainstack.config import validate_stack_config
from trainstack.kube.client import ApiError, Cluster
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import apply_objects
from trainstack.rehearsal.control_plane import control_plane
from trainstack.tenancy import tenants
from trainstack.tenancy.isolation import NETWORK_POLICY
from trainstack.tenancy.model import TEAM_GROUP_PREFIX
from trainstack.tenancy.rbac import ROLE

pytestmark = pytest.mark.engines(engines.KUBERNETES)

MULTI_TEAM_STACKS = ("kueue-p5", "byo-p5", "frontier-p5")
SECRET, PROBE_POD = "team-credentials", "probe"
RESTRICTED = "restricted-probe"
ACCESS_ENTRY = "aws:eks/accessEntry:AccessEntry"


@dataclass(frozen=True)
class Member:
    """An IAM principal as the cluster sees it: the username EKS generates and the groups of its access entry."""

    principal: str
    user: str
    groups: tuple[str, ...]

    @property
    def short(self) -> str:
        return self.principal.rsplit("/", 1)[-1]


def eks_username(principal_arn: str, session: str = "rehearsal") -> str:
    """The username EKS gives an access entry that names none: a user's ARN, or for a role its assumed-role STS ARN
    with the session name, the role's path left out (EKS user guide, set-custom-username.html, "Default username
    generation")."""
    partition, account, resource = principal_arn.split(":")[1], principal_arn.split(":")[4], principal_arn.split(
        ":", 5)[5]
    kind, _, name = resource.partition("/")
    return f"arn:{partition}:sts::{account}:assumed-role/{name.rsplit('/', 1)[-1]}/{session}" if kind == "role" else (
        principal_arn)


def members_of(stack: str) -> list[Member]:
    """The stack's team members and viewers: from its access entries where it makes them, else (a cluster made
    elsewhere, whose owner maps each member into its team's group) from its teams."""
    entries = [r["inputs"] for r in planned_record(stack)["resources"]
               if r["type"] == ACCESS_ENTRY and r["inputs"].get("kubernetesGroups")]
    if entries:
        return [Member(e["principalArn"], eks_username(e["principalArn"]), tuple(e["kubernetesGroups"]))
                for e in entries]
    config = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config(stack).items()}
    return [Member(arn, eks_username(arn), (tenant.group,)) for tenant in tenants(validate_stack_config(config))
            for arn in tenant.members]


def team_namespaces(stack: str) -> dict[str, str]:
    """Team -> its namespace, from the Namespace objects the plan records."""
    return {r["inputs"]["metadata"]["labels"]["trainstack.io/team"]: r["inputs"]["metadata"]["name"]
            for r in planned_record(stack)["resources"] if r["type"] == "kubernetes:core/v1:Namespace"
            and "trainstack.io/team" in (r["inputs"]["metadata"].get("labels") or {})}


def member_of_namespace(stack: str, namespace: str) -> Member:
    team = next(team for team, ns in team_namespaces(stack).items() if ns == namespace)
    return next(m for m in members_of(stack) if TEAM_GROUP_PREFIX + team in m.groups)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """etcd, kube-apiserver, kube-scheduler and kube-controller-manager (its quota controller counts what each team
    namespace's ResourceQuota holds: until it has, the quota admission refuses every pod there), the operators'
    CRDs, both multi-team stacks' objects, a Secret and a pod (for its logs) in each team namespace, and a
    namespace that enforces `restricted`."""
    with control_plane(["default-scheduler"], controller_manager=True) as plane:
        admin = plane.cluster
        install_crds(admin)
        for stack in MULTI_TEAM_STACKS:
            apply_objects(admin, Plan.from_dict(planned_record(stack)))
        admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": RESTRICTED, "labels": {
            "pod-security.kubernetes.io/enforce": "restricted"}}})
        for stack in MULTI_TEAM_STACKS:
            for namespace in team_namespaces(stack).values():
                admin.wait_for(f"the quota controller to count {namespace}'s quota", lambda ns=namespace: all(
                    q.get("status", {}).get("used") for q in admin.list("v1", "ResourceQuota", ns)))
                metadata = {"namespace": namespace}
                admin.create({"apiVersion": "v1", "kind": "Secret", "metadata": {**metadata, "name": SECRET},
                              "stringData": {"token": "not-a-real-one"}})
                admin.create({"apiVersion": "v1", "kind": "Pod", "metadata": {**metadata, "name": PROBE_POD},
                              "spec": {"containers": [{"name": "main", "image": IMAGE}]}})
        yield admin


# ---- the access matrix ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Action:
    words: str
    verb: str
    api_version: str
    kind: str
    name: str = ""
    subresource: str = ""
    body: Callable[[str], dict[str, Any]] | None = None
    """For ``create``: the object, rendered for the namespace."""


@dataclass(frozen=True)
class Cell:
    member: Member
    action: Action
    namespace: str | None
    expected: bool

    def describe(self) -> str:
        return f"{self.member.short} x {self.action.words} x {self.namespace or '(cluster)'}"


def _rendered(launcher: str, outputs: Any, **arguments: Any) -> Callable[[str], dict[str, Any]]:
    """A launcher's one-node job on p5, queued for the team whose namespace it goes to."""
    def render(namespace: str) -> dict[str, Any]:
        team = next(t for t, q in outputs.scheduling.queues.items() if q.namespace == namespace)
        document: dict[str, Any] = getattr(launch, launcher)(
            outputs, name=f"matrix-{launcher.removeprefix('render_').replace('_', '-')}", group_name="p5", nodes=1,
            image=IMAGE, queue=launch.QueueRequest(team=team), **arguments)
        return document
    return render


def member_actions() -> dict[str, Action]:
    kueue = "kueue.x-k8s.io/v1beta2"
    # kueue-p5 runs Trainer v2; its PyTorchJob is the same stack's with the v1 training operator (kueue-v1).
    return {
        "pytorchjob": Action("create a PyTorchJob", "create", "kubeflow.org/v1", "PyTorchJob", body=_rendered(
            "render_pytorchjob", variant_outputs("kueue-v1"), command=["torchrun", "train.py"])),
        "trainjob": Action("create a TrainJob", "create", "trainer.kubeflow.org/v1alpha1", "TrainJob", body=_rendered(
            "render_trainjob", outputs_of("kueue-p5"), command=["torchrun", "train.py"])),
        "job": Action("create a Job", "create", "batch/v1", "Job", body=_rendered(
            "render_device_check", outputs_of("kueue-p5"))),
        "pods": Action("list pods", "list", "v1", "Pod"),
        "logs": Action("get a pod's logs", "get", "v1", "Pod", PROBE_POD, "log"),
        "secret": Action("read a Secret", "get", "v1", "Secret", SECRET),
        "secrets": Action("list Secrets", "list", "v1", "Secret"),
        "nodes": Action("list nodes", "list", "v1", "Node"),
        "clusterqueues": Action("list ClusterQueues", "list", kueue, "ClusterQueue"),
        "localqueues": Action("list LocalQueues", "list", kueue, "LocalQueue"),
        "localqueue-create": Action("create a LocalQueue", "create", kueue, "LocalQueue", body=lambda namespace: {
            "apiVersion": kueue, "kind": "LocalQueue", "metadata": {"name": "matrix", "namespace": namespace},
            "spec": {"clusterQueue": namespace}}),
    }


def get_localqueue(queue: str) -> Action:
    return Action("get its LocalQueue", "get", "kueue.x-k8s.io/v1beta2", "LocalQueue", queue)


def edit(kind: str, name: str, whose: str) -> Action:
    return Action(f"edit {whose} {kind}", "patch", "kueue.x-k8s.io/v1beta2", kind, name)


def expected_matrix() -> list[Cell]:
    """kueue-p5's members and viewer, each action in each namespace, and what the tenancy design says."""
    actions = member_actions()
    queues = outputs_of("kueue-p5").scheduling.queues  # type: ignore[union-attr]
    members = {m.groups: m for m in members_of("kueue-p5")}
    cells: list[Cell] = []
    for team, queue in sorted(queues.items()):
        member = members[(TEAM_GROUP_PREFIX + team,)]
        other = next(q.namespace for t, q in queues.items() if t != team)
        for key in ("pytorchjob", "trainjob", "job", "pods", "logs"):
            cells += [Cell(member, actions[key], queue.namespace, True), Cell(member, actions[key], other, False)]
        cells += [Cell(member, get_localqueue(queue.local_queue), queue.namespace, True),
                  Cell(member, edit("LocalQueue", queue.local_queue, "its"), queue.namespace, False),
                  Cell(member, edit("ClusterQueue", queue.cluster_queue, "its"), None, False),
                  Cell(member, actions["secret"], other, False),
                  Cell(member, actions["secret"], queue.namespace, False),
                  Cell(member, actions["secrets"], queue.namespace, False),
                  Cell(member, actions["nodes"], None, False)]
    (viewer,) = [m for m in members.values() if not any(g.startswith(TEAM_GROUP_PREFIX) for g in m.groups)]
    cells.append(Cell(viewer, actions["clusterqueues"], None, True))
    for _, queue in sorted(queues.items()):
        cells += [Cell(viewer, Action("get a ClusterQueue", "get", "kueue.x-k8s.io/v1beta2", "ClusterQueue",
                                      queue.cluster_queue), None, True),
                  Cell(viewer, actions["localqueues"], queue.namespace, True),
                  Cell(viewer, edit("ClusterQueue", queue.cluster_queue, "a"), None, False)]
        cells += [Cell(viewer, actions[key], queue.namespace, False)
                  for key in ("pytorchjob", "trainjob", "job", "localqueue-create", "pods")]
    return cells


def ask(admin: Cluster, cell: Cell) -> tuple[bool | None, str]:
    """The member's request, as the member; and the authorizer's answer to the same question (a
    SelfSubjectAccessReview, as the member). Allowed: the server did it (dry-run where it writes; a pod's logs come
    back empty, its pod on no node); refused: 403. Any other answer, or the two disagreeing, fails the cell."""
    action, namespace = cell.action, cell.namespace
    client = admin.as_user(cell.member.user, cell.member.groups)
    collection = admin.collection(action.api_version, action.kind, namespace)
    path = "/".join(part for part in (collection, action.name, action.subresource) if part)
    try:
        if action.verb == "create":
            assert action.body is not None and namespace is not None
            client.request("POST", collection, action.body(namespace), dryRun="All", fieldValidation="Strict")
        elif action.verb == "patch":
            client.request("PATCH", path, {"metadata": {"labels": {"trainstack.io/edited": "yes"}}},
                           "application/merge-patch+json", dryRun="All")
        else:
            client.get(path)
        allowed, answer = True, "allowed"
    except ApiError as error:
        if error.status != 403:
            return None, f"HTTP {error.status}: {error.body.get('message', '')}"
        allowed, answer = False, "refused"
    group = action.api_version.rpartition("/")[0]
    review = client.create({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                            "metadata": {}, "spec": {"resourceAttributes": {
                                "verb": action.verb, "group": group, "resource": collection.rsplit("/", 1)[1],
                                "subresource": action.subresource, "namespace": namespace or "",
                                "name": action.name}}})
    if bool(review["status"].get("allowed")) != allowed:
        return None, f"{answer}, but the authorizer says {review['status']}"
    return allowed, answer


def matrix(admin: Cluster) -> tuple[list[str], list[str]]:
    """The matrix as the server answered (one line per cell), and the cells that differ from the expected one."""
    lines, wrong = [], []
    for cell in expected_matrix():
        allowed, answer = ask(admin, cell)
        lines.append(f"{cell.member.short:20} {cell.action.words:28} {cell.namespace or '(cluster)':10} {answer}")
        if allowed != cell.expected:
            wrong.append(f"{cell.describe()}: expected {'allowed' if cell.expected else 'refused'}, "
                         f"the server answered {answer}")
    return lines, wrong


def test_each_member_reaches_its_own_namespace_only_and_the_viewer_reads_every_queue(cluster: Cluster) -> None:
    lines, wrong = matrix(cluster)
    print("\nkueue-p5 access matrix (member, action, namespace, the API server's answer):\n" + "\n".join(lines))
    assert not wrong, "\n".join(wrong)


def test_a_team_role_bound_cluster_wide_is_caught_cell_by_cell(cluster: Cluster) -> None:
    """Break it once: llm's Role given to its group cluster-wide (a ClusterRole of the same rules and a
    ClusterRoleBinding). The matrix names each cell that opens: llm's members reach vision's namespace."""
    role = cluster.get(f"/apis/rbac.authorization.k8s.io/v1/namespaces/llm/roles/{ROLE}")
    wide = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "llm-wide"},
            "rules": role["rules"]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "llm-wide"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                             "kind": "ClusterRole", "name": "llm-wide"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                             "name": TEAM_GROUP_PREFIX + "llm"}]}
    llm = next(m for m in members_of("kueue-p5") if m.groups == (TEAM_GROUP_PREFIX + "llm",))
    probe = Cell(llm, member_actions()["pods"], "vision", False)
    try:
        cluster.create(wide)
        cluster.create(binding)
        cluster.wait_for("the authorizer to see the binding", lambda: ask(cluster, probe)[0])
        _, wrong = matrix(cluster)
    finally:
        cluster.delete(binding)
        cluster.delete(wide)
        cluster.wait_for("the authorizer to drop the binding", lambda: ask(cluster, probe)[0] is False)
    assert [line.split(":")[0] for line in wrong] == [
        f"llm-researchers x {words} x vision" for words in (
            "create a PyTorchJob", "create a TrainJob", "create a Job", "list pods", "get a pod's logs")]
    assert all(line.endswith("expected refused, the server answered allowed") for line in wrong)


# ---- Pod Security -------------------------------------------------------------------------------------------------

def _dry_run(client: Cluster, obj: dict[str, Any]) -> str | None:
    """None if the server admits ``obj`` (server-side dry-run), else its message."""
    try:
        client.create(obj, dry_run=True)
    except ApiError as error:
        return f"HTTP {error.status}: {error.body.get('message', '')}"
    return None


@pytest.mark.parametrize("stack", MULTI_TEAM_STACKS)
def test_every_launchers_jobs_pods_are_admitted_in_their_teams_namespace(cluster: Cluster, stack: str) -> None:
    """Pod Security admission enforces on pods only, not on the objects that make them (Kubernetes docs, Pod
    Security Admission, "Workload resources and Pod templates": warn and audit look at a workload's template,
    enforce at the resulting pods), and never on custom resources: so each pod the job's operator would make
    (support/operator_pods.py) is dry-run as a Pod, and the job itself as a member of the team (RBAC)."""
    namespaces = set(team_namespaces(stack).values())
    refused, launchers = [], set()
    for job in jobs_for(outputs_of(stack)):
        if not isinstance(job.document, dict):
            continue
        namespace = job.document["metadata"]["namespace"]
        assert namespace in namespaces, f"{job.id} runs in {namespace}, not a team namespace"
        assert not job.prerequisites, f"{job.id}: its prerequisites are not checked here"
        member = member_of_namespace(stack, namespace)
        launchers.add(job.launcher)
        problem = _dry_run(cluster.as_user(member.user, member.groups), job.document)
        if problem:
            refused.append(f"{job.id} as {member.short}: {problem}")
        judged: set[str] = set()
        for pod in operator_pods.pods_of(job.document):
            # Pod Security reads the spec: a 2,048-node job's pods differ by name and index alone, judged once.
            spec = json.dumps(pod["spec"], sort_keys=True)
            if spec in judged:
                continue
            judged.add(spec)
            problem = _dry_run(cluster, pod)
            if problem:
                refused.append(f"{job.id} pod {pod['metadata']['name']}: {problem}")
    assert not refused, "\n".join(refused)
    assert launchers >= {"render_device_check", "render_all_reduce"}
    assert launchers & {"render_trainjob", "render_pytorchjob"}


def test_a_privileged_pod_is_refused_in_a_team_namespace_by_its_baseline_level(cluster: Cluster) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "privileged", "namespace": "llm"},
           "spec": {"containers": [{"name": "main", "image": IMAGE, "securityContext": {"privileged": True}}]}}
    problem = _dry_run(cluster, pod)
    assert problem is not None and 'violates PodSecurity "baseline:latest": privileged' in problem, problem
    # The same pod where no level is enforced: refused above by the namespace's label, nothing else.
    assert _dry_run(cluster, {**pod, "metadata": {"name": "privileged", "namespace": "default"}}) is None


def _restricted_findings(cluster: Cluster, pods: list[dict[str, Any]]) -> set[str]:
    """What `restricted` refuses in ``pods``, in the server's words, one clause per finding."""
    found = set()
    for pod in pods:
        pod = copy.deepcopy(pod)
        pod["metadata"]["namespace"] = RESTRICTED
        problem = _dry_run(cluster, pod)
        if problem is None:
            continue
        clauses = problem.split('violates PodSecurity "restricted:latest": ', 1)[1]
        found |= {re.sub(r'containers? "[^"]+"', "container", c).strip()
                  for c in re.split(r", (?=[a-zA-Z][^(]*\()", clauses)}
    return found


def test_what_restricted_would_refuse_in_each_launchers_pods(cluster: Cluster) -> None:
    """The note's Pod Security findings: every launcher's pods on the multi-team stacks, the MPIJob's on trn1 (no
    multi-team stack runs the MPI operator) and HyperPod's PyTorchJob on its EKS variant, dry-run in a namespace
    that enforces `restricted`. Its refusal of the MPI workers' sshd as root (runAsUser 0) is what no change of
    the image can lift: the reason the team namespaces enforce `baseline` (tenancy/model.py)."""
    sources = [outputs_of(stack) for stack in (*MULTI_TEAM_STACKS, "trn1")] + [variant_outputs("hyperpod-eks-dev")]
    by_launcher: dict[str, set[str]] = {}
    for outputs in sources:
        for job in jobs_for(outputs):
            if isinstance(job.document, dict):
                by_launcher.setdefault(job.launcher, set()).update(
                    _restricted_findings(cluster, operator_pods.pods_of(job.document)))
    print("\nWhat `restricted` refuses, by launcher (the API server's words):")
    for launcher, findings in sorted(by_launcher.items()):
        print(f"  {launcher}:\n    " + "\n    ".join(sorted(findings) or ["nothing: admitted"]))
    assert set(by_launcher) == {"render_device_check", "render_all_reduce", "render_trainjob", "render_pytorchjob",
                                "render_mpijob", "render_hyperpod_pytorchjob"}
    assert any(f.startswith("runAsUser=0") for f in by_launcher["render_mpijob"]), by_launcher["render_mpijob"]


# ---- NetworkPolicy ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("stack", MULTI_TEAM_STACKS)
def test_the_rendered_network_policies_are_admitted_and_kept_as_rendered(cluster: Cluster, stack: str) -> None:
    rendered = [o for r in planned_record(stack)["resources"] for o in r["inputs"].get("objs") or []
                if o["kind"] == "NetworkPolicy"]
    assert sorted(p["metadata"]["namespace"] for p in rendered) == sorted(team_namespaces(stack).values())
    for policy in rendered:
        stored = cluster.get(f"/apis/networking.k8s.io/v1/namespaces/{policy['metadata']['namespace']}"
                             f"/networkpolicies/{NETWORK_POLICY}")
        assert stored["spec"] == policy["spec"]  # nothing pruned or defaulted away
        again = copy.deepcopy(policy)
        again["metadata"]["name"] += "-dry-run"
        assert _dry_run(cluster, again) is None

