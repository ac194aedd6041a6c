"""ExistingCluster, as planned for the shipped existing-cluster stack byo-p5: the provider reaches the cluster
through the kubeconfig ``aws eks update-kubeconfig`` would write (or one context of a given file, the others'
credentials left out), the device plugins serve the described groups' devices under their taints, and nothing
waits for nodes that are already there."""

import json
from pathlib import Path

import pytest
import yaml
from trainstack.cluster.existing import kubeconfig_of
from trainstack.config import ConfigError
from trainstack.config.existing_cluster import ExistingClusterConfig
from trainstack.plan import SECRET_MARK, find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])
RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def byo():
    return run_plan(PROJECT, "byo-p5")


def test_the_kubeconfig_is_the_one_update_kubeconfig_writes_with_eks_get_token():
    settings = ExistingClusterConfig(name="ml-platform-prod", endpoint="https://example.eks.amazonaws.com",
                                     certificate_authority="Q0E=")
    document = json.loads(kubeconfig_of(settings, "us-east-1"))
    assert document["clusters"][0]["cluster"] == {"server": "https://example.eks.amazonaws.com",
                                                  "certificate-authority-data": "Q0E="}
    assert document["users"][0]["user"]["exec"]["args"] == [
        "--region", "us-east-1", "eks", "get-token", "--cluster-name", "ml-platform-prod", "--output", "json"]


def test_a_kubeconfig_file_gives_its_chosen_context_alone(tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({
        "current-context": "dev",
        "clusters": [{"name": "prod", "cluster": {"server": "https://prod"}},
                     {"name": "dev", "cluster": {"server": "https://dev"}}],
        "users": [{"name": "prod-admin", "user": {"token": "prod-token"}},
                  {"name": "dev-admin", "user": {"token": "dev-token"}}],
        "contexts": [{"name": "prod", "context": {"cluster": "prod", "user": "prod-admin", "namespace": "ml"}},
                     {"name": "dev", "context": {"cluster": "dev", "user": "dev-admin"}}]}))
    document = json.loads(kubeconfig_of(ExistingClusterConfig(name="p", kubeconfig=str(path), context="prod"), "r"))
    assert document["clusters"] == [{"name": "prod", "cluster": {"server": "https://prod"}}]
    assert document["users"] == [{"name": "prod", "user": {"token": "prod-token"}}]
    assert document["contexts"][0]["context"]["namespace"] == "ml"
    assert "dev-token" not in json.dumps(document)


def test_a_missing_context_or_file_is_an_error_naming_the_key(tmp_path):
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({"contexts": [{"name": "dev", "context": {}}]}))
    with pytest.raises(ConfigError) as missing:
        kubeconfig_of(ExistingClusterConfig(name="p", kubeconfig=str(path), context="prod"), "r")
    assert "has no context 'prod' (it has: dev)" in str(missing.value)
    with pytest.raises(ConfigError) as unreadable:
        kubeconfig_of(ExistingClusterConfig(name="p", kubeconfig=str(tmp_path / "none")), "r")
    assert "existingCluster.kubeconfig" in str(unreadable.value)


def test_the_provider_kubeconfig_is_a_secret(byo):
    provider = byo.get("pulumi:providers:kubernetes", "byo-p5-eks-k8s")
    assert provider.inputs["kubeconfig"] == SECRET_MARK


def test_device_plugins_serve_the_described_groups_and_wait_for_nothing(byo):
    releases = {r.inputs["chart"]: r for r in byo.resources if r.type == RELEASE}
    nvidia, efa = releases["nvidia-device-plugin"], releases["aws-efa-k8s-device-plugin"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in nvidia.inputs["values"][
        "tolerations"]
    assert efa.inputs["values"]["image"]["repository"].startswith("602401143452.dkr.ecr.us-east-1.amazonaws.com")
    assert nvidia.options.depends_on == [] and efa.options.depends_on == []
