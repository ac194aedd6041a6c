"""The Kubernetes layer of a shipped stack as a stack of its own: the same stack file turned into an
``existingCluster`` stack, with what its AWS half would have made given as inputs (the VPC's subnets,
the cluster's endpoint, the file system), so that the real Pulumi engine, which has no AWS provider
here, deploys that layer alone (tests/deploy).

What changes, and why: ``eks`` becomes ``existingCluster``; ``network`` becomes the ``existingVpc`` the
stack's zones would have had; ``fsx`` becomes ``existingCluster.fileSystem`` (its capacity, throughput,
claim and namespace kept); what an existing cluster's stack refuses is left out with its reason
(``LEFT_OUT``): the checkpoint bucket, datasets, Container Insights, Karpenter pools and HyperPod.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml
from trainstack.plan import find_project

REPO = Path(__file__).resolve().parents[2]
LEFT_OUT = {
    "checkpointBucket": "an S3 bucket",
    "datasets": "IAM roles and the Mountpoint for S3 add-on",
    "observability.containerInsights": "an EKS add-on and its IAM role",
    "nodeGroups[autoscaler: karpenter]": "Karpenter's IAM roles and interruption queue",
    "hyperpod": "a HyperPod cluster",
}
"""What each shipped stack's AWS half makes that its Kubernetes layer alone cannot ask for."""
LAYERED = ["dev", "nemo-p4de", "fsdp-p5", "kueue-p5", "b200-dra"]
"""The shipped stacks that make an EKS cluster, but: hyperpod (no Kubernetes layer), hyperpod-eks (its accelerated
nodes are HyperPod's, which an existing cluster's stack does not describe) and trn1 (its MPI operator kustomization
reads the operator's manifest from raw.githubusercontent.com, for which no local mirror stands in here)."""


def kubernetes_layer(stack: str) -> dict[str, Any]:
    """The ``trainstack:`` keys of ``stack``'s Kubernetes layer, as an existing-cluster stack."""
    document = yaml.safe_load(find_project(REPO).stack_file(stack).read_text())
    keys = {key.removeprefix("trainstack:"): value for key, value in document["config"].items()}
    zones = keys["network"]["zones"]
    keys["network"] = {"existingVpc": {"vpcId": "vpc-0a1b2c3d4e5f60718", "privateSubnets": [
        {"id": f"subnet-0a1b2c3d4e5f6071{index}", "zone": zone, "cidr": f"10.20.{64 * index}.0/18"}
        for index, zone in enumerate(zones)]}}
    eks = keys.pop("eks")
    existing: dict[str, Any] = {"name": f"trainstack-{stack}",
                                "endpoint": "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com",
                                "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==",
                                **({"version": eks["version"]} if "version" in eks else {})}
    fsx = keys.pop("fsx", None)
    if fsx is not None:
        capacity = fsx.get("storageCapacityGiB", 1200)
        existing["fileSystem"] = {
            "id": "fs-0123456789abcdef0", "dnsName": "fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com",
            "mountName": "abcdefgh", "storageCapacityGiB": capacity,
            "throughputMBps": capacity * fsx.get("perUnitStorageThroughput", 250) // 1024,
            **{key: fsx[key] for key in ("claimName", "namespace", "mountPath") if key in fsx}}
    keys["existingCluster"] = existing
    for key in ("datasets", "hyperpod"):
        keys.pop(key, None)
    keys["checkpointBucket"] = {"enabled": False}
    keys["observability"] = {**keys.get("observability", {}), "containerInsights": False}
    keys["nodeGroups"] = [g for g in keys.get("nodeGroups", []) if g.get("autoscaler") != "karpenter"]
    scheduling = keys.get("scheduling")
    if scheduling is not None:
        # Quotas of a pool left out would name a group the stack no longer has.
        kept = {g["name"] for g in keys["nodeGroups"]}
        for team in scheduling.get("teams", []):
            team["guaranteedNodes"] = {g: n for g, n in team.get("guaranteedNodes", {}).items() if g in kept}
    return keys


def project_of_layers(directory: Path, stacks: list[str]) -> Path:
    """A project in ``directory`` with the trainstack program and ``<stack>-layer`` for each of ``stacks``."""
    (directory / "stacks").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Pulumi.yaml", directory / "Pulumi.yaml")
    shutil.copy(REPO / "stacks" / "__main__.py", directory / "stacks" / "__main__.py")
    for stack in stacks:
        config = {f"trainstack:{key}": value for key, value in kubernetes_layer(stack).items()}
        (directory / "stacks" / f"Pulumi.{stack}-layer.yaml").write_text(yaml.safe_dump({"config": config}))
    return directory
