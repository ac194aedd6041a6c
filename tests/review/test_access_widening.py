"""A change that widens a team's access is a security change the gate names; one that narrows it is not.

The base is kueue-p5 (teams llm and vision, a member each, a queue viewer) planned offline; each head is the same
stack with one change, made in its stack file (a member added, a dataset given to one more team) or in its record
(a prefix widened, a Role given a verb, a cluster-wide binding, a looser Pod Security level, a NetworkPolicy
removed), as a hand-edited or mis-rendered record would be. The findings are read from the record's resources
(review/access.py), so an edit of the record is seen as the deploy would see it.
"""

import copy
import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support.plan_records import compare, record, stack_config
from trainstack.review import assess, render_markdown, render_text, security
from trainstack.review.render import as_dict

LLM = "arn:aws:iam::123456789012:role/llm-researchers"
NEW_MEMBER = "arn:aws:iam::123456789012:role/llm-interns"
DATASET = {"name": "corpus", "bucket": "ml-platform-datasets", "prefix": "fineweb-edu/",
           "mountPath": "/datasets/fineweb-edu", "teams": ["llm"]}


def with_dataset(config: dict[str, Any]) -> None:
    config["trainstack:datasets"] = [copy.deepcopy(DATASET)]


@functools.cache
def planned(edit: str) -> dict[str, Any]:
    """kueue-p5's record with one stack-file edit (planned once per edit)."""
    edits = {
        "none": lambda c: None,
        "dataset for llm": with_dataset,
        "dataset for llm and vision": lambda c: (with_dataset(c), c["trainstack:datasets"][0].update(
            teams=["llm", "vision"])),
        "member added": lambda c: c["trainstack:scheduling"]["teams"][0]["members"].append(NEW_MEMBER),
        "member removed": lambda c: c["trainstack:scheduling"]["teams"][0].update(members=[]),
    }
    return record(Path(tempfile.mkdtemp(prefix="access-")), "kueue-p5", edits[edit], stack_config("kueue-p5"))


def resource(document: dict[str, Any], type_suffix: str, name: str) -> dict[str, Any]:
    return next(r for r in document["resources"] if r["type"].endswith(type_suffix) and r["name"] == name)


def objects(document: dict[str, Any], team: str) -> list[dict[str, Any]]:
    return resource(document, "ConfigGroup", f"kueue-p5-teams-{team}")["inputs"]["objs"]


def edited(edit) -> dict[str, Any]:
    document = copy.deepcopy(planned("none"))
    edit(document)
    return document


def widen_prefix(document: dict[str, Any]) -> None:
    policy = resource(document, "RolePolicy", "kueue-p5-teams-vision")["inputs"]
    policy["policy"] = policy["policy"].replace("teams/vision/", "teams/")


def narrow_prefix(document: dict[str, Any]) -> None:
    policy = resource(document, "RolePolicy", "kueue-p5-teams-vision")["inputs"]
    policy["policy"] = policy["policy"].replace("teams/vision/", "teams/vision/run-1/")


def role_reads_secrets(document: dict[str, Any]) -> None:
    role = next(o for o in objects(document, "llm") if o["kind"] == "Role")
    role["rules"].append({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]})


def role_drops_delete(document: dict[str, Any]) -> None:
    role = next(o for o in objects(document, "llm") if o["kind"] == "Role")
    for rule in role["rules"]:
        rule["verbs"] = [v for v in rule["verbs"] if v != "delete"]


def cluster_wide_binding(document: dict[str, Any]) -> None:
    binding = next(o for o in objects(document, "llm") if o["kind"] == "RoleBinding")
    objects(document, "llm").append({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "llm-everywhere"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                           "kind": "ClusterRole", "name": "trainstack-queue-viewer"},
        "subjects": binding["subjects"]})


def bound_in_vision(document: dict[str, Any]) -> None:
    binding = next(o for o in objects(document, "llm") if o["kind"] == "RoleBinding")
    objects(document, "vision").append({**copy.deepcopy(binding), "metadata": {"name": "llm-in-vision",
                                                                                "namespace": "vision"}})


def member_moved(document: dict[str, Any]) -> None:
    entry = next(r for r in document["resources"] if r["type"].endswith("AccessEntry")
                 and r["inputs"]["principalArn"] == LLM)
    entry["inputs"]["kubernetesGroups"] = ["trainstack:team:llm", "trainstack:team:vision"]


def pod_security_privileged(document: dict[str, Any]) -> None:
    namespace = next(r for r in document["resources"] if r["type"].endswith("core/v1:Namespace")
                     and r["inputs"]["metadata"]["name"] == "llm")
    namespace["inputs"]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "privileged"


def pod_security_restricted(document: dict[str, Any]) -> None:
    namespace = next(r for r in document["resources"] if r["type"].endswith("core/v1:Namespace")
                     and r["inputs"]["metadata"]["name"] == "llm")
    namespace["inputs"]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "restricted"


def network_policy_removed(document: dict[str, Any]) -> None:
    group = objects(document, "vision")
    group[:] = [o for o in group if o["kind"] != "NetworkPolicy"]


def network_policy_opened(document: dict[str, Any]) -> None:
    policy = next(o for o in objects(document, "vision") if o["kind"] == "NetworkPolicy")
    policy["spec"]["ingress"][0]["from"].append({"namespaceSelector": {}})


def titles(base: dict[str, Any], head: dict[str, Any]) -> list[str]:
    return [f.title for f in security(assess(compare(base, head)))]


WIDENINGS = {
    # change: (base, head) and the words its one finding must hold
    "a new member": (lambda: (planned("none"), planned("member added")),
                     [NEW_MEMBER, "is given access as a member of team llm"]),
    "a dataset given to one more team": (lambda: (planned("dataset for llm"), planned("dataset for llm and vision")),
                                         ["team vision's pods may do more in AWS", "datasets newly reached: corpus"]),
    "a checkpoint prefix widened": (lambda: (planned("none"), edited(widen_prefix)),
                                    ["team vision's pods may do more in AWS"]),
    "a Role given more resources and verbs": (lambda: (planned("none"), edited(role_reads_secrets)),
                                              ["group trainstack:team:llm may do more (team llm)"]),
    "a cluster-wide binding of a team's group": (
        lambda: (planned("none"), edited(cluster_wide_binding)),
        ["group trainstack:team:llm may do more", "bound outside its namespace llm: cluster-wide"]),
    "a team's group bound in another team's namespace": (
        lambda: (planned("none"), edited(bound_in_vision)),
        ["group trainstack:team:llm may do more", "bound outside its namespace llm: vision"]),
    "a member moved to a wider group": (lambda: (planned("none"), edited(member_moved)),
                                        [LLM, "is moved to a wider group"]),
    "a Pod Security level loosened": (lambda: (planned("none"), edited(pod_security_privileged)),
                                      ["namespace llm (team llm) enforces Pod Security privileged, looser than "
                                       "baseline"]),
    "a NetworkPolicy removed": (lambda: (planned("none"), edited(network_policy_removed)),
                                ["namespace vision (team vision) is open to every pod of the cluster"]),
    "a NetworkPolicy widened": (lambda: (planned("none"), edited(network_policy_opened)),
                                ["namespace vision (team vision) admits more ingress"]),
}


@pytest.mark.parametrize("change", WIDENINGS)
def test_a_change_that_widens_a_teams_access_is_one_security_finding_the_gate_shows(change):
    sides, words = WIDENINGS[change]
    base, head = sides()
    diff = compare(base, head)
    findings = assess(diff)
    widened = security(findings)
    assert len(widened) == 1, [f.title for f in widened]
    said = f"{widened[0].title}. {widened[0].detail}"
    assert all(word in said for word in words), said
    assert widened[0].severity == "warning" and widened[0].urn is not None
    # The gate shows it in every form: the text's last line, the pull request's heading, the JSON gate.
    assert render_text(diff, findings).rstrip().endswith("Gate: passed, with 1 security change")
    assert "**passes**, with 1 security change" in render_markdown(diff, findings)
    assert as_dict(diff, findings)["gate"]["security"] == [widened[0].title]


NARROWINGS = {
    "a member removed": lambda: (planned("none"), planned("member removed")),
    "a dataset taken from a team": lambda: (planned("dataset for llm and vision"), planned("dataset for llm")),
    "a checkpoint prefix narrowed": lambda: (planned("none"), edited(narrow_prefix)),
    "a verb taken from a Role": lambda: (planned("none"), edited(role_drops_delete)),
    "a Pod Security level tightened": lambda: (planned("none"), edited(pod_security_restricted)),
    "a team's record unchanged": lambda: (planned("none"), planned("none")),
}


@pytest.mark.parametrize("change", NARROWINGS)
def test_a_change_that_only_narrows_a_teams_access_is_no_security_change(change):
    base, head = NARROWINGS[change]()
    diff = compare(base, head)
    findings = assess(diff)
    assert security(findings) == []
    assert as_dict(diff, findings)["gate"]["security"] == []
    assert render_text(diff, findings).rstrip().endswith("Gate: passed")


def test_a_widening_record_edit_shows_in_the_diff_as_the_resource_that_grants_it():
    # The finding points at the resource a reviewer opens: the team's IAM policy, not the stack as a whole.
    base, head = planned("none"), edited(widen_prefix)
    [finding] = security(assess(compare(base, head)))
    assert finding.urn == resource(head, "RolePolicy", "kueue-p5-teams-vision")["urn"]
    assert "s3:DeleteObject on arn:aws:s3:::" in finding.detail and "/teams/*;" in finding.detail


def test_sarif_reports_each_security_change_as_a_warning_at_the_scheduling_key(tmp_path):
    from support.plan_records import write_project
    from trainstack.review import render_sarif

    base, head = planned("none"), planned("member added")
    config = stack_config("kueue-p5")
    config["trainstack:scheduling"]["teams"][0]["members"].append(NEW_MEMBER)
    root = write_project(tmp_path, "kueue-p5", config)
    head = {**head, "stackFile": "Pulumi.kueue-p5.yaml"}
    diff = compare(base, head)
    log = render_sarif(diff, assess(diff), root)
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "trainstack-diff/access"]
    assert result["level"] == "warning" and NEW_MEMBER in result["message"]["text"]
    lines = (root / "Pulumi.kueue-p5.yaml").read_text().splitlines()
    assert lines[result["locations"][0]["physicalLocation"]["region"]["startLine"] - 1].strip().startswith(
        "trainstack:scheduling"), json.dumps(result)
