"""Names shared across trainstack: resource type tokens, labels, taints, tags, device resources.

A leaf module: it imports nothing of trainstack, and every module that needs one of these
strings imports it from here (``tests/test_names.py`` fails when one is spelled elsewhere in
``components/``). Facts *about* a resource type (creation time, replacement, what it holds,
where its config comes from) live in ``catalog/resource_types.py``; facts about an instance
type in ``catalog/``, whose ``EFA_RESOURCE`` is the EFA device resource. The kustomize YAML
under ``addons/`` keeps its own literals: it is applied as written.

Type tokens are the Pulumi tokens the providers register (``<package>:<module>:<Type>``), as
the engine records them: pulumi-aws, pulumi-aws-native, pulumi-eks, pulumi-kubernetes, and
trainstack's own components.
"""

from __future__ import annotations

# -- pulumi-aws resource types -------------------------------------------------------------
VPC = "aws:ec2/vpc:Vpc"
SUBNET = "aws:ec2/subnet:Subnet"
INTERNET_GATEWAY = "aws:ec2/internetGateway:InternetGateway"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ROUTE_TABLE_ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
ROUTE = "aws:ec2/route:Route"
EIP = "aws:ec2/eip:Eip"
NAT_GATEWAY = "aws:ec2/natGateway:NatGateway"
VPC_ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
"""The legacy inline-style rule; trainstack renders the two ``aws:vpc`` rule types below."""
SECURITY_GROUP_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SECURITY_GROUP_EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
CAPACITY_BLOCK_RESERVATION = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
IAM_ROLE = "aws:iam/role:Role"
IAM_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
IAM_ROLE_POLICY_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
IAM_POLICY = "aws:iam/policy:Policy"
IAM_USER_POLICY = "aws:iam/userPolicy:UserPolicy"
IAM_GROUP_POLICY = "aws:iam/groupPolicy:GroupPolicy"
KMS_KEY = "aws:kms/key:Key"
KMS_ALIAS = "aws:kms/alias:Alias"
EKS_CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
"""An EKS managed node group."""
EKS_ADDON = "aws:eks/addon:Addon"
POD_IDENTITY_ASSOCIATION = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
AUTOSCALING_TAG = "aws:autoscaling/tag:Tag"
LUSTRE_FILE_SYSTEM = "aws:fsx/lustreFileSystem:LustreFileSystem"
DATA_REPOSITORY_ASSOCIATION = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_V2 = "aws:s3/bucketV2:BucketV2"
BUCKET_VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
BUCKET_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
BUCKET_OWNERSHIP_CONTROLS = "aws:s3/bucketOwnershipControls:BucketOwnershipControls"
BUCKET_ENCRYPTION = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
ECR_REPOSITORY = "aws:ecr/repository:Repository"
SQS_QUEUE = "aws:sqs/queue:Queue"
SQS_QUEUE_POLICY = "aws:sqs/queuePolicy:QueuePolicy"
EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
EVENT_TARGET = "aws:cloudwatch/eventTarget:EventTarget"
EKS_ACCESS_ENTRY = "aws:eks/accessEntry:AccessEntry"
ECR_LIFECYCLE_POLICY = "aws:ecr/lifecyclePolicy:LifecyclePolicy"
BUCKET_LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
BUCKET_OBJECT = "aws:s3/bucketObjectv2:BucketObjectv2"
AWS_PROVIDER = "pulumi:providers:aws"
AWS_NATIVE_PROVIDER = "pulumi:providers:aws-native"
KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"
PROVIDER_PREFIX = "pulumi:providers:"
"""Every provider resource's type starts with this."""
ROOT_STACK = "pulumi:pulumi:Stack"
"""The root resource of every stack; the engine hands a policy pack the stack's outputs as its outputs."""

# -- other providers' resource types -------------------------------------------------------
EKS_COMPONENT_CLUSTER = "eks:index:Cluster"
"""pulumi-eks's Cluster: a remote component around the control plane (an ``EKS_CLUSTER``)."""
HYPERPOD_CLUSTER = "aws-native:sagemaker:Cluster"
"""A SageMaker HyperPod cluster (pulumi-aws-native)."""
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
KUSTOMIZE_DIRECTORY = "kubernetes:kustomize/v2:Directory"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SECRET = "kubernetes:core/v1:Secret"
SERVICE = "kubernetes:core/v1:Service"
PERSISTENT_VOLUME = "kubernetes:core/v1:PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "kubernetes:core/v1:PersistentVolumeClaim"
STATEFUL_SET = "kubernetes:apps/v1:StatefulSet"
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
KARPENTER_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
KUEUE_RESOURCE_FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
KUEUE_TOPOLOGY = "kubernetes:kueue.x-k8s.io/v1beta2:Topology"
KUEUE_COHORT = "kubernetes:kueue.x-k8s.io/v1beta2:Cohort"
KUEUE_CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
KUEUE_LOCAL_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
KUEUE_WORKLOAD_PRIORITY_CLASS = "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass"
CLUSTER_TRAINING_RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"
YAML_CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
"""A component: the objects of a YAML document, each registered as its own resource."""
KARPENTER_API_PREFIX = "kubernetes:karpenter.sh/"
KUEUE_API_PREFIX = "kubernetes:kueue.x-k8s.io/"

# -- trainstack's components ---------------------------------------------------------------
TRAINING_STACK_COMPONENT = "trainstack:index:TrainingStack"
NETWORK_COMPONENT = "trainstack:index:Network"
GPU_EKS_CLUSTER_COMPONENT = "trainstack:index:GpuEksCluster"
EXISTING_CLUSTER_COMPONENT = "trainstack:index:ExistingCluster"
EXISTING_NODE_GROUP_COMPONENT = "trainstack:index:ExistingNodeGroup"
GPU_NODE_GROUP_COMPONENT = "trainstack:index:GpuNodeGroup"
TRAINIUM_NODE_GROUP_COMPONENT = "trainstack:index:TrainiumNodeGroup"
KARPENTER_NODE_POOL_COMPONENT = "trainstack:index:KarpenterNodePool"
LUSTRE_FILE_SYSTEM_COMPONENT = "trainstack:index:LustreFileSystem"
CHECKPOINT_BUCKET_COMPONENT = "trainstack:index:CheckpointBucket"
S3_DATASETS_COMPONENT = "trainstack:index:S3Datasets"
TEAMS_COMPONENT = "trainstack:index:Teams"
NODE_GROUP_POOL_COMPONENT = "trainstack:index:NodeGroupPool"
HYPERPOD_CLUSTER_COMPONENT = "trainstack:index:HyperPodCluster"
CLUSTER_ADDONS_COMPONENT = "trainstack:index:ClusterAddons"

# -- stack configuration and tags ----------------------------------------------------------
PROFILE_CONFIG = "trainstack:profile"
"""The stack file key of the profile, also the tag every resource of the stack carries."""
COST_CONFIG = "trainstack:cost"
STACK_TAG = "trainstack:stack"
PURPOSE_TAG = "trainstack:purpose"
NODE_GROUP_TAG = "trainstack:node-group"

# -- node labels ---------------------------------------------------------------------------
LABEL_PREFIX = "trainstack.io/"
"""trainstack's own labels; a user's node group labels may not use it."""
NODE_GROUP_LABEL = "trainstack.io/node-group"
"""Every node carries its group's name: jobs select a group by it."""
ACCELERATOR_LABEL = "trainstack.io/accelerator"
EFA_INTERFACES_LABEL = "trainstack.io/efa-interfaces"
LAUNCH_FIELD_MANAGER = "trainstack.io/launch"
"""The server-side apply field manager of ``trainstack launch``."""
HOSTNAME_LABEL = "kubernetes.io/hostname"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
"""Set by the NVIDIA device plugin's node feature discovery; trainstack sets it at launch."""
NEURON_PRESENT_LABEL = "aws.amazon.com/neuron.present"
EFA_PRESENT_LABEL = "vpc.amazonaws.com/efa.present"
DEVICE_ALLOCATION_LABEL = "trainstack.io/device-allocation"
"""On nodes of a group with ``deviceAllocation: dra`` (value ``dra``): the DRA drivers select these nodes, and
the device plugins, which select the ``*.present`` labels such nodes do not carry, stay off them."""
GPU_CLIQUE_LABEL = "nvidia.com/gpu.clique"
"""NVIDIA GPU Feature Discovery's label of a node's multi-node NVLink domain (a GB200 UltraServer)."""
NEURON_ULTRASERVER_LABEL = "neuron.amazonaws.com/ultraserver-server-id-4"
"""The Neuron device plugin's label of a Trn2 UltraServer's four nodes (one value per unit)."""
HYPERPOD_ULTRASERVER_LABEL = "topology.k8s.aws/ultraserver-id"
"""The label SageMaker HyperPod puts on the nodes of one UltraServer's NVLink domain."""
JOB_POD_LABEL = "trainstack.io/job"
"""On the pods of a job kept inside one UltraServer: its pod affinity selects the job's pods by it."""
RESERVED_LABELS = (GPU_PRESENT_LABEL, EFA_PRESENT_LABEL, NEURON_PRESENT_LABEL)
"""Labels the device plugins select nodes by: trainstack sets them, a user's labels may not."""

# -- device resources and taints -----------------------------------------------------------
GPU_RESOURCE = "nvidia.com/gpu"
"""The NVIDIA device plugin's extended resource, one per GPU."""
NEURON_RESOURCE = "aws.amazon.com/neuron"
"""The Neuron device plugin's extended resource, one per Neuron device."""
NEURONCORE_RESOURCE = "aws.amazon.com/neuroncore"
"""The Neuron device plugin's extended resource, one per NeuronCore."""
BLOCK_ENDING_TAINT = "trainstack.io/capacity-block-ending"
"""The NoExecute taint trainstack puts on a capacity block's nodes ``endLeadMinutes`` before the block ends
(addons/block_end.py): its value is the block's end, ``20261201T113000Z``."""
GPU_TAINT = {"key": GPU_RESOURCE, "value": "true", "effect": "NoSchedule"}
"""Keeps pods that request no GPU off GPU nodes (EKS accelerated AMI convention)."""
NEURON_TAINT = {"key": NEURON_RESOURCE, "value": "true", "effect": "NoSchedule"}
"""Keeps pods that request no Neuron device off Trainium nodes."""

# -- volumes -------------------------------------------------------------------------------
GP3_STORAGE_CLASS = "trainstack-gp3"
"""The encrypted gp3 StorageClass trainstack adds for in-cluster state (etcd's and Prometheus's claims)."""
EBS_CSI_PROVISIONER = "ebs.csi.aws.com"
"""The Amazon EBS CSI driver's name: the provisioner of ``GP3_STORAGE_CLASS`` and the name of the CSIDriver object
the driver registers (kubernetes-sigs/aws-ebs-csi-driver charts/aws-ebs-csi-driver/templates/csidriver.yaml
@2f0da86f)."""
EBS_CSI_ADDON = "aws-ebs-csi-driver"
"""The EKS add-on that installs it (EKS User Guide, ebs-csi: https://docs.aws.amazon.com/eks/latest/userguide/
ebs-csi.html)."""
