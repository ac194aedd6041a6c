"""Where a release's DaemonSet lands (controllers/daemons.py): a component its release switches off runs nowhere, and
a chart released once per component is read with each component's values from the release that runs it."""

from fractions import Fraction

from trainstack.controllers.daemons import kept_off, merged_values
from trainstack.controllers.scheduling import Node

CHART = "oci://public.ecr.aws/neuron/neuron-helm-chart"
PLUGIN_RELEASE = {"devicePlugin": {"enabled": True, "nodeSelector": {"aws.amazon.com/neuron.present": "true"}},
                  "draDriver": {"enabled": False}}
DRA_RELEASE = {"devicePlugin": {"enabled": False}, "draDriver": {"enabled": True, "nodeSelector": {"dra": "yes"}}}


def node(**labels):
    return Node("n", labels, [], {"pods": Fraction(10)})


def test_a_component_switched_off_lands_nowhere_even_on_an_untainted_node_its_empty_selector_would_fit():
    charts = merged_values([(CHART, DRA_RELEASE)])
    assert kept_off(charts, CHART, ("devicePlugin",), node()) == ["is switched off in its release"]
    assert kept_off(charts, CHART, ("draDriver",), node(dra="yes")) == []


def test_a_chart_released_once_per_component_keeps_each_components_running_values_in_either_order():
    for releases in ([(CHART, PLUGIN_RELEASE), (CHART, DRA_RELEASE)], [(CHART, DRA_RELEASE), (CHART, PLUGIN_RELEASE)]):
        charts = merged_values(releases)
        assert charts[CHART]["devicePlugin"] == PLUGIN_RELEASE["devicePlugin"]
        assert charts[CHART]["draDriver"] == DRA_RELEASE["draDriver"]


def test_a_chart_not_installed_is_said_so():
    assert kept_off({}, CHART, ("draDriver",), node()) == ["is not installed"]
