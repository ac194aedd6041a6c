"""The training and MPI operators sized on a large stack, checked on their real release manifests: the transforms
trainstack attaches to their kustomizations give the upstream Deployment (read at the tag the kustomization names,
from the Go module cache) the resources and client-rate flags of config/controller_resources.py, and the real
kube-apiserver accepts the result (server-side dry-run)."""

import pulumi
import pytest
import yaml
from support.go_modules import ModuleCache
from trainstack.addons.operators import mpi_operator_sizing, training_operator_sizing
from trainstack.config.cluster_size import ClusterSize
from trainstack.names import DEPLOYMENT
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)

FRONTIER = ClusterSize(nodes=2054, pods=28932)
MANIFESTS = {
    # kustomization (components/addons/kustomize/...): module, tag, file, namespace, Deployment name
    "training-operator": ("github.com/kubeflow/training-operator", "v1.8.1", "manifests/base/deployment.yaml",
                          "kubeflow"),
    "mpi-operator": ("github.com/kubeflow/mpi-operator", "v0.8.0", "deploy/v2beta1/mpi-operator.yaml", "mpi-operator"),
}


def upstream_deployment(operator: str) -> dict:
    module, tag, file, namespace = MANIFESTS[operator]
    [deployment] = [document for document in yaml.safe_load_all(ModuleCache.here().read(module, tag, file))
                    if document and document["kind"] == "Deployment"]
    deployment["metadata"]["namespace"] = namespace
    return deployment


def transformed(transforms, deployment: dict) -> dict:
    name = f"frontier-addons-x:{deployment['metadata']['namespace']}/{deployment['metadata']['name']}"
    args = pulumi.ResourceTransformArgs(custom=True, type_=DEPLOYMENT, name=name, props=deployment,
                                        opts=pulumi.ResourceOptions())
    results = [transform(args) for transform in transforms]
    [result] = [each for each in results if each is not None]
    return result.props


def container(deployment: dict) -> dict:
    [only] = deployment["spec"]["template"]["spec"]["containers"]
    return only


def test_the_training_operator_gets_its_memory_request_and_the_server_accepts_it(cluster):
    sized = transformed(training_operator_sizing(FRONTIER), upstream_deployment("training-operator"))
    assert container(sized)["resources"] == {"requests": {"cpu": "100m", "memory": "768Mi"},
                                             "limits": {"memory": "768Mi"}}
    assert "args" not in container(sized)
    cluster.create_unless_there({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kubeflow"}})
    accepted = cluster.create(sized, dry_run=True)
    assert container(accepted)["resources"]["requests"]["memory"] == "768Mi"


def test_the_mpi_operator_keeps_its_flags_and_gets_the_client_rate_for_2048_nodes(cluster):
    upstream = upstream_deployment("mpi-operator")
    assert container(upstream)["args"] == ["-alsologtostderr", "--lock-namespace=mpi-operator"]
    sized = transformed(mpi_operator_sizing(FRONTIER), upstream)
    assert container(sized)["args"] == ["-alsologtostderr", "--lock-namespace=mpi-operator",
                                        "--kube-api-qps=69", "--kube-api-burst=138"]
    assert container(upstream)["args"] == ["-alsologtostderr", "--lock-namespace=mpi-operator"], "not mutated"
    cluster.create_unless_there({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "mpi-operator"}})
    accepted = cluster.create(sized, dry_run=True)
    assert container(accepted)["args"][-2:] == ["--kube-api-qps=69", "--kube-api-burst=138"]
    assert container(accepted)["resources"]["limits"] == {"memory": "768Mi"}


def test_another_deployment_is_left_alone():
    other = upstream_deployment("mpi-operator")
    other["metadata"]["name"] = "something-else"
    args = pulumi.ResourceTransformArgs(custom=True, type_=DEPLOYMENT, name="x:mpi-operator/something-else",
                                        props=other, opts=pulumi.ResourceOptions())
    assert all(transform(args) is None for transform in mpi_operator_sizing(FRONTIER))
