"""pulumi-aws-native inputs checked against AWS's CloudFormation resource schemas, as cfn-lint
ships them per region (``cfnlint/data/schemas``, dated in its ``version.json``).

pulumi-aws-native generates each ``aws-native:<service>:<Type>`` resource from the
CloudFormation schema of ``AWS::<Service>::<Type>`` and renames every property to camelCase
(``VolumeSizeInGB`` becomes ``volumeSizeInGb``, ``FSxLustreConfig`` ``fsxLustreConfig``). The
renaming is not invertible by rule (acronyms lose their case), so the way back is guided by
the schema: at each object the schema declares, a camelCase key maps to the one declared
property whose name equals it ignoring case. Keys of free-form maps (``patternProperties``,
such as Kubernetes labels) are data and stay as they are. A key with no such property stays
as written, so the schema's ``additionalProperties: false`` reports it.

The template is then linted by cfn-lint for the stack's region: the resource schema
(E30xx: types, enums, ranges, patterns, required properties, oneOf branches) and cfn-lint's
regional checks, among them E3644, SageMaker HyperPod instance types per region, which
cfn-lint derives from the AWS Price List (``instancetype_enum.json``).

Which list of HyperPod instance types governs what (they disagree):

- The SageMaker API model's ``ClusterInstanceType`` enum (botocore) is the contract
  CreateCluster validates; the CloudFormation schema declares ``InstanceType`` a plain
  string and defers to it. It governs *whether a type is a HyperPod type at all*: every
  group's type must be in it. It lists p5e.48xlarge and p6e-gb200.36xlarge, which no region
  enum has; the region enums list inf2 and trn1.2xlarge, which it lacks (the Price List
  carries prices the API does not accept for clusters), and those are refused.
- cfn-lint's per-region enum (E3644) is generated from the AWS Price List: the types with
  an on-demand HyperPod price in that region. It governs *whether a group without a
  training plan can run in the stack's region*.
- A group with a training plan draws its capacity from the plan, which is bought for one
  region and may hold types with no on-demand price (p5e, p6e-gb200, trn2.48xlarge outside
  us-east-2); for those groups the region enum does not apply, only the API's enum.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from typing import Any, Optional

import botocore.session
from cfnlint.config import ConfigMixIn
from cfnlint.decode import decode_str
from cfnlint.runner import Runner
from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

NATIVE_PREFIX = "aws-native:"
HYPERPOD_CLUSTER = "aws-native:sagemaker:Cluster"


@cache
def _cfn_types(region: str) -> dict[tuple[str, str], str]:
    """(lowercase service, resource) -> CloudFormation type name, for the types of a region."""
    types = {}
    for type_name in PROVIDER_SCHEMA_MANAGER.get_resource_types(region):
        parts = type_name.split("::")
        if len(parts) == 3 and parts[0] == "AWS":
            types[(parts[1].lower(), parts[2])] = type_name
    return types


def cfn_type(token: str, region: str) -> str:
    """``aws-native:sagemaker:Cluster`` -> ``AWS::SageMaker::Cluster``."""
    _, service, resource = token.split(":")
    try:
        return _cfn_types(region)[(service, resource)]
    except KeyError:
        raise LookupError(f"{token} has no CloudFormation schema in {region} (cfn-lint's providers data)") from None


def cfn_schema(type_name: str, region: str) -> dict[str, Any]:
    schema: dict[str, Any] = PROVIDER_SCHEMA_MANAGER.get_resource_schema(region, type_name).schema
    return schema


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["definitions"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _declared(node: dict[str, Any], root: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The properties an object schema declares, across its oneOf/anyOf/allOf branches."""
    node = _resolve(node, root)
    properties = dict(node.get("properties") or {})
    for keyword in ("oneOf", "anyOf", "allOf"):
        for branch in node.get(keyword) or []:
            properties.update(_declared(branch, root))
    return properties


def to_cloudformation(value: Any, node: Optional[dict[str, Any]], root: dict[str, Any]) -> Any:
    """pulumi-aws-native inputs (camelCase) as CloudFormation properties (the schema's names)."""
    if node is None:
        return value
    node = _resolve(node, root)
    if isinstance(value, list):
        return [to_cloudformation(item, node.get("items"), root) for item in value]
    if not isinstance(value, dict):
        return value
    declared = _declared(node, root)
    if not declared:  # a free-form map: its keys are data
        pattern = next(iter((node.get("patternProperties") or {}).values()), None)
        return {key: to_cloudformation(item, pattern, root) for key, item in value.items()}
    by_folded: dict[str, str] = {}
    for name in declared:
        if name.lower() in by_folded:
            raise ValueError(f"the schema declares {by_folded[name.lower()]} and {name}; "
                             "camelCase cannot tell them apart")
        by_folded[name.lower()] = name
    mapped = {}
    for key, item in value.items():
        schema_name = by_folded.get(str(key).lower(), str(key))
        mapped[schema_name] = to_cloudformation(item, declared.get(schema_name), root)
    return mapped


def template_for(token: str, inputs: dict[str, Any], region: str) -> dict[str, Any]:
    """A one-resource CloudFormation template holding ``inputs`` as the schema names them."""
    type_name = cfn_type(token, region)
    schema = cfn_schema(type_name, region)
    properties = to_cloudformation(inputs, {"properties": schema["properties"]}, schema)
    return {"AWSTemplateFormatVersion": "2010-09-09",
            "Resources": {"Rendered": {"Type": type_name, "Properties": properties}}}


@cache
def _runner(region: str) -> Runner:
    """cfn-lint's runner with its default rules for one region (loading the rules takes a second)."""
    return Runner(ConfigMixIn(regions=[region]))


def cfn_errors(token: str, inputs: dict[str, Any], region: str) -> list[str]:
    """cfn-lint's errors (not warnings) for one rendered aws-native resource in ``region``."""
    template, problems = decode_str(json.dumps(template_for(token, inputs, region)))
    matches = list(problems) or list(_runner(region).validate_template(template))
    return [f"{m.rule.id} {'/'.join(str(p) for p in m.path)}: {_shortened(m.message)}"
            for m in matches if m.rule.id.startswith("E")]


def _shortened(message: str) -> str:
    """cfn-lint lists a whole enum (200 instance types); the value and the rule say enough."""
    return message if len(message) <= 240 else f"{message[:200]} ... {message[-40:]}"


@lru_cache(maxsize=1)
def api_cluster_instance_types() -> frozenset[str]:
    """The SageMaker API model's ClusterInstanceType enum, as botocore ships it."""
    model = botocore.session.get_session().get_service_model("sagemaker")
    return frozenset(model.shape_for("ClusterInstanceType").enum)


def native_resource_errors(token: str, inputs: dict[str, Any], region: str) -> list[str]:
    """cfn-lint's errors for the resource, HyperPod instance types judged as this module's docstring decides."""
    errors = cfn_errors(token, inputs, region)
    if token != HYPERPOD_CLUSTER:
        return errors
    groups = inputs.get("instanceGroups") or []
    planned = {i for i, g in enumerate(groups) if g.get("trainingPlanArn")}
    errors = [e for e in errors if not any(e.startswith(f"E3644 Resources/Rendered/Properties/InstanceGroups/{i}/")
                                          for i in planned)]
    cluster_types = api_cluster_instance_types()
    errors += [f"InstanceGroups/{i}/InstanceType: {g['instanceType']} is not a ClusterInstanceType in the "
               "SageMaker API model" for i, g in enumerate(groups) if g["instanceType"] not in cluster_types]
    return errors
