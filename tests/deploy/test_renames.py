"""The oracle for renames: the real Pulumi engine and Kubernetes provider against the rehearsal's API server.

One team's objects (tenancy/teams.py: Role, RoleBinding, NetworkPolicy, ResourceQuota, LimitRange, ServiceAccount)
in a namespace named otherwise than the team, rendered two ways: ``by-team``, a ConfigGroup named by the team, as
trainstack rendered it before, and ``by-namespace``, the Teams component as it is. For each rename, what the gate
(``trainstack.analysis.review`` of two offline plan records of the program) says is what the engine does: it
passes where the second ``up`` succeeds with every object still in the API server, the same objects (their uid
kept), and blocks where it does not: where the second ``up`` stops on a server-side apply conflict with the old
resource's field manager, and where it succeeds and deletes the object with the old resource. Where it blocks, its
``pulumi state rename`` steps make the same change apply.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Optional

import pytest
from trainstack.analysis import review
from trainstack.deploy.engine import DeployError, Engine, Outcome, run
from trainstack.kube.client import ApiError, Cluster
from trainstack.plan import Plan, find_project
from trainstack.plan.engine import run_plan
from trainstack.plan.project import Project, StackSettings
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import control_plane
from trainstack.review.same_object import Identity, engine_urn, moves, registrations, state_renames

pytestmark = pytest.mark.engines(*engines.DEPLOY)

PROGRAM = '''
import pulumi
import pulumi_kubernetes as k8s
from trainstack.names import TEAMS_COMPONENT
from trainstack.tenancy.model import Tenant, service_account, team_group
from trainstack.tenancy.teams import Teams, team_objects

config = pulumi.Config()
team, namespace = config.require("team"), config.require("namespace")
cluster = k8s.Provider("cluster", kubeconfig=config.require("kubeconfig"))
home = k8s.core.v1.Namespace(config.get("home") or "home", metadata={"name": namespace},
                             opts=pulumi.ResourceOptions(provider=cluster))
tenant = Tenant(team=team, namespace=namespace, members=(), group=team_group(team),
                service_account=service_account(team), checkpoint_prefix=f"teams/{team}/", datasets=(),
                fsx_directory=None, reach={}, quota={"pods": "10"})
if config.require("rendering") == "by-team":
    teams = pulumi.ComponentResource(TEAMS_COMPONENT, "teams")
    k8s.yaml.v2.ConfigGroup(f"teams-{team}", objs=team_objects(tenant, []),
                            opts=pulumi.ResourceOptions(parent=teams, provider=cluster, depends_on=[home]))
else:
    Teams("teams", {"tenants": [tenant], "provider": cluster, "depends_on": [home]})
'''
STACKS = ("pattern", "renamed")


def project_in(directory: Path) -> Path:
    (directory / "program").mkdir(parents=True)
    (directory / "program" / "__main__.py").write_text(textwrap.dedent(PROGRAM))
    (directory / "Pulumi.yaml").write_text("name: renames\nruntime: python\nmain: program\n")
    for stack in STACKS:
        (directory / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    return directory


class Life:
    """One stack of the program on the control plane: its ups, its offline plans, what the API server holds."""

    def __init__(self, project: Project, stack: str, cluster: Cluster, kubeconfig: str, state: Path):
        self.project, self.stack, self.cluster, self.kubeconfig, self.state = project, stack, cluster, kubeconfig, state
        self.engine = Engine.built(automatic_logs=False)

    def config(self, rendering: str, team: str) -> dict[str, str]:
        return {"renames:kubeconfig": self.kubeconfig, "renames:namespace": f"{self.stack}-home",
                "renames:rendering": rendering, "renames:team": team}

    def plan(self, config: dict[str, str]) -> Plan:
        return run_plan(self.project, self.stack, StackSettings(self.stack, config))

    def up(self, config: dict[str, str]) -> Outcome | DeployError:
        try:
            return run(self.project, self.stack, "up", engine=self.engine, state=self.state, config=config)
        except DeployError as error:
            return error

    def uids(self, plan: Plan) -> dict[Identity, Optional[str]]:
        """Each object the plan names -> its uid in the API server; None where it is not there (or going)."""
        found: dict[Identity, Optional[str]] = {}
        for identity in registrations(plan.to_dict()):
            group, kind, namespace, name = identity
            document = {"apiVersion": f"{group}/v1" if group else "v1", "kind": kind,
                        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})}}
            try:
                held: dict[str, Any] = self.cluster.get(self.cluster.path_of(document))
            except ApiError as error:
                if error.status != 404:
                    raise
                held = {"metadata": {"deletionTimestamp": "gone"}}
            found[identity] = None if held["metadata"].get("deletionTimestamp") else held["metadata"]["uid"]
        return found

    def state_rename(self, urn: str, name: str) -> None:
        """``pulumi state rename`` as a user runs it, in the workspace ``deploy.engine`` keeps for the stack."""
        environment = {**os.environ, "PULUMI_HOME": str(self.state / ".pulumi"), "PULUMI_CONFIG_PASSPHRASE": "",
                       "PULUMI_BACKEND_URL": self.state.resolve().as_uri(), "PULUMI_SKIP_UPDATE_CHECK": "true"}
        subprocess.run([str(self.engine.cli), "state", "rename", urn, name, "--stack", self.stack, "--yes"],
                       cwd=self.state / ".workspace" / self.stack, env=environment, check=True, capture_output=True,
                       text=True, timeout=300)


def applied(outcome: Outcome | DeployError, uids: dict[Identity, Optional[str]]) -> bool:
    """The engine applied the change: ``up`` succeeded and every object of the program is in the API server."""
    return not isinstance(outcome, DeployError) and None not in uids.values()


def test_the_gate_passes_the_renames_the_engine_applies_and_blocks_the_one_it_cannot():
    with tempfile.TemporaryDirectory(prefix="trainstack-renames-") as scratch:
        directory = Path(scratch)
        project = find_project(project_in(directory / "project"))
        # With the controller manager: the provider deletes in the foreground, which its garbage collector finishes.
        with control_plane(["default-scheduler"], controller_manager=True, directory=directory / "cluster") as plane:
            kubeconfig = plane.kubeconfig.read_text()
            state = directory / "state"
            pattern, renamed = (Life(project, stack, plane.cluster, kubeconfig, state) for stack in STACKS)

            # A ConfigGroup named by the team: renaming the team gives its objects new URNs.
            base = pattern.config("by-team", "alpha")
            assert not isinstance(pattern.up(base), DeployError)
            head = pattern.config("by-team", "beta")
            head_plan = pattern.plan(head)
            gate = review(pattern.plan(base), head_plan)
            outcome = pattern.up(head)
            lost = {i for i, uid in pattern.uids(head_plan).items() if uid is None}
            assert (gate.passed, applied(outcome, pattern.uids(head_plan))) == (False, False), (outcome, lost)
            # It stops half way: the Role's team label is held by the old resource's field manager.
            assert isinstance(outcome, DeployError) and "Server-Side Apply field conflict" in str(outcome)
            assert {f.kind for f in gate.blocking} == {"rejected"}

            # The same rename, and the move to the ConfigGroup named by the namespace, through the gate's fix.
            base = renamed.config("by-team", "alpha")
            assert not isinstance(renamed.up(base), DeployError)
            base_plan = renamed.plan(base)
            before = renamed.uids(base_plan)
            head = renamed.config("by-namespace", "beta")
            head_plan = renamed.plan(head)
            gate = review(base_plan, head_plan)
            steps = state_renames(gate.diff, moves(gate.diff.base, gate.diff.head))
            assert not gate.passed and steps is not None
            for urn, name in steps:
                renamed.state_rename(urn, name)
            outcome = renamed.up(head)
            after = renamed.uids(head_plan)
            assert applied(outcome, after), outcome
            kept = before.keys() & after.keys()
            # The namespace and the five objects named alike for every team; the ServiceAccount is the team's own.
            assert len(kept) == 6 and {i: after[i] for i in kept} == {i: before[i] for i in kept}

            # Renamed again, as the Teams component renders it now: the same URNs, the objects updated in place.
            base_plan, head = head_plan, renamed.config("by-namespace", "gamma")
            head_plan = renamed.plan(head)
            gate = review(base_plan, head_plan)
            outcome = renamed.up(head)
            latest = renamed.uids(head_plan)
            assert (gate.passed, applied(outcome, latest)) == (True, True), outcome
            assert isinstance(outcome, Outcome)
            assert {i: latest[i] for i in kept} == {i: after[i] for i in kept}
            # The URNs the engine gave the ConfigGroup's objects are the ones the gate reads from the record.
            record = head_plan.to_dict()
            assert {engine_urn(record, r.urn, r.parent) for r in registrations(record).values()} <= \
                {c.urn for c in outcome.changes}

            # The namespace under another Pulumi name, every field as it was: the create takes the object over, `up`
            # succeeds, and the delete of the old resource at its end deletes the namespace and all in it.
            base_plan, head = head_plan, {**head, "renames:home": "team-home"}
            head_plan = renamed.plan(head)
            gate = review(base_plan, head_plan)
            outcome = renamed.up(head)
            assert not isinstance(outcome, DeployError), outcome
            assert (gate.passed, applied(outcome, renamed.uids(head_plan))) == (False, False)
            # The namespace controller deletes what the namespace held after `up` returns: wait for it, boundedly. (The
            # team's cluster-scoped admission policy is in no namespace, and stays.)
            def held() -> dict[Identity, Optional[str]]:
                return {i: uid for i, uid in renamed.uids(head_plan).items() if i[2] or i[1] == "Namespace"}

            deadline = time.monotonic() + 120
            while set(held().values()) != {None} and time.monotonic() < deadline:
                time.sleep(1)
            assert set(held().values()) == {None}, {i: uid for i, uid in held().items() if uid}
            # No destroy: the control plane goes with the test.
