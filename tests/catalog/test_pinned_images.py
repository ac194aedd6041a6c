"""Every image trainstack pins exists at its tag.

What is pinned is found in the code (support/image_pins.py: the add-on table's charts and operator manifests, and
every image reference written in components/), never listed by hand. Each pin is one of two kinds:

* ``READ``: its tag is read here, from the source that publishes it: the Go module proxy serves the release tags of
  the controllers trainstack also builds from source (engines/*/go.mod), Kubernetes and etcd, and those modules hold
  the charts and manifests that name the image (support/go_modules.py; the local module cache first).
* ``LISTED``: neither its registry nor a module of its source is reachable from here: the row names the images and
  the source (file @ tag or commit) that names their tags, and holds that version only, so a new version is read
  again before it is pinned.

A pin of neither kind fails, and so does a tag the proxy does not serve. Network: only for what the module cache
lacks (``go list -m``: a few hundred bytes a version; ``go mod download``: the zips of the modules whose files are
read, about 30 MB and 5 s on an empty cache, kept there for the engines' builds, which use the same modules); a proxy
that cannot be asked skips those checks, with its reason. The shipped stacks' plans take most of the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from support import image_pins, rendered_jobs
from support.go_modules import ModuleCache, NotServed, Unreachable
from support.image_pins import REGIONAL_ECR, Pin
from trainstack.catalog import addons


@dataclass(frozen=True)
class Says:
    """Some mapping of the YAML file ``file`` (any document, any depth) has these fields. ``{version}`` is the pin's
    version, ``{bare}`` the same without a leading ``v``."""

    file: str
    fields: Mapping[str, str]


@dataclass(frozen=True)
class At:
    """A Go module at a version (a template, as in ``Says``), and what its files say there."""

    module: str
    version: str
    says: tuple[Says, ...] = ()


@dataclass(frozen=True)
class Read:
    images: tuple[str, ...]
    """The images the pin runs (templates, as in ``Says``)."""
    at: tuple[At, ...]
    because: str
    """Why the image's tag follows from what is read: the upstream file that makes it so."""


@dataclass(frozen=True)
class Listed:
    images: tuple[str, ...]
    source: str
    """Where the tags were read, and why they cannot be read from here."""


_K8S_IMAGES = ("kubernetes/kubernetes hack/lib/golang.sh (kube::golang::server_image_targets, read at v1.35.4): "
               "each release builds the kube-scheduler and kubectl images, served by registry.k8s.io at the "
               "release's tag")

READ: dict[str, Read] = {
    "chart oci://registry.k8s.io/kueue/charts/kueue": Read(
        ("registry.k8s.io/kueue/kueue:v{bare}",),
        (At("sigs.k8s.io/kueue", "v{bare}", (
            Says("charts/kueue/Chart.yaml", {"name": "kueue", "version": "{bare}", "appVersion": "v{bare}"}),)),),
        "kubernetes-sigs/kueue hack/helm-chart-package.sh@v0.19.2: a release tag's chart is that version and runs "
        "registry.k8s.io/kueue/kueue at that tag"),
    "chart oci://ghcr.io/kubeflow/charts/kubeflow-trainer": Read(
        ("ghcr.io/kubeflow/trainer/trainer-controller-manager:v{bare}", "registry.k8s.io/jobset/jobset:v0.12.0"),
        (At("github.com/kubeflow/trainer/v2", "v{bare}", (
            Says("charts/kubeflow-trainer/Chart.yaml", {"name": "kubeflow-trainer", "version": "{bare}"}),
            Says("charts/kubeflow-trainer/Chart.yaml", {"name": "jobset", "version": "0.12.0"}))),
         At("sigs.k8s.io/jobset", "v0.12.0", (
             Says("charts/jobset/Chart.yaml", {"name": "jobset", "version": "0.12.0"}),))),
        "kubeflow/trainer charts/kubeflow-trainer/templates/_helpers.tpl@v2.3.0 (trainer.defaultImageTag: v and the "
        "chart's version); its jobset dependency (jobset.install, which addons/trainer.py sets) is "
        "kubernetes-sigs/jobset's chart, whose hack/helm-chart-package.sh@v0.12.0 runs registry.k8s.io/jobset/jobset "
        "at the release tag"),
    "chart oci://public.ecr.aws/karpenter/karpenter": Read(
        ("public.ecr.aws/karpenter/controller:{bare}",),
        (At("github.com/aws/karpenter-provider-aws", "v{bare}"),),
        "aws/karpenter-provider-aws hack/release/release.sh and common.sh@v1.14.1: a release tag publishes the chart "
        "and the controller image at the tag's version (charts/karpenter/Chart.yaml at the tag still reads 1.13.0; "
        "the release rewrites it)"),
    "chart oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu": Read(
        ("registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v{bare}",),
        (At("sigs.k8s.io/dra-driver-nvidia-gpu", "v{bare}", (
            Says("deployments/helm/dra-driver-nvidia-gpu/Chart.yaml",
                 {"name": "dra-driver-nvidia-gpu", "version": "{bare}", "appVersion": "{bare}"}),
            Says("deployments/helm/dra-driver-nvidia-gpu/values.yaml",
                 {"repository": "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu"}))),),
        "kubernetes-sigs/dra-driver-nvidia-gpu deployments/helm/dra-driver-nvidia-gpu/values.yaml@v0.4.1: an empty "
        "image.tag is v and the chart's appVersion"),
    "manifest kustomize:mpi-operator": Read(
        ("mpioperator/mpi-operator:{bare}",),
        (At("github.com/kubeflow/mpi-operator", "{version}", (
            Says("deploy/v2beta1/mpi-operator.yaml", {"image": "mpioperator/mpi-operator:{bare}"}),)),),
        "the release manifest addons/kustomize/mpi-operator installs names the image"),
    "manifest kustomize:training-operator": Read(
        ("kubeflow/training-operator:v1-04f9f13",),
        (At("github.com/kubeflow/training-operator", "{version}", (
            Says("manifests/overlays/standalone/kustomization.yaml",
                 {"name": "kubeflow/training-operator", "newTag": "v1-04f9f13"}),)),),
        "the release's overlay addons/kustomize/training-operator builds on sets the image's tag"),
    "image registry.k8s.io/kube-scheduler": Read(
        ("registry.k8s.io/kube-scheduler:{version}",), (At("k8s.io/kubernetes", "{version}"),), _K8S_IMAGES),
    "image registry.k8s.io/kubectl": Read(
        ("registry.k8s.io/kubectl:{version}",), (At("k8s.io/kubernetes", "{version}"),), _K8S_IMAGES),
    "image quay.io/coreos/etcd": Read(
        ("quay.io/coreos/etcd:{version}",), (At("go.etcd.io/etcd/v3", "{version}"),),
        "etcd-io/etcd scripts/release.sh@v3.5.33 pushes each release to quay.io/coreos/etcd at its tag"),
    "image registry.k8s.io/e2e-test-images/busybox": Read(
        ("registry.k8s.io/e2e-test-images/busybox:{version}",),
        (At("k8s.io/kubernetes", "v1.35.4", (
            Says("test/e2e/dra/test-driver/deploy/example/pod-shared.yaml",
                 {"image": "registry.k8s.io/e2e-test-images/busybox:{version}"}),)),),
        "Kubernetes' own manifests at the release the stack's kubectl pin is read at run that busybox tag from "
        "registry.k8s.io (kubernetes/kubernetes test/e2e/dra/test-driver/deploy/example/pod-shared.yaml@v1.35.4); "
        "storage/lustre_directories.py needs only a shell and mkdir"),
    "image pytorch/pytorch": Read(
        ("pytorch/pytorch:{version}",),
        (At("github.com/kubeflow/trainer/v2", f"v{addons.TRAINER.version}", (
            Says("manifests/base/runtimes/torch_distributed.yaml", {"image": "pytorch/pytorch:{version}"}),)),),
        "trainstack's torch runtime runs the image of Trainer's own torch runtime at the pinned Trainer release "
        "(catalog/torch_runtime.py); Docker Hub is not reachable here"),
}
"""Pins whose tags are read here, by what they pin (any version)."""

LISTED: dict[tuple[str, str], Listed] = {
    ("chart nvidia-device-plugin", "0.20.0"): Listed(
        ("nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "registry.k8s.io/nfd/node-feature-discovery:v0.19.0"),
        "NVIDIA/k8s-device-plugin tag v0.20.0 (1b826acc): deployments/helm/nvidia-device-plugin/Chart.yaml appVersion "
        "0.20.0 and templates/_helpers.tpl (fullimage: v and appVersion; GPU Feature Discovery runs the same image); "
        "its dependency node-feature-discovery 0.19.0 (with gfd.enabled only) runs the image "
        "kubernetes-sigs/node-feature-discovery deployment/helm/node-feature-discovery/values.yaml@v0.19.0 names, at "
        "appVersion v0.19.0. The Go module proxy reached here does not serve github.com/NVIDIA/k8s-device-plugin"),
    ("chart aws-efa-k8s-device-plugin", "v0.5.30"): Listed(
        (f"{REGIONAL_ECR}/eks/aws-efa-k8s-device-plugin:v0.5.20",),
        "aws/eks-charts@5239609 stable/aws-efa-k8s-device-plugin/Chart.yaml (version v0.5.30, appVersion v0.5.20) "
        "and values.yaml (image.tag v0.5.20), from the region's Amazon EKS registry (addons/device_plugins.py); "
        "aws/eks-charts is no Go module and ECR is not reachable here"),
    ("chart aws-dranet", "1.0.0"): Listed(
        (f"{REGIONAL_ECR}/eks/dranet:v1.2.0-eksbuild.2",),
        "aws/eks-charts@c043cef stable/aws-dranet/Chart.yaml (version 1.0.0, appVersion v1.2.0-eksbuild.2) and "
        "values.yaml (image.tag v1.2.0-eksbuild.2), from the region's Amazon EKS registry (addons/dra_drivers.py); "
        "aws/eks-charts is no Go module and ECR is not reachable here"),
    ("chart oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0"): Listed(
        ("public.ecr.aws/neuron/neuron-device-plugin:2.31.0.0", "public.ecr.aws/neuron/neuron-scheduler:2.31.0.0",
         "public.ecr.aws/neuron/neuron-dra-driver:1.1.0"),
        "aws-neuron/neuron-helm-charts@b77a6f9 charts/neuron-helm-chart/Chart.yaml (version 1.9.0) and values.yaml "
        "(devicePlugin.image and scheduler.image tag 2.31.0.0, draDriver.image tag 1.1.0; trainstack sets the custom "
        "kube-scheduler's image itself and turns npd off); the chart's repository is no Go module"),
    ("chart dcgm-exporter", "4.8.2"): Listed(
        ("nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless",),
        "NVIDIA/dcgm-exporter tag 4.5.3-4.8.2 (691c927): deployment/Chart.yaml version 4.8.2, values.yaml image.tag "
        "4.5.3-4.8.2-distroless; its tags are not Go module versions"),
    ("chart kube-prometheus-stack", "88.5.3"): Listed(
        ("quay.io/prometheus-operator/prometheus-operator:v0.93.1",),
        "prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3 (ea930baee): "
        "charts/kube-prometheus-stack/Chart.yaml appVersion v0.93.1, the operator's tag where values.yaml sets none "
        "(the chart's other images are its own values.yaml pins at that tag); the repository is no Go module"),
    ("chart cluster-autoscaler", "9.59.0"): Listed(
        ("registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0",),
        "kubernetes/autoscaler tag cluster-autoscaler-chart-9.59.0 (5a0b98e): "
        "cluster-autoscaler/charts/cluster-autoscaler/Chart.yaml appVersion 1.35.0, values.yaml image.tag v1.35.0; "
        "the autoscaler's tags (cluster-autoscaler-1.35.0) are not Go module versions"),
    ("chart cluster-autoscaler", "9.51.0"): Listed(
        ("registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0",),
        "kubernetes/autoscaler tag cluster-autoscaler-chart-9.51.0 (9befb31): charts/cluster-autoscaler/Chart.yaml "
        "appVersion 1.33.0, values.yaml image.tag v1.33.0; the autoscaler's tags are not Go module versions"),
    ("chart cluster-autoscaler", "9.46.6"): Listed(
        ("registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0",),
        "kubernetes/autoscaler tag cluster-autoscaler-chart-9.46.6 (13dba17): charts/cluster-autoscaler/Chart.yaml "
        "appVersion 1.32.0, values.yaml image.tag v1.32.0; the autoscaler's tags are not Go module versions"),
    ("chart cluster-autoscaler", "9.52.0"): Listed(
        ("registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.1",),
        "kubernetes/autoscaler tag cluster-autoscaler-chart-9.52.0 (34cfc53): "
        "cluster-autoscaler/charts/cluster-autoscaler/Chart.yaml appVersion 1.34.1, values.yaml image.tag v1.34.1; "
        "the autoscaler's tags (cluster-autoscaler-1.34.1) are not Go module versions"),
    (f"image {REGIONAL_ECR}/pytorch-training-neuronx", "2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04"): Listed(
        (f"{REGIONAL_ECR}/pytorch-training-neuronx:2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04",),
        "aws/deep-learning-containers@e0ecedea docs/src/data/pytorch-training-neuronx/2.8-neuronx-sdk2.26.1.yml "
        "(tags: 2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04), the data of the DLC guide's available images; from the "
        "region's DLC registry (catalog/image_registries.py); ECR is not reachable here"),
}
"""Pins whose tags cannot be read here, by what they pin and the version their source was read at."""

PINS = image_pins.pinned()
READ_PINS = sorted(pin for pin in PINS if pin.what in READ)


def _fields(pin: Pin) -> dict[str, str]:
    return {"version": pin.version, "bare": pin.version.removeprefix("v")}


def images_of(pin: Pin) -> tuple[str, ...]:
    """The images a pin runs, as its row names them."""
    if pin.what in READ:
        return tuple(image.format(**_fields(pin)) for image in READ[pin.what].images)
    listed = LISTED.get((pin.what, pin.version))
    return listed.images if listed is not None else ()


@pytest.fixture(scope="module")
def module_cache() -> ModuleCache:
    return ModuleCache.here()


def test_every_pin_is_read_here_or_listed_with_its_source():
    neither = [f"{pin} ({pin.where})" for pin in PINS if pin.what not in READ and (pin.what, pin.version) not in LISTED]
    assert neither == [], (
        "pinned, but neither read here nor listed: add the pin to READ in tests/catalog/test_pinned_images.py where "
        "the Go module proxy serves its source, else to LISTED with the file @ tag that names its image's tag")
    assert [str(pin) for pin in PINS if pin.what in READ and (pin.what, pin.version) in LISTED] == []
    pinned = {(pin.what, pin.version) for pin in PINS}
    assert [f"{what} {version}" for what, version in LISTED if (what, version) not in pinned] == [], (
        "listed, but no longer pinned at that version: read the new version's source and list it again")
    assert [what for what in READ if not any(pin.what == what for pin in PINS)] == []


def test_each_listed_row_names_the_tags_its_source_names():
    for (what, version), row in LISTED.items():
        untold = [image for image in row.images if image.rsplit(":", 1)[1] not in row.source]
        assert untold == [], f"{what} {version}: the source does not name the tags of {untold}"


def _found(text: str, fields: Mapping[str, str]) -> bool:
    def holds(node: Any) -> bool:
        if isinstance(node, dict):
            if all(str(node.get(key)) == value for key, value in fields.items()):
                return True
            return any(holds(value) for value in node.values())
        return isinstance(node, list) and any(holds(item) for item in node)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return any(holds(document) for document in yaml.load_all(text, Loader=loader))


@pytest.mark.parametrize("pin", READ_PINS, ids=str)
def test_a_read_pins_tag_is_published_by_its_source(pin: Pin, module_cache: ModuleCache):
    row = READ[pin.what]
    for at in row.at:
        version = at.version.format(**_fields(pin))
        try:
            module_cache.info(at.module, version)
            for says in at.says:
                expected = {key: value.format(**_fields(pin)) for key, value in says.fields.items()}
                assert _found(module_cache.read(at.module, version, says.file), expected), (
                    f"{pin} ({pin.where}): {at.module}@{version} {says.file} has no {expected}, which {row.because}: "
                    f"the images {list(images_of(pin))} are not what that release runs; read it and fix the pin or "
                    "the row")
        except Unreachable as unreachable:
            pytest.skip(f"the Go module proxy cannot be asked about {at.module}@{version}: {unreachable}")
        except NotServed as not_served:
            said = str(not_served).strip().rstrip(".")
            pytest.fail(f"{pin} ({pin.where}): no image is published at that tag: the Go module proxy serves no "
                        f"{at.module}@{version} ({said}). Fix: pin a released version. Why the proxy decides: "
                        f"{row.because}.", pytrace=False)


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_image_a_shipped_stack_renders_is_a_pin(stack: str):
    """The code scan's pins against what the stack renders: an image with its tag is an image pin; a Helm value that
    names a repository alone (the EFA plugin's, aws-dranet's regional registry) is an image of the release's chart."""
    unpinned = []
    for reference, chart, resource in image_pins.rendered_images(rendered_jobs.planned_record(stack)):
        pin = image_pins.image_pin(reference, resource)
        if pin is not None:
            if pin not in PINS:
                unpinned.append(f"{resource}: {reference}")
        elif chart is None or chart not in PINS or image_pins.regional(reference) not in {
                image.rsplit(":", 1)[0] for image in images_of(chart)}:
            unpinned.append(f"{resource}: {reference} (of {chart})")
    assert unpinned == [], "rendered, but no pin of the code names it (support/image_pins.py says how pins are found)"
