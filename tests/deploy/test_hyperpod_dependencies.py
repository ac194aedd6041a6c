"""HyperPod's dependencies chart, looked for as a deploy looks for it: the real Pulumi engine runs a program that
waits on the check (dependencies_check.chart_checked, what HyperPodCluster's creation waits on) with a stand-in for
the HyperPod cluster, against the rehearsal's API server, and the chart's releases are made by Helm itself (the
Kubernetes provider's helm.v3.Release, which links Helm's library and writes Helm's own release records).

What is not run here: the HyperPod cluster itself (aws-native) and the EKS cluster (pulumi-aws) need AWS provider
plugins this machine cannot build; tests/hyperpod/test_dependencies_check.py shows, under Pulumi's mocks, that the
HyperPod cluster's registration waits on the same check within the whole hyperpod-eks stack."""

from __future__ import annotations

import contextlib
import functools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.helm_values import nested
from trainstack.boundary import dump_yaml
from trainstack.catalog.hyperpod_eks import HYPERPOD_CHART, HYPERPOD_CHART_NAME
from trainstack.deploy.engine import DeployError, Engine, Outcome, run
from trainstack.hyperpod import dependencies_chart
from trainstack.kube.client import ApiError, Cluster
from trainstack.plan import find_project
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import control_plane

pytestmark = [pytest.mark.engines(*engines.DEPLOY),
              pytest.mark.xdist_group(name="engines: the Pulumi CLI, HyperPod's dependencies chart")]

SWITCHES_OFF = dependencies_chart.turned_off(training_operator=True, mpi_operator=False)
STAND_IN = "hyperpod-cluster-stand-in"

PROGRAM = '''
import json
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
from trainstack.hyperpod import dependencies_check

config = pulumi.Config("test")
kubeconfig = Path(config.require("kubeconfig")).read_text()
# Where Helm keeps its release records: Secrets (its default) or ConfigMaps (HELM_DRIVER=configmap).
storage = {"helm_release_settings": {"driver": config.get("driver")}} if config.get("driver") else {}
provider = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig=kubeconfig, **storage))
if config.get("chart"):
    # What `helm install` of AWS's command leaves in the cluster: a deployed release of the chart.
    k8s.helm.v3.Release("dependencies", name=config.require("release"), chart=config.require("chart"),
                        namespace="kube-system", values=json.loads(config.require("values")), opts=provider)
else:
    # The HyperPod cluster's place: made only once the check found the chart, with what it found.
    found = dependencies_check.chart_checked(kubeconfig, json.loads(config.require("switchesOff")), "rehearsal")
    k8s.core.v1.ConfigMap("hyperpod", metadata={"name": "STAND_IN", "namespace": "default"}, data={"release": found},
                          opts=provider)
'''.replace("STAND_IN", STAND_IN)


def _chart(directory: Path) -> Path:
    """A chart named as AWS's is, whose defaults turn every component on as AWS's values.yaml does."""
    chart = directory / "HyperPodHelmChart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(dump_yaml({"apiVersion": "v2", "name": HYPERPOD_CHART_NAME,
                                                 "version": "0.1.0"}))
    (chart / "values.yaml").write_text(dump_yaml(nested({c.condition: c.enabled_by_default
                                                            for c in HYPERPOD_CHART})))
    (chart / "templates" / "agent.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: health-monitoring-agent\ndata:\n  on: \"true\"\n")
    return chart


def _project(directory: Path, kubeconfig: Path, chart: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "__main__.py").write_text(PROGRAM)
    (directory / "Pulumi.yaml").write_text("name: hyperpod-check\nruntime: python\nmain: .\n")
    (directory / "Pulumi.hyperpod.yaml").write_text(dump_yaml({"config": {
        "test:kubeconfig": str(kubeconfig), "test:switchesOff": SWITCHES_OFF}}))
    (directory / "Pulumi.chart.yaml").write_text(dump_yaml({"config": {
        "test:kubeconfig": str(kubeconfig), "test:chart": str(chart), "test:release": "hyperpod-dependencies"}}))
    return directory


def _stand_in(cluster: Cluster) -> dict | None:
    try:
        return cluster.get(f"/api/v1/namespaces/default/configmaps/{STAND_IN}")
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def _up(project, engine: Engine, state: Path, plane, seen: dict, stack: str, label: str, **config: str) -> None:
    try:
        seen[label] = run(project, stack, "up", engine=engine, state=state,
                          config={f"test:{k}": v for k, v in config.items()})
    except DeployError as error:
        seen[label] = error
    seen[f"{label}: the stand-in"] = _stand_in(plane.cluster)


@contextlib.contextmanager
def _cluster_with_the_chart(prefix: str) -> Iterator[tuple[Any, Path, Engine, Path]]:
    """A control plane, the project of the two stacks against it with the chart beside it, the engine and its
    state, in a directory removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        directory = Path(scratch)
        with control_plane([], directory=directory / "cluster") as plane:
            project = find_project(_project(directory / "project", plane.kubeconfig, _chart(directory / "charts")))
            yield plane, project, Engine.built(automatic_logs=False), directory / "state"


@functools.cache
def course() -> dict[str, Outcome | DeployError | dict | None]:
    """A cluster's course: the HyperPod cluster asked for with no chart; the chart installed with its training
    operator left on (the chart's default) and asked for again; the switches turned off and asked for again."""
    seen: dict[str, Outcome | DeployError | dict | None] = {}
    with _cluster_with_the_chart("trainstack-hyperpod-chart-") as (plane, project, engine, state):

        def up(stack: str, label: str, **config: str) -> None:
            _up(project, engine, state, plane, seen, stack, label, **config)

        up("hyperpod", "no chart")
        operator_on = {s: False for s in SWITCHES_OFF if s != dependencies_chart.TRAINING_OPERATORS}
        up("chart", "chart installed", values=json.dumps(nested(operator_on)))
        up("hyperpod", "training operator on")
        up("chart", "chart upgraded", values=json.dumps(nested({s: False for s in SWITCHES_OFF})))
        up("hyperpod", "switches off")
    return seen


def test_a_release_helm_keeps_in_config_maps_is_found_as_one_in_secrets():
    seen: dict[str, Outcome | DeployError | dict | None] = {}
    with _cluster_with_the_chart("trainstack-hyperpod-chart-configmaps-") as (plane, project, engine, state):
        _up(project, engine, state, plane, seen, "chart", "chart in config maps", driver="configmap",
            values=json.dumps(nested({s: False for s in SWITCHES_OFF})))
        records = plane.cluster.get("/api/v1/namespaces/kube-system/configmaps", labelSelector="owner=helm")["items"]
        _up(project, engine, state, plane, seen, "hyperpod", "asked for")
    assert isinstance(seen["chart in config maps"], Outcome) and len(records) == 1
    went_on = seen["asked for"]
    assert isinstance(went_on, Outcome) and not went_on.failures
    stand_in = seen["asked for: the stand-in"]
    assert stand_in is not None and stand_in["data"] == {"release": "kube-system/hyperpod-dependencies"}


def test_without_the_chart_the_deploy_stops_before_the_hyperpod_cluster_with_the_install_command():
    stopped = course()["no chart"]
    assert isinstance(stopped, DeployError)
    assert "HyperPod's dependencies chart is not installed in the EKS cluster rehearsal" in str(stopped)
    assert dependencies_chart.install_command(SWITCHES_OFF) in str(stopped)
    assert course()["no chart: the stand-in"] is None


def test_a_release_with_the_charts_training_operator_on_stops_it_with_the_upgrade_that_turns_it_off():
    assert isinstance(course()["chart installed"], Outcome)
    stopped = course()["training operator on"]
    assert isinstance(stopped, DeployError)
    assert "installed in the EKS cluster rehearsal (release hyperpod-dependencies in kube-system)" in str(stopped)
    assert ("helm upgrade hyperpod-dependencies HyperPodHelmChart --namespace kube-system --reuse-values "
            "--set trainingOperators.enabled=false") in str(stopped)
    assert course()["training operator on: the stand-in"] is None


def test_with_the_chart_installed_as_the_command_says_the_deploy_goes_on_and_creates_it():
    assert isinstance(course()["chart upgraded"], Outcome)
    went_on = course()["switches off"]
    assert isinstance(went_on, Outcome) and not went_on.failures
    stand_in = course()["switches off: the stand-in"]
    assert stand_in is not None and stand_in["data"] == {"release": "kube-system/hyperpod-dependencies"}
