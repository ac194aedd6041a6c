"""The replacement fact table: checked against CloudFormation's schemas, and complete for the library."""

import dataclasses
from pathlib import Path

import pytest
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER
from trainstack.catalog import resource_types
from trainstack.catalog.resource_types import RESOURCE_TYPES
from trainstack.review import decide

REPO = Path(__file__).resolve().parents[2]
FACTS = {row.token: row.replacement for row in RESOURCE_TYPES if row.replacement}
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
"""Each resource type's replacement facts, from its row of the resource-type table."""

AWS_PACKAGES = ("aws:", "aws-native:", "eks:")
"""The AWS resource types: pulumi-aws, aws-native and pulumi-eks. Kubernetes objects and Helm releases are
replaced as pulumi-kubernetes says (every other field is patched), so they need no walk."""
UNCLASSIFIED = ("unknown", "provider decides")


def input_paths(value, prefix: str = ""):
    """Each leaf's path, dot-separated, list items without an index (as the facts name them)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from input_paths(item, f"{prefix}.{key}" if prefix else key)
    elif isinstance(value, list) and value:
        for item in value:
            yield from input_paths(item, prefix)
    elif prefix:
        yield prefix


@pytest.fixture(scope="module")
def walked() -> set[tuple[str, str]]:
    """(type, input path) of every input every shipped stack renders for an AWS resource type."""
    from support.rendered_jobs import SHIPPED_STACKS, planned_record

    return {(r["type"], path) for stack in SHIPPED_STACKS for r in planned_record(stack)["resources"]
            if r["type"].startswith(AWS_PACKAGES) and (r["custom"] or r["remote"])
            for path in input_paths(r["inputs"])}


def unclassified(paths: set[tuple[str, str]]) -> list[str]:
    return sorted(f"{token} {path}" for token, path in paths if decide(token, path, 1, 2, {}).effect in UNCLASSIFIED)


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


def test_every_input_every_shipped_stack_renders_for_an_aws_type_is_classified_with_its_source(walked):
    # 229 paths when this was written; 62 had no fact (issue 37), FSx's efaEnabled among them.
    assert len(walked) > 200
    assert unclassified(walked) == []
    for token, path in walked:
        decision = decide(token, path, 1, 2, {})
        assert decision.reason.endswith(")") and "(" in decision.reason, f"{token} {path}: no source"


def test_the_walk_bites_when_one_fact_is_deleted(walked, monkeypatch):
    row = resource_types.find(FSX)
    facts = row.replacement
    without = dataclasses.replace(facts, replaces=tuple(p for p in facts.replaces if p != "efaEnabled"))
    monkeypatch.setitem(resource_types._BY_TOKEN, FSX, dataclasses.replace(row, replacement=without))
    assert unclassified(walked) == [f"{FSX} efaEnabled"]


def test_every_change_the_readme_says_replaces_the_file_system_replaces_it():
    # docs/data-safety.md: fsx.deploymentType, fsx.zone (the subnet), fsx.efa, fsx.kmsKeyArn, a smaller
    # fsx.storageCapacityGiB, a lower fsx.metadataIops.
    changes = [("deploymentType", "SCRATCH_2", "PERSISTENT_2"), ("subnetIds", "subnet-a", "subnet-b"),
               ("efaEnabled", True, False), ("efaEnabled", None, True), ("kmsKeyId", "arn:a", "arn:b"),
               ("storageCapacity", 4800, 2400), ("metadataConfiguration.iops", 6000, 3000)]
    assert [(path, decide(FSX, path, before, after, {}).effect) for path, before, after in changes] == [
        (path, "replace") for path, _, _ in changes]
    assert decide(FSX, "storageCapacity", 2400, 4800, {}).effect == "update"
    assert decide(FSX, "metadataConfiguration.iops", 3000, 6000, {}).effect == "update"


def test_an_input_no_fact_names_on_a_resource_that_holds_data_or_carries_running_things_may_replace_it():
    # A guarded row (loses, runs or network): unknown, with the exact path; elsewhere the provider decides.
    for token, path in ((FSX, "someNewInput.deep"), ("aws:ec2/vpc:Vpc", "ipv6CidrBlock"),
                        ("aws:eks/nodeGroup:NodeGroup", "warmPoolConfig.maxGroupPreparedCapacity"),
                        ("aws:ec2/securityGroup:SecurityGroup", "revokeRulesOnDelete"),
                        ("aws:s3/bucket:Bucket", "objectLockEnabled")):
        decision = decide(token, path, 1, 2, {})
        assert decision.effect == "unknown", token
        assert decision.reason.startswith(f"unknown: may replace: no replacement fact names `{path}` of {token}")
    assert decide("aws:iam/policy:Policy", "policy", "a", "b", {}).effect == "provider decides"


def test_where_the_terraform_provider_and_cloudformation_disagree_the_provider_governs():
    # CloudFormation's SecurityGroupIngress is create-only throughout; the Terraform provider modifies
    # rules in place and replaces only for a new group or a source of another kind.
    rule = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    assert "FromPort" in _create_only(_schema("AWS::EC2::SecurityGroupIngress"))
    assert decide(rule, "fromPort", 988, 1018, {}).effect == "update"
    assert decide(rule, "referencedSecurityGroupId", "sg-1", "sg-2", {}).effect == "update"
    assert decide(rule, "cidrIpv4", None, "10.0.0.0/16", {}).effect == "replace"
    assert decide(rule, "securityGroupId", "sg-1", "sg-2", {}).effect == "replace"


def test_the_facts_read_as_their_sources_say():
    assert decide("aws:autoscaling/tag:Tag", "tag.value", "1", "2", {}).effect == "update"
    assert decide("aws:autoscaling/tag:Tag", "tag.key", "1", "2", {}).effect == "replace"
    assert decide("aws:eks/nodeGroup:NodeGroup", "instanceTypes", ["a"], ["b"], {}).effect == "replace"
    assert decide("aws:eks/nodeGroup:NodeGroup", "scalingConfig.maxSize", 2, 4, {}).effect == "update"
    assert decide("kubernetes:helm.sh/v3:Release", "version", "9.52.0", "9.59.0", {}).effect == "update"
    assert decide("kubernetes:helm.sh/v3:Release", "namespace", "a", "b", {}).effect == "replace"
    launch_template = decide("aws:ec2/launchTemplate:LaunchTemplate", "userData", "a", "b", {})
    assert launch_template.effect == "update" and "a new template version" in launch_template.reason
