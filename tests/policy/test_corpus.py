"""A corpus of broken resources, each built as the engine passes it, each caught by the
rule that names its fault; and every shipped stack passes every mandatory rule."""

import json

import pytest
from support.policy_stacks import PROJECT, added, changed, find, removed, with_props
from trainstack.policy import RULES, Resource, evaluate

LT, NG = "aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup"
SG, INGRESS = "aws:ec2/securityGroup:SecurityGroup", "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
FSX, BUCKET = "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:s3/bucket:Bucket"
EKS, EKS_CHILD = "eks:index:Cluster", "aws:eks/cluster:Cluster"
SUBNET = "aws:ec2/subnet:Subnet"
CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
POOL, NODE_CLASS = "kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"


@pytest.mark.parametrize("stack", sorted(PROJECT.stacks()))
def test_every_shipped_stack_passes_every_mandatory_rule(baselines, stack):
    from trainstack.analysis import policy_config, stack_config
    from trainstack.plan import load_stack

    report = evaluate(baselines[stack], policy_config(stack_config(load_stack(PROJECT, stack)), None))
    assert not report.mandatory_failures, [(r.rule.id, r.violations) for r in report.mandatory_failures]


def test_every_rule_has_an_id_description_enforcement_area_and_source():
    assert len({r.id for r in RULES}) == len(RULES) >= 19
    assert all(r.description and r.enforcement == "mandatory" and r.area and r.source for r in RULES)


def ingress(name, group_urn, cidr, low, high, protocol="tcp"):
    return Resource(INGRESS, name, f"urn:test::{name}", {"cidrIpv4": cidr, "fromPort": low, "toPort": high,
                                                         "ipProtocol": protocol},
                    property_dependencies={"securityGroupId": [group_urn]})


def child_cluster(public: bool, encrypted: bool, version: str = "1.35"):
    props = {"version": version, "vpcConfig": {"endpointPublicAccess": public, "endpointPrivateAccess": True}}
    if encrypted:
        props["encryptionConfig"] = {"resources": ["secrets"], "provider": {"keyArn": "arn:aws:kms:k"}}
    return Resource(EKS_CHILD, "nemo-p4de-eks", "urn:test::eks-child", props)


def iam_policy(actions):
    document = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}
    return Resource("aws:iam/rolePolicy:RolePolicy", "extra", "urn:test::extra", {"policy": json.dumps(document)})


def other_zone_subnet(stack):
    return Resource(SUBNET, "elsewhere", "urn:test::subnet-b", {"availabilityZone": "us-east-1f"})


def _interfaces(types_and_cards):
    return [{"networkCardIndex": card, "deviceIndex": device, "interfaceType": kind, "securityGroups": ["sg"]}
            for card, device, kind in types_and_cards]


CORPUS = {
    "IMDSv1 allowed on GPU nodes": ("nemo-p4de", "imdsv2-required", lambda s: with_props(
        s, LT, "nemo-p4de-eks-p4de", lambda p: p["metadataOptions"].update(httpTokens="optional")), {}),
    "Postgres open to the internet": ("nemo-p4de", "no-public-ingress", lambda s: added(s, ingress(
        "db", find(s, SG, "nemo-p4de-eks-efa").urn, "0.0.0.0/0", 5432, 5432)), {}),
    "HTTPS open to the internet where no public port is allowed": ("nemo-p4de", "no-public-ingress", lambda s: added(
        s, ingress("web", find(s, SG, "nemo-p4de-eks-efa").urn, "0.0.0.0/0", 443, 443)),
        {"no-public-ingress": {"allowedPublicPorts": []}}),
    "SSH open to the internet": ("nemo-p4de", "no-ssh-from-internet", lambda s: added(s, ingress(
        "ssh", find(s, SG, "nemo-p4de-eks-efa").urn, "0.0.0.0/0", 22, 22)), {}),
    "all traffic from ::/0 includes SSH": ("nemo-p4de", "no-ssh-from-internet", lambda s: added(s, Resource(
        INGRESS, "all6", "urn:test::all6", {"cidrIpv6": "::/0", "ipProtocol": "-1"})), {}),
    "EKS 1.27 secrets not encrypted (pulumi-eks inputs)": ("nemo-p4de", "eks-secrets-encrypted", lambda s: changed(
        s, EKS, "nemo-p4de-eks", props={**{k: v for k, v in find(s, EKS, "nemo-p4de-eks").props.items()
                                           if k != "encryptionConfigKeyArn"}, "version": "1.27"},
        property_dependencies={}), {}),
    "EKS 1.27 secrets not encrypted (engine child resource)": ("nemo-p4de", "eks-secrets-encrypted",
                                                               lambda s: added(s, child_cluster(False, False, "1.27")),
                                                               {}),
    "public endpoint in production (pulumi-eks inputs)": ("nemo-p4de", "eks-endpoint-private-in-production",
                                                          lambda s: with_props(s, EKS, "nemo-p4de-eks",
                                                                               lambda p: p.update(
                                                                                   endpointPublicAccess=True)), {}),
    "public endpoint in production (engine child resource)": ("nemo-p4de", "eks-endpoint-private-in-production",
                                                              lambda s: added(s, child_cluster(True, True)), {}),
    "unencrypted root volume": ("nemo-p4de", "ebs-encrypted", lambda s: with_props(
        s, LT, "nemo-p4de-eks-p4de", lambda p: p["blockDeviceMappings"][0]["ebs"].update(encrypted="false")), {}),
    "FSx on the AWS key where a customer key is required": ("nemo-p4de", "kms-customer-keys", lambda s: s,
                                                            {"kms-customer-keys": {"requireCustomerKeyFor": ["fsx"]}}),
    "checkpoints on the AWS managed S3 key where a customer key is required": (
        "nemo-p4de", "kms-customer-keys", lambda s: s, {"kms-customer-keys": {"requireCustomerKeyFor": ["s3"]}}),
    "root volumes on the default EBS key where a customer key is required": (
        "nemo-p4de", "kms-customer-keys", lambda s: s, {"kms-customer-keys": {"requireCustomerKeyFor": ["ebs"]}}),
    "an IAM grant AWS would deny": ("nemo-p4de", "iam-service-authorization", lambda s: added(s, iam_policy(
        ["eks:DescribeNodegroup"])), {}),
    "wildcard IAM action": ("nemo-p4de", "iam-no-wildcard-actions", lambda s: added(s, iam_policy(["s3:*"])), {}),
    "EFA group without its self egress rule": ("nemo-p4de", "efa-security-group-self-rules", lambda s: removed(
        s, EGRESS, "nemo-p4de-eks-efa-out-to-self"), {}),
    "eksctl's layout: efa on every card at device 1": ("nemo-p4de", "efa-layout-matches-catalog", lambda s: with_props(
        s, LT, "nemo-p4de-eks-p4de", lambda p: p.update(networkInterfaces=_interfaces(
            [(0, 0, "efa"), (1, 1, "efa"), (2, 1, "efa"), (3, 1, "efa")]))), {}),
    "p5 sized by 8 cards instead of 32 EFA interfaces": ("fsdp-p5", "efa-layout-matches-catalog", lambda s: with_props(
        s, LT, "fsdp-p5-eks-p5", lambda p: p.update(networkInterfaces=_interfaces(
            [(0, 0, "interface")] + [(c, 1 if c == 0 else 0, "efa-only") for c in range(8)]))), {}),
    "GPU group across two zones": ("nemo-p4de", "accelerated-groups-single-zone", lambda s: changed(
        added(s, other_zone_subnet(s)), NG, "nemo-p4de-eks-p4de", property_dependencies={
            **find(s, NG, "nemo-p4de-eks-p4de").property_dependencies,
            "subnetIds": [*find(s, NG, "nemo-p4de-eks-p4de").property_dependencies["subnetIds"],
                          "urn:test::subnet-b"]}),
        {}),
    "FSx in another zone than the GPUs": ("nemo-p4de", "fsx-zone-and-ports", lambda s: changed(
        added(s, other_zone_subnet(s)), FSX, "nemo-p4de-fsx", property_dependencies={
            **find(s, FSX, "nemo-p4de-fsx").property_dependencies, "subnetIds": ["urn:test::subnet-b"]}), {}),
    "FSx opening only 1021-1023": ("nemo-p4de", "fsx-zone-and-ports", lambda s: Stack_with_ports(s, 1021), {}),
    "capacity block launched on demand": ("nemo-p4de", "capacity-block-market-type", lambda s: with_props(
        s, NG, "nemo-p4de-eks-p4de", lambda p: p.update(capacityType="CAPACITY_BLOCK")), {}),
    "capacity block in a placement group": ("nemo-p4de", "capacity-block-market-type", lambda s: with_props(
        with_props(s, NG, "nemo-p4de-eks-p4de", lambda p: p.update(capacityType="CAPACITY_BLOCK")),
        LT, "nemo-p4de-eks-p4de", lambda p: p.update(instanceMarketOptions={"marketType": "capacity-block"},
                                                     placement={"groupName": "pg"})), {}),
    "unprotected FSx in production": ("nemo-p4de", "storage-protected-in-production", lambda s: changed(
        s, FSX, "nemo-p4de-fsx", protect=False), {}),
    "unprotected checkpoint bucket in production": ("nemo-p4de", "storage-protected-in-production", lambda s: changed(
        s, BUCKET, "nemo-p4de-checkpoints", protect=False), {}),
    "checkpoint versioning suspended": ("nemo-p4de", "checkpoint-bucket-versioning", lambda s: with_props(
        s, "aws:s3/bucketVersioning:BucketVersioning", "nemo-p4de-checkpoints-versioning",
        lambda p: p.update(versioningConfiguration={"status": "Suspended"})), {}),
    "max size above the spend ceiling": ("dev", "hourly-cost-ceiling", lambda s: s, {"maxHourlyUsd": 1}),
    "a type with no published price under a ceiling": ("dev", "hourly-cost-ceiling", lambda s: with_props(
        s, NG, "dev-eks-gpu", lambda p: p.update(instanceTypes=["p5e.48xlarge"])), {"maxHourlyUsd": 500}),
    "dev GPUs that never scale to zero": ("dev", "dev-groups-scale-to-zero", lambda s: with_props(
        s, NG, "dev-eks-gpu", lambda p: p["scalingConfig"].update(minSize=1)), {}),
    "a required tag missing": ("dev", "required-tags", lambda s: s, {"requiredTags": ["cost-center"]}),
    "trn1 back at 1200 GiB x 250 MB/s/TiB: a checkpoint takes 34.5% of its interval": (
        "trn1", "checkpoint-write-share", lambda s: with_props(
            s, FSX, "trn1-fsx", lambda p: p.update(storageCapacity=1200, perUnitStorageThroughput=250)), {}),
    "trn1 under a 5% ceiling (its checkpoint takes 8.6%)": (
        "trn1", "checkpoint-write-share", lambda s: s, {"checkpoint-write-share": {"maxShare": 0.05}}),
    # 3 x 980 GB kept against 2400 GiB (2,577 GB); the write (418 s, 11.6%) is under a 20% ceiling.
    "more checkpoints kept than the file system holds": ("fsdp-p5", "checkpoint-write-share", lambda s: with_props(
        s, FSX, "fsdp-p5-fsx", lambda p: p.update(storageCapacity=2400)),
        {"checkpoint-write-share": {"maxShare": 0.2}}),
    "a team queue with no guarantee that may not borrow": ("kueue-p5", "kueue-queues-have-quota", lambda s: with_props(
        s, CQ, "kueue-p5-addons-clusterqueue-vision", lambda p: [
            r.update(nominalQuota="0", borrowingLimit="0")
            for f in p["spec"]["resourceGroups"][0]["flavors"] for r in f["resources"]]), {}),
    "a LocalQueue feeding a missing ClusterQueue": ("kueue-p5", "kueue-queues-have-quota", lambda s: removed(
        s, CQ, "kueue-p5-addons-clusterqueue-vision"), {}),
    "a Karpenter pool holding a reservation that may also launch on demand": (
        "kueue-p5", "karpenter-reserved-pools", lambda s: with_props(
            s, NODE_CLASS, "kueue-p5-eks-dev-ec2nodeclass",
            lambda p: p["spec"].update(capacityReservationSelectorTerms=[{"id": "cr-0123456789abcdef0"}])), {}),
    "a Karpenter pool allowing reserved with no reservation named": ("kueue-p5", "karpenter-reserved-pools",
                                                                      lambda s: with_capacity_types(s, ["reserved"]),
                                                                      {}),
    "a Spot pool with EFA interfaces": ("kueue-p5", "no-spot-for-reserved-or-efa", lambda s: with_props(
        with_capacity_types(s, ["spot", "on-demand"]), NODE_CLASS, "kueue-p5-eks-dev-ec2nodeclass",
        lambda p: p["spec"].update(networkInterfaces=[
            {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
            {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}])), {}),
    "a managed EFA group on Spot": ("kueue-p5", "no-spot-for-reserved-or-efa", lambda s: with_props(
        s, NG, "kueue-p5-eks-p5", lambda p: p.update(capacityType="SPOT")), {}),
    "a Karpenter pool making nodes of a managed group": ("kueue-p5", "one-autoscaler-per-group", lambda s: added(
        s, Resource("kubernetes:karpenter.sh/v1:NodePool", "dev-pool", "urn:test::pool", {
            "metadata": {"name": "dev"}, "spec": {"template": {"spec": {"requirements": [
                {"key": "trainstack.io/node-group", "operator": "In", "values": ["p5"]}]}}}})), {}),
    "a topology on a type EKS gives no network labels": ("kueue-p5", "kueue-topology-satisfiable", lambda s: with_props(
        s, NG, "kueue-p5-eks-p5", lambda p: p.update(instanceTypes=["g5.48xlarge"])), {}),
}


def with_capacity_types(stack, types):
    """The shipped dev pool's karpenter.sh/capacity-type requirement set to ``types``."""
    def edit(props):
        for requirement in props["spec"]["template"]["spec"]["requirements"]:
            if requirement["key"] == "karpenter.sh/capacity-type":
                requirement["values"] = types
    return with_props(stack, POOL, "kueue-p5-eks-dev-nodepool", edit)


def Stack_with_ports(stack, low):
    """Narrow every FSx ingress rule on 1018-1023 to ``low``-1023, as several field tools do."""
    for rule in [r for r in stack.resources if r.type == INGRESS and r.props.get("fromPort") == 1018]:
        stack = with_props(stack, INGRESS, rule.name, lambda p: p.update(fromPort=low))
    return stack


@pytest.mark.parametrize("case", list(CORPUS))
def test_each_broken_resource_is_caught_by_the_rule_that_names_its_fault(baselines, case):
    stack_name, rule_id, break_it, config = CORPUS[case]
    baseline = baselines[stack_name]
    assert not evaluate(baseline).failed(rule_id)

    report = evaluate(break_it(baseline), config)

    assert report.failed(rule_id), report.render()
    assert rule_id in {r.rule.id for r in report.mandatory_failures}


def test_a_plain_bucket_in_another_program_passes_every_rule(baselines):
    """S3 encrypts every new object with SSE-S3 since January 2023: a bucket needs no configuration for it."""
    plain = Resource(BUCKET, "assets", "urn:test::assets", {"bucket": "assets"})
    for stack in ("dev", "nemo-p4de"):
        report = evaluate(added(baselines[stack], plain))
        assert not report.mandatory_failures, report.render()


def test_customer_keys_are_required_only_in_the_named_profiles(baselines):
    wanted = {"kms-customer-keys": {"requireCustomerKeyFor": ["fsx", "s3", "ebs", "eks-secrets"]}}
    assert not evaluate(baselines["dev"], wanted).failed("kms-customer-keys")
    assert evaluate(baselines["dev"], {"kms-customer-keys": {**wanted["kms-customer-keys"],
                                                             "profiles": ["dev"]}}).failed("kms-customer-keys")
    failed = evaluate(baselines["nemo-p4de"], wanted)
    (result,) = [r for r in failed.results if r.rule.id == "kms-customer-keys"]
    assert not any("EKS cluster" in v.message for v in result.violations)  # the stack's own KMS key


def test_https_from_the_internet_passes_by_default_as_aws_security_hub_authorizes_it(baselines):
    stack = added(baselines["nemo-p4de"], ingress("web", find(baselines["nemo-p4de"], SG, "nemo-p4de-eks-efa").urn,
                                                  "0.0.0.0/0", 443, 443))
    assert not evaluate(stack).failed("no-public-ingress")


def test_eks_clusters_on_default_envelope_encryption_pass_without_a_key(baselines):
    assert not evaluate(added(baselines["nemo-p4de"], child_cluster(False, False, "1.34"))).failed(
        "eks-secrets-encrypted")


def test_a_gpu_group_without_efa_or_reservation_may_span_zones(baselines):
    stack = baselines["dev"]
    group = next(g for g in stack.resources if g.type == NG and g.name == "dev-eks-gpu")
    subnet = Resource(SUBNET, "elsewhere", "urn:test::subnet-b", {"availabilityZone": "us-east-1b"})
    spread = changed(added(stack, subnet), NG, "dev-eks-gpu", property_dependencies={
        **group.property_dependencies, "subnetIds": group.property_dependencies["subnetIds"] + [subnet.urn]})
    assert not evaluate(spread).failed("accelerated-groups-single-zone")


def test_a_launch_template_that_leaves_imds_to_the_ami_fails_with_that_reason(baselines):
    stack = with_props(baselines["nemo-p4de"], LT, "nemo-p4de-eks-p4de", lambda p: p.update(metadataOptions={}))
    (result,) = [r for r in evaluate(stack).results if r.rule.id == "imdsv2-required"]
    assert "unless the AMI or the account default requires tokens" in result.violations[0].message


def test_a_type_the_catalog_lacks_is_not_judged_by_the_efa_layout_rule(baselines):
    stack = with_props(baselines["fsdp-p5"], NG, "fsdp-p5-eks-p5", lambda p: p.update(instanceTypes=["p9.96xlarge"]))
    assert not evaluate(stack).failed("efa-layout-matches-catalog")


def test_an_allow_listed_action_passes_the_wildcard_rule(baselines):
    stack = added(baselines["nemo-p4de"], iam_policy(["ec2:Describe*"]))
    assert evaluate(stack, {"iam-no-wildcard-actions": {"allowedActions": ["ec2:Describe*"]}}).failed(
        "iam-no-wildcard-actions") is False


def test_dev_stacks_may_keep_a_public_endpoint_and_production_may_keep_gpus_warm(baselines):
    dev = with_props(baselines["dev"], EKS, "dev-eks", lambda p: p.update(endpointPublicAccess=True))
    assert not evaluate(dev).failed("eks-endpoint-private-in-production")
    assert not evaluate(baselines["nemo-p4de"]).failed("dev-groups-scale-to-zero")


def test_a_rule_can_be_made_advisory_or_disabled_by_config(baselines):
    stack = with_props(baselines["nemo-p4de"], LT, "nemo-p4de-eks-p4de",
                       lambda p: p["metadataOptions"].update(httpTokens="optional"))
    advisory = evaluate(stack, {"imdsv2-required": {"enforcementLevel": "advisory"}})
    assert advisory.failed("imdsv2-required") and not advisory.mandatory_failures
    assert not evaluate(stack, {"imdsv2-required": "disabled"}).failed("imdsv2-required")


def test_a_config_is_checked_against_the_rules_it_configures():
    from trainstack.policy import config_problems

    assert config_problems({"all": "advisory", "profile": "production", "maxHourlyUsd": 5,
                            "kms-customer-keys": {"requireCustomerKeyFor": ["s3"], "enforcementLevel": "advisory"},
                            "imdsv2-required": "disabled"}) == []
    (typo,) = config_problems({"imdsv2-requried": "disabled"})
    assert typo.startswith("imdsv2-requried: no rule has this id")
    (removed_rule,) = config_problems({"s3-encrypted": "disabled"})
    assert "S3 encrypts every new object with SSE-S3 since 2023-01-05" in removed_rule
