"""Realistic outputs for the offline plan's mocks: the one place they are made.

Ids, ARNs, DNS names and the flat outputs of remote components look like what
AWS returns, derived deterministically from the resource's type and name so two
plans of the same program are identical. Which fixture makes a resource type's
outputs is its row's ``outputs`` in ``catalog/resource_types.py``. Provider functions (invokes) the
program calls must be listed here: an unknown one is an error, so a new
dependency on cloud data is noticed rather than silently answered with nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from ..catalog import resource_types
from ..catalog.resource_types import OfflineOutputs
from ..names import PROVIDER_PREFIX

ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"

Inputs = dict[str, Any]
"""A resource's inputs or outputs, camelCase keys as the engine sends them."""
Made = tuple[str, Inputs]
"""What a fixture returns: the resource id and the outputs it computed."""
Maker = Callable[[str, Inputs, "_Context"], Made]
"""A fixture: (logical name, inputs, context) -> what it made."""


def _hex(seed: str, length: int = 17) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


class UnknownInvokeError(Exception):
    pass


class Fixtures:
    """Computes a resource's outputs from its inputs, as AWS would."""

    def __init__(self, default_region: str = DEFAULT_REGION):
        self.default_region = default_region
        self.provider_regions: dict[tuple[str, str], str] = {}
        """(provider type, logical name) -> the region its inputs name."""

    # -- resources ---------------------------------------------------------
    def resource(self, type_token: str, name: str, inputs: dict, provider: str | None) -> tuple[str, dict]:
        region = self.region(provider)
        if type_token.startswith(PROVIDER_PREFIX):
            if inputs.get("region"):
                self.provider_regions[(type_token, name)] = inputs["region"]
            return f"{name}-provider-id", dict(inputs)
        row = resource_types.find(type_token)
        seed = f"{type_token}/{name}"
        if row is None or row.outputs is None:
            return f"{name}-{_hex(seed, 8)}", dict(inputs)
        resource_id, computed = SHAPES[row.outputs.shape](name, inputs, _Context(region, seed, row.outputs))
        return resource_id, {**inputs, **computed}

    def region(self, provider: str | None) -> str:
        """The region of the provider ``provider`` refers to, else the default provider's (``aws:region``).

        A provider reference is ``<urn>::<id>`` (written so in pulumi/pulumi
        sdk/python/lib/pulumi/runtime/resource.py@v3.272.0), and a URN ends ``...$<type>::<name>``: the
        provider is found by its type and name."""
        known = self.provider_key(provider)
        return self.provider_regions.get(known, self.default_region) if known else self.default_region

    def provider_key(self, provider: str | None) -> tuple[str, str] | None:
        """(type, name) of the provider a reference names; None for no reference."""
        parts = (provider or "").split("::")
        if len(parts) < 5:  # urn:pulumi:<stack>::<project>::<qualified type>::<name>::<id>
            return None
        return parts[-3].rsplit("$", 1)[-1], parts[-2]

    def regional_provider(self, providers: Iterable[str]) -> str | None:
        """The first of ``providers`` (references) that names a region: a remote component (pulumi-eks's
        Cluster) is handed a map of providers, not one, and makes its outputs in that provider's region."""
        return next((ref for ref in providers if self.provider_key(ref) in self.provider_regions), None)

    # -- invokes -----------------------------------------------------------
    def invoke(self, token: str, args: dict, provider: str | None = None) -> dict:
        handler = _INVOKES.get(token)
        if handler is None:
            raise UnknownInvokeError(
                f"the offline plan has no fixture for provider function {token}; "
                "add one to trainstack/plan/fixtures.py")
        return handler(args, self.region(provider))


class _Context:
    def __init__(self, region: str, seed: str, outputs: OfflineOutputs):
        self.region = region
        self.seed = seed
        self.outputs = outputs

    def hex(self, length: int = 17) -> str:
        return _hex(self.seed, length)

    def arn(self, service: str, resource: str, *, region: bool = True) -> str:
        return f"arn:aws:{service}:{self.region if region else ''}:{ACCOUNT_ID}:{resource}"


def _named(inputs: dict, key: str, name: str, ctx: _Context) -> str:
    """Pulumi auto-names resources ``<logical name>-<7 random chars>`` unless a name is given."""
    if inputs.get(key):
        return str(inputs[key])
    if inputs.get(key + "Prefix"):
        return str(inputs[key + "Prefix"]) + ctx.hex(20)
    return f"{name}-{ctx.hex(7)}"


def _bucket(name: str, inputs: Inputs, ctx: _Context) -> Made:
    bucket = _named(inputs, "bucket", name, ctx)
    return bucket, {"bucket": bucket, "arn": f"arn:aws:s3:::{bucket}", "region": ctx.region,
                    "bucketDomainName": f"{bucket}.s3.amazonaws.com",
                    "bucketRegionalDomainName": f"{bucket}.s3.{ctx.region}.amazonaws.com"}


def _kms_key(name: str, inputs: Inputs, ctx: _Context) -> Made:
    key_id = f"{ctx.hex(8)}-{ctx.hex(4)}-4{ctx.hex(3)}-a{ctx.hex(3)}-{ctx.hex(12)}"
    return key_id, {"keyId": key_id, "arn": ctx.arn("kms", f"key/{key_id}")}


def _iam_role(name: str, inputs: Inputs, ctx: _Context) -> Made:
    role = _named(inputs, "name", name, ctx)
    return role, {"name": role, "arn": f"arn:aws:iam::{ACCOUNT_ID}:role{inputs.get('path', '/')}{role}",
                  "uniqueId": "AROA" + ctx.hex(17).upper()}


def _iam_policy(name: str, inputs: Inputs, ctx: _Context) -> Made:
    policy = _named(inputs, "name", name, ctx)
    arn = f"arn:aws:iam::{ACCOUNT_ID}:policy/{policy}"
    return arn, {"name": policy, "arn": arn, "policyId": "ANPA" + ctx.hex(17).upper()}


def _sqs_queue(name: str, inputs: Inputs, ctx: _Context) -> Made:
    queue = _named(inputs, "name", name, ctx)
    url = f"https://sqs.{ctx.region}.amazonaws.com/{ACCOUNT_ID}/{queue}"
    return url, {"name": queue, "arn": ctx.arn("sqs", queue), "url": url}


def _prefixed(extra: Callable[[str, dict, _Context], dict] | None = None) -> Maker:
    """An id ``<prefix>-<17 hex>`` and its ARN ``<service>:...:<kind>/<id>``, as the row's outputs say."""
    def make(name: str, inputs: Inputs, ctx: _Context) -> Made:
        resource_id = f"{ctx.outputs.id_prefix}-{ctx.hex()}"
        service, kind = ctx.outputs.arn.split(":")
        computed = {"arn": ctx.arn(service, f"{kind}/{resource_id}")}
        if extra:
            computed.update(extra(resource_id, inputs, ctx))
        return resource_id, computed
    return make


def _vpc_extra(resource_id: str, inputs: Inputs, ctx: _Context) -> Inputs:
    return {"defaultSecurityGroupId": f"sg-{ctx.hex()[::-1]}", "mainRouteTableId": f"rtb-{ctx.hex()[::-1]}",
            "ownerId": ACCOUNT_ID}


def _subnet_extra(resource_id: str, inputs: Inputs, ctx: _Context) -> Inputs:
    return {"availabilityZoneId": f"{zone_id_prefix(ctx.region)}-az{int(ctx.hex(2), 16) % 6 + 1}",
            "ownerId": ACCOUNT_ID}


_DIRECTIONS = {"northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw", "central": "c",
               "north": "n", "south": "s", "east": "e", "west": "w"}


def zone_id_prefix(region: str) -> str:
    """The part of a zone ID before ``-az``: the region's area, its direction abbreviated, its number
    (``use1`` for us-east-1, ``apne1`` for ap-northeast-1, ``usgw1`` for us-gov-west-1).

    AWS's prose says "the first three letters of the Region code, followed by the number at the end"
    (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html), which
    would make ap-northeast-1's ``apn1``; the tables on that page, and every zone ID EC2 returns, say
    ``apne1``. The IDs decide: a compound direction keeps both initials."""
    parts = region.split("-")
    if len(parts) < 3:  # not a region's name: the placeholder says so as it is
        return region.replace("-", "")
    area, *words, number = parts
    return area + "".join("g" if word == "gov" else _DIRECTIONS.get(word, word[:1]) for word in words) + number


def _eip_extra(resource_id: str, inputs: Inputs, ctx: _Context) -> Inputs:
    host = bytes.fromhex(ctx.hex(6))
    return {"publicIp": f"52.{host[0]}.{host[1]}.{host[2]}", "allocationId": resource_id}


def _launch_template_extra(resource_id: str, inputs: Inputs, ctx: _Context) -> Inputs:
    return {"latestVersion": 1, "defaultVersion": 1, "name": inputs.get("name") or f"{resource_id}"}


def _security_group_extra(resource_id: str, inputs: Inputs, ctx: _Context) -> Inputs:
    return {"ownerId": ACCOUNT_ID, "name": inputs.get("name") or f"sg-{ctx.hex(7)}"}


def _eks_cluster(name: str, inputs: Inputs, ctx: _Context) -> Made:
    cluster = _named(inputs, "name", name, ctx)
    endpoint = f"https://{ctx.hex(32).upper()}.gr7.{ctx.region}.eks.amazonaws.com"
    issuer = f"https://oidc.eks.{ctx.region}.amazonaws.com/id/{ctx.hex(32).upper()}"
    vpc_config = dict(inputs.get("vpcConfig") or {})
    vpc_config.update({"clusterSecurityGroupId": f"sg-{ctx.hex()[::-1]}", "vpcId": vpc_config.get("vpcId")})
    return cluster, {
        "name": cluster, "arn": ctx.arn("eks", f"cluster/{cluster}"), "endpoint": endpoint, "status": "ACTIVE",
        "certificateAuthority": {"data": _FAKE_CA}, "platformVersion": "eks.1",
        "identities": [{"oidcs": [{"issuer": issuer}]}], "vpcConfig": vpc_config,
    }


def _eks_component_cluster(name: str, inputs: Inputs, ctx: _Context) -> Made:
    """pulumi-eks's remote Cluster: only its flat outputs are visible offline."""
    cluster_id, cluster = _eks_cluster(name, inputs, ctx)
    kubeconfig = _kubeconfig(cluster["name"], cluster["endpoint"], ctx.region)
    issuer = cluster["identities"][0]["oidcs"][0]["issuer"]
    return cluster_id, {
        "kubeconfig": kubeconfig, "kubeconfigJson": json.dumps(kubeconfig),
        "clusterSecurityGroupId": cluster["vpcConfig"]["clusterSecurityGroupId"],
        "nodeSecurityGroupId": f"sg-{ctx.hex()}", "oidcIssuer": issuer.removeprefix("https://"),
        "oidcProviderArn": f"arn:aws:iam::{ACCOUNT_ID}:oidc-provider/{issuer.removeprefix('https://')}",
        "oidcProviderUrl": issuer.removeprefix("https://"),
        "eksCluster": None, "core": None,
    }


def _kubeconfig(cluster: str, endpoint: str, region: str) -> dict:
    return {
        "apiVersion": "v1", "kind": "Config", "current-context": "aws",
        "clusters": [{"name": "kubernetes", "cluster": {"server": endpoint, "certificate-authority-data": _FAKE_CA}}],
        "contexts": [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}],
        "users": [{"name": "aws", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", cluster, "--region", region, "--output", "json"]}}}],
    }


def _node_group(name: str, inputs: Inputs, ctx: _Context) -> Made:
    group = inputs.get("nodeGroupName") or f"{name}-{ctx.hex(7)}"
    cluster = inputs.get("clusterName", "cluster")
    return f"{cluster}:{group}", {
        "nodeGroupName": group, "status": "ACTIVE",
        "arn": ctx.arn("eks", f"nodegroup/{cluster}/{group}/{ctx.hex(8)}-{ctx.hex(4)}"),
        "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{ctx.hex(8)}"}],
                       "remoteAccessSecurityGroupId": ""}],
    }


def _fsx_lustre(name: str, inputs: Inputs, ctx: _Context) -> Made:
    fs_id = f"fs-{ctx.hex()}"
    return fs_id, {"arn": ctx.arn("fsx", f"file-system/{fs_id}"), "dnsName": f"{fs_id}.fsx.{ctx.region}.amazonaws.com",
                   "mountName": ctx.hex(8), "networkInterfaceIds": [f"eni-{ctx.hex()}"], "ownerId": ACCOUNT_ID,
                   "vpcId": f"vpc-{ctx.hex()[::-1]}"}


def _ecr_repository(name: str, inputs: Inputs, ctx: _Context) -> Made:
    repo = _named(inputs, "name", name, ctx)
    return repo, {"name": repo, "arn": ctx.arn("ecr", f"repository/{repo}"), "registryId": ACCOUNT_ID,
                  "repositoryUrl": f"{ACCOUNT_ID}.dkr.ecr.{ctx.region}.amazonaws.com/{repo}"}


def _hyperpod_cluster(name: str, inputs: Inputs, ctx: _Context) -> Made:
    cluster = inputs.get("clusterName") or name
    arn = ctx.arn("sagemaker", f"cluster/{ctx.hex(12)}")
    return arn, {"clusterArn": arn, "clusterStatus": "InService", "clusterName": cluster}


def _helm_release(name: str, inputs: Inputs, ctx: _Context) -> Made:
    release = inputs.get("name") or f"{name}-{ctx.hex(8)}"
    return release, {"name": release, "status": {"name": release, "namespace": inputs.get("namespace", "default"),
                                                 "status": "deployed", "version": 1,
                                                 "chart": inputs.get("chart"), "appVersion": inputs.get("version")}}


def _placement_group(name: str, inputs: Inputs, ctx: _Context) -> Made:
    group = _named(inputs, "name", name, ctx)
    return group, {"name": group, "arn": ctx.arn("ec2", f"placement-group/{group}"),
                   "placementGroupId": f"pg-{ctx.hex()}"}


def _eks_addon(name: str, inputs: Inputs, ctx: _Context) -> Made:
    cluster, addon = inputs.get("clusterName", "cluster"), inputs.get("addonName", name)
    # EKS picks the default version for the cluster's Kubernetes version when none is pinned.
    return f"{cluster}:{addon}", {"arn": ctx.arn("eks", f"addon/{cluster}/{addon}/{ctx.hex(8)}"),
                                  "addonVersion": inputs.get("addonVersion") or _DEFAULT_ADDON_VERSIONS.get(addon)}


_DEFAULT_ADDON_VERSIONS = {"vpc-cni": "v1.20.4-eksbuild.1", "coredns": "v1.12.4-eksbuild.1",
                           "kube-proxy": "v1.35.0-eksbuild.2", "eks-pod-identity-agent": "v1.3.9-eksbuild.3"}


def _pod_identity_association(name: str, inputs: Inputs, ctx: _Context) -> Made:
    association = f"a-{ctx.hex(17)}"
    return association, {"associationId": association, "associationArn": ctx.arn(
        "eks", f"podidentityassociation/{inputs.get('clusterName', 'cluster')}/{association}")}


def _kms_alias(name: str, inputs: Inputs, ctx: _Context) -> Made:
    return inputs["name"], {"arn": ctx.arn("kms", inputs["name"]), "targetKeyArn": ctx.arn("kms", f"key/{ctx.hex(8)}")}


def _id_only(name: str, inputs: Inputs, ctx: _Context) -> Made:
    return f"{ctx.outputs.id_prefix}-{ctx.hex()}", {}


SHAPES: dict[str, Maker] = {
    "bucket": _bucket,
    "kms-key": _kms_key,
    "kms-alias": _kms_alias,
    "eks-addon": _eks_addon,
    "pod-identity-association": _pod_identity_association,
    "iam-role": _iam_role,
    "iam-policy": _iam_policy,
    "sqs-queue": _sqs_queue,
    "prefixed": _prefixed(),
    "vpc": _prefixed(_vpc_extra),
    "subnet": _prefixed(_subnet_extra),
    "security-group": _prefixed(_security_group_extra),
    "launch-template": _prefixed(_launch_template_extra),
    "eip": _prefixed(_eip_extra),
    "id-only": _id_only,
    "placement-group": _placement_group,
    "eks-cluster": _eks_cluster,
    "eks-component-cluster": _eks_component_cluster,
    "node-group": _node_group,
    "lustre-file-system": _fsx_lustre,
    "ecr-repository": _ecr_repository,
    "hyperpod-cluster": _hyperpod_cluster,
    "helm-release": _helm_release,
}
"""The fixtures by shape; a resource type's row (``catalog/resource_types.py``) names its shape."""


# -- provider functions ---------------------------------------------------
def _policy_document(args: dict, region: str) -> dict:
    """Render ``aws.iam.get_policy_document`` the way the provider does, so rules can read real JSON."""
    statements = []
    for statement in args.get("statements") or []:
        rendered: dict[str, Any] = {}
        if statement.get("sid"):
            rendered["Sid"] = statement["sid"]
        rendered["Effect"] = statement.get("effect", "Allow")
        for key, field_name in (("actions", "Action"), ("notActions", "NotAction"),
                                ("resources", "Resource"), ("notResources", "NotResource")):
            values = statement.get(key)
            if values:
                rendered[field_name] = values[0] if len(values) == 1 else sorted(values, reverse=True)
        for key, field_name in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
            if statement.get(key):
                rendered[field_name] = {
                    p["type"]: p["identifiers"][0] if len(p["identifiers"]) == 1 else p["identifiers"]
                    for p in statement[key]}
        if statement.get("conditions"):
            conditions: dict[str, dict] = {}
            for condition in statement["conditions"]:
                values = condition["values"]
                conditions.setdefault(condition["test"], {})[condition["variable"]] = (
                    values[0] if len(values) == 1 else values)
            rendered["Condition"] = conditions
        statements.append(rendered)
    document = {"Version": args.get("version", "2012-10-17"), "Statement": statements}
    return {"json": json.dumps(document, indent=2), "minifiedJson": json.dumps(document, separators=(",", ":")),
            "id": _hex(json.dumps(document), 10)}


_INVOKES: dict[str, Callable[[dict, str], dict]] = {
    "aws:index/getCallerIdentity:getCallerIdentity": lambda args, region: {
        "accountId": ACCOUNT_ID, "arn": f"arn:aws:iam::{ACCOUNT_ID}:user/plan", "userId": "AIDAPLAN", "id": ACCOUNT_ID},
    "aws:index/getPartition:getPartition": lambda args, region: {
        "partition": "aws", "dnsSuffix": "amazonaws.com", "reverseDnsPrefix": "com.amazonaws", "id": "aws"},
    "aws:index/getRegion:getRegion": lambda args, region: {
        "name": args.get("region") or region, "region": args.get("region") or region, "id": region,
        "endpoint": f"ec2.{region}.amazonaws.com", "description": region},
    "aws:iam/getPolicyDocument:getPolicyDocument": _policy_document,
    "aws:ssm/getParameter:getParameter": lambda args, region: {
        "name": args["name"], "value": f"ami-{_hex(args['name'])}", "type": "String", "version": 1,
        "arn": f"arn:aws:ssm:{region}::parameter{args['name']}", "id": args["name"]},
}

# A syntactically valid, non-functional PEM body: the plan never connects to a cluster.
_FAKE_CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk9GRkxJTkUtUExBTgotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg=="
