"""Which changed inputs replace a resource, per resource type, with the source of each fact.

Offline there is no provider to ask, so the facts are kept here, one entry per resource
type the library renders, each naming where it comes from:

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

Where the sources disagree, the resource's own provider governs: it is what ``pulumi up`` runs.
Why: docs/adr/0003-replacement-facts-follow-the-resources-provider.md

An input no entry names is reported as "the provider decides", never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

Effect = Literal["replace", "update", "provider decides"]
Condition = Callable[[Any, Any, dict[str, Any]], Optional[str]]
"""(before, after, head inputs) -> why this change replaces, or None when it updates in place."""

TF = "hashicorp/terraform-provider-aws"
CFN = "CloudFormation schema createOnlyProperties (cfn-lint) of"
K8S = "pulumi/pulumi-kubernetes provider/pkg/provider/diff.go@cafe8c4a (forceNew table)"


@dataclass(frozen=True)
class TypeFacts:
    type: str
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


@dataclass(frozen=True)
class Decision:
    effect: Effect
    reason: str


# -- conditions ---------------------------------------------------------------------------
def _fsx_capacity(before: Any, after: Any, inputs: dict[str, Any]) -> Optional[str]:
    # resourceLustreFileSystemSchemaCustomizeDiff: a smaller capacity, or any change on SCRATCH_1.
    if inputs.get("deploymentType") == "SCRATCH_1":
        return "storageCapacity cannot change on a SCRATCH_1 file system"
    if isinstance(before, (int, float)) and isinstance(after, (int, float)) and after < before:
        return "a file system cannot shrink: a smaller storageCapacity creates a new one"
    return None


def _rule_source(key: str) -> Condition:
    def decide(before: Any, after: Any, inputs: dict[str, Any]) -> Optional[str]:
        # ModifyPlan: "you cannot change the rule's source type": a source of another kind replaces.
        if before is None or after is None:
            return f"the rule's source changes kind ({key} {'added' if before is None else 'removed'})"
        return None
    return decide


def _cfn(cfn_type: str, **paths: str) -> tuple[str, dict[str, str]]:
    return cfn_type, {key.replace("__", "."): value for key, value in paths.items()}


def _kubernetes(type_token: str, *kind_fields: str) -> TypeFacts:
    return TypeFacts(type_token, K8S, replaces=("metadata.name", "metadata.namespace", *kind_fields),
                     others_in_place=True, note="patched in place")


def _security_group_rule(type_token: str) -> TypeFacts:
    return TypeFacts(
        type_token,
        f"{TF} internal/service/ec2/vpc_security_group_ingress_rule.go@d2b7f56a (security_group_id "
        "RequiresReplace; a source of another kind replaces; the rest ModifySecurityGroupRules)",
        replaces=("securityGroupId",),
        in_place=("description", "fromPort", "ipProtocol", "tags", "toPort"),
        conditional={key: _rule_source(key) for key in ("cidrIpv4", "cidrIpv6", "prefixListId",
                                                         "referencedSecurityGroupId")})

def _s3_configuration(type_token: str, source_file: str, in_place: tuple[str, ...]) -> TypeFacts:
    # The bucket's sub-resources: bucket and expected_bucket_owner ForceNew, the configuration Put again.
    return TypeFacts(type_token, f"{TF} internal/service/s3/{source_file} (bucket, expected_bucket_owner ForceNew)",
                     replaces=("bucket", "expectedBucketOwner"), in_place=in_place)


FACTS: dict[str, TypeFacts] = {facts.type: facts for facts in [
    # -- read from the Terraform provider's source ------------------------------------------
    TypeFacts(
        "aws:fsx/lustreFileSystem:LustreFileSystem",
        f"{TF} internal/service/fsx/lustre_file_system.go (2024 revision: per_unit_storage_throughput "
        "updatable; CustomizeDiff forces new on a smaller storage_capacity); Intelligent-Tiering's "
        "throughputCapacity and dataReadCacheConfiguration from the FSx API (UpdateFileSystemLustreConfiguration "
        "takes both; the provider's source for them was not read) and CloudFormation (neither is create-only)",
        replaces=("backupId", "copyTagsToBackups", "deploymentType", "driveCacheType", "exportPath",
                  "fileSystemTypeVersion", "importPath", "importedFileChunkSize", "kmsKeyId", "securityGroupIds",
                  "storageType", "subnetIds"),
        in_place=("autoImportPolicy", "automaticBackupRetentionDays", "dailyAutomaticBackupStartTime",
                  "dataCompressionType", "dataReadCacheConfiguration", "logConfiguration", "perUnitStorageThroughput",
                  "rootSquashConfiguration", "tags", "throughputCapacity", "weeklyMaintenanceStartTime"),
        conditional={"storageCapacity": _fsx_capacity},
        cfn=_cfn("AWS::FSx::FileSystem", dataReadCacheConfiguration="LustreConfiguration/DataReadCacheConfiguration",
                 throughputCapacity="LustreConfiguration/ThroughputCapacity")),
    TypeFacts(
        "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
        f"{TF} internal/service/fsx/data_repository_association.go (file system, paths and batch import ForceNew; "
        "chunk size and the S3 policies through UpdateDataRepositoryAssociation)",
        replaces=("batchImportMetaDataOnCreate", "dataRepositoryPath", "fileSystemId", "fileSystemPath"),
        in_place=("deleteDataInFilesystem", "importedFileChunkSize", "s3", "tags"),
        cfn=_cfn("AWS::FSx::DataRepositoryAssociation", batchImportMetaDataOnCreate="BatchImportMetaDataOnCreate",
                 dataRepositoryPath="DataRepositoryPath", fileSystemId="FileSystemId",
                 fileSystemPath="FileSystemPath", importedFileChunkSize="ImportedFileChunkSize", s3="S3",
                 tags="Tags")),
    TypeFacts(
        "aws:eks/nodeGroup:NodeGroup",
        f"{TF} internal/service/eks/node_group.go@b11fc0fd (ForceNew; launch_template version, release_version "
        "and version go through UpdateNodegroupVersion)",
        replaces=("amiType", "capacityType", "clusterName", "diskSize", "instanceTypes", "launchTemplate.id",
                  "launchTemplate.name", "nodeGroupName", "nodeGroupNamePrefix", "nodeRoleArn", "remoteAccess",
                  "subnetIds"),
        in_place=("forceUpdateVersion", "labels", "launchTemplate.version", "releaseVersion", "scalingConfig",
                  "tags", "taints", "updateConfig", "version"),
        cfn=_cfn("AWS::EKS::Nodegroup", amiType="AmiType", capacityType="CapacityType", clusterName="ClusterName",
                 diskSize="DiskSize", instanceTypes="InstanceTypes", nodeGroupName="NodegroupName",
                 nodeRoleArn="NodeRole", remoteAccess="RemoteAccess", subnetIds="Subnets", labels="Labels",
                 launchTemplate__version="LaunchTemplate/Version", releaseVersion="ReleaseVersion",
                 scalingConfig="ScalingConfig", tags="Tags", taints="Taints", updateConfig="UpdateConfig",
                 version="Version")),
    TypeFacts(
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        f"{TF} internal/service/iam/role_policy_attachment.go@81ae62fe (role, policy_arn ForceNew; no update)",
        replaces=("role", "policyArn")),
    _s3_configuration("aws:s3/bucketVersioning:BucketVersioning", "bucket_versioning.go@01c08000",
                      ("mfa", "versioningConfiguration")),
    _s3_configuration("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
                      "bucket_public_access_block.go@30b8cc6d",
                      ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")),
    _s3_configuration("aws:s3/bucketOwnershipControls:BucketOwnershipControls", "bucket_ownership_controls.go@adeb8422",
                      ("rule",)),
    _s3_configuration("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                      "bucket_server_side_encryption_configuration.go@3ab51218", ("rule",)),
    _security_group_rule("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"),
    _security_group_rule("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"),
    # -- the same API's CloudFormation schema standing in -----------------------------------
    TypeFacts(
        "aws:ec2/launchTemplate:LaunchTemplate", f"{CFN} AWS::EC2::LaunchTemplate",
        replaces=("name", "namePrefix"),
        in_place=("blockDeviceMappings", "capacityReservationSpecification", "metadataOptions",
                  "networkInterfaces", "placement", "tagSpecifications", "userData", "vpcSecurityGroupIds",
                  "imageId", "instanceType", "iamInstanceProfile"),
        cfn=_cfn("AWS::EC2::LaunchTemplate", name="LaunchTemplateName",
                 blockDeviceMappings="LaunchTemplateData/BlockDeviceMappings",
                 capacityReservationSpecification="LaunchTemplateData/CapacityReservationSpecification",
                 metadataOptions="LaunchTemplateData/MetadataOptions",
                 networkInterfaces="LaunchTemplateData/NetworkInterfaces", placement="LaunchTemplateData/Placement",
                 tagSpecifications="LaunchTemplateData/TagSpecifications", userData="LaunchTemplateData/UserData",
                 vpcSecurityGroupIds="LaunchTemplateData/SecurityGroupIds", imageId="LaunchTemplateData/ImageId",
                 instanceType="LaunchTemplateData/InstanceType",
                 iamInstanceProfile="LaunchTemplateData/IamInstanceProfile"),
        note="a new template version, not a new template"),
    TypeFacts(
        "aws:ec2/securityGroup:SecurityGroup", f"{CFN} AWS::EC2::SecurityGroup",
        replaces=("description", "name", "vpcId"), in_place=("tags",),
        cfn=_cfn("AWS::EC2::SecurityGroup", description="GroupDescription", name="GroupName", vpcId="VpcId",
                 tags="Tags")),
    TypeFacts(
        "aws:ec2/vpc:Vpc", f"{CFN} AWS::EC2::VPC",
        replaces=("cidrBlock",), in_place=("enableDnsHostnames", "enableDnsSupport", "instanceTenancy", "tags"),
        cfn=_cfn("AWS::EC2::VPC", cidrBlock="CidrBlock", enableDnsHostnames="EnableDnsHostnames",
                 enableDnsSupport="EnableDnsSupport", instanceTenancy="InstanceTenancy", tags="Tags")),
    TypeFacts(
        "aws:ec2/subnet:Subnet", f"{CFN} AWS::EC2::Subnet",
        replaces=("availabilityZone", "availabilityZoneId", "cidrBlock", "vpcId"),
        in_place=("mapPublicIpOnLaunch", "tags"),
        cfn=_cfn("AWS::EC2::Subnet", availabilityZone="AvailabilityZone", availabilityZoneId="AvailabilityZoneId",
                 cidrBlock="CidrBlock", vpcId="VpcId", mapPublicIpOnLaunch="MapPublicIpOnLaunch", tags="Tags")),
    TypeFacts(
        "aws:ec2/natGateway:NatGateway", f"{CFN} AWS::EC2::NatGateway",
        replaces=("allocationId", "connectivityType", "subnetId"), in_place=("tags",),
        cfn=_cfn("AWS::EC2::NatGateway", allocationId="AllocationId", connectivityType="ConnectivityType",
                 subnetId="SubnetId", tags="Tags")),
    TypeFacts(
        "aws:ec2/routeTable:RouteTable", f"{CFN} AWS::EC2::RouteTable",
        replaces=("vpcId",), in_place=("tags",),
        cfn=_cfn("AWS::EC2::RouteTable", vpcId="VpcId", tags="Tags")),
    TypeFacts(
        "aws:ec2/routeTableAssociation:RouteTableAssociation", f"{CFN} AWS::EC2::SubnetRouteTableAssociation",
        replaces=("subnetId",),
        cfn=_cfn("AWS::EC2::SubnetRouteTableAssociation", subnetId="SubnetId")),
    TypeFacts(
        "aws:ec2/vpcEndpoint:VpcEndpoint", f"{CFN} AWS::EC2::VPCEndpoint",
        replaces=("serviceName", "vpcEndpointType", "vpcId"),
        in_place=("policy", "privateDnsEnabled", "routeTableIds", "securityGroupIds", "subnetIds", "tags"),
        cfn=_cfn("AWS::EC2::VPCEndpoint", serviceName="ServiceName", vpcEndpointType="VpcEndpointType",
                 vpcId="VpcId", policy="PolicyDocument", privateDnsEnabled="PrivateDnsEnabled",
                 routeTableIds="RouteTableIds", securityGroupIds="SecurityGroupIds", subnetIds="SubnetIds",
                 tags="Tags")),
    TypeFacts(
        "aws:ec2/placementGroup:PlacementGroup", f"{CFN} AWS::EC2::PlacementGroup",
        replaces=("strategy", "spreadLevel", "partitionCount"),
        cfn=_cfn("AWS::EC2::PlacementGroup", strategy="Strategy", spreadLevel="SpreadLevel",
                 partitionCount="PartitionCount")),
    TypeFacts(
        "aws:ec2/eip:Eip", f"{CFN} AWS::EC2::EIP",
        replaces=("networkBorderGroup", "address", "ipamPoolId"), in_place=("tags",),
        cfn=_cfn("AWS::EC2::EIP", networkBorderGroup="NetworkBorderGroup", address="Address",
                 ipamPoolId="IpamPoolId", tags="Tags")),
    TypeFacts(
        "aws:ec2/internetGateway:InternetGateway", f"{CFN} AWS::EC2::InternetGateway",
        in_place=("tags",), cfn=_cfn("AWS::EC2::InternetGateway", tags="Tags")),
    TypeFacts(
        "aws:iam/role:Role", f"{CFN} AWS::IAM::Role",
        replaces=("name", "path"),
        in_place=("assumeRolePolicy", "description", "maxSessionDuration", "permissionsBoundary", "tags"),
        cfn=_cfn("AWS::IAM::Role", name="RoleName", path="Path", assumeRolePolicy="AssumeRolePolicyDocument",
                 description="Description", maxSessionDuration="MaxSessionDuration",
                 permissionsBoundary="PermissionsBoundary", tags="Tags")),
    TypeFacts(
        "aws:iam/rolePolicy:RolePolicy", f"{CFN} AWS::IAM::RolePolicy",
        replaces=("name", "role"), in_place=("policy",),
        cfn=_cfn("AWS::IAM::RolePolicy", name="PolicyName", role="RoleName", policy="PolicyDocument")),
    TypeFacts(
        "aws:kms/key:Key", f"{CFN} AWS::KMS::Key (none create-only; key spec and usage not mapped)",
        in_place=("deletionWindowInDays", "description", "enableKeyRotation", "policy", "tags"),
        cfn=_cfn("AWS::KMS::Key", deletionWindowInDays="PendingWindowInDays", description="Description",
                 enableKeyRotation="EnableKeyRotation", policy="KeyPolicy", tags="Tags")),
    TypeFacts(
        "aws:kms/alias:Alias", f"{CFN} AWS::KMS::Alias",
        replaces=("name",), in_place=("targetKeyId",),
        cfn=_cfn("AWS::KMS::Alias", name="AliasName", targetKeyId="TargetKeyId")),
    TypeFacts(
        "aws:s3/bucket:Bucket", f"{CFN} AWS::S3::Bucket",
        replaces=("bucket", "bucketPrefix"), in_place=("tags",),
        cfn=_cfn("AWS::S3::Bucket", bucket="BucketName", bucketPrefix="BucketNamePrefix", tags="Tags")),
    TypeFacts(
        "aws:ecr/repository:Repository", f"{CFN} AWS::ECR::Repository",
        replaces=("name", "encryptionConfigurations"),
        in_place=("imageScanningConfiguration", "imageTagMutability", "tags"),
        cfn=_cfn("AWS::ECR::Repository", name="RepositoryName", encryptionConfigurations="EncryptionConfiguration",
                 imageScanningConfiguration="ImageScanningConfiguration", imageTagMutability="ImageTagMutability",
                 tags="Tags")),
    TypeFacts(
        "aws:eks/addon:Addon", f"{CFN} AWS::EKS::Addon",
        replaces=("addonName", "clusterName"),
        in_place=("addonVersion", "configurationValues", "podIdentityAssociations", "resolveConflictsOnUpdate",
                  "serviceAccountRoleArn", "tags"),
        cfn=_cfn("AWS::EKS::Addon", addonName="AddonName", clusterName="ClusterName", addonVersion="AddonVersion",
                 configurationValues="ConfigurationValues", podIdentityAssociations="PodIdentityAssociations",
                 resolveConflictsOnUpdate="ResolveConflicts", serviceAccountRoleArn="ServiceAccountRoleArn",
                 tags="Tags")),
    TypeFacts(
        "aws:eks/podIdentityAssociation:PodIdentityAssociation", f"{CFN} AWS::EKS::PodIdentityAssociation",
        replaces=("clusterName", "namespace", "serviceAccount"), in_place=("roleArn", "tags"),
        cfn=_cfn("AWS::EKS::PodIdentityAssociation", clusterName="ClusterName", namespace="Namespace",
                 serviceAccount="ServiceAccount", roleArn="RoleArn", tags="Tags")),
    # pulumi-eks's Cluster is a component: its control plane is an aws.eks.Cluster whose
    # create-only properties these inputs feed; what else it rebuilds is pulumi-eks's call.
    TypeFacts(
        "eks:index:Cluster", f"{CFN} AWS::EKS::Cluster, through pulumi-eks's inputs",
        replaces=("name", "encryptionConfigKeyArn", "ipFamily", "kubernetesServiceIpAddressRange",
                  "bootstrapSelfManagedAddons"),
        in_place=("version", "enabledClusterLogTypes", "endpointPrivateAccess", "endpointPublicAccess",
                  "publicAccessCidrs", "tags"),
        cfn=_cfn("AWS::EKS::Cluster", name="Name", encryptionConfigKeyArn="EncryptionConfig",
                 ipFamily="KubernetesNetworkConfig/IpFamily",
                 kubernetesServiceIpAddressRange="KubernetesNetworkConfig/ServiceIpv4Cidr",
                 bootstrapSelfManagedAddons="BootstrapSelfManagedAddons", version="Version",
                 enabledClusterLogTypes="Logging", endpointPrivateAccess="ResourcesVpcConfig/EndpointPrivateAccess",
                 endpointPublicAccess="ResourcesVpcConfig/EndpointPublicAccess",
                 publicAccessCidrs="ResourcesVpcConfig/PublicAccessCidrs", tags="Tags")),
    # -- pulumi-aws-native: the CloudFormation schema itself ---------------------------------
    TypeFacts(
        "aws-native:sagemaker:Cluster", f"{CFN} AWS::SageMaker::Cluster",
        replaces=("clusterName", "vpcConfig", "orchestrator.eks"), others_in_place=True,
        cfn=_cfn("AWS::SageMaker::Cluster", clusterName="ClusterName", vpcConfig="VpcConfig",
                 orchestrator__eks="Orchestrator/Eks", instanceGroups="InstanceGroups",
                 nodeRecovery="NodeRecovery")),
    # -- Kubernetes objects (pulumi-kubernetes) ---------------------------------------------
    _kubernetes("kubernetes:core/v1:Namespace"),
    _kubernetes("kubernetes:core/v1:ConfigMap", "data", "binaryData"),  # immutable unless enableConfigMapMutable
    _kubernetes("kubernetes:core/v1:Service", "spec.clusterIP"),
    _kubernetes("kubernetes:core/v1:PersistentVolume", "spec.awsElasticBlockStore", "spec.csi", "spec.hostPath",
                "spec.local", "spec.nfs"),
    _kubernetes("kubernetes:core/v1:PersistentVolumeClaim", "spec.accessModes", "spec.selector",
                "spec.storageClassName", "spec.volumeName"),
    _kubernetes("kubernetes:apps/v1:StatefulSet", "spec.podManagementPolicy", "spec.revisionHistoryLimit",
                "spec.selector", "spec.serviceName", "spec.volumeClaimTemplates"),
    _kubernetes("kubernetes:storage.k8s.io/v1:StorageClass", "parameters", "provisioner"),
    TypeFacts("kubernetes:helm.sh/v3:Release",
              "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go (Diff: forceNewFields .name, .namespace)",
              replaces=("name", "namespace"), others_in_place=True, note="a helm upgrade of the release"),
]}


def facts_for(type_token: str) -> Optional[TypeFacts]:
    return FACTS.get(type_token)


def _covers(fact_path: str, path: str) -> bool:
    return path == fact_path or path.startswith(fact_path + ".")


def decide(type_token: str, path: str, before: Any, after: Any, head_inputs: dict[str, Any],
           whole: bool = False) -> Decision:
    """What a change of input ``path`` (index-free, dot-separated) from ``before`` to ``after`` does.

    ``whole``: anything under ``path`` may change (a value computed from a replaced resource), so a
    replacing path inside it replaces too.
    """
    facts = FACTS.get(type_token)
    if facts is None:
        return Decision("provider decides", f"no replacement facts for {type_token}")
    if whole:
        inside = [fact_path for fact_path in facts.replaces if _covers(path, fact_path)]
        if inside:
            return Decision("replace", f"{inside[0]} cannot change in place ({facts.source})")
    for fact_path, condition in facts.conditional.items():
        if _covers(fact_path, path):
            reason = condition(before, after, head_inputs)
            if reason:
                return Decision("replace", f"{reason} ({facts.source})")
            return Decision("update", f"{fact_path} updates in place for this change ({facts.source})")
    for fact_path in facts.replaces:
        if _covers(fact_path, path):
            return Decision("replace", f"{fact_path} cannot change in place ({facts.source})")
    if facts.others_in_place or any(_covers(fact_path, path) for fact_path in facts.in_place):
        return Decision("update", f"updates in place{': ' + facts.note if facts.note else ''} ({facts.source})")
    return Decision("provider decides", f"{path} is not in the facts for {type_token} ({facts.source})")
