"""`trainstack doctor --aws`: the account's side of a stack read against its plan record. Each reservation and
Capacity Block its groups launch into, its EKS node groups, add-ons and upgrade insights, and its FSx file system,
with a finding and its fix for each thing not as planned; an account doctor cannot read is Unreachable.

The account is moto's server on 127.0.0.1 (5.2.5, constraints.txt), made by boto3 calls: the EKS cluster and its
managed node groups (named and tagged as Pulumi makes them from the plan), and the FSx file system. Where moto
lacks an API, botocore's Stubber answers that one call, checked against AWS's own model, on a client that hands
it only the calls moto lacks (``Account.stub``):

* EC2 DescribeCapacityReservations: moto 5.2.5 has no capacity reservations (its EC2 responses raise "The
  describe_capacity_reservations action has not been implemented"), so DescribeInstances with the
  ``capacity-reservation-id`` filter is stubbed too (moto's instance filters raise NotImplementedError on it);
* EKS DescribeAddon, ListInsights, DescribeInsight: moto's EKS serves neither add-ons nor insights (404);
* EKS DescribeNodegroup, in the health test only: moto's node group health is always empty and no API sets it,
  so that test answers with moto's own node group plus ``health.issues``;
* FSx DescribeFileSystems: moto's file system has no ``Lifecycle`` (nor ``FailureDetails``), so the answer is moto's
  own file system with the lifecycle AWS would report.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore import xform_name
from botocore.awsrequest import AWSResponse
from botocore.stub import Stubber
from support.rendered_jobs import planned_record
from support.scratch import plan_config
from trainstack.doctor.aws import DoctorClients, findings
from trainstack.doctor.aws_plan import aws_side
from trainstack.doctor.aws_reads import READS
from trainstack.doctor.finding import Finding, Unreachable
from trainstack.names import NODE_GROUP
from trainstack.plan import Plan

REGION = "us-east-1"
CLUSTER = "trainstack-doctor-aws"
RESERVED, BLOCK = "cr-0123456789abcdef0", "cr-0123456789abcdef1"
BLOCK_START = datetime(2026, 11, 30, 11, 30, tzinfo=UTC)
BLOCK_END = datetime(2026, 12, 1, 11, 30, tzinfo=UTC)
NOW = BLOCK_END - timedelta(minutes=210)
LEAD = 135
STACK: dict[str, Any] = {
    "profile": "dev", "region": REGION, "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"], "addonVersions": {"vpcCni": "v1.20.4-eksbuild.1"}},
    "fsx": {"zone": "us-east-1a", "storageCapacityGiB": 1200},
    "nodeGroups": [
        {"name": "reserved", "instanceType": "p5.48xlarge", "minSize": 2, "desiredSize": 2, "maxSize": 2,
         "zone": "us-east-1a", "capacity": {"type": "reservation", "reservationId": RESERVED, "zone": "us-east-1a",
                                            "instanceCount": 2}},
        {"name": "block", "instanceType": "p5.48xlarge", "minSize": 0, "desiredSize": 0, "maxSize": 2,
         "zone": "us-east-1a", "capacity": {"type": "capacityBlock", "reservationId": BLOCK, "zone": "us-east-1a",
                                            "instanceCount": 2, "endsAt": "2026-12-01T11:30:00Z",
                                            "endLeadMinutes": LEAD}}],
}
"""A reservation group, a Capacity Block group wound down 135 minutes before its end (not the default 60), FSx,
and a pinned vpc-cni."""


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Plan:
    return plan_config(tmp_path_factory.mktemp("doctor-aws"), "doctor-aws", STACK)


@pytest.fixture
def account(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, plan: Plan) -> Account:
    """An empty moto account, which DoctorClients.for_region reaches through AWS_ENDPOINT_URL as botocore reads it."""
    urllib.request.urlopen(urllib.request.Request(f"{moto_endpoint}/moto-api/reset", method="POST")).close()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    return Account(moto_endpoint, plan)


class Account:
    """The stack's account: moto's state for what moto serves, a Stubber's answer for each call it lacks. Every
    queued answer must be asked for; every call doctor makes is recorded, as IAM names its action."""

    def __init__(self, endpoint: str, plan: Plan):
        self.plan = plan
        self.clients = DoctorClients.for_region(REGION)
        self.moto = {service: boto3.client(service, region_name=REGION, endpoint_url=endpoint)
                     for service in ("ec2", "eks", "fsx")}
        self.stubs: dict[str, Stubber] = {}
        self.called: list[str] = []
        self.answered: set[str] = set()
        for service in ("ec2", "eks", "fsx"):
            getattr(self.clients, service).meta.events.register("before-parameter-build", self._record)

    def _record(self, model: Any, **_: Any) -> None:
        self.called.append(f"{model.service_model.signing_name}:{model.name}")

    def stub(self, service: str, operation: str) -> Stubber:
        """The Stubber that answers ``operation`` (its API name) of doctor's client for ``service``, on a client of
        its own (so each operation's answers keep their order, whatever the others'); its other calls still go to
        moto."""
        if operation not in self.stubs:
            twin = boto3.client(service, region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
            self.stubs[operation] = Stubber(twin)
            client = getattr(self.clients, service)
            event = f"{client.meta.service_model.service_id.hyphenize()}.{operation}"

            def keep(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
                context["stubbed params"] = params

            def answer(model: Any, context: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
                return AWSResponse(None, 200, {}, None), getattr(twin, xform_name(model.name))(
                    **context["stubbed params"])
            client.meta.events.register(f"before-parameter-build.{event}", keep)
            client.meta.events.register(f"before-call.{event}", answer)
        return self.stubs[operation]

    # -- EC2: no capacity reservations in moto ------------------------------------------------------------------
    def reservation(self, reservation_id: str, **fields: Any) -> None:
        self.answered.add("ec2")
        shown = {"CapacityReservationId": reservation_id, "InstanceType": "p5.48xlarge",
                 "AvailabilityZone": "us-east-1a", "TotalInstanceCount": 2, "AvailableInstanceCount": 0,
                 "State": "active", "ReservationType": "default", "InstanceMatchCriteria": "targeted", **fields}
        self.stub("ec2", "DescribeCapacityReservations").add_response(
            "describe_capacity_reservations", {"CapacityReservations": [shown]},
            {"CapacityReservationIds": [reservation_id]})

    def block(self, **fields: Any) -> None:
        self.reservation(BLOCK, ReservationType="capacity-block", AvailableInstanceCount=2, StartDate=BLOCK_START,
                         EndDate=BLOCK_END, **fields)

    def instances(self, reservation_id: str, *, stack: int = 0, others: tuple[str, ...] = ()) -> None:
        ours = [_instance(f"i-0a{n:015x}", {"eks:cluster-name": CLUSTER}) for n in range(stack)]
        theirs = [_instance(instance_id, {"Name": "someone-else"}) for instance_id in others]
        self.stub("ec2", "DescribeInstances").add_response(
            "describe_instances", {"Reservations": [{"ReservationId": "r-0123456789abcdef0",
                                                     "Instances": ours + theirs}] if ours or theirs else []},
            {"Filters": [{"Name": "capacity-reservation-id", "Values": [reservation_id]},
                         {"Name": "instance-state-name", "Values": ["pending", "running"]}]})

    def healthy_capacity(self) -> None:
        self.reservation(RESERVED)
        self.instances(RESERVED, stack=2)
        self.block()
        self.instances(BLOCK)

    # -- EKS: the cluster and node groups in moto; add-ons and insights stubbed --------------------------------
    def cluster(self, *, leave_out: tuple[str, ...] = ()) -> None:
        """The cluster, and each managed node group the plan makes but ``leave_out``, as Pulumi names it."""
        eks = self.moto["eks"]
        eks.create_cluster(name=CLUSTER, roleArn="arn:aws:iam::123456789012:role/cluster",
                           resourcesVpcConfig={"subnetIds": ["subnet-0123456789abcdef0"]})
        for record in self.plan.by_type(NODE_GROUP):
            if record.name in leave_out:
                continue
            scaling = record.inputs["scalingConfig"]
            eks.create_nodegroup(clusterName=CLUSTER, nodegroupName=pulumi_name(record.name),
                                 nodeRole="arn:aws:iam::123456789012:role/nodes",
                                 subnets=["subnet-0123456789abcdef0"], labels=record.inputs["labels"],
                                 tags=record.inputs.get("tags") or {}, scalingConfig={
                                     "minSize": scaling["minSize"], "maxSize": scaling["maxSize"],
                                     "desiredSize": scaling["desiredSize"]})
        self.answered.add("cluster")

    def health(self, logical_name: str, issues: list[dict[str, Any]]) -> None:
        """moto's node groups as they are, but ``logical_name``'s with these health issues (which moto cannot
        hold): DescribeNodegroup answered with moto's own node group and the issues."""
        stub = self.stub("eks", "DescribeNodegroup")
        for name in self.moto["eks"].list_nodegroups(clusterName=CLUSTER)["nodegroups"]:
            node_group = self.moto["eks"].describe_nodegroup(clusterName=CLUSTER, nodegroupName=name)["nodegroup"]
            if name == pulumi_name(logical_name):
                node_group.update(status="DEGRADED", health={"issues": issues})
            stub.add_response("describe_nodegroup", {"nodegroup": node_group},
                              {"clusterName": CLUSTER, "nodegroupName": name})

    def addons(self, **changed: dict[str, Any] | str) -> None:
        """Every add-on the plan installs, ACTIVE at its pin (or at v1.0.0-eksbuild.1 where none is pinned);
        ``changed``: an add-on's fields otherwise, or an error code for it."""
        stub = self.stub("eks", "DescribeAddon")
        for name, pin in aws_side(self.plan).addons.items():
            asked = {"clusterName": CLUSTER, "addonName": name}
            change = changed.get(name.replace("-", "_"), {})
            if isinstance(change, str):
                stub.add_client_error("describe_addon", change, f"No addon: {name} found in cluster: {CLUSTER}",
                                      404, expected_params=asked)
                continue
            stub.add_response("describe_addon", {"addon": {
                "addonName": name, "clusterName": CLUSTER, "status": "ACTIVE",
                "addonVersion": pin or "v1.0.0-eksbuild.1", "health": {"issues": []}, **change}}, asked)
        self.answered.add("addons")

    def insights(self, *found: dict[str, Any]) -> None:
        """ListInsights answering ``found`` (summaries), then DescribeInsight for each."""
        summaries = [{key: value for key, value in insight.items() if key not in ("recommendation", "resources")}
                     for insight in found]
        self.stub("eks", "ListInsights").add_response("list_insights", {"insights": summaries}, {
            "clusterName": CLUSTER, "filter": {"categories": ["UPGRADE_READINESS"], "statuses": ["ERROR", "WARNING"]}})
        for insight in found:
            self.stub("eks", "DescribeInsight").add_response("describe_insight", {"insight": insight}, {
                "clusterName": CLUSTER, "id": insight["id"]})
        self.answered.add("insights")

    # -- FSx: the file system in moto; its lifecycle from the stub ----------------------------------------------
    def file_system(self, name: str = "doctor-aws-fsx", **fields: Any) -> None:
        self.moto["fsx"].create_file_system(FileSystemType="LUSTRE", StorageCapacity=1200,
                                            SubnetIds=["subnet-0123456789abcdef0"],
                                            Tags=[{"Key": "Name", "Value": name}])
        systems = self.moto["fsx"].describe_file_systems()["FileSystems"]
        self.stub("fsx", "DescribeFileSystems").add_response("describe_file_systems", {"FileSystems": [
            {**system, "Lifecycle": "AVAILABLE", **fields} for system in systems]}, {})
        self.answered.add("fsx")

    def run(self, now: datetime = NOW) -> list[Finding]:
        """doctor's findings, each part of the account healthy unless a test made it otherwise."""
        for part, healthy in (("ec2", self.healthy_capacity), ("cluster", self.cluster), ("addons", self.addons),
                              ("insights", self.insights), ("fsx", self.file_system)):
            if part not in self.answered:
                healthy()
        with contextlib.ExitStack() as active:
            for stub in self.stubs.values():
                active.enter_context(stub)
            found = findings(self.plan, self.clients, now=now)
            for stub in self.stubs.values():
                stub.assert_no_pending_responses()
        return found


def pulumi_name(logical_name: str) -> str:
    """The name Pulumi gives a managed node group: its logical name, '-', 7 hex characters."""
    return f"{logical_name}-{hashlib.sha256(logical_name.encode()).hexdigest()[:7]}"


def _instance(instance_id: str, tags: dict[str, str]) -> dict[str, Any]:
    return {"InstanceId": instance_id, "InstanceType": "p5.48xlarge", "State": {"Code": 16, "Name": "running"},
            "CapacityReservationId": RESERVED, "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}


def lines(found: list[Finding]) -> list[str]:
    return [finding.line() for finding in found]


# -- a healthy account, read and only read ---------------------------------------------------------------------

def test_an_account_that_holds_what_the_plan_says_has_no_findings_and_doctor_only_reads_it(account: Account) -> None:
    assert account.run() == []
    assert set(account.called) <= set(READS)
    assert all(call.split(":")[1].startswith(("Describe", "List", "Get")) for call in account.called)
    # The system group (no tag) is found by the name Pulumi made; the accelerated groups by their tag.
    assert account.called.count("eks:DescribeNodegroup") == 3


# -- reservations and Capacity Blocks ----------------------------------------------------------------------------

def test_a_reservation_that_is_not_active_is_a_finding(account: Account) -> None:
    account.reservation(RESERVED, State="expired")
    account.block()
    account.instances(BLOCK)
    assert lines(account.run()) == [
        f"aws: reservation {RESERVED} (node group reserved): expected active; found expired. Fix: aws ec2 "
        f"describe-capacity-reservations --capacity-reservation-ids {RESERVED} --region {REGION} says why; one "
        "expired or cancelled does not come back: set capacity.reservationId to an active one"]


def test_a_reservation_without_room_for_the_groups_desired_size_is_a_finding(account: Account) -> None:
    account.reservation(RESERVED, TotalInstanceCount=1, AvailableInstanceCount=0)
    account.instances(RESERVED, stack=1)
    account.block()
    account.instances(BLOCK)
    (finding,) = account.run()
    assert (finding.expected, finding.actual) == (
        "room for the 2 nodes its node groups want (desiredSize)",
        "1 reserved: 0 available and 1 held by the stack, 1 short")
    assert finding.fix.startswith(f"grow it: aws ec2 modify-capacity-reservation --capacity-reservation-id {RESERVED} "
                                  "--instance-count 2 --region us-east-1; or lower the groups' desiredSize to 1")


def test_instances_outside_the_stack_in_its_reservation_are_a_finding(account: Account) -> None:
    account.reservation(RESERVED, TotalInstanceCount=3, AvailableInstanceCount=0, InstanceMatchCriteria="open")
    account.instances(RESERVED, stack=2, others=("i-0ffffffffffffffff",))
    account.block()
    account.instances(BLOCK)
    (finding,) = account.run()
    assert finding.subject == f"reservation {RESERVED} (node group reserved)"
    assert (finding.expected, finding.actual) == (
        f"only the stack's nodes (cluster {CLUSTER}) in it",
        "1 instance of others in it (i-0ffffffffffffffff); it takes open instances")
    assert "--instance-match-criteria targeted" in finding.fix


def test_a_capacity_block_within_the_stacks_wind_down_says_the_minutes_left_and_the_wind_down(
        account: Account) -> None:
    # 100 minutes left: past the plan's 135-minute lead, though not the default 60.
    assert lines(account.run(now=BLOCK_END - timedelta(minutes=100))) == [
        f"aws: capacity block {BLOCK} (node group block): expected more than the stack's wind-down of 135 minutes "
        "(capacity.endLeadMinutes) left; found 100 minutes left: it ends at 2026-12-01T11:30:00Z, so the wind-down "
        "has begun (queues held, nodes tainted). Fix: extend it: trainstack capacity extensions --region us-east-1 "
        f"--reservation-id {BLOCK} --hours 24, then set capacity.endsAt to the new end; or let the jobs checkpoint "
        "and the block end"]


def test_a_capacity_block_that_has_ended_is_a_finding_with_the_command_that_finds_another(account: Account) -> None:
    account.reservation(RESERVED)
    account.instances(RESERVED, stack=2)
    account.block(State="expired")
    (finding,) = account.run(now=BLOCK_END + timedelta(minutes=10))
    assert finding.actual == "it ended at 2026-12-01T11:30:00Z, 10 minutes ago"
    assert finding.fix.startswith("buy another: trainstack capacity offerings --region us-east-1 --instance-type "
                                  "p5.48xlarge --count 2 --hours 24")


# -- EKS: node groups, add-ons, upgrade insights -------------------------------------------------------------------

def test_a_node_groups_health_issues_are_findings_with_their_code_message_and_resources(account: Account) -> None:
    account.cluster()
    account.health("doctor-aws-eks-reserved", [{
        "code": "AsgInstanceLaunchFailures", "message": "Could not launch On-Demand Instances. "
        "InsufficientInstanceCapacity - There is not enough capacity to fulfill your request.",
        "resourceIds": ["eks-doctor-aws-eks-reserved-1a2b3c4d"]}])
    name = pulumi_name("doctor-aws-eks-reserved")
    assert lines(account.run()) == [
        f"aws: node group reserved ({name}): expected no health issues; found DEGRADED: AsgInstanceLaunchFailures: "
        "Could not launch On-Demand Instances. InsufficientInstanceCapacity - There is not enough capacity to fulfill "
        f"your request (eks-doctor-aws-eks-reserved-1a2b3c4d). Fix: aws eks describe-nodegroup --cluster-name "
        f"{CLUSTER} --nodegroup-name {name} --region us-east-1 --query nodegroup.health"]


def test_a_managed_node_group_the_plan_makes_but_eks_lacks_is_a_finding(account: Account) -> None:
    account.cluster(leave_out=("doctor-aws-eks-block",))
    (finding,) = account.run()
    assert (finding.subject, finding.actual) == ("node group block (doctor-aws-eks-block)", "none")


def test_an_addon_off_its_pin_or_not_active_is_a_finding(account: Account) -> None:
    account.addons(vpc_cni={"addonVersion": "v1.19.0-eksbuild.1"}, coredns={"status": "DEGRADED", "health": {
        "issues": [{"code": "InsufficientNumberOfReplicas", "message": "The add-on is unhealthy because it doesn't "
                    "have the desired number of replicas.", "resourceIds": ["kube-system/coredns"]}]}},
        aws_fsx_csi_driver="ResourceNotFoundException")
    assert lines(account.run()) == [
        "aws: EKS add-on aws-fsx-csi-driver: expected installed in cluster trainstack-doctor-aws; found not installed. "
        "Fix: `pulumi up` installs it (aws eks list-addons --cluster-name trainstack-doctor-aws --region us-east-1 "
        "lists what is there)",
        "aws: EKS add-on coredns: expected ACTIVE; found DEGRADED: InsufficientNumberOfReplicas: The add-on is "
        "unhealthy because it doesn't have the desired number of replicas (kube-system/coredns). Fix: aws eks "
        "describe-addon --cluster-name trainstack-doctor-aws --addon-name coredns --region us-east-1",
        "aws: EKS add-on vpc-cni: expected version v1.20.4-eksbuild.1 (eks.addonVersions); found version "
        "v1.19.0-eksbuild.1. Fix: aws eks update-addon --cluster-name trainstack-doctor-aws --addon-name vpc-cni "
        "--addon-version v1.20.4-eksbuild.1 --region us-east-1"]


def test_an_upgrade_insight_in_error_is_a_finding_with_the_command_that_describes_it(account: Account) -> None:
    account.insights({
        "id": "a1b2c3d4-0000-1111-2222-333344445555", "name": "Deprecated APIs removed in Kubernetes v1.36",
        "category": "UPGRADE_READINESS", "kubernetesVersion": "1.36",
        "insightStatus": {"status": "ERROR", "reason": "Deprecated API usage detected within last 30 days."},
        "recommendation": "Update manifests and API clients to use newer Kubernetes APIs if applicable before "
                          "upgrading to Kubernetes v1.36.",
        "resources": [{"kubernetesResourceUri": "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas"}]})
    assert lines(account.run()) == [
        "aws: EKS cluster trainstack-doctor-aws: upgrade insight 'Deprecated APIs removed in Kubernetes v1.36' "
        "(Kubernetes 1.36): expected PASSING; found ERROR: Deprecated API usage detected within last 30 days; "
        "1 resource affected; Update manifests and API clients to use newer Kubernetes APIs if applicable before "
        "upgrading to Kubernetes v1.36. Fix: aws eks describe-insight --cluster-name trainstack-doctor-aws --id "
        "a1b2c3d4-0000-1111-2222-333344445555 --region us-east-1"]


# -- FSx ----------------------------------------------------------------------------------------------------------

def test_a_file_system_that_is_not_available_is_a_finding_with_fsxs_reason(account: Account) -> None:
    account.file_system(Lifecycle="MISCONFIGURED", FailureDetails={
        "Message": "Amazon FSx cannot reach the S3 bucket linked to the file system."})
    (finding,) = account.run()
    assert finding.subject.startswith("FSx file system doctor-aws-fsx (fs-")
    assert (finding.expected, finding.actual) == (
        "AVAILABLE", "MISCONFIGURED: Amazon FSx cannot reach the S3 bucket linked to the file system")
    assert finding.fix.startswith("aws fsx describe-file-systems --file-system-ids fs-")


def test_no_file_system_with_the_stacks_name_tag_is_a_finding(account: Account) -> None:
    account.file_system(name="another-stack-fsx")
    (finding,) = account.run()
    assert (finding.subject, finding.actual) == ("FSx file system doctor-aws-fsx",
                                                 "none tagged Name=doctor-aws-fsx in us-east-1")


# -- an account doctor cannot read ----------------------------------------------------------------------------------

def test_no_credentials_is_unreachable_with_where_botocore_looked(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path) -> None:
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        monkeypatch.delenv(name)
    for name in ("credentials", "config"):
        (tmp_path / name).write_text("")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(Unreachable) as unreachable:
        DoctorClients.for_region(REGION)
    assert str(unreachable.value).startswith("the AWS account in us-east-1 could not be read: no AWS credentials "
                                             "found: botocore looked in AWS_ACCESS_KEY_ID")


def test_access_denied_is_unreachable_naming_the_action_to_allow(account: Account) -> None:
    account.stub("ec2", "DescribeCapacityReservations").add_client_error(
        "describe_capacity_reservations", "UnauthorizedOperation", "You are not authorized to perform this "
        "operation.", 403)
    with pytest.raises(Unreachable) as refused, account.stubs["DescribeCapacityReservations"]:
        findings(account.plan, account.clients, now=NOW)
    assert str(refused.value).startswith(
        "the AWS account in us-east-1 could not be read (ec2:DescribeCapacityReservations): UnauthorizedOperation: "
        "You are not authorized to perform this operation. Fix: allow ec2:DescribeCapacityReservations to these "
        "credentials")


def test_an_endpoint_out_of_reach_is_unreachable(monkeypatch: pytest.MonkeyPatch, plan: Plan) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(Unreachable, match=r"\(ec2:DescribeCapacityReservations\): Could not connect to the endpoint "
                                          r"URL: .*Fix: run doctor where the AWS API endpoints can be reached"):
        findings(plan, DoctorClients.for_region(REGION), now=NOW)


# -- what the plan names on AWS -----------------------------------------------------------------------------------

def test_a_pools_reservations_each_want_the_desired_size_of_the_managed_groups_that_launch_into_them() -> None:
    side = aws_side(Plan.from_dict(planned_record("frontier-p5")))
    assert [(held.reservation_id, held.groups, held.desired) for held in side.held] == [
        (f"cr-0123456789abcdef{n}", ("p5",), 512) for n in range(4)]
    assert (side.cluster, side.file_system_tag) == ("trainstack-frontier-p5", "frontier-p5-fsx")


def test_a_bring_your_own_cluster_names_its_existing_file_system_by_id() -> None:
    side = aws_side(Plan.from_dict(planned_record("byo-p5")))
    assert (side.cluster, side.file_system_tag, side.file_system_id, side.groups, side.addons) == (
        "ml-platform-prod", None, "fs-0123456789abcdef0", [], {})


def test_the_capacity_blocks_wind_down_is_read_from_the_plan(plan: Plan) -> None:
    assert [(held.reservation_id, held.kind, held.desired, held.lead_minutes) for held in aws_side(plan).held] == [
        (RESERVED, "reservation", 2, None), (BLOCK, "capacityBlock", 0, LEAD)]
