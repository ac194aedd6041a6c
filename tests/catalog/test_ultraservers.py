"""UltraServers as AWS sells them: whole units of a fixed instance count, GB200's needing a ComputeDomain."""

from trainstack import catalog
from trainstack.catalog.ultraservers import needs_compute_domain, ultraserver_of, ultraservers_of


def test_p6e_gb200_is_sold_in_units_of_9_and_18_instances_of_4_gpus():
    units = {u.name: u for u in ultraservers_of("p6e-gb200.36xlarge")}
    assert {n: (u.instances, u.accelerators) for n, u in units.items()} == {
        "u-p6e-gb200x36": (9, 36), "u-p6e-gb200x72": (18, 72)}
    assert all(u.accelerators_per_instance == catalog.get("p6e-gb200.36xlarge").accelerator.count
               for u in units.values())
    assert ultraserver_of("p6e-gb200.36xlarge").name == "u-p6e-gb200x72"


def test_only_the_nvlink_across_instances_unit_needs_a_compute_domain():
    assert needs_compute_domain("p6e-gb200.36xlarge")
    assert not needs_compute_domain("trn2u.48xlarge") and not needs_compute_domain("p6-b200.48xlarge")


def test_a_trn2_ultraserver_is_four_trn2u_instances_of_16_trainium2():
    unit = ultraserver_of("trn2u.48xlarge")
    assert (unit.name, unit.instances, unit.accelerators_per_instance, unit.fabric) == ("u-trn2x64", 4, 16,
                                                                                      "neuronlink")


def test_single_node_blackwell_is_sold_alone():
    assert ultraserver_of("p6-b200.48xlarge") is None and ultraserver_of("p6-b300.48xlarge") is None
