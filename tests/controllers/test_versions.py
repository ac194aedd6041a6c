"""Every pinned component supports the cluster's Kubernetes version, within the version-skew policy."""

import pytest
from support import policy_stacks, rendered_jobs
from support.policy_stacks import from_record
from trainstack.addons.device_plugins import NEURON_SCHEDULER_IMAGES
from trainstack.catalog import addons
from trainstack.config.cluster import EKS_VERSIONS
from trainstack.controllers import versions

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


def neuron_release(stack):
    return next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"].endswith("neuron-helm-chart"))


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_shipped_stacks_components_support_its_kubernetes_version(stack):
    assert versions.check(from_record(rendered_jobs.planned_record(stack))) == []


@pytest.mark.parametrize("variant", sorted(rendered_jobs.VARIANTS))
def test_every_variants_components_support_its_kubernetes_version(variant):
    assert versions.check(from_record(rendered_jobs.variant_record(variant))) == []


def test_every_pinned_component_of_the_shipped_stacks_has_a_support_row():
    pinned = {(component, version) for stack in rendered_jobs.SHIPPED_STACKS
              for _, component, version in versions.pinned_components(from_record(rendered_jobs.planned_record(stack)))}
    assert {"kustomize:training-operator", "kustomize:mpi-operator", "cluster-autoscaler"} <= {c for c, _ in pinned}
    assert [pin for pin in sorted(pinned) if addons.support(*pin) is None] == []


@pytest.mark.parametrize(("variant", "tag"), [("trn1", "v1.35.0"), ("trn1-on-1.34", "v1.34.1")])
def test_the_neuron_custom_scheduler_runs_the_kube_scheduler_of_the_clusters_minor(variant, tag):
    """Finding: the Neuron chart's custom scheduler ran kube-scheduler v1.31.12 beside a 1.35 API
    server, four minors behind; the skew policy allows one."""
    record = (rendered_jobs.planned_record(variant) if variant == "trn1" else rendered_jobs.variant_record(variant))
    image = neuron_release(from_record(record)).props["values"]["scheduler"]["customScheduler"]["image"]
    assert image == {"repository": "registry.k8s.io/kube-scheduler", "tag": tag}


def test_every_offered_kubernetes_version_has_a_neuron_scheduler_and_an_autoscaler_row():
    assert set(NEURON_SCHEDULER_IMAGES) == set(EKS_VERSIONS)
    covered = {version for chart in addons.CLUSTER_AUTOSCALER.values()
               for version in (chart.support.minimum, chart.support.maximum)}
    # 1.36 runs chart 9.59.0 with the 1.36.1 image (catalog/addons.py says what was read for it).
    assert covered == set(EKS_VERSIONS)


def test_on_1_36_the_autoscaler_runs_the_1_36_image_and_the_versions_check_judges_that_image(tmp_path):
    from support.plan_records import record

    def on_1_36(config):
        config["trainstack:eks"].update(version="1.36")

    stack = from_record(record(tmp_path, "dev", on_1_36))
    (release,) = [r for r in stack.of_type("kubernetes:helm.sh/v3:Release")
                  if r.props.get("chart") == "cluster-autoscaler"]
    assert (release.props["version"], release.props["values"]["image"]) == ("9.59.0", {"tag": "v1.36.1"})
    assert [f for f in versions.check(stack) if f.subject.startswith("cluster-autoscaler")] == []


def test_the_autoscaler_held_one_minor_behind_during_an_upgrade_is_a_warning_and_two_behind_an_error(tmp_path):
    from support.plan_records import record

    def held(config):
        config["trainstack:eks"].update(version="1.35", upgrade={"fromVersion": "1.34", "held": ["charts"]})

    [finding] = versions.check(from_record(record(tmp_path, "dev", held)))
    assert finding.severity == "warning" and "one minor behind the cluster's 1.35" in finding.message
    two_behind = policy_stacks.with_props(
        from_record(record(tmp_path / "two", "dev")), HELM_RELEASE, "dev-eks-autoscaler",
        lambda props: props.update(version="9.51.0"))
    [finding] = versions.check(two_behind)
    assert finding.severity == "error" and "supports Kubernetes 1.33 to 1.33" in finding.message


def test_the_charts_own_kube_scheduler_is_outside_the_skew_policy():
    stack = from_record(rendered_jobs.planned_record("trn1"))
    release = neuron_release(stack)
    chart_default = policy_stacks.with_props(
        stack, HELM_RELEASE, release.name,
        lambda props: props["values"]["scheduler"]["customScheduler"].pop("image"))
    [finding] = versions.check(chart_default)
    assert "custom kube-scheduler v1.31.12-eks-1-31-30" in finding.subject
    assert "kube-scheduler 1.31 against kube-apiserver 1.35" in finding.message
    assert "version-skew-policy" in finding.source


def test_a_scheduler_newer_than_the_api_server_is_found():
    stack = from_record(rendered_jobs.variant_record("trn1-on-1.34"))
    release = neuron_release(stack)
    newer = policy_stacks.with_props(
        stack, HELM_RELEASE, release.name,
        lambda props: props["values"]["scheduler"]["customScheduler"]["image"].update(tag="v1.35.0"))
    assert [f.subject for f in versions.check(newer)] == [f"{release.name} custom kube-scheduler v1.35.0"]


def test_an_autoscaler_of_another_minor_is_found_with_its_source():
    """One minor behind is what an upgrade holds (a warning, tested above); two behind, or ahead, is an error."""
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    release = next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"] == "cluster-autoscaler")
    older = policy_stacks.with_props(stack, HELM_RELEASE, release.name, lambda props: props.update(version="9.51.0"))
    [finding] = versions.check(older)
    assert finding.subject == "cluster-autoscaler 9.51.0" and finding.severity == "error"
    assert "supports Kubernetes 1.33 to 1.33, the cluster runs 1.35" in finding.message


def test_a_chart_with_no_support_row_is_a_finding():
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    release = next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"] == "nvidia-device-plugin")
    unknown = policy_stacks.with_props(stack, HELM_RELEASE, release.name, lambda props: props.update(version="0.99.0"))
    [finding] = versions.check(unknown)
    assert finding.subject == "nvidia-device-plugin 0.99.0" and "catalog/addons.py" in finding.message


def test_a_kubelet_newer_than_the_api_server_is_found():
    stack = from_record(rendered_jobs.planned_record("dev"))
    ahead = policy_stacks.with_props(stack, "aws:eks/nodeGroup:NodeGroup", "dev-eks-gpu",
                                     lambda props: props.update(version="1.36"))
    [finding] = versions.check(ahead)
    assert finding.subject == "dev-eks-gpu" and "kubelet 1.36 against kube-apiserver 1.35" in finding.message


def test_a_cluster_older_than_a_components_minimum_is_found():
    stack = from_record(rendered_jobs.planned_record("dev"))
    old = policy_stacks.with_props(stack, "eks:index:Cluster", next(
        r.name for r in stack.of_type("eks:index:Cluster")), lambda props: props.update(version="1.24"))
    subjects = {f.subject for f in versions.check(old)}
    assert "kustomize:training-operator v1.8.1" in subjects  # 1.25+


def test_an_operator_is_read_from_the_overlay_its_identifier_names_in_this_trainstack():
    stack = from_record(rendered_jobs.planned_record("trn1"))
    directory = next(r for r in stack.of_type("kubernetes:kustomize/v2:Directory"))
    assert directory.props["directory"].startswith("trainstack:addons/kustomize/mpi-operator@sha256:")
    assert ("kustomize:mpi-operator", "v0.8.0") in {(c, v) for _, c, v in versions.pinned_components(stack)}


def test_an_operator_planned_in_another_checkout_is_read_from_this_trainstacks_kustomization():
    """A record from before identifiers named a path; its overlay is found through ``addons/``."""
    stack = from_record(rendered_jobs.planned_record("trn1"))
    directory = next(r for r in stack.of_type("kubernetes:kustomize/v2:Directory"))
    moved = policy_stacks.with_props(stack, directory.type, directory.name, lambda props: props.update(
        directory="/elsewhere/components/addons/kustomize/mpi-operator"))
    assert ("kustomize:mpi-operator", "v0.8.0") in {(c, v) for _, c, v in versions.pinned_components(moved)}
    unreadable = policy_stacks.with_props(stack, directory.type, directory.name, lambda props: props.update(
        directory="/elsewhere/operator"))
    [finding] = versions.check(unreadable)
    assert finding.subject == "kustomize:operator ?"
