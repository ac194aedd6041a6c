"""ClusterAddons: monitoring agents and job operators on an EKS cluster, each switchable.

    persistent volumes (EBS CSI + gp3 StorageClass), when Prometheus or etcd needs them
    CloudWatch Observability add-on (Container Insights, its DCGM exporter and neuron-monitor)
    DCGM exporter, Prometheus + Grafana with the trainstack GPU dashboard
    Kubeflow training operator, MPI operator, etcd for elastic rendezvous, Kueue
    Kueue's queues, quotas, flavors and topologies (addons/kueue.py), when scheduling is configured
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import AcceleratorKind
from ..config import ConfigError, ConfigIssue, ObservabilityConfig, OperatorsConfig, validate
from ..config.component_args import check_args
from ..config.controller_resources import kueue_manager_resources
from ..names import CLUSTER_ADDONS_COMPONENT
from . import block_end, observability, operators, trainer
from .block_end import BlockEnd
from .device_plugins import NEURON_SCHEDULER_NAME
from .kueue import KueueSetup
from .persistent_volumes import ebs_storage

if TYPE_CHECKING:
    from ..cluster import GpuEksCluster
    from ..cluster.existing import ExistingCluster


class ClusterAddonsArgs(TypedDict):
    """The ``observability`` and ``operators`` config blocks and the cluster they install onto."""

    observability: NotRequired[ObservabilityConfig | dict]
    """The ``observability`` config block (Prometheus, DCGM exporter, Container Insights); without it, its
    defaults."""
    operators: NotRequired[OperatorsConfig | dict]
    """The ``operators`` config block (training operator, MPI operator, Trainer, Kueue, etcd); without it, its
    defaults."""
    cluster: GpuEksCluster | ExistingCluster
    """The cluster the add-ons go on: its Kubernetes provider, its groups, its readiness."""
    kueue: NotRequired[KueueSetup]
    """Kueue's configuration, objects and team namespaces (``addons.kueue``); needs operators.kueue."""
    block_ends: NotRequired[list[BlockEnd]]
    """Each capacity block group's wind-down before AWS ends the block (``addons.block_end``)."""


class ClusterAddons(pulumi.ComponentResource):
    """Monitoring, job operators (training, MPI, Trainer, Kueue) and storage classes on an EKS cluster."""

    training_operator: bool
    trainer: bool
    trainer_mpi: bool
    mpi_operator: bool
    etcd_endpoint: Optional[str]

    def __init__(self, name: str, args: ClusterAddonsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"ClusterAddons({name})", ClusterAddonsArgs, args)
        watch = validate(ObservabilityConfig, args.get("observability", {}),
                         prefix=f"ClusterAddons({name})", at=("observability",))
        jobs = validate(OperatorsConfig, args.get("operators", {}), prefix=f"ClusterAddons({name})", at=("operators",))
        if args.get("kueue") is not None and not jobs.kueue:
            raise ConfigError([ConfigIssue(
                f"ClusterAddons({name}):operators.kueue", jobs.kueue,
                "Kueue's objects were given (kueue), but Kueue is not installed, so nothing could serve them.",
                "set operators.kueue: true, or leave kueue out.")], f"ClusterAddons({name}) arguments")
        super().__init__(CLUSTER_ADDONS_COMPONENT, name, {}, opts)
        cluster = args["cluster"]
        common = dict(provider=cluster.provider, parent=self, depends_on=list(cluster.ready_for_workloads))
        gpus = AcceleratorKind.GPU in cluster.accelerator_kinds
        neurons = AcceleratorKind.NEURON in cluster.accelerator_kinds

        storage = []
        if watch.prometheus or jobs.etcd:
            storage = ebs_storage(name, cluster_name=cluster.cluster_name, install_driver=cluster.owns_eks_addons,
                                  **common)

        if watch.container_insights:
            observability.container_insights(name, watch, cluster_name=cluster.cluster_name, parent=self,
                                             depends_on=common["depends_on"])
        elif neurons and watch.neuron_monitor:
            pulumi.log.warn("observability.neuronMonitor: neuron-monitor comes with the CloudWatch Observability "
                            "add-on; turn on observability.containerInsights to run it.", resource=self)
        if gpus and observability.ours_runs_dcgm(watch):
            observability.dcgm_exporter(name, watch, **common)
        if watch.prometheus:
            observability.prometheus_stack(name, watch, provider=cluster.provider, parent=self,
                                           depends_on=[*common["depends_on"], *storage])

        self.training_operator, self.mpi_operator, self.etcd_endpoint = jobs.training_operator, jobs.mpi_operator, None
        self.team_namespaces: list[pulumi.Resource] = []
        """The team namespaces made here (those no FSx claim makes), which the teams' objects go into."""
        if jobs.training_operator:
            operators.training_operator(name, beside_mpi_operator=jobs.mpi_operator, size=cluster.size, **common)
        self.trainer = jobs.trainer
        # The MPI runtime carries the Neuron scheduler, which runs only beside Neuron groups.
        self.trainer_mpi = jobs.trainer and neurons
        if jobs.trainer:
            trainer.trainer(name, **common, region=cluster.region, size=cluster.size,
                            neuron_scheduler=NEURON_SCHEDULER_NAME if neurons else None)
        if jobs.mpi_operator:
            operators.mpi_operator(name, size=cluster.size, **common)
        if jobs.etcd:
            self.etcd_endpoint = operators.etcd(name, provider=cluster.provider, parent=self,
                                                depends_on=[*common["depends_on"], *storage])
        scheduling = args.get("kueue")
        if jobs.kueue:
            release = operators.kueue(name, **common,
                                      manager_configuration=scheduling.configuration if scheduling else None,
                                      manager_resources=kueue_manager_resources(cluster.size))
            if scheduling:
                self._queues(name, scheduling, release, cluster.provider)
        for end in args.get("block_ends", []):
            self._block_end(name, end, cluster.provider, common["depends_on"])
        self.register_outputs({"trainingOperator": self.training_operator, "mpiOperator": self.mpi_operator,
                               "etcdEndpoint": self.etcd_endpoint})


    def _queues(self, name: str, setup: KueueSetup, release: pulumi.Resource, provider: k8s.Provider) -> None:
        """Team namespaces, then the Kueue objects once the release (CRDs, webhooks) is up."""
        in_cluster = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[release])
        namespaces: list[pulumi.Resource] = [
            k8s.core.v1.Namespace(f"{name}-namespace-{namespace}", metadata={
                "name": namespace, **({"labels": setup.namespace_labels[namespace]}
                                      if setup.namespace_labels.get(namespace) else {})}, opts=in_cluster)
            for namespace in setup.namespaces]
        self.team_namespaces = namespaces
        for document in setup.objects:
            after = [release, *namespaces, *setup.depends_on] if "namespace" in document["metadata"] else [release]
            _custom_resource(name, document, provider=provider, parent=self, depends_on=after)


    def _block_end(self, name: str, end: BlockEnd, provider: k8s.Provider, depends_on: list[pulumi.Resource]) -> None:
        """A block's wind-down: built-in kinds only, so a ConfigGroup (the Kueue CRD is not needed to apply it),
        and the plan's words for who acts when."""
        group = k8s.yaml.v2.ConfigGroup(f"{name}-{end.name}", objs=block_end.objects(end),
                                        opts=pulumi.ResourceOptions(parent=self, provider=provider,
                                                                    depends_on=depends_on))
        pulumi.log.warn(block_end.timeline_text(end), resource=group)


def _custom_resource(name: str, document: dict[str, Any], *, provider: k8s.Provider, parent: pulumi.Resource,
                     depends_on: list[pulumi.Resource]) -> None:
    """One Kueue object, created once the release (its CRDs and webhooks) is up."""
    metadata = document["metadata"]
    resource_name = "-".join([name, document["kind"].lower(), *filter(None, [metadata.get("namespace")]),
                              metadata["name"]])
    opts = pulumi.ResourceOptions(provider=provider, parent=parent, depends_on=depends_on)
    if set(document) == {"apiVersion", "kind", "metadata", "spec"}:
        k8s.apiextensions.CustomResource(resource_name, api_version=document["apiVersion"], kind=document["kind"],
                                         metadata=metadata, spec=document["spec"], opts=opts)
    else:
        # WorkloadPriorityClass keeps its fields beside metadata, not under a spec, which CustomResource's
        # constructor cannot express: registered as the Kubernetes provider's resource of the object's own type
        # token, as CustomResource does. Not a yaml/v2 ConfigGroup: the engine's first preview of a stack failed
        # there, the provider unable to tell whether the kind is namespaced before Kueue's release installs its CRD
        # ("failed to determine if the following GVK is namespaced"; found by tests/deploy).
        pulumi.CustomResource(f"kubernetes:{document['apiVersion']}:{document['kind']}", resource_name,
                              dict(document), opts)
