"""The EKS control plane is priced at the rate of its Kubernetes version's support (catalog/eks_versions.py): $0.10
per cluster-hour in standard support, $0.60 in extended support, the line saying which and until when; a version
the data does not know is priced standard and said unknown."""

import dataclasses
from datetime import date
from pathlib import Path

import pytest
from trainstack.estimate import estimate_resources
from trainstack.names import EKS_COMPONENT_CLUSTER
from trainstack.plan import find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def dev():
    return run_plan(PROJECT, "dev")


def on_version(plan, version):
    """The dev stack's resources with its cluster's Kubernetes version set to ``version`` (None: not set)."""
    resources = []
    for resource in plan.resources:
        if resource.type == EKS_COMPONENT_CLUSTER:
            inputs = {key: value for key, value in resource.inputs.items() if key != "version"}
            resource = dataclasses.replace(resource, inputs={**inputs, **({"version": version} if version else {})})
        resources.append(resource)
    return resources


def control_plane(plan, version, day=None):
    estimate = estimate_resources(on_version(plan, version), "us-east-1", **({"day": day} if day else {}))
    (line,) = [line for line in estimate.lines if line.item == "EKS control plane"]
    return estimate, line


def test_a_1_33_clusters_control_plane_costs_0_60_an_hour_noted_as_extended_support_ending_2027_07_29(dev):
    estimate, line = control_plane(dev, "1.33")
    assert line.unit_usd_per_hour == 0.60 and line.hourly("desired") == pytest.approx(0.60)
    assert line.source.startswith("Kubernetes 1.33 in EKS extended support since 2026-07-29, ending 2027-07-29 "
                                  "(EKS version data of 2026-11-28); ")
    assert "$0.60 per cluster-hour in extended support" in line.source
    assert line.monthly("desired") == pytest.approx(0.60 * 730)
    assert "Kubernetes 1.33 in EKS extended support since 2026-07-29, ending 2027-07-29" in estimate.render()


def test_a_1_35_clusters_control_plane_costs_0_10_an_hour(dev):
    _, line = control_plane(dev, "1.35")
    assert line.unit_usd_per_hour == 0.10
    assert line.source.startswith("Kubernetes 1.35 in standard support until 2027-03-27 (EKS version data of "
                                  "2026-11-28); ")
    assert "$0.10 per cluster-hour in standard support" in line.source


def test_extended_support_adds_half_a_dollar_an_hour_to_the_stacks_total(dev):
    standard, _ = control_plane(dev, "1.35")
    extended, _ = control_plane(dev, "1.33")
    assert extended.hourly("desired") - standard.hourly("desired") == pytest.approx(0.50)
    assert extended.monthly("max") - standard.monthly("max") == pytest.approx(0.50 * 730)


def test_a_1_34_cluster_is_priced_standard_on_the_data_date_and_extended_from_2026_12_02(dev):
    assert control_plane(dev, "1.34")[1].unit_usd_per_hour == 0.10
    assert control_plane(dev, "1.34", date(2026, 12, 1))[1].unit_usd_per_hour == 0.10
    _, line = control_plane(dev, "1.34", date(2026, 12, 2))
    assert line.unit_usd_per_hour == 0.60
    assert line.source.startswith("Kubernetes 1.34 in EKS extended support since 2026-12-02, ending 2027-12-02")


def test_a_version_past_extended_support_is_priced_at_the_extended_rate_eks_upgrades_it_into(dev):
    _, line = control_plane(dev, "1.31")
    assert line.unit_usd_per_hour == 0.60
    assert line.source.startswith("Kubernetes 1.31: EKS extended support ended on 2026-11-26, so EKS creates no "
                                  "cluster on it and upgrades an existing one to the oldest version in extended "
                                  "support")


@pytest.mark.parametrize("version,said", [("1.30", "Kubernetes 1.30"), ("1.37", "Kubernetes 1.37"),
                                          (None, "Kubernetes version not set (EKS's default)")])
def test_a_version_the_data_does_not_know_is_priced_standard_and_said_unknown(dev, version, said):
    _, line = control_plane(dev, version)
    assert line.unit_usd_per_hour == 0.10
    assert line.source.startswith(f"{said}: support status unknown (EKS version data of 2026-11-28), priced at the "
                                  "standard-support rate; ")
