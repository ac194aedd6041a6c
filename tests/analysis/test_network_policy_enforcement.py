"""Every NetworkPolicy fence the access table shows is enforced by what the stack installs, or marked as not enforced
until checked. The VPC CNI enforces NetworkPolicy only with the vpc-cni add-on's `enableNetworkPolicy` set to "true",
off by default (EKS user guide, cni-network-policy-configure.html); without it the API server accepts the policies
and nothing acts on them. A stack that makes its cluster turns it on wherever teams are fenced; on a cluster made
elsewhere (byo-p5) the network plugin is its owner's, and `trainstack preflight nodes` reads it."""

import copy
import json
from html import escape

import pytest
from support.plan_records import render_report
from support.rendered_jobs import planned_record
from trainstack.analysis.access_table import AccessTable
from trainstack.plan import Plan
from trainstack.review.access import read_access
from trainstack.review.access_words import team_rows

STACKS_WITH_TEAMS = ["kueue-p5", "frontier-p5", "byo-p5"]
MARK = "not enforced until checked"


def fenced_rows(document):
    """Each team's ingress row, for the teams a NetworkPolicy fences (their ingress is not every pod's)."""
    return {t["team"]: dict(team_rows(t))["ingress"] for t in document["access"]["teams"] if t["ingress"] is not None}


def vpc_cni(document):
    addons = [r for r in document["resources"]
              if r["type"] == "aws:eks/addon:Addon" and r["inputs"]["addonName"] == "vpc-cni"]
    return [json.loads(a["inputs"].get("configurationValues") or "{}") for a in addons]


@pytest.mark.parametrize("stack", STACKS_WITH_TEAMS)
def test_every_fenced_team_is_enforced_by_the_stacks_own_vpc_cni_or_marked_until_checked(stack):
    document = planned_record(stack)
    rows = fenced_rows(document)
    assert rows, f"{stack}: no team is fenced by a NetworkPolicy"
    addons = vpc_cni(document)
    if document["access"]["existingCluster"]:
        assert addons == []  # nothing the stack installs enforces it
        assert all(MARK in row for row in rows.values()), rows
    else:
        assert [a.get("enableNetworkPolicy") for a in addons] == ["true"]
        assert not any("not enforced" in row for row in rows.values()), rows


def test_byo_p5_says_its_fence_is_not_enforced_until_preflight_checks_the_cluster_in_the_plan_and_the_report():
    document = planned_record("byo-p5")
    [row] = fenced_rows(document).values()
    assert row == ("its own pods (not enforced until checked: the cluster's network plugin is its owner's; "
                   "`trainstack preflight nodes` reads whether it enforces NetworkPolicy)")
    assert row in document["access"]["text"]
    assert f"<td>{escape(row)}</td>" in render_report(document)


def test_an_owned_cluster_whose_vpc_cni_lost_enable_network_policy_shows_its_fence_as_not_enforced():
    document = copy.deepcopy(planned_record("kueue-p5"))
    addon = next(r for r in document["resources"]
                 if r["type"] == "aws:eks/addon:Addon" and r["inputs"]["addonName"] == "vpc-cni")
    values = json.loads(addon["inputs"]["configurationValues"])
    del values["enableNetworkPolicy"]
    addon["inputs"]["configurationValues"] = json.dumps(values)
    table = AccessTable(read_access(Plan.from_dict(document)), {}).as_dict()
    for team in table["teams"]:
        assert dict(team_rows(team))["ingress"] == ("its own pods (not enforced: this stack's vpc-cni add-on does not "
                                                    "set enableNetworkPolicy)")


def test_a_record_saved_before_the_mark_shows_its_ingress_row_as_it_did():
    [team] = copy.deepcopy(planned_record("byo-p5")["access"]["teams"])
    del team["ingressEnforced"]
    assert dict(team_rows(team))["ingress"] == "its own pods"
