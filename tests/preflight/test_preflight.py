"""Preflight against a real HTTP endpoint (moto's server on 127.0.0.1) for subnets and
instance type offerings, and botocore's Stubber, which checks requests and responses
against AWS's API model, for capacity reservations and quotas (moto has neither)."""

import datetime

import boto3
from botocore.stub import Stubber
from trainstack import validate_stack_config
from trainstack.preflight import Clients, run_preflight

REGION = "us-east-1"
RESERVATION = "cr-0123456789abcdef0"
BLOCK_END = datetime.datetime(2026, 12, 1, 11, 30, tzinfo=datetime.UTC)


def ec2_client(endpoint):
    return boto3.client("ec2", region_name=REGION, endpoint_url=endpoint)


class Stubbed:
    """Stubbed clients for the APIs moto lacks; every expected call must happen."""

    def __init__(self):
        self.capacity = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
        self.quotas = boto3.client("service-quotas", region_name=REGION, aws_access_key_id="x",
                                   aws_secret_access_key="x")
        self.capacity_stub, self.quota_stub = Stubber(self.capacity), Stubber(self.quotas)

    def reservation(self, *, zone="us-east-1b", instance_type="p4de.24xlarge", count=2, state="active",
                    reservation_type="default", end=None, reservation_id=RESERVATION):
        self.capacity_stub.add_response("describe_capacity_reservations", {"CapacityReservations": [{
            "CapacityReservationId": reservation_id, "InstanceType": instance_type, "AvailabilityZone": zone,
            "TotalInstanceCount": count, "AvailableInstanceCount": count, "State": state,
            "StartDate": datetime.datetime(2026, 11, 20, tzinfo=datetime.UTC),
            **({"EndDate": end} if end else {}),
            "ReservationType": reservation_type}]}, {"CapacityReservationIds": [reservation_id]})

    def missing_reservation(self):
        self.capacity_stub.add_client_error(
            "describe_capacity_reservations", "InvalidCapacityReservationId.NotFound",
            f"The capacity reservation ID '{RESERVATION}' does not exist", expected_params={
                "CapacityReservationIds": [RESERVATION]})

    def quota(self, code, value):
        self.quota_stub.add_response("get_service_quota", {"Quota": {"QuotaCode": code, "Value": value,
                                                                     "ServiceCode": "ec2"}},
                                     {"ServiceCode": "ec2", "QuotaCode": code})

    def quotas_for_nemo(self):
        """Quotas that cover nemo's 2 x p4de (192 P vCPUs) and its system nodes."""
        self.quota("L-417A185B", 192)
        self.quota("L-1216C47A", 64)

    def structural_quotas(self, managed_node_groups=30, nodes_per_group=450, network_interfaces=5000):
        """EKS's and the VPC's quotas, read after the vCPU ones (AWS's defaults unless given)."""
        for service, code, value in (("eks", "L-6D54EA21", managed_node_groups), ("eks", "L-BD136A63", nodes_per_group),
                                     ("vpc", "L-DF5E4CA3", network_interfaces)):
            self.quota_stub.add_response("get_service_quota", {"Quota": {"QuotaCode": code, "Value": value,
                                                                         "ServiceCode": service}},
                                         {"ServiceCode": service, "QuotaCode": code})

    def run(self, config, endpoint):
        self.structural_quotas()
        with self.capacity_stub, self.quota_stub:
            checks = run_preflight(config, Clients(ec2=ec2_client(endpoint), capacity=self.capacity,
                                                   quotas=self.quotas))
            self.capacity_stub.assert_no_pending_responses()
            self.quota_stub.assert_no_pending_responses()
        return checks


def nemo(zones=("us-east-1b", "us-east-1c"), **group_changes):
    group = {"name": "p4de", "instanceType": "p4de.24xlarge", "minSize": 2, "desiredSize": 2, "maxSize": 2,
             "zone": "us-east-1b", "capacity": {"type": "reservation", "reservationId": RESERVATION,
                                                "zone": "us-east-1b", "instanceCount": 2}}
    group.update(group_changes)
    return validate_stack_config({"profile": "production", "region": REGION, "eks": {},
                                  "network": {"zones": list(zones)}, "nodeGroups": [group]})


def statuses(checks):
    return {(c.name, c.status) for c in checks}


def failed(checks):
    return [c for c in checks if c.status == "fail"]


def test_everything_passes_for_a_stack_that_fits_the_account(aws):
    stub = Stubbed()
    stub.reservation()
    stub.quotas_for_nemo()
    checks = stub.run(nemo(), aws)
    assert not failed(checks) and not [c for c in checks if c.status == "could-not-check"]
    assert {("reservation state", "pass"), ("reservation zone", "pass"), ("reservation instance type", "pass"),
            ("reservation size", "pass"), ("instance type offered", "pass"), ("vCPU quota", "pass"),
            ("EKS quota", "pass"), ("VPC quota", "pass"), ("subnet IPs", "pass"), ("zone", "pass")} == statuses(checks)


def test_a_missing_reservation_fails(aws):
    stub = Stubbed()
    stub.missing_reservation()
    stub.quotas_for_nemo()
    (failure,) = failed(stub.run(nemo(), aws))
    assert failure.name == "reservation" and "does not exist" in failure.reason


def test_a_reservation_in_another_zone_fails(aws):
    stub = Stubbed()
    stub.reservation(zone="us-east-1c")
    stub.quotas_for_nemo()
    (failure,) = failed(stub.run(nemo(), aws))
    assert failure.name == "reservation zone" and failure.reason == "in us-east-1c; the node group is in us-east-1b"


def test_a_reservation_for_another_instance_type_fails(aws):
    stub = Stubbed()
    stub.reservation(instance_type="p4d.24xlarge")
    stub.quotas_for_nemo()
    (failure,) = failed(stub.run(nemo(), aws))
    assert failure.name == "reservation instance type" and "the node group runs p4de.24xlarge" in failure.reason


def test_a_reservation_smaller_than_max_size_fails(aws):
    stub = Stubbed()
    stub.reservation(count=1)
    stub.quotas_for_nemo()
    (failure,) = failed(stub.run(nemo(), aws))
    assert failure.name == "reservation size" and failure.reason == "holds 1 instances; the group grows to 2"


def test_each_reservation_of_a_pool_is_checked_for_the_instances_the_stack_file_says_it_holds(aws):
    second = "cr-0fedcba9876543210"
    stub = Stubbed()
    stub.reservation(count=1)
    stub.reservation(count=1, reservation_id=second)
    stub.quota("L-417A185B", 384)
    stub.quota("L-1216C47A", 64)
    pool = {"type": "reservation", "zone": "us-east-1b", "reservations": [
        {"reservationId": RESERVATION, "instanceCount": 1}, {"reservationId": second, "instanceCount": 2}]}
    (failure,) = failed(stub.run(nemo(capacity=pool, minSize=3, desiredSize=3, maxSize=3), aws))
    assert (failure.name, failure.subject) == ("reservation size", f"p4de: {second}")
    assert failure.reason == "holds 1 instances; the group counts on 2 of them"


def test_a_scheduled_capacity_block_passes_with_its_window_and_an_expired_one_fails(aws):
    block = {"type": "capacityBlock", "reservationId": RESERVATION, "zone": "us-east-1b", "instanceCount": 2,
             "endsAt": "2026-12-01T11:30:00Z"}
    stub = Stubbed()
    stub.reservation(state="scheduled", reservation_type="capacity-block", end=BLOCK_END)
    stub.quota("L-1216C47A", 64)
    checks = stub.run(nemo(capacity=block), aws)
    state = next(c for c in checks if c.name == "capacity block state")
    assert state.status == "pass" and "not active yet: starts 2026-11-20" in state.reason
    assert not failed(checks)
    stub = Stubbed()
    stub.reservation(state="expired", reservation_type="capacity-block", end=BLOCK_END)
    stub.quota("L-1216C47A", 64)
    assert [c.name for c in failed(stub.run(nemo(capacity=block), aws))] == ["capacity block state"]


def test_a_capacity_block_whose_declared_end_is_not_ec2s_fails_with_the_real_end(aws):
    block = {"type": "capacityBlock", "reservationId": RESERVATION, "zone": "us-east-1b", "instanceCount": 2,
             "endsAt": "2026-12-01T11:30:00Z"}
    stub = Stubbed()
    stub.reservation(reservation_type="capacity-block", end=BLOCK_END + datetime.timedelta(days=7))
    stub.quota("L-1216C47A", 64)
    (failure,) = failed(stub.run(nemo(capacity=block), aws))
    assert failure.name == "capacity block end"
    assert failure.reason == ("EC2 says it ends 2026-12-08T11:30:00Z; the stack declares 2026-12-01T11:30:00Z: "
                              "set capacity.endsAt to 2026-12-08T11:30:00Z")
    stub = Stubbed()
    stub.reservation(reservation_type="capacity-block", end=BLOCK_END)
    stub.quota("L-1216C47A", 64)
    end = next(c for c in stub.run(nemo(capacity=block), aws) if c.name == "capacity block end")
    assert (end.status, end.reason) == ("pass", "ends 2026-12-01T11:30:00Z")


def test_a_vcpu_quota_below_max_size_fails(aws):
    stub = Stubbed()
    stub.reservation()
    stub.quota("L-417A185B", 96)
    stub.quota("L-1216C47A", 64)
    (failure,) = failed(stub.run(nemo(), aws))
    assert failure.subject == "Running On-Demand P instances (L-417A185B)"
    assert failure.reason.startswith("quota 96 vCPUs; max size needs 192 (p4de 2 x 96)")


def test_a_type_not_offered_in_the_zone_fails(aws):
    stub = Stubbed()
    stub.reservation(zone="us-east-1a")
    stub.quotas_for_nemo()
    config = nemo(zones=("us-east-1a", "us-east-1b"), zone="us-east-1a", capacity={
        "type": "reservation", "reservationId": RESERVATION, "zone": "us-east-1a", "instanceCount": 2})
    (failure,) = failed(stub.run(config, aws))
    assert failure.name == "instance type offered" and "p4de.24xlarge is not offered in us-east-1a" in failure.reason


def test_an_existing_subnet_with_too_few_free_ips_fails(aws):
    ec2 = ec2_client(aws)
    vpc = ec2.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    small = ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.0.0/24", AvailabilityZone="us-east-1b")["Subnet"]
    other = ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.64.0/18", AvailabilityZone="us-east-1c")["Subnet"]
    # The config believes the subnet is a /22; AWS knows better.
    config = validate_stack_config({
        "profile": "dev", "region": REGION, "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "network": {"existingVpc": {"vpcId": vpc, "privateSubnets": [
            {"id": small["SubnetId"], "zone": "us-east-1b", "cidr": "10.8.0.0/22"},
            {"id": other["SubnetId"], "zone": "us-east-1c", "cidr": "10.8.64.0/18"}]}},
        "nodeGroups": [{"name": "g5", "instanceType": "g5.2xlarge", "maxSize": 2, "zone": "us-east-1b"}]})
    stub = Stubbed()
    stub.quota("L-DB2E81BA", 64)
    stub.quota("L-1216C47A", 64)
    checks = stub.run(config, aws)
    subnet = next(c for c in checks if c.subject == f"private subnet us-east-1b {small['SubnetId']}")
    assert subnet.status == "fail" and subnet.reason.startswith("251 free IPs; the nodes hold 276 at max size")
    assert next(c for c in checks if c.subject == f"private subnet us-east-1c {other['SubnetId']}").status == "pass"


def test_without_credentials_or_network_checks_say_they_could_not_check(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    unreachable = "http://127.0.0.1:9"  # discard port: nothing listens
    from botocore.config import Config

    config = Config(connect_timeout=1, retries={"max_attempts": 1})
    clients = Clients(ec2=boto3.client("ec2", region_name=REGION, endpoint_url=unreachable, config=config),
                      capacity=boto3.client("ec2", region_name=REGION, endpoint_url=unreachable, config=config),
                      quotas=boto3.client("service-quotas", region_name=REGION, endpoint_url=unreachable,
                                          config=config))
    checks = run_preflight(nemo(), clients)
    assert not failed(checks)
    assert {c.status for c in checks if c.name != "subnet IPs"} == {"could-not-check"}
    assert all("Could not connect" in c.reason for c in checks if c.status == "could-not-check")


def test_system_nodes_are_checked_against_the_accounts_offerings_and_hyperpod_groups_are_not(aws):
    # moto's account offers c5.2xlarge in every us-east-1 zone. HyperPod runs in SageMaker's capacity, which
    # EC2's offerings to the account do not show: validation judges ml. types by SageMaker's own list.
    config = validate_stack_config({
        "profile": "dev", "region": REGION, "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "network": {"zones": ["us-east-1a", "us-east-1b"]},
        "hyperpod": {"clusterName": "ml", "orchestrator": "eks",
                     "zone": "us-east-1b",
                     "workers": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 2}]}})
    stub = Stubbed()
    stub.quota("L-1216C47A", 64)
    offered = {c.subject: c for c in stub.run(config, aws) if c.name == "instance type offered"}
    assert list(offered) == ["system nodes: c5.2xlarge in us-east-1a, us-east-1b"]
    assert offered["system nodes: c5.2xlarge in us-east-1a, us-east-1b"].status == "pass"


def test_a_zone_the_account_does_not_have_fails_where_validation_could_not_judge_it(aws):
    # us-east-1 maps zone names per account, so validation lets any letter through; the account decides.
    stub = Stubbed()
    stub.reservation(zone="us-east-1b")
    stub.quotas_for_nemo()
    failures = {(c.name, c.subject): c.reason for c in failed(stub.run(nemo(zones=("us-east-1b", "us-east-1g")), aws))}
    assert failures[("zone", "us-east-1g")] == "the account has no zone us-east-1g in us-east-1"
    assert failures[("instance type offered", "system nodes: c5.2xlarge in us-east-1b, us-east-1g")].startswith(
        "c5.2xlarge is not offered in us-east-1g")


def test_an_offering_the_stack_declared_unchecked_is_still_asked_of_the_account(aws):
    stub = Stubbed()
    stub.reservation(zone="us-east-1a")
    stub.quotas_for_nemo()
    config = nemo(zones=("us-east-1a", "us-east-1b"), zone="us-east-1a", offeringUnchecked="told by our TAM",
                  capacity={"type": "reservation", "reservationId": RESERVATION, "zone": "us-east-1a",
                            "instanceCount": 2})
    (failure,) = failed(stub.run(config, aws))
    assert failure.name == "instance type offered"
    assert "offeringUnchecked 'told by our TAM'" in failure.reason
