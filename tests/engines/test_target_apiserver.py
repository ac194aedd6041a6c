"""The upgrade check on the newest EKS minor's own API server: the real kube-apiserver v1.36.3, built from source
(engines/kube-apiserver-newest) and run on the etcd of the kubernetes engine, with the operators' CRDs at their
pinned tags. It accepts, by server-side dry-run with strict field validation, what the shipped stacks render, and it
refuses what an upgrade to 1.36 breaks, as the offline table says (tests/upgrade/test_api_check.py). One API server
for the module."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from support.engine_cluster import crd_files
from support.go_modules import ModuleCache
from trainstack.kube.client import Cluster
from trainstack.rehearsal import engines
from trainstack.upgrade import api_check

from tests.upgrade.test_api_check import claim_template, flow_schema, rendered_objects

pytestmark = [pytest.mark.engines(engines.KUBERNETES, engines.KUBE_APISERVER_NEWEST),
              # Its own server, on a worker of its own: nothing here shares the rehearsal's controllers.
              pytest.mark.xdist_group(name="engines: the target API server")]


TRAINER = ("github.com/kubeflow/trainer/v2", "v2.3.0", "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml")
"""The Trainer release of tests/data/crds/trainer-v2.3.0, whose TrainingRuntime CRD (the runtime a TrainJob on a DRA
group brings: launch/claims.py) that folder does not hold: it is read from the module at the tag."""


@pytest.fixture(scope="module")
def target() -> Iterator[Cluster]:
    runtime = yaml.safe_load(ModuleCache.here().read(*TRAINER))
    with api_check.api_server("1.36") as plane:
        api_check.install_crds(plane.cluster, [*(yaml.safe_load(path.read_text()) for path in crd_files()), runtime])
        yield plane.cluster


def test_the_target_api_server_is_kubernetes_v1_36_3(target: Cluster) -> None:
    version = target.get("/version")
    assert (version["gitVersion"], version["major"], version["minor"]) == ("v1.36.3", "1", "36")


@pytest.mark.parametrize("stack", ["b200-dra", "kueue-p5"])
def test_it_accepts_what_a_shipped_stack_renders(target: Cluster, stack: str) -> None:
    """b200-dra's DRA claim templates (resource.k8s.io/v1), TrainingRuntimes and TrainJobs; kueue-p5's namespaces,
    RBAC, queues, volumes and Jobs."""
    objects = rendered_objects(stack)
    assert len(objects) > 10
    assert api_check.dry_run(objects, target) == []


def test_it_refuses_a_v1beta1_claim_template_as_the_table_says(target: Cluster) -> None:
    [served] = api_check.dry_run([claim_template()], target)
    [table] = api_check.static_findings([claim_template()], "1.36")
    assert (served.verdict, served.in_minor, served.replacement) == (table.verdict, table.in_minor,
                                                                     table.replacement) == (
        "not served", "1.36", "resource.k8s.io/v1")
    assert "kube-apiserver v1.36.3" in served.source
    # The same object in v1 is accepted: the refusal is the version's, not the object's.
    assert api_check.dry_run([claim_template("resource.k8s.io/v1")], target) == []


def test_it_has_no_flowcontrol_v1beta3_and_the_table_says_removed(target: Cluster) -> None:
    [served] = api_check.dry_run([flow_schema()], target)
    [table] = api_check.static_findings([flow_schema()], "1.36")
    assert (served.verdict, served.in_minor) == (table.verdict, table.in_minor) == ("removed", "1.32")


def test_every_alpha_and_beta_group_version_the_table_lists_is_off_on_the_server_as_the_table_says(
        target: Cluster) -> None:
    """The table's "not served by default" and "removed" on 1.36, against the group/versions the real server serves
    (GET /apis): every row says it is off on 1.36, and the server serves none of them."""
    served = {v["groupVersion"] for g in target.get("/apis")["groups"] for v in g["versions"]}
    on = {row.group_version for row in api_check.LIFECYCLE if row.served_on((1, 36))}
    off = {row.group_version for row in api_check.LIFECYCLE if not row.served_on((1, 36))}
    assert (on, off & served) == (set(), set())
    assert {"resource.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1", "storage.k8s.io/v1"} <= served


def test_a_custom_resource_without_its_crd_is_reported_not_failed(target: Cluster) -> None:
    domain: dict[str, Any] = {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
                              "metadata": {"name": "train", "namespace": "default"},
                              "spec": {"numNodes": 2, "channel": {"resourceClaimTemplate": {"name": "train-channel"}}}}
    [finding] = api_check.dry_run([domain], target)
    assert (finding.kind, finding.verdict) == ("ComputeDomain", "needs its CRD")


def test_an_object_the_server_refuses_for_its_content_is_reported_with_the_servers_words(target: Cluster) -> None:
    """Strict field validation: the dry-run would catch a field the target minor does not have."""
    template = copy.deepcopy(claim_template("resource.k8s.io/v1"))
    template["spec"]["spec"]["devices"]["requests"][0]["deviceClassName"] = "gpu.nvidia.com"  # where v1beta1 has it
    [finding] = api_check.dry_run([template], target)
    assert finding.verdict == "refused" and 'unknown field "spec.spec.devices.requests[0].deviceClassName"' in (
        finding.source)


def test_a_version_its_crd_deprecates_is_reported_from_the_servers_warning(target: Cluster) -> None:
    """Kueue v0.19.2's CRDs still serve v1beta1 and mark it deprecated. The server's Warning header says so. The offline
    table cannot know this: a CRD's lifecycle is its project's own."""
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "p5"}}
    [finding] = api_check.dry_run([flavor], target)
    assert (finding.verdict, finding.in_minor) == ("deprecated", "1.36")
    assert "This version is deprecated. Use v1beta2 instead." in finding.source
    assert api_check.static_findings([flavor], "1.36") == []
