"""The logic that decides a node is short of a device (preflight/devices.py), against the catalog's counts: a node
that shows fewer GPUs, Neuron devices or EFA interfaces than its type has is named with the device; on DRA
groups the devices are counted in the node's current ResourceSlices. Against the real kube-apiserver, and through
`trainstack up`'s wait: tests/engines/test_device_wait.py."""

from trainstack.config import validate_stack_config
from trainstack.config.device_wait import device_needs
from trainstack.names import NODE_GROUP_LABEL
from trainstack.preflight.devices import published_devices, read_group

CONFIG = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
          "eks": {"publicAccessCidrs": ["203.0.113.0/24"], "version": "1.34"},
          "nodeGroups": [{"name": "p5", "instanceType": "p5.48xlarge", "desiredSize": 2, "maxSize": 2,
                          "zone": "us-east-1a"},
                         {"name": "b200", "instanceType": "p6-b200.48xlarge", "minSize": 1, "desiredSize": 1,
                          "maxSize": 2, "zone": "us-east-1a", "deviceAllocation": "dra"}]}
NEEDS = {n.group: n for n in device_needs(validate_stack_config(CONFIG).node_groups)}


def node(name, group, allocatable):
    return {"metadata": {"name": name, "labels": {NODE_GROUP_LABEL: group}}, "status": {"allocatable": allocatable}}


def slice_(node_name, driver, devices, pool="pool", generation=1):
    return {"spec": {"nodeName": node_name, "driver": driver, "pool": {"name": pool, "generation": generation},
                     "devices": [{"name": f"d{i}"} for i in range(devices)]}}


def test_a_node_short_of_an_efa_interface_is_named_with_the_device_and_a_whole_one_is_not():
    whole = node("ip-1", "p5", {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"})
    short = node("ip-2", "p5", {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "31"})
    reading = read_group(NEEDS["p5"], [whole, short, node("other", "b200", {})], [])
    assert [s.said() for s in reading.short] == ["node ip-2 shows 31 of 32 vpc.amazonaws.com/efa"]
    assert set(reading.nodes) == {"ip-1", "ip-2"} and not reading.complete


def test_a_node_whose_device_plugin_advertises_nothing_shows_none():
    reading = read_group(NEEDS["p5"], [node("ip-3", "p5", {"cpu": "192"})], [])
    assert [s.said() for s in reading.short] == ["node ip-3 shows 0 of 8 nvidia.com/gpu",
                                                 "node ip-3 shows 0 of 32 vpc.amazonaws.com/efa"]
    assert reading.problems()[-1] == "p5: 1 of 2 nodes have not joined"


def test_a_dra_node_is_judged_by_its_resource_slices_not_its_allocatable():
    b200 = node("ip-4", "b200", {"nvidia.com/gpu": "8"})  # an extended resource a DRA node does not use
    slices = [slice_("ip-4", "gpu.nvidia.com", 8), slice_("ip-4", "dra.net", 7), slice_("ip-5", "dra.net", 8)]
    reading = read_group(NEEDS["b200"], [b200], slices)
    assert [s.said() for s in reading.short] == ["node ip-4 shows 7 of 8 dra.net"]
    assert read_group(NEEDS["b200"], [b200], [*slices, slice_("ip-4", "dra.net", 1, pool="p2")]).complete


def test_only_a_pools_newest_generation_counts():
    old, new = slice_("n", "gpu.nvidia.com", 8, generation=1), slice_("n", "gpu.nvidia.com", 6, generation=2)
    assert published_devices([old, new]) == {"gpu.nvidia.com": 6}
    # A pool split over two slices of one generation counts both.
    assert published_devices([new, slice_("n", "gpu.nvidia.com", 2, generation=2)]) == {"gpu.nvidia.com": 8}


def test_an_api_server_out_of_reach_is_read_again_until_the_timeout_and_then_named():
    from trainstack.kube.client import Cluster
    from trainstack.preflight.devices import wait_for_devices

    unreachable = Cluster("https://127.0.0.1:9", None, "token")  # the discard port: nothing listens
    result = wait_for_devices(unreachable, list(NEEDS.values()), timeout_seconds=2, poll_seconds=1)
    assert not result.done and result.problems()[0].startswith("the cluster could not be read: ")
    assert result.as_dict()["unread"]


TRN1_DRA = {**CONFIG, "nodeGroups": [{"name": "trn1", "instanceType": "trn1.32xlarge", "minSize": 1, "desiredSize": 1,
                                      "maxSize": 2, "zone": "us-east-1a", "efa": True, "deviceAllocation": "dra"}],
            # MPIJobs claim a DRA Trainium group's devices; the training operator alone is refused there.
            "operators": {"trainingOperator": False, "mpiOperator": True}}


def test_a_dra_trainium_node_is_read_from_the_neuron_dra_drivers_slices():
    [need] = device_needs(validate_stack_config(TRN1_DRA).node_groups)
    assert need.devices == {"neuron.aws.com": 16, "dra.net": 8}
    whole = [slice_("ip-7", "neuron.aws.com", 16), slice_("ip-7", "dra.net", 8)]
    assert read_group(need, [node("ip-7", "trn1", {})], whole).complete


def test_an_ultraserver_node_device_is_not_counted_as_a_neuron_device():
    """On UltraServers the Neuron DRA driver publishes the node itself as one more device (resourceType
    neuron_node); a node with 15 Neuron devices and that one is short of one."""
    piece = slice_("ip-8", "neuron.aws.com", 15)
    piece["spec"]["devices"].append({"name": "node", "attributes": {"resourceType": {"string": "neuron_node"}}})
    piece["spec"]["devices"][0]["attributes"] = {"resourceType": {"string": "neuron_device"}}
    assert published_devices([piece]) == {"neuron.aws.com": 15}
