"""trainstack diff on crafted pairs of plan records: what changes, what it risks, and the gate."""

import copy
import json
from pathlib import Path

import pytest
from support.plan_records import compare, record, save, stack_config
from trainstack import cli
from trainstack.review import assess

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


@pytest.fixture(scope="module")
def fsdp_base(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("fsdp-base"), "fsdp-p5")


def dev_with_fsx(deployment_type: str):
    def edit(config: dict) -> None:
        config["trainstack:fsx"] = {"deploymentType": deployment_type, "storageCapacityGiB": 1200,
                                    "zone": "us-east-1a"}
        if deployment_type == "PERSISTENT_2":
            config["trainstack:fsx"]["perUnitStorageThroughput"] = 125
    return edit


def run_diff(tmp_path: Path, base: dict, head: dict, *args: str, cwd: Path | None = None) -> int:
    return cli.main(["diff", str(save(tmp_path / "base.json", base)), str(save(tmp_path / "head.json", head)),
                     "--cwd", str(cwd or tmp_path), *args])


def change_of(diff, type_token: str, name: str):
    return next(c for c in diff.changes if c.type == type_token and c.name == name)


def test_a_new_gpu_instance_type_replaces_the_node_group_and_kills_the_jobs_on_its_nodes(fsdp_base, tmp_path, capsys):
    head = record(tmp_path / "head", "fsdp-p5",
                  lambda c: c["trainstack:nodeGroups"][0].update(instanceType="p5en.48xlarge"))
    diff = compare(fsdp_base, head)
    group = change_of(diff, NODE_GROUP, "fsdp-p5-eks-p5")
    assert group.action == "replace"
    assert [(i.path, i.before, i.after) for i in group.replaced_by] == [("instanceTypes[0]", "p5.48xlarge",
                                                                         "p5en.48xlarge")]
    template = change_of(diff, "aws:ec2/launchTemplate:LaunchTemplate", "fsdp-p5-eks-p5")
    assert template.action == "update"  # p5en has 16 EFA interfaces: a new template version
    roll = [f for f in assess(diff) if f.kind == "node-roll"]
    assert [f.urn for f in roll] == [group.urn]
    assert "2 nodes replaced, jobs on them are killed" in roll[0].title and "up to 16 at max size" in roll[0].detail
    assert run_diff(tmp_path, fsdp_base, head) == 0  # no data lost: the gate stays open
    assert "+- replace  aws:eks/nodeGroup:NodeGroup  fsdp-p5-eks-p5" in capsys.readouterr().out


def test_raising_fsx_storage_capacity_updates_the_file_system_in_place(fsdp_base, tmp_path):
    head = record(tmp_path / "head", "fsdp-p5", lambda c: c["trainstack:fsx"].update(storageCapacityGiB=9600))
    diff = compare(fsdp_base, head)
    file_system = change_of(diff, FSX, "fsdp-p5-fsx")
    assert file_system.action == "update"
    assert [(i.path, i.before, i.after, i.effect) for i in file_system.inputs] == [
        ("storageCapacity", 4800, 9600, "update")]
    assert not [f for f in assess(diff) if f.kind == "data-loss"]
    assert run_diff(tmp_path, fsdp_base, head) == 0


def test_shrinking_fsx_storage_capacity_replaces_it():
    base = {"formatVersion": 2, "project": "p", "stack": "s", "resources": [
        {"urn": "urn:pulumi:s::p::" + FSX + "::fs", "type": FSX, "name": "fs", "custom": True,
         "inputs": {"storageCapacity": 2400, "deploymentType": "PERSISTENT_2"}, "options": {"protect": True}}]}
    head = copy.deepcopy(base)
    head["resources"][0]["inputs"]["storageCapacity"] = 1200
    assert compare(base, head).changes[0].action == "replace"


def test_a_new_fsx_deployment_type_replaces_it_loses_its_data_is_blocked_by_protect_and_closes_the_gate(
        tmp_path, capsys):
    base = record(tmp_path / "base", "dev", dev_with_fsx("SCRATCH_2"))
    head = record(tmp_path / "head", "dev", dev_with_fsx("PERSISTENT_2"))
    diff = compare(base, head)
    file_system = change_of(diff, FSX, "dev-fsx")
    assert file_system.action == "replace"
    assert "deploymentType" in [i.path for i in file_system.replaced_by]
    # The PersistentVolume names the file system's id, which the replacement changes: it follows.
    volume = change_of(diff, "kubernetes:core/v1:PersistentVolume", "dev-fsx-pv")
    assert volume.action == "replace" and any(i.caused_by == file_system.urn for i in volume.inputs)
    findings = assess(diff)
    loss = [f for f in findings if f.kind == "data-loss"]
    assert [(f.urn, f.severity) for f in loss] == [(file_system.urn, "blocking")]
    assert f"--approve-replace {file_system.urn}" in loss[0].detail
    protected = [f for f in findings if f.kind == "protected" and f.urn == file_system.urn]
    assert protected and "`pulumi up` stops here" in protected[0].title and "fsx.protect: false" in protected[0].detail
    assert run_diff(tmp_path, base, head) == 1
    assert "Gate: BLOCKED" in capsys.readouterr().out
    # Approving that one resource by URN opens the gate; protection is still reported.
    assert run_diff(tmp_path, base, head, "--approve-replace", file_system.urn) == 0
    assert "is protected: `pulumi up` stops here" in capsys.readouterr().out
    # An approval of another resource is an error (exit 2) naming it and the URN that could be approved:
    # a mistyped URN must not pass for an accepted risk.
    assert run_diff(tmp_path, base, head, "--approve-replace", volume.urn) == 2
    error = capsys.readouterr().err
    assert f"--approve-replace {volume.urn}: matches no replacement" in error
    assert f"could approve: {file_system.urn}" in error and "Traceback" not in error


def test_a_new_node_group_is_created_and_adds_its_cost(fsdp_base, tmp_path, capsys):
    head = record(tmp_path / "head", "fsdp-p5", lambda c: c["trainstack:nodeGroups"].append(
        {"name": "p4d", "instanceType": "p4d.24xlarge", "minSize": 0, "desiredSize": 1, "maxSize": 2,
         "zone": "us-east-1a", "efa": True}))
    diff = compare(fsdp_base, head)
    assert {(c.type, c.action) for c in diff.changes} >= {(NODE_GROUP, "create"),
                                                           ("aws:ec2/launchTemplate:LaunchTemplate", "create")}
    assert {c.action for c in diff.changes} == {"create"}
    assert run_diff(tmp_path, fsdp_base, head, "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    new_lines = [line for line in head["cost"]["lines"] if "fsdp-p5-eks-p4d" in line["item"]]
    assert [line["item"].strip().split(" ")[0]
            for line in new_lines] == ["fsdp-p5-eks-p4d", "fsdp-p5-eks-p4d"]  # + volumes
    cost = report["deltas"]["costUsdPerHour"]
    for at in ("desired", "max"):
        added = sum(line[at] * line["usdPerHour"] for line in new_lines)
        assert added > 20 and cost[at]["change"] == pytest.approx(added, abs=0.001)
    # the group, its launch template and placement group, three autoscaler tags (GPUs, EFA, huge pages)
    assert report["counts"]["create"] == 6 and report["gate"] == {"passed": True, "blocking": [], "security": []}


def test_a_newly_failing_mandatory_policy_closes_the_gate_with_a_sarif_result_at_the_stack_file_line(tmp_path,
                                                                                                      capsys):
    base = record(tmp_path / "base", "dev")
    head_dir = tmp_path / "head"
    head = record(head_dir, "dev", lambda c: c["trainstack:nodeGroups"][0].update(minSize=1))
    diff = compare(base, head)
    assert [(f.rule, f.enforcement) for f in diff.new_failures] == [("dev-groups-scale-to-zero", "mandatory")]
    assert run_diff(tmp_path, base, head, "--format", "sarif", cwd=head_dir) == 1
    log = json.loads(capsys.readouterr().out)
    results = [r for r in log["runs"][0]["results"] if r["ruleId"] == "dev-groups-scale-to-zero"]
    assert len(results) == 1 and results[0]["level"] == "error"
    location = results[0]["locations"][0]["physicalLocation"]
    lines = (head_dir / "Pulumi.dev.yaml").read_text().splitlines()
    assert location["artifactLocation"]["uri"] == "Pulumi.dev.yaml"
    assert lines[location["region"]["startLine"] - 1].strip() == "minSize: 1"


def test_nothing_changed_is_an_empty_diff_and_exit_0(fsdp_base, tmp_path, capsys):
    head = record(tmp_path / "head", "fsdp-p5")
    diff = compare(fsdp_base, head)
    assert diff.empty and not assess(diff)
    assert run_diff(tmp_path, fsdp_base, head) == 0
    assert "no changes" in capsys.readouterr().out


def test_the_convenience_plans_the_stack_now_and_compares_it_to_a_saved_base(fsdp_base, tmp_path, capsys):
    config = stack_config("fsdp-p5")
    config["trainstack:fsx"]["storageCapacityGiB"] = 9600
    record(tmp_path / "project", "fsdp-p5", config=config)  # writes the project planned below
    base = save(tmp_path / "base.json", fsdp_base)
    assert cli.main(["diff", str(base), "--cwd", str(tmp_path / "project"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["action"]) for r in report["resources"] if r["type"] == FSX] == [("fsdp-p5-fsx", "update")]


def test_records_of_different_stacks_or_not_records_are_refused_with_exit_2(fsdp_base, tmp_path, capsys):
    other = dict(fsdp_base, stack="dev")
    assert run_diff(tmp_path, fsdp_base, other) == 2
    assert "different stacks" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{")
    assert cli.main(["diff", str(tmp_path / "broken.json"), str(tmp_path / "broken.json")]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert cli.main(["diff", str(save(tmp_path / "v9.json", dict(fsdp_base, formatVersion=9))),
                     str(tmp_path / "head.json")]) == 2
    assert "formatVersion 9" in capsys.readouterr().err


def test_shrinking_trn1s_file_system_shows_the_slower_checkpoint_and_closes_the_gate(tmp_path, capsys):
    """2400 GiB at 500 -> 1200 GiB at 250 MB/s/TiB: 1,171.9 -> 293.0 MB/s; a 182 GB checkpoint takes
    155.3 s -> 621.2 s (+465.9 s), 8.6% -> 34.5% of its 30-minute interval, over the 10% ceiling.
    The smaller capacity also replaces the file system (its data lost), which the gate blocks anyway."""
    base = record(tmp_path / "base", "trn1")
    head = record(tmp_path / "head", "trn1", lambda c: c["trainstack:fsx"].update(
        storageCapacityGiB=1200, perUnitStorageThroughput=250))
    assert run_diff(tmp_path, base, head, "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["deltas"]["checkpointWriteSeconds"] == {"base": 155.3, "head": 621.2, "change": 465.9}
    assert report["deltas"]["checkpointIntervalShare"] == {"base": 0.0863, "head": 0.3451, "change": 0.2588}
    assert "checkpoint-write-share" in {f["rule"] for f in report["deltas"]["policies"]["newFailures"]}
    assert run_diff(tmp_path, base, head) == 1
    assert "checkpoint write: 155.3 s -> 621.2 s (+465.9 s)" in capsys.readouterr().out


def test_switching_fsx_efa_off_replaces_the_file_system_and_closes_the_gate(tmp_path, capsys):
    # Issue 37: efaEnabled had no fact, so this planned as an in-place update and the gate passed.
    base = record(tmp_path / "base", "fsdp-p5")
    head = record(tmp_path / "head", "fsdp-p5", lambda c: c["trainstack:fsx"].update(efa=False))
    file_system = change_of(compare(base, head), FSX, "fsdp-p5-fsx")
    assert file_system.action == "replace" and [i.path for i in file_system.replaced_by] == ["efaEnabled"]
    assert run_diff(tmp_path, base, head) == 1
    out = capsys.readouterr().out
    assert "efaEnabled: true -> null  [forces replacement]" in out and "Gate: BLOCKED" in out
