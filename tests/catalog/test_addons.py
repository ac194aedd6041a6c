"""Pinned add-ons: one table (catalog/addons.py) holds every chart and operator manifest the
stacks install, with the Kubernetes versions each supports; the components install from it and
the versions model judges against it."""

import ast
from pathlib import Path

import pytest
from support import rendered_jobs
from support.policy_stacks import from_record
from trainstack.catalog import addons
from trainstack.controllers import versions

PACKAGE = Path(addons.__file__).resolve().parents[1]
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_release_a_shipped_stack_installs_is_a_chart_of_the_table(stack):
    table = {(chart.name, chart.version, chart.repository) for chart in addons.CHARTS}
    releases = from_record(rendered_jobs.planned_record(stack)).of_type(HELM_RELEASE)
    installed = {(r.props["chart"], r.props["version"], (r.props.get("repositoryOpts") or {}).get("repo"))
                 for r in releases}
    assert installed <= table  # the Slurm stack installs none


def test_every_operator_manifest_row_is_the_version_its_kustomization_names():
    pinned = {(component, version) for stack in rendered_jobs.SHIPPED_STACKS
              for _, component, version in versions.pinned_components(from_record(rendered_jobs.planned_record(stack)))
              if component.startswith("kustomize:")}
    assert pinned == {(m.component, m.version) for m in addons.OPERATOR_MANIFESTS}


def test_every_row_says_what_it_supports_and_where_that_was_read():
    rows = [chart.support for chart in addons.CHARTS] + [m.support for m in addons.OPERATOR_MANIFESTS]
    assert all(row.source for row in rows)
    for row in rows:
        if row.minimum is None:
            assert "no" in row.source and ("matrix" in row.source or "not read" in row.source), row.source


def test_no_module_but_the_table_pins_a_chart():
    pinned_elsewhere = []
    for file in sorted(PACKAGE.rglob("*.py")):
        if file.name == "addons.py" and file.parent.name == "catalog":
            continue
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Chart":
                pinned_elsewhere.append(f"{file.relative_to(PACKAGE)}:{node.lineno}")
    assert pinned_elsewhere == []


def test_a_release_from_a_directory_of_pulled_charts_is_known_as_its_catalog_chart():
    """helmCharts.directory makes a release's chart a path; the controller models and estimates still know it (the
    engine's policy preview found the device-plugin model reading `/…/nvidia-device-plugin` as no plugin at all)."""
    from trainstack.catalog.addons import EFA_DEVICE_PLUGIN, KUEUE, NVIDIA_DEVICE_PLUGIN, chart_reference

    assert chart_reference("/mirror/charts/nvidia-device-plugin") == NVIDIA_DEVICE_PLUGIN.name
    pulled = f"/mirror/aws-efa-k8s-device-plugin-{EFA_DEVICE_PLUGIN.version}.tgz"
    assert chart_reference(pulled) == EFA_DEVICE_PLUGIN.name
    assert chart_reference("/mirror/kueue") == KUEUE.name and chart_reference(KUEUE.name) == KUEUE.name
    assert chart_reference("/mirror/something-else") == "/mirror/something-else"
