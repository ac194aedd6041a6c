"""How the report cuts a plan into components and which arrows it draws: every drawn resource in
exactly one component, each node group its own, the money counted once, an arrow implied by a
longer path left out, and nouns that agree with their numbers."""

import pytest
from trainstack.estimate import estimate_cost
from trainstack.plan import Plan
from trainstack.report.cost import hourly_by_component, owners
from trainstack.report.edges import reduced
from trainstack.report.groups import components
from trainstack.report.numbers import agreeing, counted

from .test_glance import reachable


def test_every_drawn_resource_is_in_exactly_one_component(records):
    for stack, document in records.items():
        plan = Plan.from_dict(document)
        listed = [r.urn for c in components(plan) for r in c.resources]
        assert sorted(listed) == sorted(r.urn for r in plan.cloud_resources), stack


def test_each_node_group_is_a_component_of_its_own_the_system_group_with_its_launch_template(records):
    found = {c.title: c for c in components(Plan.from_dict(records["fsdp-p5"]))}
    assert [title for title in found if title.startswith("node group")] == [
        "node group fsdp-p5-eks-p5", "node group fsdp-p5-eks-system"]
    system = found["node group fsdp-p5-eks-system"]
    assert sorted(r.type for r in system.resources) == ["aws:ec2/launchTemplate:LaunchTemplate",
                                                         "aws:eks/nodeGroup:NodeGroup"]
    assert not any(r.type == "aws:eks/nodeGroup:NodeGroup" for r in found["control plane fsdp-p5-eks"].resources)
    assert list(found)[:2] == ["network fsdp-p5-network", "control plane fsdp-p5-eks"]


@pytest.mark.parametrize("stack", ["dev", "fsdp-p5", "hyperpod"])
def test_the_components_costs_add_up_to_the_total_and_node_groups_hold_every_instance(records, stack):
    plan = Plan.from_dict(records[stack])
    cost, parts = estimate_cost(plan), components(plan)
    for at in ("desired", "max"):
        assert sum(hourly_by_component(cost, parts, at).values()) == pytest.approx(cost.hourly(at))
    instances = [(line, component) for line, component in owners(cost, parts)
                 if line.item.strip().startswith(f"{plan.stack}-eks-") and "(" in line.item]  # a group's nodes
    assert instances or stack == "hyperpod"  # HyperPod's instance groups are not EKS node groups
    assert all(component.part == "node groups" for _, component in instances), instances


def test_an_arrow_implied_by_a_longer_path_is_left_out():
    # subnet -> route table association, route table -> association, subnet -> route table
    edges = [("subnet", "table"), ("table", "association"), ("subnet", "association")]
    assert reduced(edges) == [("subnet", "table"), ("table", "association")]


def test_a_critical_step_is_drawn_even_when_a_longer_path_implies_it():
    edges = [("subnet", "table"), ("table", "association"), ("subnet", "association")]
    assert reduced(edges, keep=frozenset({("subnet", "association")})) == edges


def test_components_that_wait_for_each_other_keep_every_wait_readable():
    # A cycle has no unique reduction; whatever is left out, what waits for what stays the same.
    edges = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "b")]
    left = reduced(edges)
    assert len(left) < len(edges)

    assert all(reachable(left, node) == reachable(edges, node) for node in "abc")


def test_nouns_and_verbs_agree_with_their_numbers():
    assert counted(1, "mandatory failure") == "1 mandatory failure"
    assert counted(2, "mandatory failure") == "2 mandatory failures"
    assert counted(0, "resource") == "0 resources"
    assert agreeing(1, "resource", "change") == "1 resource changes"
    assert agreeing(2, "resource", "change") == "2 resources change"
