"""Which changed inputs replace a resource: the shape of a resource type's replacement facts.

Offline there is no provider to ask, so each row of ``resource_types.RESOURCE_TYPES`` that
the library renders carries these facts, each naming where they come from:

- pulumi-aws resources are the upstream Terraform provider's resources (pulumi-aws bridges
  hashicorp/terraform-provider-aws): an attribute marked ``ForceNew`` (or with a
  ``RequiresReplace`` plan modifier, or forced by a ``CustomizeDiff``) replaces. Where that
  source was read it governs and is cited by file. For the other pulumi-aws types the
  CloudFormation resource schema of the same AWS API stands in: its
  ``createOnlyProperties`` are what the API cannot change (cfn-lint ships these schemas;
  ``tests/review/test_replacement_facts.py`` checks every mapped path against them).
- pulumi-aws-native resources *are* the CloudFormation schema: ``createOnlyProperties``
  replace, every other property updates in place.
- Kubernetes objects: pulumi-kubernetes replaces on a change of ``metadata.name`` or
  ``metadata.namespace`` and of the per-kind fields of its provider's ``forceNew`` table
  (provider/pkg/provider/diff.go); everything else is patched in place (the API server may
  still refuse a field it treats as immutable). A Helm release is replaced for a new name or
  namespace only; anything else is a ``helm upgrade``.

Where the sources disagree, the resource's own provider governs, because it is what
``pulumi up`` runs: the Terraform provider modifies security group rules in place
(ModifySecurityGroupRules) although CloudFormation's SecurityGroupIngress is create-only,
and it replaces a node group for a new launch template id, which CloudFormation updates.

An input no row names is never guessed (``review/replacement.py``). On a resource that holds
data or that running things stand on (a row with ``loses``, ``runs`` or ``network``) it is
"unknown: may replace", which blocks the gate; elsewhere "the provider decides", a note.
``tests/review/test_replacement_facts.py`` walks every input path every shipped stack renders
for an AWS type and fails on one no fact classifies, so a new input arrives with its fact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

Condition = Callable[[Any, Any, dict[str, Any]], Optional[str]]
"""(before, after, head inputs) -> why this change replaces, or None when it updates in place."""

TF = "hashicorp/terraform-provider-aws"
CFN = "CloudFormation schema createOnlyProperties (cfn-lint) of"
K8S = "pulumi/pulumi-kubernetes provider/pkg/provider/diff.go@cafe8c4a (forceNew table)"


@dataclass(frozen=True)
class ReplacementFacts:
    source: str
    replaces: tuple[str, ...] = ()
    """Input paths (camelCase, dot-separated, list items without index) whose change replaces."""
    in_place: tuple[str, ...] = ()
    """Input paths the source shows updating in place."""
    others_in_place: bool = False
    """Every input outside ``replaces`` updates in place (the source's list is exhaustive)."""
    conditional: dict[str, Condition] = field(default_factory=dict)
    """Paths that replace only for some changes (a smaller FSx capacity)."""
    cfn: Optional[tuple[str, dict[str, str]]] = None
    """The CloudFormation type and each path's property in it (checked against cfn-lint's schema)."""
    note: str = ""
    """What an in-place update means for this type, where it is not obvious."""
    cited: dict[str, str] = field(default_factory=dict)
    """The source of a path that ``source`` does not cover (a provider-only setting, a second reading)."""

    def source_of(self, path: str) -> str:
        """Where the fact about ``path`` (a fact path, as listed) was read."""
        return self.cited.get(path, self.source)


# -- conditions ---------------------------------------------------------------------------
def fsx_capacity(before: Any, after: Any, inputs: dict[str, Any]) -> Optional[str]:
    # resourceLustreFileSystemSchemaCustomizeDiff: a smaller capacity, or any change on SCRATCH_1.
    if inputs.get("deploymentType") == "SCRATCH_1":
        return "storageCapacity cannot change on a SCRATCH_1 file system"
    if isinstance(before, (int, float)) and isinstance(after, (int, float)) and after < before:
        return "a file system cannot shrink: a smaller storageCapacity creates a new one"
    return None


def fsx_metadata_iops(before: Any, after: Any, inputs: dict[str, Any]) -> Optional[str]:
    # resourceLustreFileSystemMetadataConfigCustomizeDiff: fewer USER_PROVISIONED metadata IOPS force a new
    # file system; a higher figure, or a change of mode, goes through UpdateFileSystem.
    if isinstance(before, (int, float)) and isinstance(after, (int, float)) and after < before:
        return "metadata IOPS cannot be lowered: fewer metadataConfiguration.iops create a new file system"
    return None


def _rule_source(key: str) -> Condition:
    def decide(before: Any, after: Any, inputs: dict[str, Any]) -> Optional[str]:
        # ModifyPlan: "you cannot change the rule's source type": a source of another kind replaces.
        if before is None or after is None:
            return f"the rule's source changes kind ({key} {'added' if before is None else 'removed'})"
        return None
    return decide


# -- the shapes several types share -------------------------------------------------------
def cfn(cfn_type: str, **paths: str) -> tuple[str, dict[str, str]]:
    """The CloudFormation type and its property per input path (``a__b`` for the path ``a.b``)."""
    return cfn_type, {key.replace("__", "."): value for key, value in paths.items()}


def kubernetes(*kind_fields: str) -> ReplacementFacts:
    """A Kubernetes object: a new name or namespace, or a field of its kind's forceNew list, replaces."""
    return ReplacementFacts(K8S, replaces=("metadata.name", "metadata.namespace", *kind_fields),
                            others_in_place=True, note="patched in place")


def security_group_rule() -> ReplacementFacts:
    return ReplacementFacts(
        f"{TF} internal/service/ec2/vpc_security_group_ingress_rule.go@d2b7f56a (security_group_id "
        "RequiresReplace; a source of another kind replaces; the rest ModifySecurityGroupRules)",
        replaces=("securityGroupId",),
        in_place=("description", "fromPort", "ipProtocol", "tags", "toPort"),
        conditional={key: _rule_source(key) for key in ("cidrIpv4", "cidrIpv6", "prefixListId",
                                                         "referencedSecurityGroupId")})


PROVIDER_ONLY = "a setting of the provider, not of the AWS resource (it is read at delete or kept in state)"
"""Why an input the AWS API never receives updates in place: changing it calls no API."""


def s3_configuration(source_file: str, in_place: tuple[str, ...]) -> ReplacementFacts:
    # The bucket's sub-resources: bucket and expected_bucket_owner ForceNew, the configuration Put again.
    return ReplacementFacts(f"{TF} internal/service/s3/{source_file} (bucket, expected_bucket_owner ForceNew)",
                            replaces=("bucket", "expectedBucketOwner"), in_place=in_place)
