"""Kueue made real: a flavor per accelerated group with its labels and taints, a Topology over
the EC2 network labels, quotas that add up to exactly the capacity the stack owns, a queue per
team, and waitForPodsReady, every object valid against Kueue's v0.19.2 CRDs."""

import copy
from pathlib import Path

import pytest
import yaml
from support import crds, dra_queues
from support.scratch import plan_config
from trainstack.config import ConfigError
from trainstack.outputs import parse_outputs
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

REPO = Path(__file__).resolve().parents[2]
KUEUE_API = "kueue.x-k8s.io/v1beta2"


def shipped_config(stack="kueue-p5"):
    document = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return {key.split(":", 1)[1]: value for key, value in document.items()}


def plan(config):
    return run_program(lambda: TrainingStack("s", config), project="demo", stack="s")


def kueue_objects(record):
    """The Kueue objects as they will reach the API server (each the provider's resource of its kind)."""
    objects = []
    for resource in record.resources:
        if resource.type.startswith(f"kubernetes:{KUEUE_API}:"):
            objects.append({"apiVersion": KUEUE_API, "kind": resource.type.rsplit(":", 1)[1], **resource.inputs})
    return objects


def of_kind(objects, kind):
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def with_reservation(config, nodes):
    config = copy.deepcopy(config)
    group = config["nodeGroups"][0]
    group["maxSize"] = group["minSize"] = group["desiredSize"] = group["capacity"]["instanceCount"] = nodes
    return config


@pytest.fixture(scope="module")
def shipped():
    return kueue_objects(plan(shipped_config()))


def quota_total(objects, flavor, resource):
    """Nominal quota of ``resource`` in ``flavor``, summed over the cohorts and every ClusterQueue."""
    total = 0
    for item in [*of_kind(objects, "Cohort").values(), *of_kind(objects, "ClusterQueue").values()]:
        for group in item["spec"].get("resourceGroups", []):
            for entry in group["flavors"]:
                if entry["name"] == flavor:
                    total += sum(int(r["nominalQuota"]) for r in entry["resources"] if r["name"] == resource)
    return total


def test_every_kueue_object_validates_against_the_kueue_v0_19_2_crds(shipped):
    kinds = {o["kind"] for o in shipped}
    assert kinds == {"ResourceFlavor", "Topology", "Cohort", "ClusterQueue", "LocalQueue", "WorkloadPriorityClass"}
    for document in shipped:
        crds.validate("kueue-v0.19.2", document)


def test_a_misspelt_field_is_refused_by_the_strict_schema(shipped):
    queue = copy.deepcopy(of_kind(shipped, "ClusterQueue")["llm"])
    queue["spec"]["cohort"] = queue["spec"].pop("cohortName")  # v1beta1's spelling
    with pytest.raises(Exception, match="cohort"):
        crds.validate("kueue-v0.19.2", queue)


@pytest.mark.parametrize("nodes", [16, 12, 10])
def test_the_quotas_add_up_to_the_reserved_nodes_and_follow_the_reservation(nodes):
    objects = shipped_config() if nodes == 16 else with_reservation(shipped_config(), nodes)
    objects = kueue_objects(plan(objects))
    # p5.48xlarge: 8 GPUs and 32 EFA interfaces per node (catalog); 6 + 4 nodes guaranteed to the teams.
    assert quota_total(objects, "p5", "nvidia.com/gpu") == nodes * 8
    assert quota_total(objects, "p5", "vpc.amazonaws.com/efa") == nodes * 32
    cohort = of_kind(objects, "Cohort")["p5-pool"]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {r["name"]: r["nominalQuota"] for r in cohort} == {"nvidia.com/gpu": str((nodes - 10) * 8),
                                                              "vpc.amazonaws.com/efa": str((nodes - 10) * 32)}


def test_each_team_queues_in_its_namespace_into_its_cluster_queue_in_the_shared_cohort(shipped):
    local, cluster = of_kind(shipped, "LocalQueue"), of_kind(shipped, "ClusterQueue")
    assert {n: (q["metadata"]["namespace"], q["spec"]["clusterQueue"]) for n, q in local.items()} == {
        "llm": ("llm", "llm"), "vision": ("vision", "vision")}
    assert {n: q["spec"]["cohortName"] for n, q in cluster.items()} == {"llm": "p5-pool", "vision": "p5-pool"}
    llm = cluster["llm"]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {r["name"]: r["nominalQuota"] for r in llm} == {"nvidia.com/gpu": "48", "vpc.amazonaws.com/efa": "192"}
    assert all("borrowingLimit" not in r for r in llm)


def test_a_team_that_does_not_borrow_is_held_to_its_guarantee():
    config = shipped_config()
    config["scheduling"]["teams"][1]["borrowing"] = False
    vision = of_kind(kueue_objects(plan(config)), "ClusterQueue")["vision"]
    assert {r["borrowingLimit"] for r in vision["spec"]["resourceGroups"][0]["flavors"][0]["resources"]} == {"0"}


def test_the_flavor_carries_the_node_groups_selector_label_and_taints_and_the_topology():
    record = plan(shipped_config())
    flavor = of_kind(kueue_objects(record), "ResourceFlavor")["p5"]["spec"]
    node_group = record.get("aws:eks/nodeGroup:NodeGroup", "s-eks-p5").inputs
    assert flavor["nodeLabels"] == {"trainstack.io/node-group": "p5"}
    assert node_group["labels"]["trainstack.io/node-group"] == "p5"
    assert [(t["key"], t.get("value")) for t in flavor["nodeTaints"]] == [
        (t["key"], t.get("value")) for t in node_group["taints"]]
    assert flavor["topologyName"] == "ec2-network-3-layers"


def test_the_topology_runs_from_the_top_network_layer_to_the_node(shipped):
    levels = [level["nodeLabel"] for level in of_kind(shipped, "Topology")["ec2-network-3-layers"]["spec"]["levels"]]
    assert levels == ["topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
                      "topology.k8s.aws/network-node-layer-3", "kubernetes.io/hostname"]


def test_a_type_ec2_describes_no_topology_for_gets_a_flavor_without_one():
    config = shipped_config()
    config["nodeGroups"][0] = {"name": "p5", "instanceType": "g5.48xlarge", "maxSize": 4, "zone": "us-east-1a"}
    config["scheduling"]["teams"][0]["guaranteedNodes"] = {"p5": 2}
    config["scheduling"]["teams"][1]["guaranteedNodes"] = {"p5": 1}
    objects = kueue_objects(plan(config))
    assert "topologyName" not in of_kind(objects, "ResourceFlavor")["p5"]["spec"]
    assert of_kind(objects, "Topology") == {}
    assert quota_total(objects, "p5", "nvidia.com/gpu") == 4 * 8


def test_the_manager_waits_for_all_pods_and_manages_the_job_kinds_trainstack_launches():
    record = plan(shipped_config())
    release = next(r for r in record.by_type("kubernetes:helm.sh/v3:Release") if "kueue" in r.name)
    configuration = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert configuration["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert configuration["waitForPodsReady"]["timeout"] == "10m"
    assert {"kubeflow.org/pytorchjob", "kubeflow.org/mpijob", "batch/job"} <= set(
        configuration["integrations"]["frameworks"])
    assert configuration["leaderElection"]["leaderElect"] is True  # the chart's defaults are kept


@pytest.mark.parametrize("change, key, words", [
    (lambda c: c["scheduling"]["teams"][0]["guaranteedNodes"].update(p5=13), "trainstack:scheduling.teams",
     "guaranteed 17 nodes of 'p5', which owns 16"),
    (lambda c: c["scheduling"]["teams"][0]["guaranteedNodes"].update(p4=1),
     "trainstack:scheduling.teams[0].guaranteedNodes.p4", "'p4', which is no node group"),
    (lambda c: c["operators"].update(kueue=False), "trainstack:operators.kueue", "Kueue is not installed"),
    (lambda c: c["scheduling"]["teams"][1].update(cohort="other"), "trainstack:scheduling.teams[1].cohort",
     "both hold guarantees on 'p5'"),
    (lambda c: c["scheduling"]["teams"][1].update(namespace="llm"), "trainstack:scheduling.teams[1].namespace",
     "two teams have namespace 'llm'"),
])
def test_bad_scheduling_is_refused_before_any_resource_with_the_key_and_the_fix(change, key, words):
    config = shipped_config()
    change(config)
    with pytest.raises(ConfigError) as error:
        plan(config)
    text = str(error.value)
    assert key in text and words in text and "Fix:" in text


def test_team_namespaces_exist_before_their_queues():
    record = plan(shipped_config())
    namespaces = {r.inputs["metadata"]["name"]: r for r in record.by_type("kubernetes:core/v1:Namespace")}
    # Both hold a claim of the shared FSx, so both are created with the claims, not again for the queues.
    assert {"llm", "vision"} <= set(namespaces)
    assert record.get("kubernetes:core/v1:Namespace", "s-fsx-namespace-vision")
    assert not [r for r in record.by_type("kubernetes:core/v1:Namespace") if r.name.startswith("s-addons-namespace")]
    for team in ("llm", "vision"):
        queue = next(r for r in record.by_type(f"kubernetes:{KUEUE_API}:LocalQueue")
                     if r.inputs["metadata"]["name"] == team)
        assert namespaces[team].urn in queue.dependencies or any(
            namespaces[team].urn in [c.urn for c in record.descendants(d)] for d in queue.dependencies)


def test_a_dra_group_maps_its_device_classes_to_the_quota_resources_the_queues_already_count():
    config = shipped_config()
    p5 = config["nodeGroups"][0]
    p5.update(instanceType="p6-b200.48xlarge", deviceAllocation="dra", zone="us-east-2a",
              capacity={**p5["capacity"], "zone": "us-east-2a"})
    config.update(region="us-east-2", network={"zones": ["us-east-2a", "us-east-2b"]})
    config["fsx"]["zone"] = "us-east-2a"
    config["nodeGroups"][1]["zone"] = "us-east-2a"
    config["nodeGroups"][1]["instanceType"] = "g6.xlarge"
    record = plan(config)
    release = next(r for r in record.by_type("kubernetes:helm.sh/v3:Release") if "kueue" in r.name)
    configuration = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert configuration["resources"]["deviceClassMappings"] == [
        {"name": "nvidia.com/gpu", "deviceClassNames": ["gpu.nvidia.com"]},
        {"name": "vpc.amazonaws.com/efa", "deviceClassNames": ["efa.networking.k8s.aws"]}]
    # The ClusterQueues count the claimed devices under the same names as a device-plugin group's.
    assert quota_total(kueue_objects(record), "p5", "nvidia.com/gpu") == 16 * 8


def test_stacks_on_device_plugins_map_no_device_class():
    record = plan(shipped_config())
    release = next(r for r in record.by_type("kubernetes:helm.sh/v3:Release") if "kueue" in r.name)
    configuration = yaml.safe_load(release.inputs["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert "deviceClassMappings" not in configuration["resources"]


def test_a_dra_groups_flavor_has_no_topology_while_a_device_plugin_group_beside_it_keeps_its_own(tmp_path):
    # support/dra_queues.py: the reserved group "p5" on p6-b200 under DRA, "h100" on the device plugins.
    # Kueue v0.19.2's topology-aware scheduling fits a pod spec's requests, where a DRA pod's devices are not
    # (site/content/en/docs/concepts/dynamic_resource_allocation.md, Limitations): the DRA group is queued by
    # quota alone, its claimed devices still counted.
    planned = plan_config(tmp_path, "s", dra_queues.config())
    objects = kueue_objects(planned)
    flavors = of_kind(objects, "ResourceFlavor")
    assert "topologyName" not in flavors["p5"]["spec"]
    assert flavors["h100"]["spec"]["topologyName"] == "ec2-network-3-layers"
    assert set(of_kind(objects, "Topology")) == {"ec2-network-3-layers"}  # none of 4 layers for the DRA group
    assert quota_total(objects, "p5", "nvidia.com/gpu") == 16 * 8
    # The launchers read the contract: no topology request for the DRA group's jobs.
    assert set(parse_outputs(planned.outputs).scheduling.topology_levels) == {"h100"}
    for document in objects:
        crds.validate("kueue-v0.19.2", document)
