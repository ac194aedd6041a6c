"""Each broken config is refused before any resource exists: exit code 2, the
path of the bad key, its value and the fix, and no traceback."""

import pytest
from trainstack import cli


def group(config, **changes):
    config["nodeGroups"][0].update(changes)
    return config


def set_key(path, value):
    def mutate(config):
        target = config
        *parents, last = path
        for part in parents:
            target = target.setdefault(part, {}) if isinstance(part, str) else target[part]
        target[last] = value
        return config
    return mutate


def delete(key):
    def mutate(config):
        del config[key]
        return config
    return mutate


def reservation(**overrides):
    capacity = {"type": "reservation", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
                "instanceCount": 2, **overrides}
    return lambda config: group(config, capacity=capacity)


def fsx(**overrides):
    return set_key(("fsx",), {"zone": "us-east-1a", **overrides})


def hyperpod(**overrides):
    base = {"clusterName": "ml", "controller": {"name": "controller", "instanceType": "ml.c5.xlarge", "count": 1},
            "workers": [{"name": "workers", "instanceType": "ml.g5.8xlarge", "count": 2}]}
    base.update(overrides)
    return set_key(("hyperpod",), base)


BROKEN = {
    "mistyped top-level key": (
        lambda c: {**c, "nodegroups": c.pop("nodeGroups")}, "trainstack:nodegroups", "did you mean 'nodeGroups'"),
    "eksctl's silently dropped capacityReservationId": (
        lambda c: group(c, capacityReservationId="cr-0123456789abcdef0"),
        "trainstack:nodeGroups[0].capacityReservationId", "did you mean 'capacity'"),
    "missing profile": (delete("profile"), "trainstack:profile", "add 'profile'"),
    "unknown profile": (set_key(("profile",), "staging"), "trainstack:profile", "'dev' or 'production'"),
    "region that is not one": (set_key(("region",), "us-east"), "trainstack:region", "us-east-1, us-east-2"),
    "instance type typo": (
        lambda c: group(c, instanceType="p5.48xlarg"), "trainstack:nodeGroups[0].instanceType", "p5.48xlarge"),
    "CPU type as accelerated group": (
        lambda c: group(c, instanceType="c5.2xlarge"), "trainstack:nodeGroups[0].instanceType", "eks.systemNodes"),
    "EFA on a type without EFA": (
        lambda c: group(c, instanceType="g5.2xlarge", efa=True), "trainstack:nodeGroups[0].efa", "set efa: false"),
    "maxPods above what p6e-gb200's card 0 can address": (
        lambda c: group(c, instanceType="p6e-gb200.36xlarge", deviceAllocation="dra", minSize=1, desiredSize=1,
                        maxPods=250), "trainstack:nodeGroups[0].maxPods", "set maxPods to at most 100"),
    "p6e-gb200 on device plugins": (
        lambda c: group(c, instanceType="p6e-gb200.36xlarge"), "trainstack:nodeGroups[0].deviceAllocation",
        "set deviceAllocation: dra"),
    "DRA on a Karpenter pool": (
        lambda c: group(c, deviceAllocation="dra", autoscaler="karpenter", minSize=1, desiredSize=1),
        "trainstack:nodeGroups[0].deviceAllocation", "autoscaler: cluster-autoscaler"),
    "DRA group that can scale to zero": (
        lambda c: group(c, deviceAllocation="dra"), "trainstack:nodeGroups[0].minSize", "minSize to at least 1"),
    "DRA on an Inferentia group (the Neuron chart runs its DRA driver on Trainium only)": (
        lambda c: group(c, instanceType="inf2.48xlarge", deviceAllocation="dra", minSize=1, desiredSize=1),
        "trainstack:nodeGroups[0].deviceAllocation", "deviceAllocation: device-plugins on this group"),
    "an unknown device-allocation profile": (
        lambda c: group(c, deviceAllocation="cdi"), "trainstack:nodeGroups[0].deviceAllocation", "dra"),
    "reservation in another zone than the group": (
        reservation(zone="us-east-1b"), "trainstack:nodeGroups[0].capacity.zone", "set zone: us-east-1b"),
    "reservation smaller than maxSize": (
        reservation(instanceCount=1), "trainstack:nodeGroups[0].maxSize", "set maxSize to at most 1"),
    "reservation with neither id nor resource group": (
        reservation(reservationId=None), "trainstack:nodeGroups[0].capacity.reservationId", "reservation id"),
    "reservation without its zone": (
        reservation(zone=None), "trainstack:nodeGroups[0].capacity.zone", "set zone"),
    "capacity block with a placement group": (
        lambda c: group(c, placementGroup=True, capacity={"type": "capacityBlock",
                                                         "reservationId": "cr-0123456789abcdef0",
                                                         "zone": "us-east-1a", "instanceCount": 2,
                                                         "endsAt": "2026-12-01T11:30:00Z"}),
        "trainstack:nodeGroups[0].placementGroup", "placementGroup: false"),
    "capacity block for a type not sold as blocks": (
        lambda c: group(c, instanceType="g6e.48xlarge", capacity={
            "type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2,
            "endsAt": "2026-12-01T11:30:00Z"}),
        "trainstack:nodeGroups[0].capacity.type", "capacity-block type"),
    "reservation id with capacity type none": (
        lambda c: group(c, capacity={"reservationId": "cr-0123456789abcdef0"}),
        "trainstack:nodeGroups[0].capacity.reservationId", "set type: reservation"),
    "minSize above desiredSize": (
        lambda c: group(c, minSize=2, desiredSize=1), "trainstack:nodeGroups[0].desiredSize", "in order"),
    "desiredSize above maxSize": (
        lambda c: group(c, desiredSize=3), "trainstack:nodeGroups[0].desiredSize", "in order"),
    "negative minSize": (lambda c: group(c, minSize=-1), "trainstack:nodeGroups[0].minSize", "at least 0"),
    "maxSize that is not a number": (
        lambda c: group(c, maxSize="two"), "trainstack:nodeGroups[0].maxSize", "a whole number"),
    "node group in a zone without a subnet": (
        lambda c: group(c, zone="us-east-1c"), "trainstack:nodeGroups[0].zone", "add us-east-1c to network.zones"),
    "duplicate node group names": (
        lambda c: {**c, "nodeGroups": c["nodeGroups"] * 2}, "trainstack:nodeGroups[1].name", "its own name"),
    "node groups without EKS": (delete("eks"), "trainstack:nodeGroups", "add an eks block"),
    "zone of another region": (
        set_key(("network", "zones"), ["us-east-1a", "us-west-2b"]), "trainstack:network.zones[1]",
        "zones of us-east-1"),
    "a new VPC in one zone": (
        set_key(("network", "zones"), ["us-east-1a"]), "trainstack:network.zones", "two or more zones"),
    "existing VPC and new-VPC keys together": (
        set_key(("network", "existingVpc"), {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
            {"id": "subnet-0123456789abcdef0", "zone": "us-east-1a", "cidr": "10.0.0.0/18"}]}),
        "trainstack:network.existingVpc", "remove vpcCidr and zones"),
    "existing subnet CIDR with host bits": (
        set_key(("network",), {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
            {"id": "subnet-0123456789abcdef0", "zone": "us-east-1a", "cidr": "10.0.0.1/18"}]}}),
        "trainstack:network.existingVpc.privateSubnets[0].cidr", "host bits zero"),
    "VPC too small for its subnets": (
        set_key(("network", "vpcCidr"), "10.0.0.0/24"), "trainstack:network.vpcCidr", "larger vpcCidr"),
    "explicit private subnets too large for the VPC": (
        lambda c: {**c, "network": {**c["network"], "vpcCidr": "10.0.0.0/20", "privateSubnetPrefixLength": 18}},
        "trainstack:network.privateSubnetPrefixLength", "larger vpcCidr"),
    "maxPods above what the EFA layout leaves on card 0": (
        lambda c: group(c, maxPods=52), "trainstack:nodeGroups[0].maxPods", "at most 51"),
    "system nodes' maxPods above their ENIs": (
        set_key(("eks", "systemNodes"), {"maxPods": 59}), "trainstack:eks.systemNodes.maxPods", "at most 58"),
    "warm ENI target with IP targets": (
        set_key(("eks", "vpcCni"), {"warmEniTarget": 1, "warmIpTarget": 2}), "trainstack:eks.vpcCni.warmEniTarget",
        "keep warmEniTarget alone"),
    "public endpoint in production": (
        lambda c: {**c, "profile": "production", "eks": {**c["eks"], "endpointAccess": "public"}},
        "trainstack:eks.endpointAccess", "run `pulumi up` from inside the VPC"),
    "public endpoint without an allowlist": (
        set_key(("eks", "publicAccessCidrs"), []), "trainstack:eks.publicAccessCidrs", "egress ranges"),
    "the whole internet on the allowlist": (
        set_key(("eks", "publicAccessCidrs"), ["0.0.0.0/0"]), "trainstack:eks.publicAccessCidrs[0]",
        "instead of 0.0.0.0/0"),
    "admin principal that is not an ARN": (
        set_key(("eks", "adminPrincipals"), ["alice"]), "trainstack:eks.adminPrincipals[0]",
        "arn:aws:iam::<12-digit account>:role/<name>"),
    "Kubernetes version EKS no longer offers": (
        set_key(("eks", "version"), "1.29"), "trainstack:eks.version", "1.35"),
    "vpc-cni too old for efa-only interfaces": (
        set_key(("eks", "addonVersions"), {"vpcCni": "v1.18.3-eksbuild.1"}), "trainstack:eks.addonVersions.vpcCni",
        "v1.18.5"),
    "GPU type for system nodes": (
        set_key(("eks", "systemNodes"), {"instanceType": "g5.2xlarge"}), "trainstack:eks.systemNodes.instanceType",
        "CPU type"),
    "FSx capacity off the increments": (
        fsx(storageCapacityGiB=1500), "trainstack:fsx.storageCapacityGiB", "use 1200 or 2400"),
    "FSx throughput tier that does not exist": (
        fsx(perUnitStorageThroughput=300), "trainstack:fsx.perUnitStorageThroughput", "125, 250, 500, 1000"),
    "SCRATCH_2 in production": (
        lambda c: fsx(deploymentType="SCRATCH_2")({**c, "profile": "production", "eks": {}}),
        "trainstack:fsx.deploymentType", "PERSISTENT_2"),
    "FSx in another zone than the GPU group": (
        fsx(zone="us-east-1b"), "trainstack:fsx.zone", "put the file system in us-east-1a"),
    "FSx throughput on SCRATCH_2": (
        fsx(deploymentType="SCRATCH_2", perUnitStorageThroughput=250), "trainstack:fsx.perUnitStorageThroughput",
        "remove perUnitStorageThroughput"),
    "EFA FSx off its capacity step": (
        fsx(efa=True, storageCapacityGiB=2400, perUnitStorageThroughput=250), "trainstack:fsx.storageCapacityGiB",
        "multiple of 19200 GiB"),
    "EFA on SCRATCH_2": (fsx(deploymentType="SCRATCH_2", efa=True), "trainstack:fsx.efa", "PERSISTENT_2"),
    "metadata IOPS off the allowed values": (
        fsx(metadataIops=2000), "trainstack:fsx.metadataIops", "remove metadataIops for AUTOMATIC"),
    "EFA FSx with trn2 clients": (
        lambda c: fsx(efa=True, storageCapacityGiB=19200)(group(c, instanceType="trn2.48xlarge")),
        "trainstack:fsx.efa", "fsx.efa: false"),
    "HyperPod worker type HyperPod does not offer": (
        hyperpod(workers=[{"name": "w", "instanceType": "ml.trn1.2xlarge", "count": 2}]),
        "trainstack:hyperpod.workers[0].instanceType", "ml.trn1.32xlarge"),
    "HyperPod type without the ml. prefix": (
        hyperpod(workers=[{"name": "w", "instanceType": "g5.8xlarge", "count": 2}]),
        "trainstack:hyperpod.workers[0].instanceType", "ml.g5.8xlarge"),
    "Slurm cluster without a controller": (
        hyperpod(controller=None), "trainstack:hyperpod.controller", "add controller"),
    "two worker groups in one partition": (
        hyperpod(workers=[{"name": "a", "instanceType": "ml.g5.8xlarge", "count": 1, "partition": "dev"},
                          {"name": "b", "instanceType": "ml.g5.8xlarge", "count": 1, "partition": "dev"}]),
        "trainstack:hyperpod.workers", "its own partition"),
    "threads per core of 3": (
        hyperpod(workers=[{"name": "w", "instanceType": "ml.g5.8xlarge", "count": 1, "threadsPerCore": 3}]),
        "trainstack:hyperpod.workers[0].threadsPerCore", "use one of 1 or 2"),
    "node label key that is not a Kubernetes name": (
        lambda c: group(c, labels={"bad key!": "llm"}), "trainstack:nodeGroups[0].labels.bad key!",
        "'example.com/team'"),
    "taint key with two slashes": (
        lambda c: group(c, taints=[{"key": "example.com/a/b"}]), "trainstack:nodeGroups[0].taints[0].key",
        "'example.com/team'"),
    "checkpoint given both as a size and as parameters": (
        fsx(checkpoints={"sizeGB": 100, "parametersBillions": 7, "intervalMinutes": 30}),
        "trainstack:fsx.checkpoints.parametersBillions", "give sizeGB"),
    "checkpoint export with the bucket turned off": (
        lambda c: set_key(("checkpointBucket",), {"enabled": False})(
            fsx(checkpoints={"sizeGB": 100, "intervalMinutes": 30})(c)),
        "trainstack:fsx.checkpoints.exportToBucket", "exportToBucket: false"),
    "tag in the reserved aws: namespace": (
        set_key(("tags",), {"aws:owner": "me"}), "trainstack:tags.aws:owner", "rename"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_config_is_refused_with_its_path_value_and_fix(case, valid_config, scratch_project, capsys):
    mutate, path, fix = BROKEN[case]
    project = scratch_project("broken", mutate(valid_config))

    exit_code = cli.main(["plan", "--stack", "broken", "--cwd", project])

    stderr = capsys.readouterr().err
    assert exit_code == 2, stderr
    assert f"  {path}" in stderr, stderr
    assert "Fix: " in stderr and fix in stderr, stderr
    assert "Traceback" not in stderr


EFA_GUIDE, FSX_API = "LustreGuide/efa-file-systems.html", "API_CreateFileSystemLustreConfiguration.html"
# Held out from the shipped stacks: each breaks one rule AWS sets for EFA-enabled FSx for Lustre.
EFA_BROKEN = {
    "EFA at 1000 MB/s/TiB on 2400 GiB (steps of 4800)": (
        fsx(efa=True, storageCapacityGiB=2400, perUnitStorageThroughput=1000), "trainstack:fsx.storageCapacityGiB",
        EFA_GUIDE),
    "EFA on SCRATCH_2": (fsx(deploymentType="SCRATCH_2", efa=True), "trainstack:fsx.efa", EFA_GUIDE),
    "EFA with a throughput tier PERSISTENT_2 lacks": (
        fsx(efa=True, storageCapacityGiB=4800, perUnitStorageThroughput=200),
        "trainstack:fsx.perUnitStorageThroughput", FSX_API),
    "EFA with trn2 HyperPod workers": (
        lambda c: fsx(efa=True, storageCapacityGiB=19200)(hyperpod(workers=[
            {"name": "w", "instanceType": "ml.trn2.48xlarge", "count": 2}])(c)), "trainstack:fsx.efa", EFA_GUIDE),
}


@pytest.mark.parametrize("case", list(EFA_BROKEN))
def test_a_config_breaking_an_fsx_efa_rule_is_refused_with_the_rules_source(case, valid_config, scratch_project,
                                                                            capsys):
    mutate, path, source = EFA_BROKEN[case]
    project = scratch_project("broken", mutate(valid_config))

    assert cli.main(["plan", "--stack", "broken", "--cwd", project]) == 2

    stderr = capsys.readouterr().err
    assert f"  {path}" in stderr and source in stderr and "Fix: " in stderr, stderr


def test_every_problem_in_one_config_is_reported_at_once(valid_config, scratch_project, capsys):
    valid_config["nodeGroups"][0]["instanceType"] = "p5.48xlarg"
    valid_config["eks"]["bogus"] = 1
    project = scratch_project("broken", valid_config)

    assert cli.main(["plan", "--stack", "broken", "--cwd", project]) == 2

    stderr = capsys.readouterr().err
    assert "(2 problems)" in stderr
    assert "trainstack:nodeGroups[0].instanceType = 'p5.48xlarg'" in stderr
    assert "trainstack:eks.bogus = 1" in stderr


def test_config_errors_as_json_name_each_issue(valid_config, scratch_project, capsys):
    import json

    valid_config["nodeGroups"][0]["zone"] = "us-east-1c"
    project = scratch_project("broken", valid_config)

    assert cli.main(["plan", "--stack", "broken", "--cwd", project, "--json"]) == 2

    issues = json.loads(capsys.readouterr().out)["error"]["issues"]
    assert issues == [{"path": "trainstack:nodeGroups[0].zone", "value": "us-east-1c",
                       "message": issues[0]["message"], "fix": issues[0]["fix"]}]
    assert "us-east-1c" in issues[0]["fix"]
