"""Monitoring: CloudWatch Container Insights, DCGM exporter, Prometheus and Grafana.

One agent of a kind per node: the CloudWatch Observability add-on brings its own
DCGM exporter and neuron-monitor. When Prometheus and trainstack's DCGM exporter
are on, the add-on's DCGM exporter is turned off (Prometheus scrapes ours; the
Grafana dashboard reads it); otherwise the add-on's serves Container Insights and
ours is not installed. neuron-monitor always comes from the add-on.
"""

from __future__ import annotations

import json
from importlib import resources

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..catalog.addons import DCGM_EXPORTER, KUBE_PROMETHEUS_STACK
from ..catalog.managed_policies import CLOUDWATCH_AGENT
from ..cluster.iam import pod_identity_role
from ..cluster.system_nodes import SYSTEM_LABELS
from ..config import ObservabilityConfig
from ..helm import helm_release
from ..names import GPU_PRESENT_LABEL
from .device_plugins import GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION
from .persistent_volumes import STORAGE_CLASS

MONITORING = "monitoring"
CLOUDWATCH_NAMESPACE, CLOUDWATCH_SERVICE_ACCOUNT = "amazon-cloudwatch", "cloudwatch-agent"
CLOUDWATCH_POLICY = CLOUDWATCH_AGENT


def dashboard_json() -> str:
    return resources.files("trainstack.addons").joinpath("dashboards", "gpus.json").read_text()


def ours_runs_dcgm(settings: ObservabilityConfig) -> bool:
    return settings.dcgm_exporter and (settings.prometheus or not settings.container_insights)


def container_insights(name: str, settings: ObservabilityConfig, *, cluster_name: str, parent: pulumi.Resource,
                       depends_on: list[pulumi.Resource]) -> aws.eks.Addon:
    association = pod_identity_role(
        f"{name}-cloudwatch", cluster_name=cluster_name, namespace=CLOUDWATCH_NAMESPACE,
        service_account=CLOUDWATCH_SERVICE_ACCOUNT, managed_policy_arns=[CLOUDWATCH_POLICY], parent=parent,
        depends_on=depends_on)
    values = {"dcgmExporter": {"enabled": not ours_runs_dcgm(settings)},
              "neuronMonitor": {"enabled": settings.neuron_monitor}}
    return aws.eks.Addon(
        f"{name}-cloudwatch", cluster_name=cluster_name, addon_name="amazon-cloudwatch-observability",
        configuration_values=json.dumps(values), resolve_conflicts_on_create="OVERWRITE",
        resolve_conflicts_on_update="OVERWRITE",
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[association, *depends_on],
                                    custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))


def dcgm_exporter(name: str, settings: ObservabilityConfig, *, provider: k8s.Provider, parent: pulumi.Resource,
                  depends_on: list[pulumi.Resource]) -> k8s.helm.v3.Release:
    """A node agent: it runs on GPU nodes, so it tolerates their taint."""
    return helm_release(
        f"{name}-dcgm-exporter", DCGM_EXPORTER, namespace=MONITORING, provider=provider, parent=parent,
        depends_on=depends_on, values={
            "nodeSelector": {GPU_PRESENT_LABEL: "true"},
            "tolerations": [GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION],
            "serviceMonitor": {"enabled": settings.prometheus},
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
        })


def prometheus_stack(name: str, settings: ObservabilityConfig, *, provider: k8s.Provider,
                     parent: pulumi.Resource, depends_on: list[pulumi.Resource]) -> k8s.helm.v3.Release:
    """Prometheus, Alertmanager, Grafana and the operator on system nodes; node-exporter is
    the chart's node agent and tolerates NoSchedule taints by default."""
    system = dict(SYSTEM_LABELS)
    release = helm_release(
        f"{name}-prometheus", KUBE_PROMETHEUS_STACK, namespace=MONITORING, provider=provider, parent=parent,
        depends_on=depends_on, values={
            "prometheus": {"prometheusSpec": {
                "retention": f"{settings.retention_days}d",
                "nodeSelector": system,
                "resources": {"requests": {"cpu": "500m", "memory": "2Gi"}, "limits": {"memory": "8Gi"}},
                "storageSpec": {"volumeClaimTemplate": {"spec": {
                    "storageClassName": STORAGE_CLASS, "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": f"{settings.prometheus_storage_gib}Gi"}}}}},
                # Pick up ServiceMonitors of other releases (the DCGM exporter's).
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "podMonitorSelectorNilUsesHelmValues": False,
            }},
            "alertmanager": {"alertmanagerSpec": {"nodeSelector": system,
                                                  "retention": f"{settings.retention_days * 24}h",
                                                  "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}}}},
            "prometheusOperator": {"nodeSelector": system,
                                   "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}},
            "kube-state-metrics": {"nodeSelector": system},
            "grafana": {
                "nodeSelector": system,
                # Empty: the Grafana chart generates a random admin password and keeps it
                # in a Secret, instead of the well-known default.
                "adminPassword": "",
                "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}},
                "sidecar": {"dashboards": {"enabled": True, "label": "grafana_dashboard", "labelValue": "1"}},
            },
        })
    k8s.core.v1.ConfigMap(
        f"{name}-gpu-dashboard", metadata={"name": "trainstack-gpus", "namespace": MONITORING,
                                           "labels": {"grafana_dashboard": "1"}},
        data={"trainstack-gpus.json": dashboard_json()},
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=[release]))
    return release
