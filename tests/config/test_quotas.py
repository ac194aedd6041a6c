"""What a stack needs of each AWS quota at max size, against AWS's published defaults (config/quotas.py): a stack
that passes a default says which quota to raise, by how much, and its code, and is not refused; dev passes none."""

from support import plan_records
from support.frontier_p5 import fsdp_p5_grown, validated
from trainstack.config.quotas import quota_needs, quota_section


def by_code(plan):
    return {need.quota.code: need for need in plan.needs}


def test_2048_p5_nodes_pass_the_default_of_network_interfaces_per_region_by_62600_and_say_so():
    plan = quota_needs(validated(fsdp_p5_grown()))
    assert [need.quota.code for need in plan.exceeded] == ["L-DF5E4CA3"]
    interfaces = by_code(plan)["L-DF5E4CA3"]
    # 2,048 nodes x 33 interfaces (a primary ENA and 32 EFA, catalog/efa_layout.py) and 4 system nodes x 4.
    assert (interfaces.need, interfaces.raise_by) == (2048 * 33 + 16, 2048 * 33 + 16 - 5000)
    assert "p5-4: 408 x (33 in the launch template + 0 VPC CNI ENIs) = 13,464" in interfaces.lines
    said = interfaces.said()
    assert said.startswith("Network interfaces per Region (vpc L-DF5E4CA3, per Region): needs 67,600, default "
                           "5,000: raise it by 62,600 to at least 67,600")
    assert "--service-code vpc --quota-code L-DF5E4CA3 --desired-value 67600" in said


def test_at_2048_nodes_groups_of_410_stay_within_450_nodes_and_6_groups_within_30_and_vcpus_are_left_to_preflight():
    needs = by_code(quota_needs(validated(fsdp_p5_grown())))
    assert (needs["L-BD136A63"].need, needs["L-BD136A63"].raise_by) == (410, None)
    assert (needs["L-6D54EA21"].need, needs["L-6D54EA21"].raise_by) == (6, None)
    p_vcpus = needs["L-417A185B"]
    assert (p_vcpus.need, p_vcpus.quota.default, p_vcpus.raise_by) == (2048 * 192, None, None)
    assert "AWS publishes no default: `trainstack preflight` reads the account's value" in p_vcpus.said()


def test_a_group_of_1000_nodes_is_three_managed_node_groups_within_450_and_the_33rd_group_passes_30():
    plan = quota_needs(validated(fsdp_p5_grown((1000, *[1] * 29))))
    needs = by_code(plan)
    assert {need.quota.code for need in plan.exceeded} == {"L-6D54EA21", "L-DF5E4CA3"}
    # The pool's parts (config/node_pool.py): 334 + 333 + 333, each within the 450 nodes of one managed node group.
    assert (needs["L-BD136A63"].need, needs["L-BD136A63"].raise_by) == (334, None)
    assert (needs["L-6D54EA21"].need, needs["L-6D54EA21"].raise_by) == (33, 3)
    assert needs["L-6D54EA21"].lines[0].startswith("system nodes, p5-0 part 0, p5-0 part 1, p5-0 part 2, p5-1, ")


def test_a_capacity_block_is_no_on_demand_vcpus_and_a_karpenter_group_no_managed_node_group():
    config = fsdp_p5_grown((8, 8))
    config["trainstack:nodeGroups"][0].update(minSize=0, capacity={
        "type": "capacityBlock", "reservationId": "cr-0123456789abcdef1", "zone": "us-east-1a", "instanceCount": 8,
        "endsAt": "2026-12-01T11:30:00Z"})
    config["trainstack:nodeGroups"][1].update(autoscaler="karpenter", minSize=0, amiVersion="v20260724")
    needs = by_code(quota_needs(validated(config)))
    assert needs["L-417A185B"].lines == ("p5-1 8 x 192",)
    assert needs["L-6D54EA21"].lines == ("system nodes, p5-0",)


def test_dev_passes_no_default_so_its_plan_has_no_quotas_section():
    dev = validated(plan_records.stack_config("dev"))
    assert quota_needs(dev).exceeded == ()
    assert quota_section(dev) is None


def test_the_plan_of_2048_p5_nodes_says_which_quota_to_raise_and_is_not_refused(tmp_path):
    record = plan_records.record(tmp_path, "fsdp-p5", config=fsdp_p5_grown())
    section = record["quotas"]
    assert section["exceeded"] == ["L-DF5E4CA3"]
    interfaces = next(row for row in section["quotas"] if row["quotaCode"] == "L-DF5E4CA3")
    assert (interfaces["need"], interfaces["default"], interfaces["raiseBy"]) == (67600, 5000, 62600)
    assert interfaces["source"].startswith("https://docs.aws.amazon.com/")
    assert "  RAISE Network interfaces per Region (vpc L-DF5E4CA3, per Region): needs 67,600" in section["text"]
    assert not record["policies"]["mandatoryFailures"]
