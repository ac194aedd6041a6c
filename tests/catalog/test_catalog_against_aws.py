"""The catalog against AWS's own machine-readable data, not against our research.

* botocore's EC2 model: every EC2 type the catalog lists is an ``InstanceType`` value.
* botocore's SageMaker model: every ``ml.`` type the catalog allows for HyperPod is a
  ``ClusterInstanceType`` value, and training-plan types are ``ReservedCapacityInstanceType``.
* moto's ``DescribeInstanceTypeOfferings`` snapshot: where the catalog says a type
  is offered in a region (its regions, or a price there), the snapshot agrees.
* moto's ``DescribeInstanceTypes`` snapshot: every accelerated type is in the
  catalog or excluded with a recorded reason, and the committed generated file is
  what the generator makes from the installed data (re-run it when the data moves).
"""

import gzip
import json
from importlib import resources

import botocore.session
import pytest
from trainstack import catalog
from trainstack.catalog import generate

MOTO_EC2 = resources.files("moto.ec2").joinpath("resources")


def _gz_json(entry):
    with entry.open("rb") as raw, gzip.open(raw, "rt") as text:
        return json.load(text)


@pytest.fixture(scope="module")
def ec2_instance_types() -> set[str]:
    return set(botocore.session.get_session().get_service_model("ec2").shape_for("InstanceType").enum)


@pytest.fixture(scope="module")
def sagemaker() -> botocore.model.ServiceModel:
    return botocore.session.get_session().get_service_model("sagemaker")


@pytest.fixture(scope="module")
def moto_descriptions() -> dict:
    return _gz_json(MOTO_EC2.joinpath("instance_types.json.gz"))


@pytest.fixture(scope="module")
def moto_offered() -> dict[str, set[str]]:
    """Region -> instance types offered there."""
    folder = MOTO_EC2.joinpath("instance_type_offerings", "region")
    return {entry.name.removesuffix(".json.gz"): {o["InstanceType"] for o in _gz_json(entry)}
            for entry in folder.iterdir() if entry.name.endswith(".json.gz")}


def test_every_catalog_type_is_an_ec2_instance_type(ec2_instance_types):
    unknown = [name for name in catalog.names() if name not in ec2_instance_types]
    assert not unknown, f"not in botocore's EC2 InstanceType enum: {unknown}"


def test_every_hyperpod_type_is_a_sagemaker_cluster_instance_type(sagemaker):
    allowed = set(sagemaker.shape_for("ClusterInstanceType").enum)
    unknown = [name for name in catalog.hyperpod_names() if name not in allowed]
    assert not unknown, f"not in botocore's SageMaker ClusterInstanceType enum: {unknown}"


def test_hyperpod_is_refused_exactly_where_sagemaker_does_not_list_the_type(sagemaker):
    allowed = set(sagemaker.shape_for("ClusterInstanceType").enum)
    missed = [t.name for t in catalog.INSTANCE_TYPES if not t.hyperpod and t.hyperpod_name in allowed]
    assert not missed, f"SageMaker accepts these for HyperPod but the catalog refuses them: {missed}"


def test_training_plan_types_are_sagemaker_reserved_capacity_types(sagemaker):
    reserved = set(sagemaker.shape_for("ReservedCapacityInstanceType").enum)
    assert {t.hyperpod_name for t in catalog.INSTANCE_TYPES if t.hyperpod_training_plan} == reserved


def test_every_region_the_catalog_names_offers_the_type(moto_offered):
    wrong = [(t.name, region) for t in catalog.INSTANCE_TYPES for region in t.regions or ()
             if t.name not in moto_offered.get(region, set())]
    assert not wrong, f"the catalog says offered, EC2's offering data does not: {wrong}"


def test_the_catalog_names_every_region_that_offers_the_type(moto_offered):
    for entry in catalog.INSTANCE_TYPES:
        if entry.regions is not None:
            assert set(entry.regions) == {r for r, types in moto_offered.items() if entry.name in types}, entry.name


def test_a_price_is_only_given_where_the_type_is_offered(moto_offered):
    wrong = [(t.name, p.region) for t in catalog.INSTANCE_TYPES for p in t.prices
             if t.name not in moto_offered.get(p.region, set())]
    assert not wrong, f"priced in a region EC2 does not offer it in: {wrong}"


def test_every_accelerated_type_in_the_ec2_data_is_in_the_catalog_or_excluded_with_a_reason(moto_descriptions):
    accelerated = {name for name, d in moto_descriptions.items() if generate.is_accelerated(d)}
    missing = sorted(accelerated - set(catalog.names()) - set(generate.EXCLUDED_ACCELERATED))
    assert not missing, (f"accelerated types in the EC2 data but not in the catalog: {missing}; "
                         "regenerate (python -m trainstack.catalog.generate) or add them to "
                         "EXCLUDED_ACCELERATED with the reason")


def test_exclusions_name_real_accelerated_types_that_the_catalog_does_not_hold(moto_descriptions):
    for name, reason in generate.EXCLUDED_ACCELERATED.items():
        assert generate.is_accelerated(moto_descriptions[name]) and reason, name
        assert catalog.find(name) is None, name


def test_every_size_of_the_system_families_is_in_the_catalog(moto_descriptions):
    system = {n for n in moto_descriptions if n.split(".")[0] in generate.SYSTEM_FAMILIES}
    assert system <= set(catalog.names())
    assert all(catalog.get(n).accelerator is None for n in system)


def test_the_committed_data_is_what_the_generator_makes_from_the_installed_data():
    """The instance data, not the version strings of the packages it came from: a new botocore
    that describes the same types the same way moves nothing. What moved is named, type by type."""
    committed = json.loads(generate.DATA_FILE.read_text())
    fresh = generate.build(generate.date.fromisoformat(committed["generated_on"]))
    moved = _moved(committed["instance_types"], fresh["instance_types"])
    assert committed["format"] == fresh["format"] and not moved, (
        f"the EC2 or SageMaker data moved (committed from {_versions(committed)}, installed {_versions(fresh)}):\n"
        + "\n".join(moved) + "\nrun `python -m trainstack.catalog.generate` and commit the result")


def test_a_moved_fact_is_named_with_its_type_and_both_values():
    committed = {"p5.48xlarge": {"max_efa_interfaces": 32, "regions": ["us-east-1", "us-west-2"]}}
    fresh = {"p5.48xlarge": {"max_efa_interfaces": 16, "regions": ["us-east-1", "eu-north-1"]},
             "p6-b200.48xlarge": {}}
    assert _moved(committed, fresh) == [
        "p5.48xlarge: max_efa_interfaces 32 -> 16",
        "p5.48xlarge: regions + ['eu-north-1'] - ['us-west-2']",
        "p6-b200.48xlarge: new in the installed data"]


def test_the_committed_regions_table_is_what_the_generator_makes_from_the_installed_data():
    from trainstack.catalog import generate_regions

    committed = json.loads(generate.REGIONS_FILE.read_text())
    fresh = generate_regions.build_regions(committed["generated_on"])
    moved = _moved(committed["regions"], fresh["regions"])
    assert not moved, ("botocore's regions, moto's zones or cfn-lint's schemas moved:\n" + "\n".join(moved)
                       + "\nrun `python -m trainstack.catalog.generate` and commit the result")


def test_the_zones_that_offer_a_type_are_in_the_regions_that_offer_it():
    from trainstack.catalog import regions

    for entry in catalog.INSTANCE_TYPES:
        for zone in entry.zones or ():
            region = next(r for r in regions.REGIONS.values() if r.zones and zone in r.zones)
            assert region.name in (entry.regions or ()), (entry.name, zone)


def _versions(document: dict) -> str:
    return ", ".join(f"{name} {document['sources'][name]}" for name in ("moto", "botocore"))


def _moved(committed: dict[str, dict], fresh: dict[str, dict]) -> list[str]:
    moved = [f"{name}: gone from the installed data" for name in sorted(committed.keys() - fresh.keys())]
    moved += [f"{name}: new in the installed data" for name in sorted(fresh.keys() - committed.keys())]
    for name in sorted(committed.keys() & fresh.keys()):
        for fact in sorted(committed[name].keys() | fresh[name].keys()):
            old, new = committed[name].get(fact), fresh[name].get(fact)
            if old == new:
                continue
            if isinstance(old, list) and isinstance(new, list):
                moved.append(f"{name}: {fact} + {sorted(set(new) - set(old))} - {sorted(set(old) - set(new))}")
            else:
                moved.append(f"{name}: {fact} {old!r} -> {new!r}")
    return sorted(moved)


def test_trn2u_is_selected_with_its_accelerator_from_the_override(moto_descriptions):
    # EC2's data has trn2u.48xlarge's network but no NeuronInfo; the generator gives it the Neuron docs' chips.
    trn2u = moto_descriptions["trn2u.48xlarge"]
    assert not generate.is_accelerated(trn2u)
    assert "trn2u.48xlarge" in generate.selected(moto_descriptions)
    assert generate._accelerator(trn2u) == generate.ACCELERATOR_OVERRIDES["trn2u.48xlarge"]


def test_an_override_is_refused_once_the_ec2_data_gives_the_accelerator(moto_descriptions):
    gained = dict(moto_descriptions["trn2u.48xlarge"], NeuronInfo=moto_descriptions["trn2.48xlarge"]["NeuronInfo"])
    with pytest.raises(ValueError, match=r"trn2u\.48xlarge: the EC2 data now has its accelerator"):
        generate._accelerator(gained)
