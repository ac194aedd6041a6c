"""No managed node group rollout needs capacity the group cannot get: groups on reservations,
capacity blocks and cluster placement groups roll with MINIMAL (terminate first)."""

import botocore.session
import pytest
from botocore.validate import ParamValidator
from support import policy_stacks, rendered_jobs
from support.policy_stacks import from_record
from trainstack.controllers import nodegroup_update

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def update_config(record, name):
    return policy_stacks.find(from_record(record), NODE_GROUP, name).props["updateConfig"]


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_no_shipped_group_needs_capacity_it_cannot_get_to_roll(stack):
    assert nodegroup_update.check(from_record(rendered_jobs.planned_record(stack))) == []


@pytest.mark.parametrize("variant", sorted(rendered_jobs.VARIANTS))
def test_no_variant_group_needs_capacity_it_cannot_get_to_roll(variant):
    assert nodegroup_update.check(from_record(rendered_jobs.variant_record(variant))) == []


def test_nemo_p4de_reserved_group_terminates_before_it_launches():
    """Finding: the group fills its reservation; DEFAULT's surge instances have no room, so an AMI or
    version update could not proceed."""
    record = rendered_jobs.planned_record("nemo-p4de")
    # A quarter of its nodes at a time: terminating first needs no room beyond the reservation (issue 64).
    assert update_config(record, "nemo-p4de-eks-p4de") == {"maxUnavailablePercentage": 25, "updateStrategy": "MINIMAL"}
    reasons = nodegroup_update.fixed_capacity(from_record(record), policy_stacks.find(
        from_record(record), NODE_GROUP, "nemo-p4de-eks-p4de"))
    assert reasons == ["it runs on an On-Demand Capacity Reservation"]


@pytest.mark.parametrize(("stack", "group"), [("fsdp-p5", "fsdp-p5-eks-p5"), ("trn1", "trn1-eks-trn1")])
def test_groups_in_a_cluster_placement_group_terminate_before_they_launch(stack, group):
    """Found on the shipped stacks beside nemo-p4de: fsdp-p5's and trn1's EFA groups sit in a cluster
    placement group and rolled with DEFAULT."""
    assert update_config(rendered_jobs.planned_record(stack), group)["updateStrategy"] == "MINIMAL"


def test_a_capacity_block_group_terminates_before_it_launches():
    record = rendered_jobs.variant_record("p5-capacity-block-from-zero")
    stack = from_record(record)
    group = policy_stacks.find(stack, NODE_GROUP, "fsdp-p5-eks-p5")
    assert nodegroup_update.fixed_capacity(stack, group) == ["it runs on a capacity block"]
    assert group.props["updateConfig"]["updateStrategy"] == "MINIMAL"


def test_groups_on_plain_on_demand_capacity_keep_the_default_surge():
    """Without EFA there is no placement group: new instances come from on-demand capacity, and
    DEFAULT keeps every node serving until its replacement is up."""
    record = rendered_jobs.variant_record("p5-without-efa")
    assert update_config(record, "fsdp-p5-eks-p5") == {"maxUnavailable": 1}
    assert update_config(record, "fsdp-p5-eks-system") == {"maxUnavailable": 1}


def test_a_reserved_group_rolling_with_default_is_found_with_the_surge_it_needs_and_the_fix():
    stack = from_record(rendered_jobs.planned_record("nemo-p4de"))
    rolled = policy_stacks.with_props(stack, NODE_GROUP, "nemo-p4de-eks-p4de",
                                      lambda props: props["updateConfig"].pop("updateStrategy"))
    [finding] = nodegroup_update.check(rolled)
    assert finding.subject == "nemo-p4de-eks-p4de"
    assert "On-Demand Capacity Reservation" in finding.message and "2 extra instance(s)" in finding.message
    assert "updateStrategy to MINIMAL" in finding.message
    assert "NodegroupUpdateConfig" in finding.source


def test_update_config_needs_exactly_one_of_the_two_maxima():
    stack = from_record(rendered_jobs.planned_record("dev"))
    both = policy_stacks.with_props(stack, NODE_GROUP, "dev-eks-gpu",
                                    lambda props: props["updateConfig"].update(maxUnavailablePercentage=10))
    assert [f.subject for f in nodegroup_update.check(both)] == ["dev-eks-gpu"]


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_rendered_update_config_is_valid_for_the_eks_api(stack):
    """botocore's EKS model: updateStrategy is DEFAULT or MINIMAL, maxUnavailable at least 1."""
    shape = botocore.session.get_session().get_service_model("eks").shape_for("NodegroupUpdateConfig")
    for group in from_record(rendered_jobs.planned_record(stack)).of_type(NODE_GROUP):
        report = ParamValidator().validate(group.props["updateConfig"], shape)
        assert not report.has_errors(), report.generate_report()
