"""The Karpenter controller, installed only where a group asks for it: the official chart at
1.14.1 pointed at the cluster and its interruption queue; a Pod Identity role with the policy of
Karpenter's getting-started CloudFormation at v1.14.1 (split per action onto the resource types
IAM says each takes); a node role with an EC2_LINUX access entry; the SQS queue and the five
EventBridge rules that feed it."""

import json

import pytest
from trainstack.cluster import karpenter
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

DEV = {"name": "dev", "instanceType": "g6.xlarge", "maxSize": 8, "zone": "us-east-1a", "autoscaler": "karpenter"}
CONFIG = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
          "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "nodeGroups": [DEV]}
# The Sids of cloudformation.yaml at v1.14.1 (its ZonalShiftPolicy left out: no zonal shift is on).
TEMPLATE_SIDS = {
    "AllowScopedEC2InstanceAccessActions", "AllowScopedEC2LaunchTemplateAccessActions",
    "AllowScopedEC2InstanceActionsWithTags", "AllowScopedResourceCreationTagging", "AllowScopedResourceTagging",
    "AllowScopedDeletion", "AllowPassingInstanceRole", "AllowScopedInstanceProfileCreationActions",
    "AllowScopedInstanceProfileTagActions", "AllowScopedInstanceProfileActions", "AllowAPIServerEndpointDiscovery",
    "AllowInterruptionQueueActions", "AllowRegionalReadActions", "AllowSSMReadActions", "AllowPricingReadActions",
    "AllowUnscopedInstanceProfileListAction", "AllowInstanceProfileReadActions"}


def plan(config):
    return run_program(lambda: TrainingStack("k", config), project="demo", stack="k")


@pytest.fixture(scope="module")
def record():
    return plan(CONFIG)


def one(record, type_, name):
    [resource] = [r for r in record.resources if r.type == type_ and r.name == name]
    return resource


def test_no_karpenter_group_no_controller():
    managed = plan({**CONFIG, "nodeGroups": [{**DEV, "autoscaler": "cluster-autoscaler"}]})
    assert not [r for r in managed.resources if "karpenter" in r.name]


def test_the_chart_is_the_official_one_at_1_14_1_pointed_at_the_cluster_and_its_queue(record):
    release = one(record, "kubernetes:helm.sh/v3:Release", "k-eks-karpenter")
    queue = one(record, "aws:sqs/queue:Queue", "k-eks-karpenter")
    assert release.inputs["chart"] == "oci://public.ecr.aws/karpenter/karpenter"
    assert release.inputs["version"] == "1.14.1"
    settings = release.inputs["values"]["settings"]
    assert settings == {"clusterName": "demo-k", "interruptionQueue": queue.outputs["name"]}
    assert release.inputs["values"]["serviceAccount"]["name"] == karpenter.SERVICE_ACCOUNT


def test_the_controller_role_comes_through_pod_identity_for_its_service_account(record):
    association = one(record, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "k-eks-karpenter")
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system", "karpenter")


def test_the_controller_policy_keeps_every_statement_of_the_getting_started_template(record):
    policy = json.loads(one(record, "aws:iam/rolePolicy:RolePolicy", "k-eks-karpenter").inputs["policy"])
    sids = {s["Sid"] for s in policy["Statement"]}
    assert TEMPLATE_SIDS <= sids
    queue_arn = one(record, "aws:sqs/queue:Queue", "k-eks-karpenter").outputs["arn"]
    [queue_grant] = [s for s in policy["Statement"] if s["Sid"] == "AllowInterruptionQueueActions"]
    assert queue_grant["Resource"] == queue_arn
    [pass_role] = [s for s in policy["Statement"] if s["Sid"] == "AllowPassingInstanceRole"]
    assert pass_role["Resource"] == one(record, "aws:iam/role:Role", "k-eks-karpenter-nodes").outputs["arn"]
    # Launches and deletions only of resources tagged as this cluster's and a NodePool's.
    for sid in ("AllowScopedDeletion", "AllowScopedLaunchTemplateDeletion"):
        [statement] = [s for s in policy["Statement"] if s["Sid"] == sid]
        assert statement["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/demo-k": "owned"}


def test_karpenter_nodes_join_through_an_ec2_linux_access_entry_for_their_role(record):
    entry = one(record, "aws:eks/accessEntry:AccessEntry", "k-eks-karpenter-nodes")
    assert entry.inputs["type"] == "EC2_LINUX"
    assert entry.inputs["principalArn"] == one(record, "aws:iam/role:Role", "k-eks-karpenter-nodes").outputs["arn"]


def test_the_interruption_queue_gets_the_five_events_karpenter_documents(record):
    queue = one(record, "aws:sqs/queue:Queue", "k-eks-karpenter")
    assert queue.inputs["messageRetentionSeconds"] == 300 and queue.inputs["sqsManagedSseEnabled"] is True
    patterns = {json.dumps(json.loads(r.inputs["eventPattern"]), sort_keys=True)
                for r in record.resources if r.type == "aws:cloudwatch/eventRule:EventRule"}
    assert patterns == {json.dumps({"detail-type": [d], "source": [s]}, sort_keys=True)
                        for s, d in karpenter.INTERRUPTION_EVENTS.values()}
    assert len(karpenter.INTERRUPTION_EVENTS) == 5
    targets = [r for r in record.resources if r.type == "aws:cloudwatch/eventTarget:EventTarget"]
    assert len(targets) == 5 and {t.inputs["arn"] for t in targets} == {queue.outputs["arn"]}
    policy = json.loads(one(record, "aws:sqs/queuePolicy:QueuePolicy", "k-eks-karpenter").inputs["policy"])
    assert {"events.amazonaws.com", "sqs.amazonaws.com"} == set(policy["Statement"][0]["Principal"]["Service"])
    assert policy["Statement"][1]["Effect"] == "Deny"
