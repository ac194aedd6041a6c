"""What each pinned Cluster Autoscaler chart needs to handle DRA: a fact for every pin, the flag and the read-only
rules where the chart leaves them out (9.52.0), nothing where its autoscaler has them (9.59.0)."""

import pytest
from trainstack.catalog import autoscaler_dra
from trainstack.catalog.addons import CLUSTER_AUTOSCALER

HANDLED = {"extraArgs": {"enable-dynamic-resource-allocation": True},
           "rbac": {"additionalRules": autoscaler_dra.additional_rules("9.52.0")}}


def test_every_pinned_autoscaler_chart_says_whether_it_handles_dra():
    assert set(autoscaler_dra.BY_CHART_VERSION) == {chart.version for chart in CLUSTER_AUTOSCALER.values()}


def test_the_1_34_chart_needs_the_flag_and_the_rules_the_1_35_chart_has_built_in():
    assert CLUSTER_AUTOSCALER["1.34"].version == "9.52.0" and CLUSTER_AUTOSCALER["1.35"].version == "9.59.0"
    assert autoscaler_dra.extra_args("9.52.0") == {"enable-dynamic-resource-allocation": True}
    assert autoscaler_dra.additional_rules("9.52.0") == [{
        "apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses", "resourceclaims"],
        "verbs": ["watch", "list", "get"]}]
    assert autoscaler_dra.extra_args("9.59.0") == {} and autoscaler_dra.additional_rules("9.59.0") == []
    assert autoscaler_dra.missing("9.59.0", {}) == []
    assert autoscaler_dra.missing("9.52.0", HANDLED) == []


@pytest.mark.parametrize("values, words", [
    ({}, ["--enable-dynamic-resource-allocation is not set to true (its default is false)",
          "does not grant watch resourceslices"]),
    ({**HANDLED, "extraArgs": {"enable-dynamic-resource-allocation": "false"}},
     ["--enable-dynamic-resource-allocation is not set to true"]),
    ({**HANDLED, "rbac": {"additionalRules": [{"apiGroups": [""], "resources": ["*"], "verbs": ["*"]}]}},
     ["does not grant watch resourceslices"]),
    ({**HANDLED, "rbac": {"additionalRules": [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses"], "verbs": ["*"]}]}},
     ["does not grant watch resourceclaims, list resourceclaims, get resourceclaims in resource.k8s.io"]),
])
def test_a_1_34_release_lacking_the_flag_or_a_rule_is_named_for_what_it_lacks(values, words):
    reasons = autoscaler_dra.missing("9.52.0", values)
    assert len(reasons) == len(words) and all(w in r for w, r in zip(words, reasons, strict=True))


def test_rules_that_grant_everything_of_the_group_by_wildcard_are_enough():
    wildcard = {"extraArgs": {"enable-dynamic-resource-allocation": "true"},
                "rbac": {"additionalRules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}}
    assert autoscaler_dra.missing("9.52.0", wildcard) == []


def test_an_autoscaler_chart_that_is_not_pinned_is_not_assumed_to_handle_dra():
    (reason,) = autoscaler_dra.missing("9.50.0", HANDLED)
    assert "9.50.0 is not a pinned Cluster Autoscaler chart" in reason
