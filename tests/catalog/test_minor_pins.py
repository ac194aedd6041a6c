"""Every chart and operator trainstack pins states support for every minor of EKS's window, except those that state
a higher minimum for a reason the stack file already refuses below it (the DRA drivers: a DRA group needs 1.34); the
two pins that follow the cluster's minor exist for every minor but the ones the window data marks missing."""

from trainstack.catalog import addons
from trainstack.catalog.device_allocation import DRA_MINIMUM_KUBERNETES
from trainstack.catalog.minor_pins import missing_pins
from trainstack.config.cluster import EKS_VERSIONS

PER_MINOR = {addons.CLUSTER_AUTOSCALER[minor].version for minor in addons.CLUSTER_AUTOSCALER}


def test_every_pin_supports_every_minor_of_the_window_or_only_serves_dra_groups():
    uncovered = {}
    for chart in addons.CHARTS:
        if chart.version in PER_MINOR and chart.name == "cluster-autoscaler":
            continue
        minors = [minor for minor in EKS_VERSIONS if not chart.support.covers(addons.minor(minor))]
        if minors:
            uncovered[chart.name] = (chart.support.minimum, minors)
    for manifest in addons.OPERATOR_MANIFESTS:
        assert all(manifest.support.covers(addons.minor(minor)) for minor in EKS_VERSIONS), manifest.component
    assert {name: minimum for name, (minimum, _) in uncovered.items()} == {
        addons.NVIDIA_DRA_DRIVER.name: DRA_MINIMUM_KUBERNETES, addons.AWS_DRANET.name: DRA_MINIMUM_KUBERNETES}


def test_no_minor_of_the_window_misses_a_pin_now_that_1_36_runs_chart_9_59_0_with_the_1_36_image():
    assert [minor for minor in EKS_VERSIONS if missing_pins(minor, autoscaler=True, neuron_scheduler=True)] == []
    assert [minor for minor in EKS_VERSIONS if missing_pins(minor, autoscaler=False, neuron_scheduler=True)] == []


def test_a_minor_without_an_autoscaler_row_is_still_refused_with_where_the_charts_were_read(monkeypatch):
    monkeypatch.delitem(addons.CLUSTER_AUTOSCALER, "1.36")
    (said,) = missing_pins("1.36", autoscaler=True, neuron_scheduler=False)
    assert said.startswith("no Cluster Autoscaler chart runs the autoscaler of Kubernetes 1.36 (the newest, 9.59.0, "
                           "runs 1.35;")
    assert missing_pins("1.36", autoscaler=False, neuron_scheduler=False) == []


def test_1_36_runs_the_newest_chart_with_the_newest_1_36_release_and_its_own_support_row():
    chart = addons.CLUSTER_AUTOSCALER["1.36"]
    assert (chart.version, chart.image_tag) == ("9.59.0", "v1.36.1")
    assert addons.support("cluster-autoscaler", "9.59.0", "v1.36.1") == chart.support
    assert addons.support("cluster-autoscaler", "9.59.0") == addons.CLUSTER_AUTOSCALER["1.35"].support, (
        "a release without the image override runs the chart's own 1.35.0")
    assert [c.image_tag for m, c in addons.CLUSTER_AUTOSCALER.items() if m != "1.36"] == [None, None, None, None]
