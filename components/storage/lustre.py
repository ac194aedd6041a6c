"""LustreFileSystem: FSx for Lustre for datasets, compile caches and checkpoints.

    security group (TCP 988 and 1018-1023 with its clients, both ways, by reference;
                    all traffic for EFA-enabled file systems)
    file system (Lustre 2.15, LZ4, backups, KMS, metadata configuration, EFA), protected;
                    SSD (capacity x per-TiB throughput) or Intelligent-Tiering (elastic
                    storage, a throughput capacity and an SSD read cache)
    optional S3 data repository association (a dataset prefix, import and export)
    optional checkpoint export: a data repository association from the checkpoint
                    directory to the checkpoint bucket, exporting new and changed files

The job's checkpoint (size, interval, kept, who writes it) is the component's input, so
the plan, the estimates and the ``checkpoint-write-share`` policy read it from the record.

One zone and one subnet: the accelerated node groups' (the config checks it).
Lustre 2.15 always: AL2023 clients cannot mount 2.10, which SCRATCH_2 would
otherwise default to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..catalog import timeouts
from ..config import ConfigError, ConfigIssue, FsxConfig, validate
from ..config.checkpoints import CheckpointWriters
from ..config.component_args import check_args
from ..names import LUSTRE_FILE_SYSTEM_COMPONENT
from .lustre_directories import check_platform_namespace
from .lustre_eks import lustre_claim

LUSTRE_VERSION = "2.15"
# Lustre clients and servers talk on 988 and 1018-1023; several field tools open
# only 1021-1023, which leaves clients unable to mount under load.
LUSTRE_PORTS = ((988, 988), (1018, 1023))


class EksMountArgs(TypedDict):
    """The EKS cluster that mounts the file system."""

    cluster_name: str
    """The EKS cluster that gets the FSx CSI driver add-on."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider."""
    depends_on: list[pulumi.Resource]
    """What must exist before the CSI add-on can become healthy (nodes)."""
    job_namespaces: NotRequired[list[str]]
    """Other namespaces jobs run in (the teams'): each gets the claim too, as ``settings.namespace`` does."""
    namespace_labels: NotRequired[Mapping[str, Mapping[str, str]]]
    """Labels of the namespaces the claims make (each team's Pod Security level: tenancy/isolation.py)."""
    team_directories: NotRequired[Mapping[str, str]]
    """A team's namespace and its directory on the file system (``Tenant.fsx_directory``, ``teams/<team>``): that
    namespace's claim mounts the directory alone, and a Job in the platform's namespace makes it
    (storage/lustre_directories.py)."""


class LustreFileSystemArgs(TypedDict):
    """The ``fsx`` config block, where the file system goes and who mounts it."""

    settings: FsxConfig | dict
    """The ``fsx`` config block."""
    vpc_id: pulumi.Input[str]
    """The VPC of the file system's security group."""
    subnet_id: pulumi.Input[str]
    """The private subnet of ``settings.zone``."""
    client_security_group_ids: NotRequired[Sequence[pulumi.Input[str]]]
    """Security groups of the clients (the EKS cluster security group, HyperPod's); when
    empty a client group is created for clients to join."""
    eks: NotRequired[EksMountArgs]
    """Mount on this EKS cluster: the FSx CSI driver, a PersistentVolume and a claim."""
    checkpoint_writers: NotRequired[CheckpointWriters]
    """Who writes ``settings.checkpoints``; without it the checkpoint's timing is not estimated."""
    checkpoint_bucket: NotRequired[pulumi.Input[str]]
    """The bucket ``settings.checkpoints.exportToBucket`` exports to (its name); required when it is on."""


class LustreFileSystem(pulumi.ComponentResource):
    """An FSx for Lustre file system, its security group, S3 link and checkpoint export, and on EKS
    the CSI driver, a PersistentVolume and claim; protected from deletion by default."""

    file_system_id: pulumi.Output[str]
    dns_name: pulumi.Output[str]
    mount_name: pulumi.Output[str]
    mount_path: str
    client_security_group_ids: list[pulumi.Input[str]]
    throughput_mbps: int
    """Aggregate throughput: capacity in TiB x per-unit throughput."""

    def __init__(self, name: str, args: LustreFileSystemArgs, opts: Optional[pulumi.ResourceOptions] = None):
        settings = _checked(name, args)
        # The job's checkpoint is both an input (the offline record's) and an output (what the engine
        # hands a policy pack for a component): the estimates and the checkpoint policy read either.
        job = ({"checkpoint": _checkpoint_inputs(settings, args.get("checkpoint_writers"))}
               if settings.checkpoints is not None else {})
        super().__init__(LUSTRE_FILE_SYSTEM_COMPONENT, name, job, opts)
        group = self._security_groups(name, args, efa=settings.efa)
        file_system = self._file_system(name, settings, args["subnet_id"], group)
        self.security_group: aws.ec2.SecurityGroup = group
        """The file system's security group (Lustre's ports with its clients, both ways)."""
        self.file_system: aws.fsx.LustreFileSystem = file_system
        """The FSx for Lustre file system (``aws.fsx.LustreFileSystem``), protected unless ``settings.protect`` is
        off."""
        self._data_repositories(name, settings, file_system.id, args.get("checkpoint_bucket"))
        self.claim_name = None
        self.claim_namespaces: list[str] = []
        """Where the claim is: ``settings.namespace`` first, then the other job namespaces (EKS)."""
        if "eks" in args:
            eks = args["eks"]
            others = sorted(set(eks.get("job_namespaces", [])) - {settings.namespace})
            self.claim_namespaces = [settings.namespace, *others]
            lustre_claim(name, file_system_id=file_system.id, dns_name=file_system.dns_name,
                         mount_name=file_system.mount_name, capacity_gib=settings.storage_capacity_gib,
                         claim_name=settings.claim_name, namespaces=self.claim_namespaces,
                         cluster_name=eks["cluster_name"], provider=eks["provider"], parent=self,
                         depends_on=eks["depends_on"], namespace_labels=eks.get("namespace_labels"),
                         team_directories=eks.get("team_directories"))
            self.claim_name = settings.claim_name

        self.file_system_id = file_system.id
        self.dns_name = file_system.dns_name
        self.mount_name = file_system.mount_name
        self.mount_path = settings.mount_path
        self.throughput_mbps = settings.throughput_mbps
        self.register_outputs({"fileSystemId": self.file_system_id, "dnsName": self.dns_name,
                               "mountName": self.mount_name, "mountPath": self.mount_path,
                               "claimName": self.claim_name, "throughputMBps": self.throughput_mbps, **job})

    def _security_groups(self, name: str, args: LustreFileSystemArgs, *, efa: bool) -> aws.ec2.SecurityGroup:
        """The file system's group, its clients' (a new one when none is given), and the rules between them."""
        child = pulumi.ResourceOptions(parent=self)
        group = aws.ec2.SecurityGroup(name, vpc_id=args["vpc_id"], description=f"FSx for Lustre {name}",
                                      tags={"Name": name}, opts=child)
        clients = list(args.get("client_security_group_ids") or [])
        if not clients:
            clients = [aws.ec2.SecurityGroup(f"{name}-clients", vpc_id=args["vpc_id"],
                                             description=f"Clients of FSx for Lustre {name}",
                                             tags={"Name": f"{name}-clients"}, opts=child).id]
        self.client_security_group_ids = clients
        self._rules(name, group.id, clients, efa=efa)
        return group

    def _file_system(self, name: str, settings: FsxConfig, subnet_id: pulumi.Input[str],
                     group: aws.ec2.SecurityGroup) -> aws.fsx.LustreFileSystem:
        persistent = settings.deployment_type.startswith("PERSISTENT")
        tiering = settings.storage_class == "INTELLIGENT_TIERING"
        return aws.fsx.LustreFileSystem(
            name,
            deployment_type=settings.deployment_type,
            storage_type=settings.storage_class,
            # Intelligent-Tiering storage is elastic: no capacity, a file-system throughput and a read cache.
            storage_capacity=None if tiering else settings.storage_capacity_gib,
            per_unit_storage_throughput=settings.per_unit_throughput,
            throughput_capacity=settings.throughput_capacity_mbps,
            data_read_cache_configuration=_read_cache(settings.read_cache_gib) if tiering else None,
            file_system_type_version=LUSTRE_VERSION,
            subnet_ids=subnet_id,  # one subnet: pulumi-aws v7 types it as a single id
            security_group_ids=[group.id],
            data_compression_type="LZ4",
            kms_key_id=settings.kms_key_arn,
            efa_enabled=settings.efa or None,
            metadata_configuration=_metadata(settings) if persistent else None,
            automatic_backup_retention_days=settings.backup_retention_days if persistent else None,
            copy_tags_to_backups=True if persistent else None,
            # The provider skips the final backup on delete unless told otherwise.
            skip_final_backup=False if persistent else None,
            log_configuration={"level": "WARN_ERROR"},
            tags={"Name": name},
            opts=pulumi.ResourceOptions(parent=self, protect=settings.protect,
                                        # The plan's estimate with its margin (catalog/timeouts.py).
                                        custom_timeouts=pulumi.CustomTimeouts(**timeouts.lustre_timeouts())),
        )

    def _data_repositories(self, name: str, settings: FsxConfig, file_system_id: pulumi.Output[str],
                           bucket: Optional[pulumi.Input[str]]) -> None:
        """The dataset prefix linked to S3, and the checkpoint export to the checkpoint bucket."""
        if settings.data_repository is not None:
            repository = settings.data_repository
            aws.fsx.DataRepositoryAssociation(
                f"{name}-s3", file_system_id=file_system_id, data_repository_path=repository.s3_path,
                file_system_path=repository.file_system_path, batch_import_meta_data_on_create=True,
                s3={"auto_import_policy": {"events": repository.auto_import} if repository.auto_import else None,
                    "auto_export_policy": {"events": repository.auto_export} if repository.auto_export else None},
                # Importing a large bucket's metadata takes far longer than the 10-minute default.
                opts=pulumi.ResourceOptions(parent=self, custom_timeouts=pulumi.CustomTimeouts(create="60m")))
        if settings.checkpoints is not None and settings.checkpoints.export_to_bucket and bucket is not None:
            self._export_checkpoints(name, file_system_id, settings.checkpoints.path, bucket)

    def _export_checkpoints(self, name: str, file_system_id: pulumi.Input[str], path: str,
                            bucket: pulumi.Input[str]) -> None:
        """New and changed checkpoints go to S3 as they are written (FSx for Lustre User Guide,
        "Automatically export updates to your S3 bucket", autoexport-data-repo-dra.html). DELETED is
        not exported: pruning old checkpoints on FSx must not delete their copies, which the bucket's
        versioning and lifecycle keep. Nothing is imported back: the bucket is the archive."""
        aws.fsx.DataRepositoryAssociation(
            f"{name}-checkpoints", file_system_id=file_system_id,
            data_repository_path=pulumi.Output.from_input(bucket).apply(lambda name: _export_path(name, path)),
            file_system_path=path, batch_import_meta_data_on_create=False,
            s3={"auto_export_policy": {"events": ["NEW", "CHANGED"]}},
            opts=pulumi.ResourceOptions(parent=self, custom_timeouts=pulumi.CustomTimeouts(create="60m")))

    @property
    def hyperpod_mount(self) -> dict:
        """The ``fsx_lustre_config`` a HyperPod instance group's storage takes."""
        return {"dns_name": self.dns_name, "mount_name": self.mount_name, "mount_path": self.mount_path}

    def _rules(self, name: str, group: pulumi.Output[str], clients: list[pulumi.Input[str]], *, efa: bool) -> None:
        """Servers among themselves, and each client with the servers, in both directions."""
        self._allow(f"{name}-self", group, group, efa=efa)
        for index, client in enumerate(clients):
            self._allow(f"{name}-to-client{index}", group, client, efa=efa)
            self._allow(f"{name}-client{index}", client, group, efa=efa)

    def _allow(self, label: str, group: pulumi.Input[str], peer: pulumi.Input[str], *, efa: bool) -> None:
        """Ingress from and egress to ``peer`` on ``group``: the Lustre ports, or all traffic
        for EFA-enabled file systems (which CIDR rules cannot satisfy)."""
        child = pulumi.ResourceOptions(parent=self)
        ranges = [("all", dict(ip_protocol="-1"))] if efa else [
            (f"{low}" if low == high else f"{low}-{high}", dict(ip_protocol="tcp", from_port=low, to_port=high))
            for low, high in LUSTRE_PORTS]
        for ports, protocol in ranges:
            aws.vpc.SecurityGroupIngressRule(f"{label}-in-{ports}", security_group_id=group,
                                             referenced_security_group_id=peer,
                                             description=f"Lustre {ports} in ({label})", opts=child, **protocol)
            aws.vpc.SecurityGroupEgressRule(f"{label}-out-{ports}", security_group_id=group,
                                            referenced_security_group_id=peer,
                                            description=f"Lustre {ports} out ({label})", opts=child, **protocol)


def _checkpoint_inputs(settings: FsxConfig, writers: Optional[CheckpointWriters]) -> dict:
    """The job's checkpoint as the plan records it (trainstack.estimate.checkpoint reads it)."""
    checkpoints = settings.checkpoints
    assert checkpoints is not None
    inputs: dict = {"sizeGB": checkpoints.checkpoint_gb, "intervalMinutes": checkpoints.interval_minutes,
                    "keep": checkpoints.keep, "path": checkpoints.path}
    if writers is not None:
        inputs.update(writers=writers["count"], writerInstanceType=writers["instance_type"],
                      writersUseEfa=writers["efa"])
    return inputs


def _read_cache(size_gib: Optional[int]) -> dict:
    """FSx API LustreReadCacheConfiguration: unset sizes the cache with throughput, 0 turns it off."""
    if size_gib is None:
        return {"sizing_mode": "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"}
    if size_gib == 0:
        return {"sizing_mode": "NO_CACHE"}
    return {"sizing_mode": "USER_PROVISIONED", "size": size_gib}


def _metadata(settings: FsxConfig) -> dict:
    iops = settings.provisioned_metadata_iops
    if iops is None:
        return {"mode": "AUTOMATIC"}
    return {"mode": "USER_PROVISIONED", "iops": iops}


def _checked(name: str, args: LustreFileSystemArgs) -> FsxConfig:
    """``settings`` validated, once the args have every key they must: those the Args require, the EKS mount's
    where one is given, and the bucket where ``settings.checkpoints`` exports to one."""
    check_args(f"LustreFileSystem({name})", LustreFileSystemArgs, args)
    if "eks" in args:
        check_args(f"LustreFileSystem({name})", EksMountArgs, args["eks"], under="eks.")
    if "checkpoint_writers" in args:
        check_args(f"LustreFileSystem({name})", CheckpointWriters, args["checkpoint_writers"],
                   under="checkpoint_writers.")
    settings = validate(FsxConfig, args["settings"], prefix=f"LustreFileSystem({name})", at=("settings",))
    if "eks" in args:
        eks = args["eks"]
        check_platform_namespace(f"LustreFileSystem({name}):eks.job_namespaces",
                                 [settings.namespace, *eks.get("job_namespaces", [])], eks.get("team_directories", {}))
    if settings.checkpoints is not None and settings.checkpoints.export_to_bucket \
            and args.get("checkpoint_bucket") is None:
        raise ConfigError([ConfigIssue(
            f"LustreFileSystem({name}):checkpoint_bucket", None,
            "settings.checkpoints.exportToBucket is on: the checkpoints are exported to a bucket, whose name is "
            "missing.", "pass checkpoint_bucket (CheckpointBucket.bucket_name), or set exportToBucket: false.")],
            f"LustreFileSystem({name}) arguments")
    return settings


def _export_path(bucket: Optional[str], path: str) -> Optional[str]:
    """The checkpoint export's S3 path, ``s3://<bucket><path>/``; None where no provider filled the bucket's
    name (a bucket named from a prefix gets it from S3; Pulumi's unit-test mocks echo inputs, and the name is
    no input), instead of failing inside an apply."""
    return f"s3://{bucket}{path.rstrip('/')}/" if bucket else None
