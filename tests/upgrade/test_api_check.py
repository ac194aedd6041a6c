"""The offline API check (trainstack.upgrade.api_check.static_findings). An object that uses a group/version the
target minor has removed, or does not serve by default, is found before the upgrade. The table is what k8s.io/api
v0.37.2 publishes, and nothing trainstack renders for a shipped stack is found on 1.36, the newest EKS minor. The
same objects go through the real 1.36 API server in tests/engines/test_target_apiserver.py."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from support import rendered_jobs
from support.go_modules import ModuleCache
from trainstack.plan import Plan
from trainstack.rehearsal.stack_objects import stack_objects
from trainstack.upgrade.api_check import (
    DEFAULTS_SOURCE,
    LIFECYCLE,
    ApiFinding,
    lifecycle_of,
    static_findings,
)


def claim_template(api_version: str = "resource.k8s.io/v1beta1") -> dict[str, Any]:
    """A claim template for 8 GPUs, in the shape of ``api_version``: v1beta2 and v1 put the class under ``exactly``
    (k8s.io/api resource/v1 types.go, DeviceRequest), v1alpha3 and v1beta1 beside the request's name."""
    request = {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 8}
    shaped = ({"name": "gpus", "exactly": request} if api_version in ("resource.k8s.io/v1", "resource.k8s.io/v1beta2")
              else {"name": "gpus", **request})
    return {"apiVersion": api_version, "kind": "ResourceClaimTemplate",
            "metadata": {"name": "b200-8-gpus", "namespace": "llm"},
            "spec": {"spec": {"devices": {"requests": [shaped]}}}}


def flow_schema() -> dict[str, Any]:
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1beta3", "kind": "FlowSchema",
            "metadata": {"name": "training-jobs"}, "spec": {"priorityLevelConfiguration": {"name": "workload-low"}}}


def rendered_objects(stack: str) -> list[dict[str, Any]]:
    """What trainstack renders for ``stack``: its plan's Kubernetes objects (rehearsal.stack_objects, as the
    rehearsal applies them), and every job its launchers render with what each applies before itself (the
    ResourceClaimTemplates and TrainingRuntime of a DRA group)."""
    objects = stack_objects(Plan.from_dict(rendered_jobs.planned_record(stack))).apply
    for job in rendered_jobs.jobs_for(rendered_jobs.outputs_of(stack)):
        objects += [*job.prerequisites, *([job.document] if isinstance(job.document, dict) else [])]
    return objects


# ---- the table -----------------------------------------------------------------------------------------------------

def test_the_table_names_flowcontrol_v1beta3_removed_in_1_32_with_v1_to_use_instead() -> None:
    [schema] = static_findings([flow_schema()], "1.32")
    assert schema == ApiFinding("FlowSchema", "training-jobs", "flowcontrol.apiserver.k8s.io/v1beta3", "removed",
                                "1.32", "flowcontrol.apiserver.k8s.io/v1", lifecycle_of(
                                    "flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema").source)
    row = lifecycle_of("flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration")
    assert row is not None and (row.removed_in, row.served_by_default) == ("1.32", True)


def test_a_resource_v1beta1_claim_template_is_not_served_on_1_36() -> None:
    [finding] = static_findings([claim_template()], "1.36")
    assert (finding.verdict, finding.in_minor, finding.replacement) == ("not served", "1.36", "resource.k8s.io/v1")
    assert finding.name == "llm/b200-8-gpus" and DEFAULTS_SOURCE in finding.source


def test_the_dra_beta_apis_are_served_on_eks_1_33_only_and_not_served_from_1_34() -> None:
    """EKS turned the DRA beta API on in 1.33 (its release notes). From 1.34, where v1 is the default, it serves
    neither beta, upstream's default."""
    for version in ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2"):
        assert static_findings([claim_template(version)], "1.33") == []
        assert [f.verdict for f in static_findings([claim_template(version)], "1.34")] == ["not served"]
    assert [(f.verdict, f.in_minor) for f in static_findings([claim_template("resource.k8s.io/v1alpha3")], "1.37")] == [
        ("removed", "1.37")]


def test_an_alpha_or_beta_version_the_table_does_not_list_is_not_served_and_a_custom_resource_is_left_alone() -> None:
    objects = [{"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload", "metadata": {"name": "w"}},
               {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}},
               {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "q"}},
               claim_template("resource.k8s.io/v1")]
    assert [(f.kind, f.verdict) for f in static_findings(objects, "1.36")] == [
        ("Workload", "not served"), ("PodDisruptionBudget", "not served")]


def test_on_1_37_what_1_37_removes_is_removed_and_its_betas_are_not_served_with_the_v1_to_use() -> None:
    """k8s.io/api v0.37.2: 1.37 removes certificates v1alpha1 and networking v1beta1, adds certificates/v1 and
    storagemigration/v1 (whose betas it deprecates), and brings scheduling.k8s.io/v1beta1 Workload, off by default."""
    def obj(api_version: str, kind: str) -> dict[str, Any]:
        return {"apiVersion": api_version, "kind": kind, "metadata": {"name": kind.lower()}}
    objects = [obj("certificates.k8s.io/v1alpha1", "ClusterTrustBundle"),
               obj("networking.k8s.io/v1beta1", "ServiceCIDR"),
               obj("storagemigration.k8s.io/v1beta1", "StorageVersionMigration"),
               obj("certificates.k8s.io/v1beta1", "PodCertificateRequest"),
               obj("scheduling.k8s.io/v1beta1", "Workload"),
               obj("certificates.k8s.io/v1", "ClusterTrustBundle"),
               obj("storagemigration.k8s.io/v1", "StorageVersionMigration")]
    assert [(f.kind, f.verdict, f.in_minor, f.replacement) for f in static_findings(objects, "1.37")] == [
        ("ClusterTrustBundle", "removed", "1.37", "certificates.k8s.io/v1 (from 1.37)"),
        ("ServiceCIDR", "removed", "1.37", "networking.k8s.io/v1"),
        ("StorageVersionMigration", "not served", "1.37", "storagemigration.k8s.io/v1 (from 1.37)"),
        ("PodCertificateRequest", "not served", "1.37", "certificates.k8s.io/v1 (from 1.37)"),
        ("Workload", "not served", "1.37", "none served by default")]
    assert [(row.deprecated_in, row.removed_in) for row in (
        lifecycle_of("storagemigration.k8s.io/v1beta1", "StorageVersionMigration"),
        lifecycle_of("certificates.k8s.io/v1beta1", "PodCertificateRequest"))] == [("1.37", "1.40")] * 2


@pytest.mark.parametrize(("target", "objects", "named"), [
    ("1.31", [flow_schema()], "target_minor '1.31' is not a Kubernetes minor the API table covers: give one of 1.32 to "
                              "1.37"),
    ("v1.36", [flow_schema()], "target_minor 'v1.36'"),
    ("1.36", [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}],
     "objects[0].metadata.name is None: every object needs a non-empty metadata.name"),
    ("1.36", [flow_schema(), {"kind": "ConfigMap"}], "objects[1].apiVersion is None"),
    ("1.36", ["kind: ConfigMap"], "objects[0] is a str, not a Kubernetes object"),
])
def test_a_bad_target_or_object_is_refused_naming_the_field_and_the_value(target: str, objects: list,
                                                                           named: str) -> None:
    with pytest.raises(ValueError) as refused:
        static_findings(objects, target)
    assert named in str(refused.value)


# ---- the table against its source ----------------------------------------------------------------------------------

EXCERPT = Path(__file__).parents[1] / "data" / "k8s-api-lifecycle.json"
"""The lifecycle k8s.io/api publishes, cut to what the table needs: at v0.37.2 every kind removed in 1.32 or later,
and every kind introduced in 1.32 or later (the versions the rows' replacements name); at v0.33.0 the group/version
of the one row read there. Checked in, so that no test downloads the module (the last test below compares it with
the module where the local Go module cache holds it)."""
Lifecycles = dict[str, dict[str, dict[str, str]]]
"""group/version -> kind -> {"introduced": "1.37", "deprecated": ..., "removed": ...}"""


def published(version: str) -> Lifecycles:
    modules: dict[str, Lifecycles] = json.loads(EXCERPT.read_text())["k8s.io/api"]
    return modules[version]


def minor(text: str) -> tuple[int, int]:
    major, number = text.split(".")
    return int(major), int(number)


def module_lifecycles(archive: Path, version: str) -> Lifecycles:
    """Every kind's lifecycle in every zz_generated.prerelease-lifecycle.go of the module zip ``archive`` (list
    types left out), under the group its package's register.go names (``GroupName``) and the package's version."""
    found: Lifecycles = {}
    with zipfile.ZipFile(archive) as members:
        for name in members.namelist():
            if not name.endswith("/zz_generated.prerelease-lifecycle.go"):
                continue
            package = name.rsplit("/", 1)[0]
            [group] = re.findall(r'const GroupName = "([^"]*)"', members.read(f"{package}/register.go").decode())
            group_version = "/".join(filter(None, (group, package.rsplit("/", 1)[1])))
            for kind, what, major, number in re.findall(
                    r"func \(in \*(\w+)\) APILifecycle(Introduced|Deprecated|Removed)\(\) \(major, minor int\) "
                    r"\{\n\s*return (\d+), (\d+)", members.read(name).decode()):
                if not kind.endswith("List"):
                    found.setdefault(group_version, {}).setdefault(kind, {})[what.lower()] = f"{major}.{number}"
    return found


def excerpt_of(lifecycles: Lifecycles, version: str) -> Lifecycles:
    """What EXCERPT keeps of a module's ``lifecycles``."""
    if version == "v0.33.0":
        return {"resource.k8s.io/v1alpha3": lifecycles["resource.k8s.io/v1alpha3"]}
    kept: Lifecycles = {}
    for group_version, kinds in lifecycles.items():
        for kind, lifecycle in kinds.items():
            if minor(lifecycle.get("removed", lifecycle["introduced"])) >= (1, 32):
                kept.setdefault(group_version, {})[kind] = lifecycle
    return kept


def test_every_row_is_what_k8s_io_api_v0_37_2_publishes_for_its_kinds() -> None:
    for row in LIFECYCLE:
        tag = re.search(r"k8s\.io/api (v[\d.]+)", row.source).group(1)
        assert tag == "v0.37.2" or row.group_version == "resource.k8s.io/v1alpha3", (row.group_version, row.source)
        for kind in row.kinds:
            assert published(tag)[row.group_version][kind] == {
                "introduced": row.introduced_in, "deprecated": row.deprecated_in, "removed": row.removed_in}, (
                row.group_version, kind)


def test_every_alpha_and_beta_kind_removed_in_1_32_or_later_has_its_row() -> None:
    """So a kind that k8s.io/api v0.37.2 gives a lifecycle in the table's window cannot be left out."""
    window = {(group_version, kind) for group_version, kinds in published("v0.37.2").items()
              for kind, lifecycle in kinds.items() if "removed" in lifecycle}
    listed = {(row.group_version, kind) for row in LIFECYCLE for kind in row.kinds}
    # APIGroupDiscovery is a discovery format, not an object a stack creates: see the module
    assert window - listed == {("apidiscovery.k8s.io/v2beta1", "APIGroupDiscovery")}


def test_a_replacement_that_names_its_first_minor_names_the_minor_k8s_io_api_introduces_it_in() -> None:
    """"certificates.k8s.io/v1 (from 1.37)": v0.37.2 introduces ClusterTrustBundle and PodCertificateRequest in
    certificates/v1 in 1.37."""
    named = 0
    for row in LIFECYCLE:
        since = re.fullmatch(r"(\S+) \(from (1\.\d+)\)", row.replacement)
        if since:
            for kind in row.kinds:
                assert published("v0.37.2")[since.group(1)][kind]["introduced"] == since.group(2), (
                    row.group_version, kind, row.replacement)
                named += 1
    assert named >= 10


@pytest.mark.parametrize("version", ["v0.37.2", "v0.33.0"])
def test_the_excerpt_is_what_the_module_says(version: str) -> None:
    """Where this machine's Go module cache holds k8s.io/api at ``version`` (``go mod download
    k8s.io/api@v0.37.2`` puts it there): nothing is downloaded here."""
    archive = ModuleCache.here().root / "cache" / "download" / "k8s.io" / "api" / "@v" / f"{version}.zip"
    if not archive.is_file():
        pytest.skip(f"the Go module cache does not hold k8s.io/api@{version} ({archive})")
    assert published(version) == excerpt_of(module_lifecycles(archive, version), version)


# ---- what trainstack renders ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_nothing_a_shipped_stack_renders_has_a_finding_on_1_36_or_1_37(stack: str) -> None:
    objects = rendered_objects(stack)
    assert (static_findings(objects, "1.36"), static_findings(objects, "1.37")) == ([], [])


def test_the_dra_stack_renders_its_claim_templates_in_resource_v1_which_the_check_sees() -> None:
    """The check above covers the DRA objects: b200-dra's launchers render ResourceClaimTemplates, and one moved
    back to v1beta1 is found."""
    templates = [obj for obj in rendered_objects("b200-dra") if obj["kind"] == "ResourceClaimTemplate"]
    assert templates and {obj["apiVersion"] for obj in templates} == {"resource.k8s.io/v1"}
    moved = [{**templates[0], "apiVersion": "resource.k8s.io/v1beta1"}]
    assert [f.verdict for f in static_findings(moved, "1.36")] == ["not served"]
