"""The same rules as CrossGuard stack policies, fed resources shaped as the engine sends them."""

import yaml
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    StackValidationArgs,
)
from support.policy_stacks import PROJECT
from trainstack.policy import RULES
from trainstack.policy.crossguard import policies, to_crossguard

PROVIDER = PolicyProviderResource("pulumi:providers:aws", {"region": "us-east-1", "defaultTags": {
    "tags": {"trainstack:profile": "production"}}}, "urn:aws", "aws")


def resource(type_token, name, props, protect=False):
    options = PolicyResourceOptions(protect, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    return PolicyResource(type_token, props, f"urn:pulumi:s::p::{type_token}::{name}", name, options, PROVIDER,
                          None, [], {})


def run(rule_id, resources, config=None):
    rule = next(r for r in RULES if r.id == rule_id)
    violations = []
    to_crossguard(rule).validate(StackValidationArgs(resources, config or {}),
                                 lambda message, urn=None: violations.append((urn, message)))
    return violations


def test_the_pack_registers_every_rule_with_its_level_and_settings():
    pack = policies()
    assert [p.name for p in pack] == [r.id for r in RULES]
    assert all(p.enforcement_level == EnforcementLevel.MANDATORY for p in pack)
    ceiling = next(p for p in pack if p.name == "hourly-cost-ceiling")
    assert "maxHourlyUsd" in ceiling.config_schema.properties


def test_public_endpoint_on_the_engines_child_cluster_fails_in_a_production_stack():
    public = resource("aws:eks/cluster:Cluster", "c", {
        "vpcConfig": {"endpointPublicAccess": True}, "encryptionConfig": {"resources": ["secrets"]}})
    private = resource("aws:eks/cluster:Cluster", "c", {
        "vpcConfig": {"endpointPublicAccess": False}, "encryptionConfig": {"resources": ["secrets"]}})
    assert [urn for urn, _ in run("eks-endpoint-private-in-production", [public])] == [public.urn]
    assert run("eks-endpoint-private-in-production", [private]) == []
    assert run("eks-endpoint-private-in-production", [public], {"profile": "dev"}) == []


def test_unencrypted_secrets_on_an_engine_child_cluster_before_1_28_fail():
    private = {"endpointPublicAccess": False}
    old = resource("aws:eks/cluster:Cluster", "c", {"version": "1.27", "vpcConfig": private})
    current = resource("aws:eks/cluster:Cluster", "c", {"version": "1.34", "vpcConfig": private})
    assert len(run("eks-secrets-encrypted", [old])) == 1
    assert run("eks-secrets-encrypted", [current]) == []


def test_unprotected_file_system_fails_through_crossguard_options():
    fsx = "aws:fsx/lustreFileSystem:LustreFileSystem"
    assert len(run("storage-protected-in-production", [resource(fsx, "f", {}, protect=False)])) == 1
    assert run("storage-protected-in-production", [resource(fsx, "f", {}, protect=True)]) == []


def test_the_pack_directory_is_a_python_crossguard_pack_using_the_library():
    policies_dir = PROJECT.root / "policies"
    assert yaml.safe_load((policies_dir / "PulumiPolicy.yaml").read_text())["runtime"]["name"] == "python"
    main = (policies_dir / "__main__.py").read_text()
    assert "from trainstack.policy.crossguard import policies" in main and "PolicyPack(" in main
    assert "-e .." in (policies_dir / "requirements.txt").read_text().splitlines()
