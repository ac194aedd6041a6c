"""FSx for Lustre: the file system as created, its security rules both ways, the S3
association, the EKS claim bound to it, and its protection."""

import pytest
from trainstack.plan import run_program
from trainstack.storage.lustre import LustreFileSystem
from trainstack.training_stack import TrainingStack

FS, PV, PVC = ("aws:fsx/lustreFileSystem:LustreFileSystem", "kubernetes:core/v1:PersistentVolume",
               "kubernetes:core/v1:PersistentVolumeClaim")
INGRESS, EGRESS = ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                   "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")


def plan_lustre(clients=("sg-clients",), **settings):
    settings = {"zone": "us-east-1a", **settings}
    args = {"settings": settings, "vpc_id": "vpc-1", "subnet_id": "subnet-a",
            "client_security_group_ids": list(clients)}
    return run_program(lambda: LustreFileSystem("fsx", args), project="demo", stack="test")


def rules(plan):
    """(direction, group, peer, from, to, protocol) for every rule in the plan."""
    found = set()
    for direction, token in (("in", INGRESS), ("out", EGRESS)):
        for rule in plan.by_type(token):
            i = rule.inputs
            found.add((direction, i["securityGroupId"], i["referencedSecurityGroupId"], i.get("fromPort"),
                       i.get("toPort"), i["ipProtocol"]))
    return found


def test_persistent_2_is_lustre_2_15_lz4_backed_up_and_keeps_a_final_backup():
    inputs = plan_lustre().get(FS, "fsx").inputs
    assert (inputs["deploymentType"], inputs["fileSystemTypeVersion"]) == ("PERSISTENT_2", "2.15")
    assert inputs["dataCompressionType"] == "LZ4"
    assert inputs["perUnitStorageThroughput"] == 250 and inputs["storageCapacity"] == 1200
    assert inputs["automaticBackupRetentionDays"] == 7 and inputs["skipFinalBackup"] is False
    assert inputs["metadataConfiguration"] == {"mode": "AUTOMATIC"}
    assert inputs["subnetIds"] == "subnet-a"


def test_scratch_2_still_gets_lustre_2_15_because_al2023_cannot_mount_2_10():
    inputs = plan_lustre(deploymentType="SCRATCH_2").get(FS, "fsx").inputs
    assert inputs["fileSystemTypeVersion"] == "2.15"
    assert not {"perUnitStorageThroughput", "automaticBackupRetentionDays", "skipFinalBackup"} & set(inputs)


def test_a_customer_key_and_provisioned_metadata_iops_pass_through():
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    inputs = plan_lustre(kmsKeyArn=key, metadataIops=12000).get(FS, "fsx").inputs
    assert inputs["kmsKeyId"] == key
    assert inputs["metadataConfiguration"] == {"mode": "USER_PROVISIONED", "iops": 12000}


def test_the_file_system_is_protected_and_unprotecting_is_explicit():
    assert plan_lustre().get(FS, "fsx").options.protect is True
    assert plan_lustre(protect=False).get(FS, "fsx").options.protect is False


def test_lustre_ports_988_and_1018_to_1023_open_both_ways_between_servers_and_clients():
    plan = plan_lustre()
    fs_group = plan.get("aws:ec2/securityGroup:SecurityGroup", "fsx").id
    found = rules(plan)
    for low, high in ((988, 988), (1018, 1023)):
        for group, peer in ((fs_group, fs_group), (fs_group, "sg-clients"), ("sg-clients", fs_group)):
            assert ("in", group, peer, low, high, "tcp") in found
            assert ("out", group, peer, low, high, "tcp") in found
    assert len(found) == 12, "only the Lustre ports, nothing wider"


def test_without_client_groups_a_client_group_is_made_for_clients_to_join():
    plan = plan_lustre(clients=())
    clients = plan.get("aws:ec2/securityGroup:SecurityGroup", "fsx-clients").id
    assert any(rule[1] == clients for rule in rules(plan))


def test_efa_file_systems_allow_all_traffic_by_group_reference():
    plan = plan_lustre(efa=True, storageCapacityGiB=19200, perUnitStorageThroughput=250)
    fs_group = plan.get("aws:ec2/securityGroup:SecurityGroup", "fsx").id
    assert plan.get(FS, "fsx").inputs["efaEnabled"] is True
    assert rules(plan) == {(d, g, p, None, None, "-1") for d in ("in", "out")
                           for g, p in ((fs_group, fs_group), (fs_group, "sg-clients"), ("sg-clients", fs_group))}


def test_an_s3_association_imports_and_exports_with_a_long_timeout():
    plan = plan_lustre(dataRepository={"s3Path": "s3://datasets/llama/", "fileSystemPath": "/data",
                                       "autoExport": ["NEW", "CHANGED"]})
    association = plan.get("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "fsx-s3")
    assert association.inputs["dataRepositoryPath"] == "s3://datasets/llama/"
    assert association.inputs["fileSystemPath"] == "/data"
    assert association.inputs["s3"] == {"autoImportPolicy": {"events": ["NEW", "CHANGED", "DELETED"]},
                                        "autoExportPolicy": {"events": ["NEW", "CHANGED"]}}
    assert association.options.custom_timeouts == {"create": "60m"}


def test_hyperpod_gets_dns_and_mount_names_in_its_own_form():
    captured = {}

    def program():
        lustre = LustreFileSystem("fsx", {"settings": {"zone": "us-east-1a"}, "vpc_id": "vpc-1",
                                          "subnet_id": "subnet-a"})
        pulumi_export = __import__("pulumi").export
        pulumi_export("mount", lustre.hyperpod_mount)
        captured["path"] = lustre.mount_path

    plan = run_program(program, project="demo", stack="test")
    fs = plan.get(FS, "fsx").outputs
    assert plan.outputs["mount"] == {"dns_name": fs["dnsName"], "mount_name": fs["mountName"], "mount_path": "/fsx"}


STACK = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "p5", "instanceType": "p5.48xlarge", "maxSize": 4, "zone": "us-east-1a"}],
    "fsx": {"zone": "us-east-1a", "claimName": "datasets", "namespace": "training"},
}


@pytest.fixture(scope="module")
def on_eks():
    return run_program(lambda: TrainingStack("s", STACK), project="demo", stack="s")


def test_on_eks_the_claim_binds_a_volume_that_names_this_file_system(on_eks):
    fs = on_eks.get(FS, "s-fsx")
    volume, claim = on_eks.get(PV, "s-fsx-pv").inputs, on_eks.get(PVC, "s-fsx-pvc").inputs
    csi = volume["spec"]["csi"]
    assert csi == {"driver": "fsx.csi.aws.com", "volumeHandle": fs.id,
                   "volumeAttributes": {"dnsname": fs.outputs["dnsName"], "mountname": fs.outputs["mountName"]}}
    assert volume["spec"]["mountOptions"] == ["flock"]
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert claim["metadata"] == {"name": "datasets", "namespace": "training"}
    assert claim["spec"]["volumeName"] == volume["metadata"]["name"]
    assert claim["spec"]["storageClassName"] == volume["spec"]["storageClassName"] == ""


def test_on_eks_the_csi_driver_is_the_managed_addon_without_iam_for_static_volumes(on_eks):
    driver = on_eks.get("aws:eks/addon:Addon", "s-fsx-csi")
    assert driver.inputs["addonName"] == "aws-fsx-csi-driver"
    assert "podIdentityAssociations" not in driver.inputs and "serviceAccountRoleArn" not in driver.inputs
    assert not [r for r in on_eks.by_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
                if "fsx" in r.name]
    assert on_eks.get("aws:eks/nodeGroup:NodeGroup", "s-eks-system").urn in driver.dependencies


def test_on_eks_the_cluster_security_group_is_the_client(on_eks):
    cluster_sg = on_eks.get("eks:index:Cluster", "s-eks").outputs["clusterSecurityGroupId"]
    assert any(rule[1] == cluster_sg for rule in rules(on_eks) if rule[3] == 988)


def test_throughput_below_the_floor_per_accelerator_is_a_warning(on_eks):
    assert on_eks.get("trainstack:index:TrainingStack", "s").outputs["trainstack"]["storage"]["throughputMBps"] == 292
    assert any("292 MB/s for 32 accelerators at max size is 9.1 MB/s each" in d["message"]
               for d in on_eks.diagnostics)


DRA = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"
CHECKPOINTS = {"parametersBillions": 7, "intervalMinutes": 20, "keep": 2}


@pytest.fixture(scope="module")
def with_checkpoints():
    stack = {**STACK, "fsx": {**STACK["fsx"], "checkpoints": CHECKPOINTS}}
    return run_program(lambda: TrainingStack("s", stack), project="demo", stack="s")


def test_new_and_changed_checkpoints_are_exported_to_the_checkpoint_bucket_and_deletions_never(with_checkpoints):
    association = with_checkpoints.get(DRA, "s-fsx-checkpoints")
    bucket = with_checkpoints.get("aws:s3/bucket:Bucket", "s-checkpoints").outputs["bucket"]
    assert association.inputs["fileSystemPath"] == "/checkpoints"
    assert association.inputs["dataRepositoryPath"] == f"s3://{bucket}/checkpoints/"
    assert association.inputs["s3"] == {"autoExportPolicy": {"events": ["NEW", "CHANGED"]}}
    assert with_checkpoints.get(FS, "s-fsx").urn in association.dependencies


def test_the_file_system_records_the_jobs_checkpoint_and_the_largest_group_that_writes_it(with_checkpoints):
    """7e9 parameters x (2 + 12) bytes = 98 GB, written by the p5 group at its max size, 4 nodes."""
    component = with_checkpoints.get("trainstack:index:LustreFileSystem", "s-fsx")
    assert component.inputs["checkpoint"] == {
        "sizeGB": 98.0, "intervalMinutes": 20.0, "keep": 2, "path": "/checkpoints", "writers": 4,
        "writerInstanceType": "p5.48xlarge", "writersUseEfa": True}


def test_without_export_no_association_is_made():
    stack = {**STACK, "fsx": {**STACK["fsx"], "checkpoints": {**CHECKPOINTS, "exportToBucket": False}}}
    plan = run_program(lambda: TrainingStack("s", stack), project="demo", stack="s")
    assert not plan.by_type(DRA)


def test_the_hyperpod_stack_plans_with_an_efa_enabled_file_system():
    """The shipped HyperPod (Slurm) stack with fsx.efa: its g5.8xlarge workers have EFA but not GDS."""
    import yaml
    from support.policy_stacks import PROJECT
    from trainstack.estimate.checkpoint import storage_sizing
    from trainstack.policy import evaluate, stack_from_plan

    document = yaml.safe_load((PROJECT.root / "stacks" / "Pulumi.hyperpod.yaml").read_text())["config"]
    config = {key.split(":", 1)[1]: value for key, value in document.items()}
    config["fsx"].update(efa=True, storageCapacityGiB=4800, perUnitStorageThroughput=1000,
                         checkpoints={"sizeGB": 100, "intervalMinutes": 30})
    plan = run_program(lambda: TrainingStack("hp", config), project="demo", stack="hp")

    fs = plan.get(FS, "hp-fsx").inputs
    assert fs["efaEnabled"] is True and fs["metadataConfiguration"] == {"mode": "AUTOMATIC"}
    fsx_group, hyperpod_group = (plan.get("aws:ec2/securityGroup:SecurityGroup", name).id
                                 for name in ("hp-fsx", "hp-hyperpod"))
    for token in (INGRESS, EGRESS):
        assert any(r.inputs["securityGroupId"] == fsx_group and r.inputs.get("referencedSecurityGroupId")
                   == hyperpod_group and r.inputs["ipProtocol"] == "-1" for r in plan.by_type(token))
    (timing,) = storage_sizing(plan).timings
    assert (timing.transport, timing.writers, timing.writer_instance_type) == ("efa", 2, "ml.g5.8xlarge")
    assert not evaluate(stack_from_plan(plan), {"profile": "dev"}).mandatory_failures


def test_each_fsx_claim_waits_for_the_namespace_it_is_made_in():
    # The engine creates independent resources at once: a claim that does not wait for its namespace races it.
    from support.rendered_jobs import planned_record

    resources = planned_record("kueue-p5")["resources"]
    namespaces = {r["inputs"]["metadata"]["name"]: r["urn"] for r in resources
                  if r["type"] == "kubernetes:core/v1:Namespace"}
    claims = [r for r in resources if r["type"] == "kubernetes:core/v1:PersistentVolumeClaim"
              and r["parent"].endswith("LustreFileSystem::kueue-p5-fsx")]
    assert {c["inputs"]["metadata"]["namespace"] for c in claims} == {"llm", "vision"}
    for claim in claims:
        assert namespaces[claim["inputs"]["metadata"]["namespace"]] in claim["dependencies"], claim["name"]
