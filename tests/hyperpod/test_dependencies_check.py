"""HyperPod on EKS reads the EKS cluster for its dependencies chart before the HyperPod cluster exists: no release of
the chart, or one with a controller on that trainstack runs itself, and the HyperPod cluster is not created, with the
command that fixes it. (tests/deploy/test_hyperpod_dependencies.py runs the same check through the real engine, the
real Kubernetes provider and Helm's own release records.)"""

from __future__ import annotations

import contextlib

import pulumi
import pytest
from support.helm_values import nested
from trainstack.catalog.hyperpod_eks import HYPERPOD_CHART_NAME
from trainstack.hyperpod import dependencies_chart, dependencies_check
from trainstack.hyperpod.dependencies_check import Release, problem
from trainstack.plan import run_program

CLUSTER = "aws-native:sagemaker:Cluster"
SWITCHES_OFF = dependencies_chart.turned_off(training_operator=True, mpi_operator=False)
CHART_DEFAULTS = {"trainingOperators": {"enabled": True}, "mpi-operator": {"enabled": True},
                  "nvidia-device-plugin": {"devicePlugin": {"enabled": True}},
                  "aws-efa-k8s-device-plugin": {"devicePlugin": {"enabled": True}},
                  "neuron-device-plugin": {"devicePlugin": {"enabled": True}}}
STACK = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
         "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "operators": {"trainingOperator": True},
         "hyperpod": {"orchestrator": "eks", "clusterName": "ml",
                      "workers": [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2}]}}


def _installed_as_told(name: str = "hyperpod-dependencies") -> Release:
    return Release(name, "kube-system", HYPERPOD_CHART_NAME, CHART_DEFAULTS, nested(dict.fromkeys(SWITCHES_OFF, False)))


def test_no_release_of_the_chart_stops_the_hyperpod_cluster_with_the_install_command():
    other = Release("kueue", "kueue-system", "kueue", {}, {})
    said = problem([other], SWITCHES_OFF, "ml-eks")
    assert said is not None and "not installed in the EKS cluster ml-eks" in said
    assert dependencies_chart.install_command(SWITCHES_OFF) in said and "run pulumi up again" in said


def test_the_chart_installed_as_the_command_says_lets_the_hyperpod_cluster_be_created_whatever_its_release_is_called():
    assert problem([_installed_as_told("from-the-console")], SWITCHES_OFF, "ml-eks") is None


def test_a_switch_left_at_the_charts_default_is_on_and_stops_it_with_the_upgrade_that_turns_it_off():
    release = _installed_as_told()
    values = {**release.values, "trainingOperators": {}}  # the training operator left at its default: on
    said = problem([Release(release.name, release.namespace, release.chart, CHART_DEFAULTS, values)],
                   SWITCHES_OFF, "ml-eks")
    assert said is not None and "with trainingOperators.enabled on" in said
    assert ("helm upgrade hyperpod-dependencies HyperPodHelmChart --namespace kube-system --reuse-values "
            "--set trainingOperators.enabled=false") in said


def test_a_switch_the_release_does_not_record_at_all_counts_as_on():
    """A chart whose values lost a switch: not knowing it is off is not knowing two controllers will not run."""
    release = Release("hyperpod-dependencies", "kube-system", HYPERPOD_CHART_NAME, {}, {})
    said = problem([release], SWITCHES_OFF, "ml-eks")
    assert said is not None and all(switch in said for switch in SWITCHES_OFF)


@pytest.fixture
def online(monkeypatch):
    """The program as a deploy runs it: the check reads a cluster (here one whose releases the test gives)."""
    monkeypatch.setattr(dependencies_check, "offline", lambda: False)
    releases: list[Release] = []

    @contextlib.contextmanager
    def connect(access):
        yield None

    monkeypatch.setattr(dependencies_check, "read_access", lambda *args, **kwargs: None)
    monkeypatch.setattr(dependencies_check, "open_cluster", connect)
    monkeypatch.setattr(dependencies_check, "deployed_releases", lambda cluster: releases)
    return releases


def test_a_deploy_that_finds_no_chart_stops_before_the_hyperpod_cluster_is_registered(online, monkeypatch):
    from trainstack.plan.engine import RecordingMonitor
    from trainstack.training_stack import TrainingStack

    registered: list[str] = []
    register = RecordingMonitor.RegisterResource

    def recording(self, request):
        registered.append(request.type)
        return register(self, request)

    monkeypatch.setattr(RecordingMonitor, "RegisterResource", recording)
    with pytest.raises(pulumi.RunError) as stopped:
        run_program(lambda: TrainingStack("s", STACK), project="demo", stack="s")
    assert "HyperPod's dependencies chart is not installed in the EKS cluster" in str(stopped.value)
    assert "helm install hyperpod-dependencies HyperPodHelmChart" in str(stopped.value)
    assert "eks:index:Cluster" in registered and "aws:iam/role:Role" in registered
    assert CLUSTER not in registered


def test_a_deploy_that_finds_the_chart_creates_the_hyperpod_cluster_attached_to_its_eks_cluster(online):
    from trainstack.training_stack import TrainingStack

    online.append(_installed_as_told())
    plan = run_program(lambda: TrainingStack("s", STACK), project="demo", stack="s")
    cluster = plan.get(CLUSTER, "s-hyperpod").inputs
    assert cluster["orchestrator"] == {"eks": {"clusterArn": "arn:aws:eks:us-east-1:123456789012:cluster/demo-s"}}


def test_a_cluster_that_cannot_be_read_stops_the_hyperpod_cluster_too():
    with pytest.raises(pulumi.RunError) as stopped:
        dependencies_check.check('{"apiVersion": "v1", "kind": "Config"}', SWITCHES_OFF, "ml-eks")
    assert "could not read the EKS cluster ml-eks" in str(stopped.value)
    assert "the HyperPod cluster was not created" in str(stopped.value)
