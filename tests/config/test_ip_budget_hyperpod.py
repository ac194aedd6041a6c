"""HyperPod's instances on an EKS-orchestrated stack take addresses from the same private subnets as
the EKS groups (their zone's): the IP budget counts them per zone with the pods they run, and a zone
they overfill is refused at the HyperPod group's count."""

import copy

import pytest
from support.plan_records import stack_config
from support.rendered_jobs import planned_record
from trainstack.config import ConfigError, validate_stack_config
from trainstack.config.ip_budget import ip_budget


def hyperpod_eks(**network):
    config = {key.split(":", 1)[1]: value for key, value in copy.deepcopy(stack_config("hyperpod-eks")).items()}
    config["network"].update(network)
    return config


def test_hyperpod_instances_are_counted_in_their_zone_with_their_pods():
    budget = ip_budget(validate_stack_config(hyperpod_eks()))
    zones = {zone.zone: zone for zone in budget.zones}
    rows = {g.group: g for g in zones["us-east-1a"].groups}
    assert rows["hyperpod gpu"].nodes == 2 and rows["hyperpod gpu"].instance_type == "p5.48xlarge"
    assert rows["hyperpod gpu"].steady.pod_ips >= rows["hyperpod gpu"].expected_pods > 8
    assert "hyperpod gpu" not in {g.group for g in zones["us-east-1b"].groups}
    # ... and they are in the zone's sum, so a budget without them would be smaller.
    assert zones["us-east-1a"].steady == sum(g.nodes * g.steady.total for g in zones["us-east-1a"].groups)
    assert zones["us-east-1a"].steady > zones["us-east-1b"].steady


def test_the_plan_record_shows_them():
    groups = [g["group"] for zone in planned_record("hyperpod-eks")["ipBudget"]["zones"] for g in zone["groups"]]
    assert "hyperpod gpu" in groups


def test_a_zone_hyperpods_instances_overfill_is_refused_at_their_count():
    # A /26 holds 59 addresses: the system nodes fit, two p5 instances with their pod IPs do not.
    with pytest.raises(ConfigError) as error:
        validate_stack_config(hyperpod_eks(privateSubnetPrefixLength=26))
    assert "trainstack:hyperpod.workers[0].count = 2" in str(error.value)
