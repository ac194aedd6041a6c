"""Node group labels and taints follow Kubernetes syntax and EKS's limits: a bad key or
value is refused before any resource exists, with its path, the value and the rule."""

import pytest
from trainstack.config import ConfigError, validate_stack_config


def refusal(config, labels=None, taints=None):
    if labels is not None:
        config["nodeGroups"][0]["labels"] = labels
    if taints is not None:
        config["nodeGroups"][0]["taints"] = taints
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(config)
    [issue] = refused.value.issues
    return issue


def accepts(config, labels=None, taints=None):
    config["nodeGroups"][0].update({"labels": labels or {}, "taints": taints or []})
    return validate_stack_config(config).node_groups[0]


BAD_LABEL_KEYS = {
    "bad key!": "may hold only letters, digits",
    "-team": "begin and end with a letter or digit",
    "team.": "begin and end with a letter or digit",
    "a/b/c": "at most one '/'",
    "/team": "the prefix before '/' is empty",
    "example.com/": "the name after '/' is empty",
    "Example.com/team": "is not a DNS subdomain",
    "example..com/team": "is not a DNS subdomain",
    "x" * 64: "at most 63 characters, prefix included; this one has 64",
    "example.com/" + "x" * 52: "prefix included; this one has 64",
    "kubernetes.io/role": "in the kubernetes.io namespace",
    "node-role.kubernetes.io/gpu": "in the kubernetes.io namespace",
    "k8s.io/team": "in the k8s.io namespace",
    "eks.amazonaws.com/capacityType": "in the eks.amazonaws.com namespace",
}


@pytest.mark.parametrize("key", list(BAD_LABEL_KEYS))
def test_a_label_key_that_is_not_a_qualified_name_is_refused_with_the_rule(key, valid_config):
    issue = refusal(valid_config, labels={key: "llm"})
    assert issue.path == f"trainstack:nodeGroups[0].labels.{key}"
    assert issue.value == key
    assert "is not a valid Kubernetes label key" in issue.message
    assert BAD_LABEL_KEYS[key] in issue.message
    assert "at most 63 characters in all" in issue.fix


BAD_LABEL_VALUES = {
    "": "EKS takes no empty label values",
    "two words": "may hold only letters, digits",
    "_llm": "begin and end with a letter or digit",
    "v" * 64: "at most 63 characters; this one has 64",
}


@pytest.mark.parametrize("value", list(BAD_LABEL_VALUES))
def test_a_label_value_outside_the_syntax_is_refused_under_its_key(value, valid_config):
    issue = refusal(valid_config, labels={"team": value})
    assert issue.path == "trainstack:nodeGroups[0].labels.team"
    assert issue.value == value
    assert BAD_LABEL_VALUES[value] in issue.message


def test_labels_within_the_rules_are_kept_as_given(valid_config):
    labels = {"team": "llm", "example.com/team": "llm-1.0_a", "a": "b", "x" * 63: "v" * 63}
    assert accepts(valid_config, labels=labels).labels == labels


@pytest.mark.parametrize(("key", "rule"), [
    ("dedicated gpu", "may hold only letters, digits"),
    ("a/b/c", "at most one '/'"),
    ("Example.com/dedicated", "is not a DNS subdomain"),
    ("t" * 64, "this one has 64"),
    ("node.kubernetes.io/unschedulable", "in the kubernetes.io namespace"),
])
def test_a_taint_key_that_is_not_a_qualified_name_is_refused_with_the_rule(key, rule, valid_config):
    issue = refusal(valid_config, taints=[{"key": key, "value": "llm"}])
    assert issue.path == "trainstack:nodeGroups[0].taints[0].key"
    assert issue.value == key
    assert "is not a valid Kubernetes taint key" in issue.message and rule in issue.message


@pytest.mark.parametrize(("value", "rule"), [
    ("two words", "may hold only letters, digits"),
    ("-llm", "begin and end with a letter or digit"),
    ("v" * 64, "this one has 64"),
])
def test_a_taint_value_outside_the_syntax_is_refused(value, rule, valid_config):
    issue = refusal(valid_config, taints=[{"key": "dedicated", "value": value}])
    assert issue.path == "trainstack:nodeGroups[0].taints[0].value"
    assert issue.value == value
    assert rule in issue.message
    assert "leave the value out" in issue.fix


def test_a_taint_effect_kubernetes_does_not_know_is_refused_with_the_three_it_does(valid_config):
    issue = refusal(valid_config, taints=[{"key": "dedicated", "effect": "NoScheduled"}])
    assert issue.path == "trainstack:nodeGroups[0].taints[0].effect"
    assert "'NoSchedule', 'PreferNoSchedule' or 'NoExecute'" in issue.fix


def test_taints_within_the_rules_are_accepted_with_or_without_a_value(valid_config):
    group = accepts(valid_config, taints=[{"key": "example.com/dedicated", "value": "llm", "effect": "NoExecute"},
                            {"key": "dedicated", "value": ""}, {"key": "spot"}])
    assert [(t.key, t.value, t.effect) for t in group.taints] == [
        ("example.com/dedicated", "llm", "NoExecute"), ("dedicated", "", "NoSchedule"), ("spot", None, "NoSchedule")]
