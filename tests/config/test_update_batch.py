"""nodeGroups[].maxUnavailable / maxUnavailablePercentage: how many nodes EKS replaces at once when it rolls a managed
node group (``updateConfig``). One node at a time on on-demand capacity, which launches replacements first; a quarter
of the group on a reservation or capacity block, which terminates first (``MINIMAL``) into capacity held for it."""

import pytest
from trainstack.config import ConfigError, NodeGroupConfig, validate

GROUP = {"name": "gpu", "instanceType": "p5.48xlarge", "maxSize": 16, "zone": "us-east-1a"}
RESERVED = {**GROUP, "capacity": {"type": "reservation", "reservationId": "cr-0123456789abcdef0",
                                  "zone": "us-east-1a", "instanceCount": 16}}


def group(settings, **batch):
    return validate(NodeGroupConfig, {**settings, **batch}, prefix="group")


def refused(settings, **batch):
    with pytest.raises(ConfigError) as raised:
        group(settings, **batch)
    (issue,) = raised.value.issues
    return issue


def test_on_demand_groups_roll_one_node_at_a_time_by_default():
    assert group(GROUP).update_batch == {"max_unavailable": 1}


def test_reserved_groups_roll_a_quarter_of_their_nodes_at_a_time_by_default():
    assert group(RESERVED).update_batch == {"max_unavailable_percentage": 25}


def test_the_batch_given_is_the_batch_rendered():
    assert group(RESERVED, maxUnavailable=8).update_batch == {"max_unavailable": 8}
    assert group(GROUP, maxUnavailablePercentage=50).update_batch == {"max_unavailable_percentage": 50}


@pytest.mark.parametrize("batch, path", [
    ({"maxUnavailable": 101}, "group:maxUnavailable"),
    ({"maxUnavailable": 0}, "group:maxUnavailable"),
    ({"maxUnavailablePercentage": 101}, "group:maxUnavailablePercentage"),
    ({"maxUnavailable": 2, "maxUnavailablePercentage": 10}, "group:maxUnavailablePercentage"),
])
def test_a_batch_eks_would_refuse_is_refused_before_any_resource_exists(batch, path):
    assert refused(GROUP, **batch).path == path


def test_a_karpenter_group_has_no_managed_node_group_to_pace():
    issue = refused({**GROUP, "autoscaler": "karpenter", "amiVersion": "v20260724"}, maxUnavailable=2)
    assert issue.path == "group:maxUnavailable" and "disruption budget" in issue.message
