"""The replacement fact table: checked against CloudFormation's schemas, and complete for the library."""

from pathlib import Path

import pytest
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER
from trainstack.catalog.resource_types import RESOURCE_TYPES
from trainstack.review import decide

REPO = Path(__file__).resolve().parents[2]
FACTS = {row.token: row.replacement for row in RESOURCE_TYPES if row.replacement}
"""Each resource type's replacement facts, from its row of the resource-type table."""

# Types the library renders with no entry: every changed input of theirs is "the provider decides".
WITHOUT_FACTS = {
    "aws:autoscaling/tag:Tag", "aws:ecr/lifecyclePolicy:LifecyclePolicy",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "aws:s3/bucketObjectv2:BucketObjectv2",
    "kubernetes:kustomize/v2:Directory",
    "pulumi:providers:aws", "pulumi:providers:aws-native", "pulumi:providers:kubernetes",
}


def _schema(cfn_type: str) -> dict:
    return PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", cfn_type).schema


def _create_only(schema: dict) -> set[str]:
    return {p.removeprefix("/properties/") for p in schema.get("createOnlyProperties", [])}


def _is_create_only(prop: str, create_only: set[str]) -> bool:
    """A property is create-only if it or a property containing it is listed."""
    parts = prop.split("/")
    return any("/".join(parts[:n]) in create_only for n in range(1, len(parts) + 1))


MAPPED = [(token, path, prop) for token, facts in FACTS.items() if facts.cfn
          for path, prop in facts.cfn[1].items()]


@pytest.mark.parametrize("type_token, path, prop", MAPPED, ids=[f"{t.split(':')[-1]}.{p}" for t, p, _ in MAPPED])
def test_each_mapped_input_agrees_with_the_cloudformation_schema_of_the_same_api(type_token, path, prop):
    facts = FACTS[type_token]
    schema = _schema(facts.cfn[0])
    assert prop.split("/")[0] in schema["properties"], f"{facts.cfn[0]} has no property {prop}"
    replaces = any(path == p or path.startswith(p + ".") for p in facts.replaces)
    assert replaces == _is_create_only(prop, _create_only(schema)), (
        f"{type_token} {path}: the table says {'replace' if replaces else 'in place'}, "
        f"{facts.cfn[0]} {prop} says otherwise")


def test_hyperpod_facts_are_exactly_the_schemas_create_only_properties():
    facts = FACTS["aws-native:sagemaker:Cluster"]
    mapped = {facts.cfn[1][path] for path in facts.replaces}
    assert mapped == _create_only(_schema("AWS::SageMaker::Cluster"))


def test_every_resource_type_of_every_shipped_stack_has_facts_or_is_knowingly_left_to_the_provider(tmp_path):
    from support.plan_records import record

    rendered = set()
    for stack in ("dev", "fsdp-p5", "hyperpod", "hyperpod-eks", "nemo-p4de", "trn1"):
        document = record(tmp_path / stack, stack)
        rendered |= {r["type"] for r in document["resources"] if r["custom"] or r["remote"]}
    assert rendered - set(FACTS) == WITHOUT_FACTS


def test_where_the_terraform_provider_and_cloudformation_disagree_the_provider_governs():
    # CloudFormation's SecurityGroupIngress is create-only throughout; the Terraform provider modifies
    # rules in place and replaces only for a new group or a source of another kind.
    rule = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    assert "FromPort" in _create_only(_schema("AWS::EC2::SecurityGroupIngress"))
    assert decide(rule, "fromPort", 988, 1018, {}).effect == "update"
    assert decide(rule, "referencedSecurityGroupId", "sg-1", "sg-2", {}).effect == "update"
    assert decide(rule, "cidrIpv4", None, "10.0.0.0/16", {}).effect == "replace"
    assert decide(rule, "securityGroupId", "sg-1", "sg-2", {}).effect == "replace"


def test_an_input_no_fact_names_is_left_to_the_provider_never_guessed():
    assert decide("aws:fsx/lustreFileSystem:LustreFileSystem", "efaEnabled", False, True, {}).effect == \
        "provider decides"
    assert decide("aws:autoscaling/tag:Tag", "tag.value", "1", "2", {}).effect == "provider decides"
    assert decide("aws:eks/nodeGroup:NodeGroup", "instanceTypes", ["a"], ["b"], {}).effect == "replace"
    assert decide("aws:eks/nodeGroup:NodeGroup", "scalingConfig.maxSize", 2, 4, {}).effect == "update"
    assert decide("kubernetes:helm.sh/v3:Release", "version", "9.52.0", "9.59.0", {}).effect == "update"
    assert decide("kubernetes:helm.sh/v3:Release", "namespace", "a", "b", {}).effect == "replace"
    launch_template = decide("aws:ec2/launchTemplate:LaunchTemplate", "userData", "a", "b", {})
    assert launch_template.effect == "update" and "a new template version" in launch_template.reason
