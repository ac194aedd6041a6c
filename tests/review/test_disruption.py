"""What a change does to running things, judged from the change and from what stands on what:
node groups deleted or renamed, HyperPod instance groups lost, network rebuilt under a cluster,
subnets EC2 would refuse, and changes Pulumi ignores."""

import copy
import json

import pytest
from support.plan_records import compare, record
from trainstack.review import assess, blocking
from trainstack.review.render import deltas

from .test_diff_pairs import run_diff

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
SUBNET = "aws:ec2/subnet:Subnet"
VPC = "aws:ec2/vpc:Vpc"


@pytest.fixture(scope="module")
def dev(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("dev"), "dev")


@pytest.fixture(scope="module")
def hyperpod(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("hyperpod"), "hyperpod")


def of_kind(findings, kind: str) -> list:
    return [f for f in findings if f.kind == kind]


def urn_of(document: dict, type_token: str, name: str) -> str:
    return next(r["urn"] for r in document["resources"] if r["type"] == type_token and r["name"] == name)


# -- node groups --------------------------------------------------------------------------
def test_renaming_dev_gpu_to_gpu_a_deletes_the_running_group_and_kills_its_jobs(dev, tmp_path, capsys):
    head = record(tmp_path / "head", "dev", lambda c: c["trainstack:nodeGroups"][0].update(name="gpu-a"))
    diff = compare(dev, head)
    (roll,) = of_kind(assess(diff), "node-roll")
    assert roll.severity == "warning" and roll.urn == urn_of(dev, NODE_GROUP, "dev-eks-gpu")
    assert roll.title == "dev-eks-gpu: 1 node deleted, jobs on them are killed"
    assert "dev-eks-gpu-a is created beside it: a renamed group is a new group" in roll.detail
    assert run_diff(tmp_path, dev, head) == 0
    assert "dev-eks-gpu: 1 node deleted, jobs on them are killed" in capsys.readouterr().out


def test_removing_every_node_group_kills_the_jobs_of_each(tmp_path):
    base = record(tmp_path / "base", "fsdp-p5")
    head = record(tmp_path / "head", "fsdp-p5", lambda c: c.pop("trainstack:nodeGroups"))
    rolls = of_kind(assess(compare(base, head)), "node-roll")
    assert [f.title for f in rolls] == ["fsdp-p5-eks-p5: 2 nodes deleted, jobs on them are killed"]
    assert "created beside it" not in rolls[0].detail


def test_a_group_deleted_by_hand_from_a_record_is_the_same_finding(dev):
    head = copy.deepcopy(dev)
    head["resources"] = [r for r in head["resources"] if not (r["type"] == NODE_GROUP and r["name"] == "dev-eks-gpu")]
    assert [f.title for f in of_kind(assess(compare(dev, head)), "node-roll")] == [
        "dev-eks-gpu: 1 node deleted, jobs on them are killed"]


# -- HyperPod instance groups -------------------------------------------------------------
def edit_workers(**changes):
    def edit(config: dict) -> None:
        config["trainstack:hyperpod"]["workers"][0].update(changes)
    return edit


@pytest.mark.parametrize("changes, said", [
    ({"name": "worker-group-2"}, "instance group worker-group-1 (2 x ml.g5.8xlarge) is removed: its instances are "
                                 "deleted (a new group is not a rename: worker-group-2 starts empty)"),
    ({"count": 1, "deepHealthChecks": ["InstanceStress"]},
     "instance group worker-group-1 shrinks from 2 to 1 instances: 1 are removed"),
    ({"instanceType": "ml.g5.12xlarge"}, "instance group worker-group-1 changes from ml.g5.8xlarge to "
                                         "ml.g5.12xlarge: every one of its 2 instances is a new instance"),
], ids=["renamed", "shrunk", "new type"])
def test_a_hyperpod_instance_group_renamed_shrunk_or_retyped_loses_its_instances(hyperpod, tmp_path, changes, said):
    head = record(tmp_path / "head", "hyperpod", edit_workers(**changes))
    diff = compare(hyperpod, head)
    cluster = next(c for c in diff.changes if c.type == "aws-native:sagemaker:Cluster")
    assert cluster.action == "update"  # instanceGroups update in place: the schema, not the risk
    (finding,) = of_kind(assess(diff), "instance-group")
    assert finding.severity == "warning" and finding.title == f"{cluster.name}: {said}, jobs on them are killed"


def test_a_hyperpod_instance_group_with_no_instance_loses_nothing_when_removed_or_retyped(hyperpod):
    empty = copy.deepcopy(hyperpod)
    cluster = next(r for r in empty["resources"] if r["type"] == "aws-native:sagemaker:Cluster")
    group = next(g for g in cluster["inputs"]["instanceGroups"] if g["instanceGroupName"] == "worker-group-1")
    group["instanceCount"] = 0
    retyped = copy.deepcopy(empty)
    next(g for r in retyped["resources"] if r["type"] == "aws-native:sagemaker:Cluster"
         for g in r["inputs"]["instanceGroups"] if g["instanceGroupName"] == "worker-group-1")["instanceType"] = \
        "ml.g5.12xlarge"
    assert not of_kind(assess(compare(empty, retyped)), "instance-group")


def test_a_hyperpod_instance_group_grown_loses_nothing(hyperpod, tmp_path):
    head = record(tmp_path / "head", "hyperpod", edit_workers(count=4))
    assert not of_kind(assess(compare(hyperpod, head)), "instance-group")


# -- network under running things ---------------------------------------------------------
def test_a_new_vpc_cidr_under_the_running_cluster_blocks_and_names_what_stands_on_each_part(dev, tmp_path, capsys):
    head = record(tmp_path / "head", "dev", lambda c: c["trainstack:network"].update(vpcCidr="10.1.0.0/16"))
    diff = compare(dev, head)
    findings = assess(diff)
    vpc_urn = urn_of(dev, VPC, "dev-network")
    cluster_urn = urn_of(dev, "eks:index:Cluster", "dev-eks")
    stops = {f.urn: f for f in blocking(findings)}
    assert set(stops) == {vpc_urn, cluster_urn}
    stop = stops[vpc_urn]
    assert stop.kind == "network"
    assert stop.title == "dev-network: the VPC of running dev-eks (EKS cluster) is replaced"
    assert "dev-eks-gpu (node group), dev-eks-system (node group)" in stop.detail
    warned = {f.title for f in of_kind(findings, "network") if f.severity == "warning"}
    assert {"dev-network-private-us-east-1a: a subnet under running things is replaced",
            "dev-network-us-east-1a: a NAT gateway under running things is replaced",
            "dev-network-private-us-east-1a: a route table under running things is replaced"} <= warned
    # The cluster's VPC cannot change (EKS keeps a cluster in the VPC it was created in): a new VPC is a
    # new cluster, and that is data loss to approve by its own URN.
    assert stops[cluster_urn].kind == "data-loss" and "Replaced because of `vpcId`" in stops[cluster_urn].detail
    assert run_diff(tmp_path, dev, head) == 1
    assert "Gate: BLOCKED (2 blocking findings)" in capsys.readouterr().out
    assert run_diff(tmp_path, dev, head, "--approve-replace", vpc_urn, "--approve-replace", cluster_urn) == 0


def test_a_new_private_subnet_size_is_refused_by_ec2_for_overlapping_the_subnets_still_there(dev, tmp_path):
    head = record(tmp_path / "head", "dev", lambda c: c["trainstack:network"].update(privateSubnetPrefixLength=19))
    findings = assess(compare(dev, head))
    refused = {f.title for f in blocking(findings)}
    assert refused == {
        "dev-network-private-us-east-1a: the new subnet 10.0.0.0/19 overlaps dev-network-private-us-east-1a "
        "10.0.0.0/18",
        "dev-network-private-us-east-1b: the new subnet 10.0.32.0/19 overlaps dev-network-private-us-east-1a "
        "10.0.0.0/18",
        "dev-network-public-us-east-1a: the new subnet 10.0.64.0/24 overlaps dev-network-private-us-east-1b "
        "10.0.64.0/18",
        "dev-network-public-us-east-1b: the new subnet 10.0.65.0/24 overlaps dev-network-private-us-east-1b "
        "10.0.64.0/18"}
    assert all(f.kind == "rejected" and "InvalidSubnet.Conflict" in f.detail for f in blocking(findings))


def with_subnet(document: dict, name: str, cidr: str, **options) -> dict:
    head = copy.deepcopy(document)
    subnet = next(r for r in head["resources"] if r["type"] == SUBNET and r["name"] == name)
    subnet["inputs"]["cidrBlock"] = cidr
    subnet["options"].update(options)
    return head


def test_a_subnet_moved_to_a_free_range_is_a_warning_naming_what_runs_on_it_not_a_refusal(dev):
    findings = assess(compare(dev, with_subnet(dev, "dev-network-private-us-east-1a", "10.0.200.0/24")))
    assert not blocking(findings)
    (moved,) = of_kind(findings, "network")
    assert moved.severity == "warning" and moved.detail.startswith(
        "Standing on it: dev-eks (EKS cluster), dev-eks-gpu (node group), dev-eks-system (node group).")


def test_a_subnet_replaced_delete_before_replace_may_reuse_its_range(dev):
    head = with_subnet(dev, "dev-network-private-us-east-1a", "10.0.0.0/19", deleteBeforeReplace=True)
    assert not of_kind(assess(compare(dev, head)), "rejected")


def test_a_file_system_standing_on_a_replaced_vpc_blocks_and_is_named(tmp_path):
    base = record(tmp_path / "base", "nemo-p4de")
    head = record(tmp_path / "head", "nemo-p4de", lambda c: c["trainstack:network"].update(vpcCidr="10.9.0.0/16"))
    (stop,) = [f for f in blocking(assess(compare(base, head))) if f.kind == "network"]
    assert "nemo-p4de-fsx (file system)" in stop.title


# -- ignored changes ----------------------------------------------------------------------
def test_a_new_desired_size_on_an_existing_group_is_said_to_be_ignored_and_moves_no_cost(dev, tmp_path, capsys):
    head = record(tmp_path / "head", "dev", lambda c: c["trainstack:nodeGroups"][0].update(desiredSize=2))
    assert head["cost"]["hourlyUsd"]["desired"] > dev["cost"]["hourlyUsd"]["desired"]  # the record's own view
    diff = compare(dev, head)
    assert diff.changes == []
    (note,) = assess(diff)
    assert (note.kind, note.severity, note.title) == ("ignored", "note",
                                                       "dev-eks-gpu: `scalingConfig.desiredSize` 1 -> 2 is ignored")
    cost = deltas(diff)["costUsdPerHour"]
    assert cost["desired"]["change"] == 0 and cost["max"]["change"] == 0
    assert cost["desired"]["base"] == dev["cost"]["hourlyUsd"]["desired"]
    assert run_diff(tmp_path, dev, head, "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deltas"]["costUsdPerHour"]["desired"]["change"] == 0
    assert [f["kind"] for f in report["findings"]] == ["ignored"]


def test_a_new_desired_size_beside_a_real_change_counts_only_the_real_one(dev, tmp_path):
    def edit(config: dict) -> None:
        config["trainstack:nodeGroups"][0].update(desiredSize=2, maxSize=4)
    diff = compare(dev, record(tmp_path / "head", "dev", edit))
    cost = deltas(diff)["costUsdPerHour"]
    assert cost["desired"]["change"] == 0 and cost["max"]["change"] > 2  # two more g5.2xlarge at max size


def test_the_cli_reads_both_records_for_an_ignored_change(dev, tmp_path, capsys):
    head = record(tmp_path / "head", "dev", lambda c: c["trainstack:nodeGroups"][0].update(desiredSize=2))
    assert run_diff(tmp_path, dev, head, "--format", "markdown") == 0
    out = capsys.readouterr().out
    assert "is ignored" in out and "| cost per hour at desired size | $2.09/h | $2.09/h | $0.00/h |" in out


def test_a_blocked_vpc_replacement_is_a_sarif_error_at_the_stack_files_vpc_cidr_line(dev, tmp_path, capsys):
    head_dir = tmp_path / "head"
    head = record(head_dir, "dev", lambda c: c["trainstack:network"].update(vpcCidr="10.1.0.0/16"))
    assert run_diff(tmp_path, dev, head, "--format", "sarif", cwd=head_dir) == 1
    results = [r for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]
               if r["ruleId"] == "trainstack-diff/network"]
    assert len(results) == 1 and results[0]["level"] == "error"
    line = results[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert (head_dir / "Pulumi.dev.yaml").read_text().splitlines()[line - 1].strip() == "vpcCidr: 10.1.0.0/16"


def test_a_hyperpod_cluster_and_its_file_system_on_a_replaced_vpc_are_named(hyperpod, tmp_path):
    head = record(tmp_path / "head", "hyperpod", lambda c: c["trainstack:network"].update(vpcCidr="10.7.0.0/16"))
    findings = assess(compare(hyperpod, head))
    (stop,) = [f for f in blocking(findings) if f.kind == "network"]
    assert stop.title == ("hyperpod-network: the VPC of running hyperpod-fsx (file system), hyperpod-hyperpod "
                          "(HyperPod cluster) is replaced")
    subnet = next(f for f in of_kind(findings, "network") if f.title.startswith("hyperpod-network-private-us-west-2a:"
                                                                                  " a subnet"))
    assert "hyperpod-hyperpod (HyperPod cluster)" in subnet.detail
