"""Risk in a reviewer's words: Kubernetes version steps, node rolls, secrets, retained resources, approvals."""

import copy
import re

import pytest
from support.plan_records import compare, record
from trainstack.review import ApprovalError, assess, blocking, render_markdown, render_text

CLUSTER = "eks:index:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("risk"), "fsdp-p5")


def edited(document: dict, type_token: str, name: str, edit) -> dict:
    head = copy.deepcopy(document)
    resource = next(r for r in head["resources"] if r["type"] == type_token and r["name"] == name)
    edit(resource)
    return head


def with_version(document: dict, version: str, types: tuple[str, ...] = (CLUSTER, NODE_GROUP)) -> dict:
    head = copy.deepcopy(document)
    for resource in head["resources"]:
        if resource["type"] in types:
            resource["inputs"]["version"] = version
    return head


def test_a_two_minor_kubernetes_jump_is_refused_as_eks_refuses_it(base):
    findings = assess(compare(with_version(base, "1.33"), base))
    refused = [f for f in blocking(findings) if f.kind == "kubernetes-version"]
    assert len(refused) == 1 and "skips a minor version" in refused[0].title and "go to 1.34 first" in refused[0].detail


def test_a_one_minor_rollback_above_node_groups_already_back_passes_warning_of_the_seven_day_window(base):
    # EKS takes the control plane back to the previous minor within 7 days of the in-place upgrade
    # (rollback-cluster.html); the node groups went back first, in a change of their own.
    nodes_back = with_version(base, "1.34", (NODE_GROUP,))
    findings = assess(compare(nodes_back, with_version(nodes_back, "1.34", (CLUSTER,))))
    assert not blocking(findings)
    [rollback] = [f for f in findings if f.kind == "kubernetes-version"]
    assert (rollback.severity, rollback.title) == ("warning", "fsdp-p5-eks: Kubernetes 1.35 -> 1.34 is a rollback")
    assert rollback.detail.startswith("EKS rolls the control plane back one minor only within 7 days of the in-place "
                                      "upgrade to 1.35 completing, on a cluster upgraded to 1.35 rather than created "
                                      "on it; after that EKS refuses it")


def test_a_rollback_under_node_groups_still_on_the_newer_minor_is_refused(base):
    # EKS rolls back no managed node group, and Pulumi would move the cluster before the groups that stand on it.
    refused = [f for f in blocking(assess(compare(base, with_version(base, "1.34")))) if f.kind == "kubernetes-version"]
    assert [f.title for f in refused] == ["fsdp-p5-eks: Kubernetes 1.35 -> 1.34 rolls back under node groups still on "
                                          "1.35"]
    assert "Roll fsdp-p5-eks-p5, fsdp-p5-eks-system back to 1.34 first, in a change of their own" in refused[0].detail


def test_a_rollback_of_two_minors_is_refused_as_eks_rolls_back_one(base):
    nodes_back = with_version(base, "1.33", (NODE_GROUP,))
    refused = [f for f in blocking(assess(compare(nodes_back, with_version(nodes_back, "1.33", (CLUSTER,)))))
               if f.kind == "kubernetes-version"]
    assert [f.title for f in refused] == ["fsdp-p5-eks: Kubernetes 1.35 -> 1.33 rolls back more than one minor"]
    assert refused[0].detail.startswith("EKS rolls a control plane back to the previous minor only (1.34), within 7 "
                                        "days of the upgrade to 1.35")


def test_one_minor_step_passes_and_rolls_every_node_group_at_its_update_pace(base):
    findings = assess(compare(with_version(base, "1.34"), base))
    assert not blocking(findings)
    assert [f.severity for f in findings if f.kind == "kubernetes-version"] == ["warning"]
    rolls = {f.title.split(":")[0]: f for f in findings if f.kind == "node-roll"}
    assert set(rolls) == {"fsdp-p5-eks-p5", "fsdp-p5-eks-system"}
    p5 = rolls["fsdp-p5-eks-p5"]
    assert "2 nodes rolled" in p5.title and "`version` changed" in p5.detail
    # maxUnavailable 1 and 2 nodes: two batches of a GPU node (about 8 minutes each).
    assert "Estimated 16 min: 2 batches of at most 1 node" in p5.detail


def test_a_changed_launch_template_is_a_new_version_that_rolls_its_group(base):
    head = edited(base, "aws:ec2/launchTemplate:LaunchTemplate", "fsdp-p5-eks-p5",
                  lambda r: r["inputs"]["metadataOptions"].update(httpPutResponseHopLimit=3))
    diff = compare(base, head)
    assert [(c.name, c.action) for c in diff.changes] == [("fsdp-p5-eks-p5", "update")]
    rolls = [f for f in assess(diff) if f.kind == "node-roll"]
    assert len(rolls) == 1 and "its launch template fsdp-p5-eks-p5 changed (a new version)" in rolls[0].detail


def test_secret_values_are_masked_on_both_sides(base):
    before = edited(base, "aws:iam/role:Role", "fsdp-p5-eks-nodes",
                    lambda r: r["inputs"].update(description="[secret]"))
    diff = compare(before, base)
    change = diff.changes[0]
    assert [(i.path, i.before, i.after) for i in change.inputs] == [("description", "[secret]", "[secret]")]
    assert "fsdp-p5" not in render_text(diff, assess(diff)).split("description:")[1].split("\n")[0]


def test_ignored_inputs_change_no_resource_as_pulumi_leaves_them_and_are_said_to_be_ignored(base):
    head = edited(base, NODE_GROUP, "fsdp-p5-eks-p5", lambda r: r["inputs"]["scalingConfig"].update(desiredSize=9))
    diff = compare(base, head)
    assert diff.changes == [] and [(i.name, i.path, i.before, i.after) for i in diff.ignored] == [
        ("fsdp-p5-eks-p5", "scalingConfig.desiredSize", 2, 9)]
    assert [(f.kind, f.severity) for f in assess(diff)] == [("ignored", "note")]


def test_a_retained_stateful_resource_deleted_is_not_data_loss(base):
    retained = edited(base, "aws:ecr/repository:Repository", "fsdp-p5-images",
                      lambda r: r["options"].update(retainOnDelete=True))
    head = copy.deepcopy(retained)
    head["resources"] = [r for r in head["resources"] if r["type"] != "aws:ecr/repository:Repository"]
    findings = assess(compare(retained, head))
    assert not blocking(findings) and any("retained" in f.title for f in findings)
    dropped = copy.deepcopy(base)
    dropped["resources"] = [r for r in dropped["resources"] if r["type"] != "aws:ecr/repository:Repository"]
    assert [f.kind for f in blocking(assess(compare(base, dropped)))] == ["data-loss"]


def test_an_approval_that_matches_nothing_is_an_error_naming_it_and_what_could_be_approved(base):
    urn = "urn:pulumi:fsdp-p5::trainstack::aws:s3/bucket:Bucket::nothing"
    with pytest.raises(ApprovalError, match=r"--approve-replace .*::nothing: matches no replacement.*"
                                            r"this diff has nothing to approve"):
        assess(compare(base, base), frozenset({urn}))
    # Another stack's URN is not silently skipped either.
    dropped = copy.deepcopy(base)
    dropped["resources"] = [r for r in dropped["resources"] if r["type"] != "aws:ecr/repository:Repository"]
    ecr = next(r["urn"] for r in base["resources"] if r["type"] == "aws:ecr/repository:Repository")
    with pytest.raises(ApprovalError, match=f"could approve: {re.escape(ecr)}"):
        assess(compare(base, dropped), frozenset({"urn:pulumi:other::trainstack::aws:s3/bucket:Bucket::b"}))
    assert not blocking(assess(compare(base, dropped), frozenset({ecr})))


# -- messages that say only what is true ------------------------------------------------------
def test_a_group_replaced_with_no_node_at_desired_size_says_nothing_of_killed_jobs(base):
    empty = edited(base, NODE_GROUP, "fsdp-p5-eks-p5", lambda r: r["inputs"]["scalingConfig"].update(desiredSize=0))
    head = edited(empty, NODE_GROUP, "fsdp-p5-eks-p5", lambda r: r["inputs"].update(instanceTypes=["p5e.48xlarge"]))
    (roll,) = [f for f in assess(compare(empty, head)) if f.kind == "node-roll"]
    assert roll.title == "fsdp-p5-eks-p5: replaced, with no node at desired size"
    assert "killed" not in roll.title + roll.detail and "0 nodes at desired size" in roll.detail
    # With nodes it still says what happens to their jobs.
    (busy,) = [f for f in assess(compare(base, edited(base, NODE_GROUP, "fsdp-p5-eks-p5", lambda r: r["inputs"].update(
        instanceTypes=["p5e.48xlarge"])))) if f.kind == "node-roll"]
    assert busy.title.endswith("nodes replaced, jobs on them are killed")


def test_a_deleted_security_group_is_not_said_to_be_rebuilt(base):
    # The file system's security group goes while the file system stays: nothing is built in its place.
    group = next(r["urn"] for r in base["resources"]
                 if r["type"] == "aws:ec2/securityGroup:SecurityGroup" and r["name"] == "fsdp-p5-fsx")
    head = copy.deepcopy(base)
    head["resources"] = [r for r in head["resources"] if r["urn"] != group]
    (warning,) = [f for f in assess(compare(base, head)) if f.kind == "network" and f.urn == group]
    assert warning.title == "fsdp-p5-fsx: a security group under running things is deleted"
    assert "builds a new one" not in warning.detail and "Nothing takes its place" in warning.detail


def test_a_checkpoint_figure_missing_on_one_side_reads_n_a_without_a_unit(base):
    head = copy.deepcopy(base)
    head.pop("storage")
    text = render_text(*_judged(base, head))
    assert "checkpoint write: 209.1 s -> n/a (n/a)" in text and "n/a s" not in text


def _judged(base: dict, head: dict):
    diff = compare(base, head)
    return diff, assess(diff)


def test_the_markdown_report_folds_details_under_one_section_per_stack(base):
    head = edited(base, NODE_GROUP, "fsdp-p5-eks-p5", lambda r: r["inputs"].update(instanceTypes=["p5e.48xlarge"]))
    diff = compare(base, head)
    text = render_markdown(diff, assess(diff))
    assert text.startswith("### trainstack diff: `fsdp-p5`: **passes**")
    assert "<details><summary>Resource changes (4)</summary>" in text  # + its three autoscaling tags
    assert "| replace | `fsdp-p5-eks-p5` | `aws:eks/nodeGroup:NodeGroup` |" in text


def test_a_change_no_fact_classifies_on_a_file_system_blocks_as_unknown_may_replace_with_its_path(base):
    fsx = "aws:fsx/lustreFileSystem:LustreFileSystem"
    head = edited(base, fsx, "fsdp-p5-fsx", lambda r: r["inputs"].update(networkType="DUAL"))
    diff = compare(base, head)
    (stop,) = blocking(assess(diff))
    assert (stop.kind, stop.title) == ("unknown-replacement", "fsdp-p5-fsx: `networkType` is unknown: may replace")
    assert "losing every file on the file system" in stop.detail and f"--approve-replace {stop.urn}" in stop.detail
    assert "networkType: null -> \"DUAL\"  [unknown: may replace]" in render_text(diff, assess(diff))
    assert not blocking(assess(diff, frozenset({stop.urn})))
