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


def test_only_1_36_misses_a_pin_and_only_where_trainstack_installs_the_autoscaler():
    assert [minor for minor in EKS_VERSIONS if missing_pins(minor, autoscaler=True, neuron_scheduler=True)] == ["1.36"]
    assert [minor for minor in EKS_VERSIONS if missing_pins(minor, autoscaler=False, neuron_scheduler=True)] == []
