"""A stack as the real engine hands it to ``AnalyzeStack``, built from the offline record.

Offline, pulumi-eks's ``eks:index:Cluster`` is one opaque resource whose properties are
the program's inputs. Under the engine it is a remote component: the pulumi-eks provider
registers its children as separate resources, and ``AnalyzeStack`` sends each resource's
*outputs* (step_generator.go, ``AnalyzeResources``), so a component carries only what it
passed to ``registerOutputs`` (a Node.js component registers none of its inputs).

The children are those pulumi-eks (nodejs/eks/cluster/cluster.ts ``createCore``,
servicerole.ts, cluster/authenticationMode.ts) creates for the arguments trainstack
passes: no default node group, no default security groups, no OIDC provider, no
CoreDNS / kube-proxy / VPC CNI add-ons, API authentication mode. What stands in for
what: a custom resource's provider outputs are its inputs overlaid with the values the
plan's fixtures computed (the record's outputs); a child's outputs come from the same
fixtures; the Kubernetes provider's kubeconfig is the secret placeholder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, Optional

from trainstack.plan import SECRET_MARK, Plan, ResourceRecord
from trainstack.plan.fixtures import Fixtures
from trainstack.policy import Resource, Stack

from .analyzer import Topology

EKS_COMPONENT = "eks:index:Cluster"
ROOT_STACK, KUSTOMIZE_DIRECTORY = "pulumi:pulumi:Stack", "kubernetes:kustomize/v2:Directory"
# What pulumi-eks's Cluster passes to registerOutputs (cluster.ts, class Cluster).
EKS_OUTPUTS = ("clusterSecurityGroup", "core", "defaultNodeGroup", "eksCluster", "eksClusterIngressRule",
               "instanceRoles", "kubeconfig", "kubeconfigJson", "nodeSecurityGroup", "clusterSecurityGroupId",
               "nodeSecurityGroupId", "clusterIngressRuleId", "defaultNodeGroupAsgName", "fargateProfileId",
               "fargateProfileStatus", "oidcProviderArn", "oidcProviderUrl", "oidcIssuer", "autoModeNodeRoleName")
EKS_CLUSTER_POLICY = "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"


def child_urn(parent_urn: str, type_token: str, name: str) -> str:
    """A child's URN in the scheme the offline record uses (parent type, then the child's)."""
    stack_and_project, qualified_type, _ = parent_urn.rsplit("::", 2)
    return f"{stack_and_project}::{qualified_type.split('$')[-1]}${type_token}::{name}"


def engine_shape(stack: Stack, plan: Plan) -> tuple[Stack, Topology]:
    """``stack`` (offline shape, possibly broken by a test) as the engine would send it."""
    topology = Topology.of(plan)
    records = {r.urn: r for r in plan.resources}
    resources: list[Resource] = []
    for resource in stack.resources:
        record = records.get(resource.urn)
        if record is None:  # added by a test: no outputs beyond what it was given
            resources.append(resource)
        elif resource.type == ROOT_STACK:
            # Its outputs are what the program exported (the step executor sets them on RegisterResourceOutputs,
            # in a preview too); the offline record keeps them apart, as ``plan.outputs``.
            resources.append(dataclasses.replace(resource, props=dict(plan.outputs)))
        elif resource.type == KUSTOMIZE_DIRECTORY:
            # A remote component whose state is only ``resources`` (pulumi-kubernetes kustomize/v2
            # directory.go, DirectoryState): the objects it registered, which the offline plan does not have.
            resources.append(Resource(resource.type, resource.name, resource.urn, {}, resource.protect,
                                      resource.provider, {}, resource.id))
        elif resource.type == EKS_COMPONENT:
            children = _eks_children(resource, record, topology, plan)
            cluster = next(c for c in children if c.type == "aws:eks/cluster:Cluster")
            outputs = {k: v for k, v in record.outputs.items() if k in EKS_OUTPUTS and v is not None}
            # Resource references are downgraded to ids on the way to an analyzer.
            outputs |= {"eksCluster": cluster.id, "core": {
                "cluster": cluster.id, "vpcId": resource.props.get("vpcId"),
                "privateSubnetIds": resource.props.get("privateSubnetIds"),
                "publicSubnetIds": resource.props.get("publicSubnetIds"),
                "encryptionConfig": cluster.props.get("encryptionConfig"),
                "endpoint": cluster.props.get("endpoint"), "kubeconfig": record.outputs.get("kubeconfig")}}
            resources.append(Resource(resource.type, resource.name, resource.urn, _drop_none(outputs),
                                      resource.protect, resource.provider, {}, resource.id))
            resources.extend(children)
        elif not record.custom:
            resources.append(Resource(resource.type, resource.name, resource.urn, dict(record.outputs),
                                      resource.protect, resource.provider, {}, resource.id))
        else:
            computed = {k: v for k, v in record.outputs.items() if k not in record.inputs}
            props = {**resource.props, **computed}
            if record.id and not resource.type.startswith("pulumi:providers:"):
                props["id"] = record.id
            resources.append(Resource(resource.type, resource.name, resource.urn, props, resource.protect,
                                      resource.provider, resource.property_dependencies, resource.id))
    return Stack(resources), topology


def _eks_children(component: Resource, record: ResourceRecord, topology: Topology, plan: Plan) -> list[Resource]:
    """What pulumi-eks registers under ``component`` for trainstack's arguments."""
    args, name, deps = component.props, component.name, component.property_dependencies
    region = (component.provider or {}).get("region") or _region(plan)
    fixtures = Fixtures(default_region=region)
    provider = topology.providers.get(component.urn) or _aws_provider(plan, record)
    provider_props = plan.by_urn(provider[1]).inputs if provider else None
    children: list[Resource] = []

    def add(type_token: str, child_name: str, inputs: dict[str, Any], parent: str,
            property_dependencies: Optional[dict[str, list[str]]] = None, custom: bool = True) -> Resource:
        urn = child_urn(parent, type_token, child_name)
        inputs = _drop_none(inputs)
        if custom:
            child_id, outputs = fixtures.resource(type_token, child_name, inputs, None)
            props = {**outputs, "id": child_id}
        else:
            child_id, props = None, inputs
        child = Resource(type_token, child_name, urn, props, False, provider_props if custom else None,
                         {k: v for k, v in (property_dependencies or {}).items() if v}, child_id)
        topology.parents[urn] = parent
        topology.dependencies[urn] = sorted({u for urns in (property_dependencies or {}).values() for u in urns})
        if custom and provider is not None:
            topology.providers[urn] = provider
        if child_id:
            topology.ids[urn] = child_id
        children.append(child)
        return child

    role_component = add("eks:index:ServiceRole", f"{name}-eksRole", {}, component.urn, custom=False)
    assume = {"Version": "2012-10-17", "Statement": [{"Action": ["sts:AssumeRole", "sts:TagSession"],
                                                      "Effect": "Allow",
                                                      "Principal": {"Service": ["eks.amazonaws.com"]}}]}
    role = add("aws:iam/role:Role", f"{name}-eksRole-role", {
        "description": "Allows EKS to manage clusters on your behalf.", "assumeRolePolicy": json.dumps(assume),
        "tags": args.get("tags")}, role_component.urn)
    attachment = add("aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                     f"{name}-eksRole-{hashlib.sha1(EKS_CLUSTER_POLICY.encode()).hexdigest()[:8]}",
                     {"policyArn": EKS_CLUSTER_POLICY, "role": role.props.get("name")}, role_component.urn,
                     {"role": [role.urn]})
    role_component.props.update(resolvedRole=role.id, directRole=role.id)

    encryption = None
    if args.get("encryptionConfigKeyArn"):
        encryption = {"provider": {"keyArn": args["encryptionConfigKeyArn"]}, "resources": ["secrets"]}
    access = ({"authenticationMode": args["authenticationMode"], "bootstrapClusterCreatorAdminPermissions": True}
              if args.get("authenticationMode") else None)
    subnets = [*(args.get("publicSubnetIds") or []), *(args.get("privateSubnetIds") or [])]
    cluster = add("aws:eks/cluster:Cluster", f"{name}-eksCluster", {
        "name": args.get("name"), "roleArn": role.props.get("arn"),
        "bootstrapSelfManagedAddons": args.get("bootstrapSelfManagedAddons", True),
        "vpcConfig": _drop_none({"subnetIds": subnets, "endpointPrivateAccess": args.get("endpointPrivateAccess"),
                                 "endpointPublicAccess": args.get("endpointPublicAccess"),
                                 "publicAccessCidrs": args.get("publicAccessCidrs")}),
        "version": args.get("version"), "enabledClusterLogTypes": args.get("enabledClusterLogTypes"),
        "tags": {"Name": f"{name}-eksCluster", **(args.get("clusterTags") or {}), **(args.get("tags") or {})},
        "encryptionConfig": encryption, "accessConfig": access,
        "upgradePolicy": args.get("upgradePolicy"), "deletionProtection": args.get("deletionProtection"),
    }, component.urn, {
        "roleArn": [role.urn],
        "vpcConfig": [*deps.get("publicSubnetIds", []), *deps.get("privateSubnetIds", [])],
        "encryptionConfig": deps.get("encryptionConfigKeyArn", []),
    })
    topology.dependencies[cluster.urn] = sorted({*topology.dependencies[cluster.urn], role.urn, attachment.urn})
    add("pulumi:providers:kubernetes", f"{name}-eks-k8s", {"kubeconfig": SECRET_MARK}, component.urn, custom=False)
    for key, entry in (args.get("accessEntries") or {}).items():
        access_entry = add("aws:eks/accessEntry:AccessEntry", f"{name}-{key}", {
            "clusterName": cluster.props.get("name"), "principalArn": entry.get("principalArn"),
            "kubernetesGroups": entry.get("kubernetesGroups"), "type": entry.get("type"),
            "userName": entry.get("username")}, component.urn, {"clusterName": [cluster.urn]})
        for association, policy in (entry.get("accessPolicies") or {}).items():
            add("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", f"{name}-{key}-{association}", {
                "accessScope": policy.get("accessScope"), "principalArn": entry.get("principalArn"),
                "policyArn": policy.get("policyArn"), "clusterName": cluster.props.get("name")},
                access_entry.urn, {"clusterName": [cluster.urn]})
    return children


def _aws_provider(plan: Plan, component: ResourceRecord) -> Optional[tuple[str, str]]:
    """The AWS provider the component's siblings use (pulumi-eks children inherit it from the parent)."""
    for record in plan.resources:
        if record.parent == component.parent and record.type.startswith("aws:") and record.options.provider:
            return "pulumi:providers:aws", record.options.provider.rsplit("::", 1)[0]
    return None


def _region(plan: Plan) -> str:
    for record in plan.resources:
        if record.type == "pulumi:providers:aws" and record.inputs.get("region"):
            return str(record.inputs["region"])
    return "us-east-1"


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
