"""Resource types: what trainstack knows about each Pulumi resource type, one row per type.

The instance catalog says what an *instance* type has; this table says what a *resource*
type does, for every type the library renders (``tests/catalog/test_resource_types.py``
fails when a shipped stack plans a type with no row). Each fact carries its source:

- ``minutes``: its typical creation time, read by the deploy estimate
  (``estimate/durations.py``) and the node-roll estimate of the review;
- ``replacement``: which changed inputs replace it (``review/replacement.py``);
- ``loses``: what replacing or deleting it loses (``review/risk.py``: data loss);
- ``runs`` / ``network``: a running thing a reviewer must hear about, or a network
  resource judged by what runs on it (``review/disruption.py``);
- ``config_key`` / ``config_leaves``: where in the stack file its settings come from
  (``review/locate.py``, for findings that point at a line);
- ``report_part``: the part of the HTML report a component is drawn in (``report/groups.py``);
- ``outputs``: how the offline plan makes its id and outputs (``plan/fixtures.py``).

Adding a resource type means adding its row here. The type tokens are ``trainstack.names``.

Creation times are a planning model built from what AWS documents and what public
``terraform apply`` logs show (2023-2026); where no timing is published the row says so and
what was taken. The logs quoted most, for one fresh EKS stack in us-east-1 (2023-08-01):
``ignvb/devsu-devops-assessment@076ccb16`` ``IaC/Apply_output.md`` (``APPLY_LOG`` below).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .. import names
from .addons import chart_reference
from .provider_config import AWS, AWS_NATIVE, KUBERNETES, ProviderConfigFacts
from .replacement_facts import (
    CFN,
    PROVIDER_ONLY,
    TF,
    ReplacementFacts,
    cfn,
    fsx_capacity,
    fsx_metadata_iops,
    kubernetes,
    s3_configuration,
    security_group_rule,
)

Inputs = Mapping[str, Any]


@dataclass(frozen=True)
class OfflineOutputs:
    """How the offline plan makes a type's id and outputs (``plan/fixtures.py`` computes them)."""

    shape: str
    """The fixture that computes them, by name (``plan.fixtures.SHAPES``)."""
    id_prefix: str = ""
    """EC2-style ids: ``vpc`` gives ``vpc-0123...``."""
    arn: str = ""
    """EC2-style ARNs, ``service:kind``: ``ec2:vpc`` gives ``arn:aws:ec2:<region>:<account>:vpc/<id>``."""


@dataclass(frozen=True)
class ResourceType:
    token: str
    minutes: float = 0.0
    """Typical creation time; components take none of their own (their children do)."""
    minutes_source: str = ""
    minutes_for: Optional[Callable[[Inputs], float]] = None
    """Where the time depends on the inputs (an accelerated node group, an interface endpoint)."""
    replacement: Optional[ReplacementFacts] = None
    """Which changed inputs replace it; None: no change is classified ("unknown: may replace" on a guarded
    type, "the provider decides" on any other)."""
    loses: Optional[str] = None
    """What replacing or deleting it loses, in a reviewer's words; None: nothing the stack holds."""
    runs: Optional[str] = None
    """Jobs run on it or keep their data in it while the stack is up: what to call it."""
    network: Optional[str] = None
    """A network resource, judged by what runs on it when replaced: what to call it."""
    purchase: Optional[str] = None
    """Creating or replacing it buys something that cannot be undone: what, in a reviewer's words. The review
    blocks such a change until the pull request approves it by URN."""
    config_key: Optional[str] = None
    """A component's key in the stack file (``trainstack:<key>``)."""
    report_part: Optional[str] = None
    """A component's part of the HTML report's overview (``report/groups.py`` ``ORDER``)."""
    config_leaves: Mapping[str, str] = field(default_factory=dict)
    """The setting under its component's key behind an input (``instanceTypes`` -> ``instanceType``)."""
    outputs: Optional[OfflineOutputs] = None
    """None: the offline plan gives it an id from its name and echoes its inputs."""
    provider_config: Optional[ProviderConfigFacts] = None
    """A provider's: what a change of its configuration does to it and to the resources registered with it."""

    @property
    def guarded(self) -> Optional[str]:
        """Why a change no replacement fact classifies may lose something: the resource holds data or
        running things stand on it (its ``loses``, ``runs`` or ``network``); None for any other type."""
        if self.loses:
            return f"holds {self.loses}"
        if self.runs:
            return f"is a {self.runs} jobs run on"
        if self.network:
            return f"is a {self.network} running things stand on"
        return None

    def created_in(self, inputs: Inputs) -> float:
        """Typical minutes to create one resource of this type with these inputs."""
        return self.minutes_for(inputs) if self.minutes_for else self.minutes


# -- creation times the inputs decide -------------------------------------------------------
APPLY_LOG = "terraform apply log ignvb/devsu-devops-assessment@076ccb16 IaC/Apply_output.md"
API_CALL = f"one API call: 0-3 s in the {APPLY_LOG}"
KUBERNETES_OBJECT = 0.1
"""One object written to the API server (a kind no row names gets the same)."""
OTHER = 0.05
"""An AWS object no row names: one API call."""
ACCELERATED_NODE_GROUP = 8.0
"""No direct timing is published: boot, EFA and a large AMI take 5-10 minutes (aws-parallelcluster#5085:
"over 10 minutes for my GPU node"; amazon-eks-ami#2423), and EKS fails a node that has not joined within
15 minutes (EKS User Guide, troubleshooting: NodeCreationFailure). 8 taken."""
CPU_NODE_GROUP = 2.0
"""1m20s-3m41s for small CPU groups in public apply logs (1m42s in APPLY_LOG, L1979)."""
HELM_RELEASE_MINUTES = 1.5
"""48 s-1m45s per release in APPLY_LOG (L1977-1985) and other public logs."""
SLOW_CHARTS = {"kube-prometheus-stack": 2.3}
"""kube-prometheus-stack: 2m17s in a public apply log, the one chart that waits on many pods."""
HYPERPOD = 15.0
"""12-20 minutes to InService: awslabs/awsome-distributed-training
1.architectures/7.sagemaker-hyperpod-eks/automate-smhp-eks/README.md L137."""
DEEP_HEALTH_CHECKS = 45.0
"""No direct timing is published; the checks include DCGM diagnostics level 4 (SageMaker developer guide,
sagemaker-hyperpod-eks-resiliency-deep-health-checks), which runs 45 min-2.25 h per node
(awsome-distributed-training 4.validation_and_observability/2.gpu-cluster-healthcheck/README.md L84-85): the
lower bound is taken."""
INTERFACE_ENDPOINT = 2.0
"""No log found; terraform-provider-aws waits up to vpcEndpointCreationTimeout (10 min,
internal/service/ec2/vpc_endpoint.go): 2 assumed."""
GATEWAY_ENDPOINT = 0.1
"""S3 gateway endpoints: 3-7 s in public apply logs."""


def node_group_minutes(inputs: Inputs) -> float:
    """An accelerated (NVIDIA or Neuron AMI) group's nodes take longer to boot and join than CPU nodes."""
    ami = str(inputs.get("amiType") or "")
    return ACCELERATED_NODE_GROUP if ("NVIDIA" in ami or "NEURON" in ami) else CPU_NODE_GROUP


MAX_BATCH_NODES = 100
"""EKS replaces at most 100 nodes of a managed node group at once, whatever ``updateConfig`` asks: "The maximum
concurrency (unavailable) is capped at 100 nodes" (EKS User Guide, managed-node-update-behavior); the API takes
``maxUnavailable`` up to 100 and applies ``maxUnavailablePercentage`` "up to 100 nodes at once" (EKS API
Reference, NodegroupUpdateConfig)."""


def update_batch(update: Inputs, nodes: int) -> int:
    """Nodes EKS replaces at once in a group of ``nodes`` under ``update`` (the recorded ``updateConfig``).

    A percentage is rounded down and never below one node: EKS does not say how it rounds, and fewer nodes a
    batch only lengthens the estimate, which the timeout then covers."""
    count = int(update.get("maxUnavailable") or 0)
    percentage = int(update.get("maxUnavailablePercentage") or 0)
    batch = count or max(1, math.floor(nodes * percentage / 100))
    return min(batch, MAX_BATCH_NODES)


def node_group_roll_minutes(inputs: Inputs, nodes: int) -> float:
    """Minutes EKS takes to roll ``nodes`` nodes of a managed node group to a new version or launch template:
    one batch after another (``update_batch``), each launched, joined and drained in about the group's creation
    time (EKS User Guide, managed-node-update-behavior: upgrade phase, steps 6-9)."""
    if nodes <= 0:
        return 0.0
    batch = update_batch(inputs.get("updateConfig") or {}, nodes)
    return math.ceil(nodes / batch) * node_group_minutes(inputs)


def _endpoint_minutes(inputs: Inputs) -> float:
    return INTERFACE_ENDPOINT if inputs.get("vpcEndpointType") == "Interface" else GATEWAY_ENDPOINT


def _helm_release_minutes(inputs: Inputs) -> float:
    return SLOW_CHARTS.get(chart_reference(str(inputs.get("chart"))), HELM_RELEASE_MINUTES)


def _hyperpod_minutes(inputs: Inputs) -> float:
    checks = any(g.get("onStartDeepHealthChecks") for g in inputs.get("instanceGroups") or [])
    return HYPERPOD + (DEEP_HEALTH_CHECKS if checks else 0.0)


def _ec2(prefix: str, kind: str, shape: str = "prefixed") -> OfflineOutputs:
    return OfflineOutputs(shape, prefix, f"ec2:{kind}")
def _kubernetes_object(token: str, replacement: Optional[ReplacementFacts] = None) -> ResourceType:
    """A Kubernetes object: one API server write, replaced as pulumi-kubernetes' forceNew table says."""
    return ResourceType(token, minutes=KUBERNETES_OBJECT, minutes_source="one API server write",
                        replacement=replacement)


RESOURCE_TYPES: tuple[ResourceType, ...] = (
    # -- network ---------------------------------------------------------------------------------
    ResourceType(names.VPC,
        minutes=0.27,
        minutes_source=f"14-17 s in the {APPLY_LOG}, L1768-1816",
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::VPC",
            replaces=("cidrBlock",), in_place=("enableDnsHostnames", "enableDnsSupport", "instanceTenancy", "tags"),
            cfn=cfn("AWS::EC2::VPC", cidrBlock="CidrBlock", enableDnsHostnames="EnableDnsHostnames",
            enableDnsSupport="EnableDnsSupport", instanceTenancy="InstanceTenancy", tags="Tags")),
        network="VPC",
        config_leaves={"cidrBlock": "vpcCidr"},
        outputs=_ec2("vpc", "vpc", shape="vpc")),
    ResourceType(names.SUBNET,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::Subnet",
            replaces=("availabilityZone", "availabilityZoneId", "cidrBlock", "vpcId"),
            in_place=("mapPublicIpOnLaunch", "tags"),
            cfn=cfn("AWS::EC2::Subnet", availabilityZone="AvailabilityZone", availabilityZoneId="AvailabilityZoneId",
            cidrBlock="CidrBlock", vpcId="VpcId", mapPublicIpOnLaunch="MapPublicIpOnLaunch", tags="Tags")),
        network="subnet",
        outputs=_ec2("subnet", "subnet", shape="subnet")),
    ResourceType(names.INTERNET_GATEWAY,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::InternetGateway",
            in_place=("tags", "vpcId"), cfn=cfn("AWS::EC2::InternetGateway", tags="Tags"),
            cited={"vpcId": f"{TF} internal/service/ec2/vpc_internet_gateway.go (vpc_id Optional, not ForceNew: "
                            "resourceInternetGatewayUpdate detaches and attaches)"}),
        network="internet gateway",
        outputs=_ec2("igw", "internet-gateway")),
    ResourceType(names.ROUTE_TABLE,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::RouteTable",
            replaces=("vpcId",), in_place=("tags", "routes"),
            cfn=cfn("AWS::EC2::RouteTable", vpcId="VpcId", tags="Tags"),
            cited={"routes": f"{TF} internal/service/ec2/vpc_route_table.go (route: a set, not ForceNew; "
                             "resourceRouteTableUpdate creates and deletes routes); CloudFormation has no inline "
                             "routes (AWS::EC2::Route)"}),
        network="route table",
        outputs=_ec2("rtb", "route-table")),
    ResourceType(names.ROUTE_TABLE_ASSOCIATION,
        minutes=0.02,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::SubnetRouteTableAssociation",
            replaces=("subnetId",), in_place=("routeTableId",),
            cfn=cfn("AWS::EC2::SubnetRouteTableAssociation", subnetId="SubnetId"),
            # CloudFormation's RouteTableId is create-only; the Terraform provider (which pulumi up runs) moves
            # the association with ReplaceRouteTableAssociation, so the provider governs (ADR 0003).
            cited={"routeTableId": f"{TF} internal/service/ec2/vpc_route_table_association.go (route_table_id "
                                   "Required, not ForceNew: ReplaceRouteTableAssociation; subnet_id ForceNew)"}),
        outputs=OfflineOutputs("id-only", "rtbassoc")),
    ResourceType(names.ROUTE,
        minutes=OTHER,
        minutes_source=API_CALL,
        outputs=OfflineOutputs("id-only", "r-rtb")),
    ResourceType(names.EIP,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::EIP",
            replaces=("networkBorderGroup", "address", "ipamPoolId", "domain"), in_place=("tags",),
            cited={"domain": f"{TF} internal/service/ec2/ec2_eip.go (domain ForceNew; CloudFormation's Domain is "
                             "not create-only, the provider governs)"},
            cfn=cfn("AWS::EC2::EIP", networkBorderGroup="NetworkBorderGroup", address="Address",
            ipamPoolId="IpamPoolId", tags="Tags")),
        network="elastic IP",
        outputs=_ec2("eipalloc", "elastic-ip", shape="eip")),
    ResourceType(names.NAT_GATEWAY,
        minutes=2.0,
        minutes_source=f"1m47s and 1m59s in the {APPLY_LOG}, L1864, and another public log",
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::NatGateway",
            replaces=("allocationId", "connectivityType", "subnetId"), in_place=("tags",),
            cfn=cfn("AWS::EC2::NatGateway", allocationId="AllocationId", connectivityType="ConnectivityType",
            subnetId="SubnetId", tags="Tags")),
        network="NAT gateway",
        outputs=_ec2("nat", "natgateway")),
    ResourceType(names.VPC_ENDPOINT,
        minutes_for=_endpoint_minutes,
        minutes_source="INTERFACE_ENDPOINT, GATEWAY_ENDPOINT",
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::VPCEndpoint",
            replaces=("serviceName", "vpcEndpointType", "vpcId"),
            in_place=("policy", "privateDnsEnabled", "routeTableIds", "securityGroupIds", "subnetIds", "tags"),
            cfn=cfn("AWS::EC2::VPCEndpoint", serviceName="ServiceName", vpcEndpointType="VpcEndpointType",
            vpcId="VpcId", policy="PolicyDocument", privateDnsEnabled="PrivateDnsEnabled",
            routeTableIds="RouteTableIds", securityGroupIds="SecurityGroupIds", subnetIds="SubnetIds",
            tags="Tags")),
        network="VPC endpoint",
        outputs=_ec2("vpce", "vpc-endpoint")),
    ResourceType(names.SECURITY_GROUP,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::SecurityGroup",
            replaces=("description", "name", "vpcId"), in_place=("tags",),
            cfn=cfn("AWS::EC2::SecurityGroup", description="GroupDescription", name="GroupName", vpcId="VpcId",
            tags="Tags")),
        network="security group",
        outputs=_ec2("sg", "security-group", shape="security-group")),
    ResourceType(names.SECURITY_GROUP_INGRESS_RULE,
        minutes=0.02,
        minutes_source=API_CALL,
        replacement=security_group_rule(),
        outputs=_ec2("sgr", "security-group-rule")),
    ResourceType(names.SECURITY_GROUP_EGRESS_RULE,
        minutes=0.02,
        minutes_source=API_CALL,
        replacement=security_group_rule(),
        outputs=_ec2("sgr", "security-group-rule")),
    # -- identity and keys -----------------------------------------------------------------------
    ResourceType(names.IAM_ROLE,
        minutes=0.05,
        minutes_source=f"0-2 s in the {APPLY_LOG}, L1740-1765",
        replacement=ReplacementFacts(f"{CFN} AWS::IAM::Role",
            replaces=("name", "path"),
            in_place=("assumeRolePolicy", "description", "maxSessionDuration", "permissionsBoundary", "tags"),
            cfn=cfn("AWS::IAM::Role", name="RoleName", path="Path", assumeRolePolicy="AssumeRolePolicyDocument",
            description="Description", maxSessionDuration="MaxSessionDuration",
            permissionsBoundary="PermissionsBoundary", tags="Tags")),
        outputs=OfflineOutputs("iam-role")),
    ResourceType(names.IAM_ROLE_POLICY,
        minutes=0.02,
        minutes_source=f"0-2 s in the {APPLY_LOG}, L1740-1765",
        replacement=ReplacementFacts(f"{CFN} AWS::IAM::RolePolicy",
            replaces=("name", "role"), in_place=("policy",),
            cfn=cfn("AWS::IAM::RolePolicy", name="PolicyName", role="RoleName", policy="PolicyDocument"))),
    ResourceType(names.IAM_ROLE_POLICY_ATTACHMENT,
        minutes=0.02,
        minutes_source=f"0-2 s in the {APPLY_LOG}, L1740-1765",
        replacement=ReplacementFacts(
            f"{TF} internal/service/iam/role_policy_attachment.go@81ae62fe (role, policy_arn ForceNew; no update)",
            replaces=("role", "policyArn"))),
    ResourceType(names.IAM_POLICY,
        minutes=OTHER,
        minutes_source=API_CALL,
        outputs=OfflineOutputs("iam-policy")),
    ResourceType(names.KMS_KEY,
        minutes=0.35,
        minutes_source=f"20 s and 22 s in the {APPLY_LOG}, L1831, and another public log",
        replacement=ReplacementFacts(f"{CFN} AWS::KMS::Key (none create-only; key spec and usage not mapped)",
            in_place=("deletionWindowInDays", "description", "enableKeyRotation", "policy", "tags"),
            cfn=cfn("AWS::KMS::Key", deletionWindowInDays="PendingWindowInDays", description="Description",
            enableKeyRotation="EnableKeyRotation", policy="KeyPolicy", tags="Tags")),
        loses="access to everything encrypted with the key once its deletion window ends",
        outputs=OfflineOutputs("kms-key")),
    ResourceType(names.KMS_ALIAS,
        minutes=0.02,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::KMS::Alias",
            replaces=("name",), in_place=("targetKeyId",),
            cfn=cfn("AWS::KMS::Alias", name="AliasName", targetKeyId="TargetKeyId")),
        outputs=OfflineOutputs("kms-alias")),
    # -- EKS -------------------------------------------------------------------------------------
    ResourceType(names.EKS_COMPONENT_CLUSTER,
        minutes=10.0,
        minutes_source=f"10m44s in the {APPLY_LOG}, L1921; 8.4-11.4 min in 12 other public logs; AWS says "
                       "\"about 15 minutes\" (EKS User Guide, create-cluster)",
        replacement=ReplacementFacts(f"{CFN} AWS::EKS::Cluster, through pulumi-eks's inputs",
            replaces=("name", "encryptionConfigKeyArn", "ipFamily", "kubernetesServiceIpAddressRange",
            "bootstrapSelfManagedAddons", "vpcId"),
            in_place=("version", "enabledClusterLogTypes", "endpointPrivateAccess", "endpointPublicAccess",
            "publicAccessCidrs", "tags", "authenticationMode", "privateSubnetIds", "publicSubnetIds",
            "skipDefaultSecurityGroups", "accessEntries", "corednsAddonOptions", "kubeProxyAddonOptions",
            "createOidcProvider", "skipDefaultNodeGroup", "useDefaultVpcCni"),
            cited={
                # pulumi-eks 4.4.0 ClusterArgs: each of these is a resource of its own beside the cluster.
                "accessEntries": f"{CFN} AWS::EKS::AccessEntry: each entry is its own access entry (pulumi-eks "
                                 "4.4.0 ClusterArgs.access_entries); the cluster is not touched",
                "corednsAddonOptions": f"{CFN} AWS::EKS::Addon (AddonVersion, ConfigurationValues, ResolveConflicts "
                                       "not create-only): pulumi-eks 4.4.0 manages coredns as an EKS add-on",
                "kubeProxyAddonOptions": f"{CFN} AWS::EKS::Addon (as corednsAddonOptions): pulumi-eks 4.4.0 "
                                         "manages kube-proxy as an EKS add-on",
                "createOidcProvider": "pulumi-eks 4.4.0 ClusterArgs.create_oidc_provider: an IAM OIDC provider "
                                      "created or deleted beside the cluster, which is not touched",
                "skipDefaultNodeGroup": "pulumi-eks 4.4.0 ClusterArgs.skip_default_node_group: a node group of "
                                        "its own, created or deleted beside the cluster",
                "useDefaultVpcCni": "pulumi-eks 4.4.0 ClusterArgs.use_default_vpc_cni: which VPC CNI is "
                                    "installed on the cluster, not the cluster itself",
                # The VPC is implied by the subnets; EKS keeps a cluster in the VPC it was created in.
                "vpcId": "Amazon EKS User Guide, VPC and subnet requirements "
                         "(https://docs.aws.amazon.com/eks/latest/userguide/network_reqs.html): a cluster's "
                         "subnets stay in the VPC it was created in, so another VPC is another cluster"},
            cfn=cfn("AWS::EKS::Cluster", name="Name", encryptionConfigKeyArn="EncryptionConfig",
            authenticationMode="AccessConfig/AuthenticationMode", privateSubnetIds="ResourcesVpcConfig/SubnetIds",
            publicSubnetIds="ResourcesVpcConfig/SubnetIds",
            skipDefaultSecurityGroups="ResourcesVpcConfig/SecurityGroupIds",
            ipFamily="KubernetesNetworkConfig/IpFamily",
            kubernetesServiceIpAddressRange="KubernetesNetworkConfig/ServiceIpv4Cidr",
            bootstrapSelfManagedAddons="BootstrapSelfManagedAddons", version="Version",
            enabledClusterLogTypes="Logging", endpointPrivateAccess="ResourcesVpcConfig/EndpointPrivateAccess",
            endpointPublicAccess="ResourcesVpcConfig/EndpointPublicAccess",
            publicAccessCidrs="ResourcesVpcConfig/PublicAccessCidrs", tags="Tags")),
        loses="the cluster and everything running in it (jobs, operators, in-cluster state)",
        runs="EKS cluster",
        config_leaves={"version": "version"},
        outputs=OfflineOutputs("eks-component-cluster")),
    ResourceType(names.EKS_CLUSTER,
        minutes=OTHER,
        minutes_source="inside pulumi-eks's Cluster, which carries the time",
        loses="the cluster and everything running in it (jobs, operators, in-cluster state)",
        runs="EKS cluster",
        outputs=OfflineOutputs("eks-cluster")),
    ResourceType(names.NODE_GROUP,
        minutes_for=node_group_minutes,
        minutes_source="ACCELERATED_NODE_GROUP, CPU_NODE_GROUP",
        replacement=ReplacementFacts(
            f"{TF} internal/service/eks/node_group.go@b11fc0fd (ForceNew; launch_template version, release_version "
            "and version go through UpdateNodegroupVersion)",
            replaces=("amiType", "capacityType", "clusterName", "diskSize", "instanceTypes", "launchTemplate.id",
            "launchTemplate.name", "nodeGroupName", "nodeGroupNamePrefix", "nodeRoleArn", "remoteAccess",
            "subnetIds"),
            in_place=("forceUpdateVersion", "labels", "launchTemplate.version", "releaseVersion", "scalingConfig",
            "tags", "taints", "updateConfig", "version", "nodeRepairConfig"),
            cited={"nodeRepairConfig": f"{CFN} AWS::EKS::Nodegroup (NodeRepairConfig is not create-only; "
                                       "UpdateNodegroupConfig takes it)"},
            cfn=cfn("AWS::EKS::Nodegroup", amiType="AmiType", capacityType="CapacityType", clusterName="ClusterName",
            diskSize="DiskSize", instanceTypes="InstanceTypes", nodeGroupName="NodegroupName",
            nodeRoleArn="NodeRole", remoteAccess="RemoteAccess", subnetIds="Subnets", labels="Labels",
            launchTemplate__version="LaunchTemplate/Version", releaseVersion="ReleaseVersion",
            scalingConfig="ScalingConfig", tags="Tags", taints="Taints", updateConfig="UpdateConfig",
            version="Version", nodeRepairConfig="NodeRepairConfig")),
        runs="node group",
        config_leaves={"instanceTypes": "instanceType", "scalingConfig": "maxSize", "version": "version"},
        outputs=OfflineOutputs("node-group")),
    # A Capacity Block bought with the stack. terraform-provider-aws internal/service/ec2/
    # ec2_capacity_block_reservation.go: create calls PurchaseCapacityBlock and waits up to 40 minutes (its
    # default create timeout) for the block; capacity_block_offering_id and instance_platform RequiresReplace;
    # delete is a no-op (framework.WithNoOpDelete): a bought block is never cancelled.
    ResourceType(names.CAPACITY_BLOCK_RESERVATION,
        minutes=0.05,
        minutes_source=f"{API_CALL} (PurchaseCapacityBlock; the provider then waits for the block's state)",
        replacement=ReplacementFacts(f"{TF} internal/service/ec2/ec2_capacity_block_reservation.go (Schema: "
            "RequiresReplace)", replaces=("capacityBlockOfferingId", "instancePlatform"), others_in_place=True,
            note="tags only; deleting it does not cancel the block (WithNoOpDelete)"),
        loses="the Capacity Block bought: a replacement buys another, and neither is refunded",
        purchase="a Capacity Block, paid up front and never refunded",
        outputs=_ec2("cr", "capacity-reservation")),
    ResourceType(names.LAUNCH_TEMPLATE,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::LaunchTemplate",
            replaces=("name", "namePrefix"),
            in_place=("blockDeviceMappings", "capacityReservationSpecification", "metadataOptions",
            "networkInterfaces", "placement", "tagSpecifications", "userData", "vpcSecurityGroupIds",
            "imageId", "instanceType", "iamInstanceProfile", "description", "updateDefaultVersion"),
            cited={"updateDefaultVersion": f"{TF} internal/service/ec2/ec2_launch_template.go: {PROVIDER_ONLY} (it "
                                           "says whether the provider makes a new version the default)"},
            cfn=cfn("AWS::EC2::LaunchTemplate", name="LaunchTemplateName", description="VersionDescription",
            blockDeviceMappings="LaunchTemplateData/BlockDeviceMappings",
            capacityReservationSpecification="LaunchTemplateData/CapacityReservationSpecification",
            metadataOptions="LaunchTemplateData/MetadataOptions",
            networkInterfaces="LaunchTemplateData/NetworkInterfaces", placement="LaunchTemplateData/Placement",
            tagSpecifications="LaunchTemplateData/TagSpecifications", userData="LaunchTemplateData/UserData",
            vpcSecurityGroupIds="LaunchTemplateData/SecurityGroupIds", imageId="LaunchTemplateData/ImageId",
            instanceType="LaunchTemplateData/InstanceType",
            iamInstanceProfile="LaunchTemplateData/IamInstanceProfile"),
            note="a new template version, not a new template"),
        outputs=_ec2("lt", "launch-template", shape="launch-template")),
    ResourceType(names.PLACEMENT_GROUP,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EC2::PlacementGroup",
            replaces=("strategy", "spreadLevel", "partitionCount"),
            cfn=cfn("AWS::EC2::PlacementGroup", strategy="Strategy", spreadLevel="SpreadLevel",
            partitionCount="PartitionCount")),
        outputs=OfflineOutputs("placement-group")),
    ResourceType(names.AUTOSCALING_TAG,
        minutes=0.02,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(
            f"{TF} internal/service/autoscaling/group_tag.go (autoscaling_group_name and tag.key ForceNew; tag.value "
            "and tag.propagate_at_launch through CreateOrUpdateTags)",
            replaces=("autoscalingGroupName", "tag.key"), in_place=("tag.value", "tag.propagateAtLaunch"))),
    ResourceType(names.EKS_ADDON,
        minutes=1.0,
        minutes_source="vpc-cni 24 s-1m06s, coredns 14-56 s, kube-proxy 24-45 s in public apply logs",
        replacement=ReplacementFacts(f"{CFN} AWS::EKS::Addon",
            replaces=("addonName", "clusterName"),
            in_place=("addonVersion", "configurationValues", "podIdentityAssociations", "resolveConflictsOnUpdate",
            "serviceAccountRoleArn", "tags", "resolveConflictsOnCreate"),
            cited={"resolveConflictsOnCreate": f"{TF} internal/service/eks/addon.go (resolve_conflicts_on_create: "
                                               "read by CreateAddon only, not ForceNew; a change calls no API)"},
            cfn=cfn("AWS::EKS::Addon", addonName="AddonName", clusterName="ClusterName", addonVersion="AddonVersion",
            configurationValues="ConfigurationValues", podIdentityAssociations="PodIdentityAssociations",
            resolveConflictsOnUpdate="ResolveConflicts", serviceAccountRoleArn="ServiceAccountRoleArn",
            tags="Tags")),
        outputs=OfflineOutputs("eks-addon")),
    ResourceType(names.POD_IDENTITY_ASSOCIATION,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EKS::PodIdentityAssociation",
            replaces=("clusterName", "namespace", "serviceAccount"), in_place=("roleArn", "tags"),
            cfn=cfn("AWS::EKS::PodIdentityAssociation", clusterName="ClusterName", namespace="Namespace",
            serviceAccount="ServiceAccount", roleArn="RoleArn", tags="Tags")),
        outputs=OfflineOutputs("pod-identity-association")),
    ResourceType(names.SQS_QUEUE,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::SQS::Queue",
            replaces=("name", "fifoQueue"), in_place=("messageRetentionSeconds", "sqsManagedSseEnabled", "tags"),
            cfn=cfn("AWS::SQS::Queue", name="QueueName", fifoQueue="FifoQueue",
            messageRetentionSeconds="MessageRetentionPeriod", sqsManagedSseEnabled="SqsManagedSseEnabled",
            tags="Tags")),
        outputs=OfflineOutputs("sqs-queue")),
    ResourceType(names.SQS_QUEUE_POLICY,
        minutes=OTHER,
        minutes_source=API_CALL,
        # CloudFormation's QueuePolicy has no create-only property; the provider replaces for a new queue.
        replacement=ReplacementFacts(
            f"{TF} internal/service/sqs/queue_policy.go (queue_url ForceNew; the policy through SetQueueAttributes)",
            replaces=("queueUrl",), in_place=("policy",))),
    ResourceType(names.EVENT_RULE,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::Events::Rule",
            replaces=("name",), in_place=("eventPattern", "description", "tags"),
            cfn=cfn("AWS::Events::Rule", name="Name", eventPattern="EventPattern", description="Description",
            tags="Tags"))),
    ResourceType(names.EVENT_TARGET,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(
            f"{TF} internal/service/events/target.go (rule, target_id ForceNew; arn and the rest through PutTargets)",
            replaces=("rule", "targetId", "eventBusName"), in_place=("arn",))),
    ResourceType(names.EKS_ACCESS_ENTRY,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::EKS::AccessEntry",
            replaces=("clusterName", "principalArn", "type"), in_place=("kubernetesGroups", "userName", "tags"),
            cfn=cfn("AWS::EKS::AccessEntry", clusterName="ClusterName", principalArn="PrincipalArn", type="Type",
            kubernetesGroups="KubernetesGroups", userName="Username", tags="Tags"))),
    # -- storage and images ----------------------------------------------------------------------
    ResourceType(names.LUSTRE_FILE_SYSTEM,
        minutes=8.0,
        minutes_source="6-10 min: a PVC stays Pending \"for 5-10 minutes\" while FSx is provisioned (EKS User Guide, "
                       "fsx-csi); about 6 min for a scratch file system (turbot/steampipe-plugin-aws#906)",
        replacement=ReplacementFacts(
            f"{TF} internal/service/fsx/lustre_file_system.go (2024 revision: per_unit_storage_throughput "
            "updatable; CustomizeDiff forces new on a smaller storage_capacity); Intelligent-Tiering's "
            "throughputCapacity and dataReadCacheConfiguration from the FSx API (UpdateFileSystemLustreConfiguration "
            "takes both; the provider's source for them was not read) and CloudFormation (neither is create-only)",
            replaces=("backupId", "copyTagsToBackups", "deploymentType", "driveCacheType", "exportPath",
            "fileSystemTypeVersion", "importPath", "importedFileChunkSize", "kmsKeyId", "securityGroupIds",
            "storageType", "subnetIds", "efaEnabled"),
            in_place=("autoImportPolicy", "automaticBackupRetentionDays", "dailyAutomaticBackupStartTime",
            "dataCompressionType", "dataReadCacheConfiguration", "logConfiguration", "perUnitStorageThroughput",
            "rootSquashConfiguration", "tags", "throughputCapacity", "weeklyMaintenanceStartTime",
            "metadataConfiguration", "skipFinalBackup", "finalBackupTags"),
            conditional={"storageCapacity": fsx_capacity, "metadataConfiguration.iops": fsx_metadata_iops},
            cited={
                # Missing until issue 37, so switching EFA off planned as an in-place update and passed the gate.
                "efaEnabled": "the FSx API: UpdateFileSystemLustreConfiguration has no EfaEnabled (botocore fsx "
                              "2018-03-01 service-2.json), so it is set at creation only; the provider's "
                              "documentation agrees (terraform-provider-aws website/docs/r/"
                              "fsx_lustre_file_system.html.markdown, efa_enabled: \"This must be set at creation. If "
                              "set this cannot be changed\"; pulumi-aws 7.51.1 LustreFileSystemArgs.efa_enabled)",
                "metadataConfiguration": f"{TF} internal/service/fsx/lustre_file_system.go (metadata_configuration "
                                         "not ForceNew, UpdateFileSystem; resourceLustreFileSystemMetadataConfig"
                                         "CustomizeDiff forces new on fewer iops)",
                "metadataConfiguration.iops": f"{TF} internal/service/fsx/lustre_file_system.go "
                                              "(resourceLustreFileSystemMetadataConfigCustomizeDiff)",
                "skipFinalBackup": f"{TF} internal/service/fsx/lustre_file_system.go (skip_final_backup, "
                                   f"not ForceNew): {PROVIDER_ONLY}",
                "finalBackupTags": f"{TF} internal/service/fsx/lustre_file_system.go (final_backup_tags, "
                                   f"not ForceNew): {PROVIDER_ONLY}"},
            cfn=cfn("AWS::FSx::FileSystem", dataReadCacheConfiguration="LustreConfiguration/DataReadCacheConfiguration",
            throughputCapacity="LustreConfiguration/ThroughputCapacity")),
        loses="every file on the file system (backups are kept only for persistent types)",
        runs="file system",
        config_leaves={"deploymentType": "deploymentType", "storageCapacity": "storageCapacityGiB",
                       "perUnitStorageThroughput": "perUnitStorageThroughput", "kmsKeyId": "kmsKeyArn",
                       "subnetIds": "zone"},
        outputs=OfflineOutputs("lustre-file-system")),
    ResourceType(names.DATA_REPOSITORY_ASSOCIATION,
        minutes=12.0,
        minutes_source="810 s create and destroy in terraform-provider-aws#22291's acceptance test; it can pass the "
                       "provider's 10-minute default "
                       "(aws-samples/amazon-eks-machine-learning-with-terraform-and-kubeflow#112)",
        replacement=ReplacementFacts(
            f"{TF} internal/service/fsx/data_repository_association.go (file system, paths and batch import ForceNew; "
            "chunk size and the S3 policies through UpdateDataRepositoryAssociation)",
            replaces=("batchImportMetaDataOnCreate", "dataRepositoryPath", "fileSystemId", "fileSystemPath"),
            in_place=("deleteDataInFilesystem", "importedFileChunkSize", "s3", "tags"),
            cfn=cfn("AWS::FSx::DataRepositoryAssociation", batchImportMetaDataOnCreate="BatchImportMetaDataOnCreate",
            dataRepositoryPath="DataRepositoryPath", fileSystemId="FileSystemId",
            fileSystemPath="FileSystemPath", importedFileChunkSize="ImportedFileChunkSize", s3="S3",
            tags="Tags")),
        outputs=OfflineOutputs("prefixed", "dra", "fsx:association")),
    ResourceType(names.BUCKET,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::S3::Bucket",
            replaces=("bucket", "bucketPrefix"), in_place=("tags", "forceDestroy"),
            cfn=cfn("AWS::S3::Bucket", bucket="BucketName", bucketPrefix="BucketNamePrefix", tags="Tags"),
            cited={"forceDestroy": f"{TF} internal/service/s3/bucket.go (force_destroy, not ForceNew): "
                                   f"{PROVIDER_ONLY}"}),
        loses="every object in the bucket (checkpoints, datasets)",
        outputs=OfflineOutputs("bucket")),
    ResourceType(names.BUCKET_V2,
        minutes=OTHER,
        minutes_source=API_CALL,
        loses="every object in the bucket (checkpoints, datasets)",
        outputs=OfflineOutputs("bucket")),
    ResourceType(names.BUCKET_LIFECYCLE,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=s3_configuration("bucket_lifecycle_configuration.go", ("rules",))),
    ResourceType(names.BUCKET_OBJECT,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(
            f"{TF} internal/service/s3/object.go (bucket, key ForceNew; the content is put again as a new version)",
            replaces=("bucket", "key"), in_place=("content", "contentType", "tags"))),
    ResourceType(names.BUCKET_VERSIONING,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=s3_configuration("bucket_versioning.go@01c08000",
            ("mfa", "versioningConfiguration"))),
    ResourceType(names.BUCKET_PUBLIC_ACCESS_BLOCK,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=s3_configuration("bucket_public_access_block.go@30b8cc6d",
            ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))),
    ResourceType(names.BUCKET_OWNERSHIP_CONTROLS,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=s3_configuration("bucket_ownership_controls.go@adeb8422",
            ("rule",))),
    ResourceType(names.BUCKET_ENCRYPTION,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=s3_configuration("bucket_server_side_encryption_configuration.go@3ab51218", ("rules",))),
    ResourceType(names.ECR_REPOSITORY,
        minutes=0.05,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(f"{CFN} AWS::ECR::Repository",
            replaces=("name", "encryptionConfigurations"),
            in_place=("imageScanningConfiguration", "imageTagMutability", "tags", "forceDelete"),
            cited={"forceDelete": f"{TF} internal/service/ecr/repository.go (force_delete, not ForceNew): "
                                  f"{PROVIDER_ONLY}"},
            cfn=cfn("AWS::ECR::Repository", name="RepositoryName", encryptionConfigurations="EncryptionConfiguration",
            imageScanningConfiguration="ImageScanningConfiguration", imageTagMutability="ImageTagMutability",
            tags="Tags")),
        loses="every image in the repository",
        outputs=OfflineOutputs("ecr-repository")),
    ResourceType(names.ECR_LIFECYCLE_POLICY,
        minutes=OTHER,
        minutes_source=API_CALL,
        replacement=ReplacementFacts(
            f"{TF} internal/service/ecr/lifecycle_policy.go (repository and policy ForceNew: the resource has no "
            "update)", replaces=("repository", "policy"))),
    # -- HyperPod --------------------------------------------------------------------------------
    ResourceType(names.HYPERPOD_CLUSTER,
        minutes_for=_hyperpod_minutes,
        minutes_source="HYPERPOD, DEEP_HEALTH_CHECKS",
        replacement=ReplacementFacts(f"{CFN} AWS::SageMaker::Cluster",
            replaces=("clusterName", "vpcConfig", "orchestrator.eks"), others_in_place=True,
            cfn=cfn("AWS::SageMaker::Cluster", clusterName="ClusterName", vpcConfig="VpcConfig",
            orchestrator__eks="Orchestrator/Eks", instanceGroups="InstanceGroups",
            nodeRecovery="NodeRecovery")),
        loses="the HyperPod cluster, its nodes' volumes and the jobs on them",
        runs="HyperPod cluster",
        outputs=OfflineOutputs("hyperpod-cluster")),
    # -- Kubernetes ------------------------------------------------------------------------------
    ResourceType(names.HELM_RELEASE,
        minutes_for=_helm_release_minutes,
        minutes_source="HELM_RELEASE_MINUTES, SLOW_CHARTS",
        replacement=ReplacementFacts(
            "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go (Diff: forceNewFields .name, .namespace)",
            replaces=("name", "namespace"), others_in_place=True, note="a helm upgrade of the release"),
        outputs=OfflineOutputs("helm-release")),
    ResourceType(names.KUSTOMIZE_DIRECTORY,
        minutes=1.0,
        minutes_source="a few objects applied and awaited: taken as one Helm release"),
    _kubernetes_object(names.NAMESPACE, kubernetes()),
    # data and binaryData replace: a ConfigMap is immutable unless enableConfigMapMutable is set.
    _kubernetes_object(names.CONFIG_MAP, kubernetes("data", "binaryData")),
    _kubernetes_object(names.SERVICE, kubernetes("spec.clusterIP")),
    _kubernetes_object(names.PERSISTENT_VOLUME, kubernetes("spec.awsElasticBlockStore", "spec.csi",
                                                           "spec.hostPath", "spec.local", "spec.nfs")),
    _kubernetes_object(names.PERSISTENT_VOLUME_CLAIM, kubernetes("spec.accessModes", "spec.selector",
                                                                 "spec.storageClassName", "spec.volumeName")),
    _kubernetes_object(names.STATEFUL_SET, kubernetes("spec.podManagementPolicy", "spec.revisionHistoryLimit",
                                                      "spec.selector", "spec.serviceName",
                                                      "spec.volumeClaimTemplates")),
    _kubernetes_object(names.STORAGE_CLASS, kubernetes("parameters", "provisioner")),
    *(_kubernetes_object(token) for token in (
        names.KUEUE_RESOURCE_FLAVOR, names.KUEUE_TOPOLOGY, names.KUEUE_COHORT, names.KUEUE_CLUSTER_QUEUE,
        names.KUEUE_LOCAL_QUEUE, names.KUEUE_WORKLOAD_PRIORITY_CLASS, names.CLUSTER_TRAINING_RUNTIME,
        names.KARPENTER_NODE_POOL, names.KARPENTER_NODE_CLASS)),
    # A remote component whose objects are registered as their own resources, each with its time.
    ResourceType(names.YAML_CONFIG_GROUP, minutes=KUBERNETES_OBJECT, minutes_source="counted as one API server write"),
    # -- providers: configuration, not cloud state; what changing it does to their resources ----------------------
    ResourceType(names.AWS_PROVIDER, provider_config=AWS),
    ResourceType(names.AWS_NATIVE_PROVIDER, provider_config=AWS_NATIVE),
    ResourceType(names.KUBERNETES_PROVIDER, provider_config=KUBERNETES),
    # -- trainstack's components -----------------------------------------------------------------
    *(ResourceType(token, config_key=config_key, report_part=report_part) for token, config_key, report_part in (
        (names.NETWORK_COMPONENT, "network", "network"),
        (names.GPU_EKS_CLUSTER_COMPONENT, "eks", "control plane"),
        (names.EXISTING_CLUSTER_COMPONENT, "existingCluster", "control plane"),
        (names.EXISTING_NODE_GROUP_COMPONENT, "nodeGroups", "node groups"),
        (names.GPU_NODE_GROUP_COMPONENT, "nodeGroups", "node groups"),
        (names.TRAINIUM_NODE_GROUP_COMPONENT, "nodeGroups", "node groups"),
        (names.LUSTRE_FILE_SYSTEM_COMPONENT, "fsx", "storage"),
        (names.CHECKPOINT_BUCKET_COMPONENT, "checkpointBucket", "storage"),
        (names.HYPERPOD_CLUSTER_COMPONENT, "hyperpod", "HyperPod"),
        (names.CLUSTER_ADDONS_COMPONENT, "operators", "add-ons"),
        # Neither located in the stack file by the review nor drawn as a part of the overview.
        (names.TRAINING_STACK_COMPONENT, None, None),
        (names.KARPENTER_NODE_POOL_COMPONENT, None, None),
        (names.S3_DATASETS_COMPONENT, None, None),
        (names.TEAMS_COMPONENT, "scheduling", None),
        (names.NODE_GROUP_POOL_COMPONENT, "nodeGroups", "node groups"))),
)

_BY_TOKEN = {row.token: row for row in RESOURCE_TYPES}


def find(token: str) -> Optional[ResourceType]:
    """The row of a resource type token; None for a type trainstack does not render."""
    return _BY_TOKEN.get(token)


def purchase(token: str) -> Optional[str]:
    """What creating or replacing a resource of this type buys for good; None for anything else."""
    row = find(token)
    return row.purchase if row else None


def loses(token: str) -> Optional[str]:
    """What replacing or deleting a resource of this type loses; None when it holds nothing of the stack's."""
    row = _BY_TOKEN.get(token)
    return row.loses if row else None
