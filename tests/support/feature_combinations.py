"""Combinations of what a stack can turn on (issue 64, "a test that combines features"): a shipped stack, with
teams (with members or without), a bring-your-own cluster, a DRA group, a Karpenter pool, a pool spanning several
managed node groups, etcd, HyperPod on EKS, and a minor of EKS's window turned on or set. Each combination is a
stack file, planned offline as `trainstack plan --json` (once per session), and every launcher of the table of
launch kinds (`cli/launch.py`) run on its outputs for every team, through the command line, as a user would.

A feature a shipped stack has already stays on; the others are set as the combination says. The config may refuse
a combination (a ConfigError naming the key and the fix): that is an outcome, not a failure."""

from __future__ import annotations

import copy
import functools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml
from hypothesis import strategies as st
from trainstack.cli.launch import BY_NAME, KINDS
from trainstack.config import ConfigError, validate_stack_config
from trainstack.config.cluster import EKS_VERSIONS

from support import plan_records
from support.cli_run import run_cli
from support.rendered_jobs import SHIPPED_STACKS

BASES = SHIPPED_STACKS
TEAMS = ("none", "with members", "without members")
FEATURES = ("existing cluster", "dra", "karpenter", "span", "etcd", "hyperpod")
ACCOUNT = "arn:aws:iam::123456789012:role"
AMI_RELEASE = "v20260724"
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1"


@dataclass(frozen=True)
class Combination:
    """A shipped stack (``base``) with its teams as ``teams`` says, the ``features`` turned on, at ``minor``."""

    base: str
    teams: str = "with members"
    features: frozenset[str] = field(default_factory=frozenset)
    minor: Optional[str] = None
    """A minor of EKS's window; None keeps the stack's own."""

    def __str__(self) -> str:
        return " + ".join([self.base, f"teams {self.teams}", *sorted(self.features), self.minor or "its minor"])


def combination(base: str, teams: str = "with members", *features: str, minor: Optional[str] = None) -> Combination:
    unknown = set(features) - set(FEATURES)
    assert not unknown, f"no such feature: {unknown}"
    return Combination(base, teams, frozenset(features), minor)


@st.composite
def combinations(draw: st.DrawFn) -> Combination:
    """Any shipped stack, its teams, two or three features turned on (where features meet) and any minor of the
    window."""
    features = draw(st.lists(st.sampled_from(FEATURES), min_size=2, max_size=3, unique=True))
    return Combination(draw(st.sampled_from(BASES)), draw(st.sampled_from(TEAMS)), frozenset(features),
                       draw(st.sampled_from(EKS_VERSIONS)))


# -- the stack file -----------------------------------------------------------------------------------------------
def stack_file(chosen: Combination) -> dict[str, Any]:
    """The combination's stack configuration (``trainstack:`` keys), as a user would write it."""
    config = copy.deepcopy(plan_records.stack_config(chosen.base))
    for feature in FEATURES:  # in this order: a bring-your-own cluster takes over what the others made
        if feature in chosen.features:
            TURN_ON[feature](config)
    _set_teams(config, chosen.teams)
    cluster = config.get("trainstack:existingCluster") or config.get("trainstack:eks")
    if chosen.minor is not None and cluster is not None:  # a Slurm stack has no Kubernetes
        cluster["version"] = chosen.minor
    return config


def _groups(config: dict[str, Any]) -> list[dict[str, Any]]:
    return config.setdefault("trainstack:nodeGroups", [])


def _operators(config: dict[str, Any], **settings: bool) -> None:
    config["trainstack:operators"] = {**config.get("trainstack:operators", {}), **settings}


def _zones(config: dict[str, Any]) -> list[str]:
    network = config["trainstack:network"]
    return network.get("zones") or sorted({s["zone"] for s in network["existingVpc"]["privateSubnets"]})


def _home_zone(config: dict[str, Any]) -> str:
    """Where a new group goes: beside the stack's first group, or its file system, or in its first zone."""
    groups, fsx = _groups(config), config.get("trainstack:fsx")
    return groups[0]["zone"] if groups else fsx["zone"] if fsx else _zones(config)[0]


def _existing_cluster(config: dict[str, Any]) -> None:
    """The stack's cluster made elsewhere: its VPC described, its file system one that exists, nothing made in AWS."""
    if "trainstack:existingCluster" in config:
        return
    eks = config.pop("trainstack:eks", {})
    zones = _zones(config)
    if "existingVpc" not in config["trainstack:network"]:
        config["trainstack:network"] = {"existingVpc": {"vpcId": "vpc-0a1b2c3d4e5f60718", "privateSubnets": [
            {"id": f"subnet-0a1b2c3d4e5f6071{index}", "zone": zone, "cidr": f"10.{20 + index}.0.0/16"}
            for index, zone in enumerate(zones)]}}
    existing: dict[str, Any] = {
        "name": "ml-platform", "endpoint": "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com",
        "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "version": eks.get("version", "1.35")}
    fsx = config.pop("trainstack:fsx", None)
    if fsx is not None:
        existing["fileSystem"] = {
            "id": "fs-0123456789abcdef0", "dnsName": "fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com",
            "mountName": "abcdefgh", "storageCapacityGiB": fsx["storageCapacityGiB"], "throughputMBps": 2400,
            **({"namespace": fsx["namespace"]} if "namespace" in fsx else {})}
    config["trainstack:existingCluster"] = existing
    config["trainstack:checkpointBucket"] = {"enabled": False}
    config["trainstack:observability"] = {**config.get("trainstack:observability", {}), "containerInsights": False}


def _dra(config: dict[str, Any]) -> None:
    """The first group's GPUs and EFA interfaces through DRA: one node kept up, jobs through Kubeflow Trainer."""
    groups = _groups(config)
    if not groups or any(g.get("deviceAllocation") == "dra" for g in groups):
        return
    group = groups[0]
    group.update(deviceAllocation="dra", minSize=max(1, group.get("minSize", 0)),
                 desiredSize=max(1, group.get("desiredSize", 0)))
    _operators(config, trainer=True, trainingOperator=False)


def _karpenter(config: dict[str, Any]) -> None:
    """A single-GPU pool Karpenter launches and gives back (kueue-p5's development pool)."""
    if any(g.get("autoscaler") == "karpenter" for g in _groups(config)):
        return
    _groups(config).append({"name": "notebooks", "instanceType": "g6.xlarge", "maxSize": 8,
                            "zone": _home_zone(config), "autoscaler": "karpenter", "amiVersion": AMI_RELEASE})


def _span(config: dict[str, Any]) -> None:
    """The first group held by two On-Demand Capacity Reservations: one managed node group each (a pool)."""
    groups = [g for g in _groups(config) if g.get("autoscaler") != "karpenter"]
    if not groups or "reservations" in (groups[0].get("capacity") or {}):
        return
    group, half = groups[0], max(1, groups[0]["maxSize"] // 2)
    group["capacity"] = {"type": "reservation", "zone": group["zone"], "reservations": [
        {"reservationId": "cr-0aaaaaaaaaaaaaaa0", "instanceCount": half},
        {"reservationId": "cr-0aaaaaaaaaaaaaaa1", "instanceCount": max(1, group["maxSize"] - half)}]}


def _etcd(config: dict[str, Any]) -> None:
    _operators(config, etcd=True)


def _hyperpod(config: dict[str, Any]) -> None:
    """Two ml.p5.48xlarge joining the stack's EKS cluster as nodes (hyperpod-eks's workers)."""
    if "trainstack:hyperpod" in config:
        return
    config["trainstack:hyperpod"] = {"orchestrator": "eks", "clusterName": "ml-cluster", "trainingOperator": True,
                                     "workers": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 2}]}


TURN_ON = {"existing cluster": _existing_cluster, "dra": _dra, "karpenter": _karpenter, "span": _span,
           "etcd": _etcd, "hyperpod": _hyperpod}


def _set_teams(config: dict[str, Any], teams: str) -> None:
    """No teams; the stack's own (or two added: the first in the FSx claim's namespace, as kueue-p5's llm is, with
    the FSx checkpoint export in its directory); or those teams with no members and no viewers."""
    if teams == "none":
        config.pop("trainstack:scheduling", None)
        return
    if "trainstack:scheduling" not in config:
        _operators(config, kueue=True)
        groups = _groups(config)
        fsx = config.get("trainstack:fsx") or config.get("trainstack:existingCluster", {}).get("fileSystem") or {}
        config["trainstack:scheduling"] = {"teams": [
            {"name": "alpha", "namespace": fsx.get("namespace", "alpha"),
             "guaranteedNodes": {groups[0]["name"]: 1} if groups else {}, "members": [f"{ACCOUNT}/alpha"]},
            {"name": "beta", "namespace": "beta", "members": [f"{ACCOUNT}/beta"]}],
            "viewers": [f"{ACCOUNT}/oncall"]}
        checkpoints = (config.get("trainstack:fsx") or {}).get("checkpoints")
        if checkpoints is not None:  # as the config's refusal says: inside a team's directory
            checkpoints.setdefault("path", "/teams/alpha/checkpoints")
    if teams == "without members":
        scheduling = config["trainstack:scheduling"]
        for team in scheduling["teams"]:
            team["members"] = []
        scheduling.pop("viewers", None)


def refusal(chosen: Combination) -> Optional[ConfigError]:
    """The config's refusal of the combination; None where it is a stack trainstack plans."""
    try:
        validate_stack_config({key.split(":", 1)[1]: value for key, value in stack_file(chosen).items()})
    except ConfigError as error:
        return error
    return None


@functools.cache
def planned(chosen: Combination) -> dict[str, Any]:
    """The combination's plan record, as `trainstack plan --json` writes it (planned once per session)."""
    with tempfile.TemporaryDirectory() as directory:
        return plan_records.record(Path(directory), chosen.base, config=stack_file(chosen))


# -- every launcher, for every team ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Launch:
    """One `trainstack launch` on the combination's outputs, and what came of it."""

    kind: str
    group: str
    team: Optional[str]
    """The ``--team`` given (None: none given)."""
    rendezvous: Optional[str]
    code: int
    documents: tuple[dict[str, Any], ...]
    """What it printed: the job last, after what a DRA job applies first (empty for a refusal or an sbatch script)."""
    said: str

    @property
    def job(self) -> Optional[dict[str, Any]]:
        return self.documents[-1] if self.documents else None

    def __str__(self) -> str:
        return (f"launch {self.kind} --group {self.group}" + (f" --team {self.team}" if self.team else "")
                + (f" --rendezvous {self.rendezvous}" if self.rendezvous else ""))


def _argv(kind: str, outputs: Path, group: str, size: int, gpus: bool, team: Optional[str],
          rendezvous: Optional[str]) -> list[str]:
    entry = BY_NAME[kind]
    argv = ["launch", kind, "--outputs", str(outputs), "--group", group, "--nodes", str(min(2, size)),
            "--name", "combined"]
    if entry.image == "required" or (entry.image == "optional" and gpus):
        argv += ["--image", IMAGE]
    if team is not None:
        argv += ["--team", team]
    if rendezvous is not None:
        argv += ["--rendezvous", rendezvous] + (["--min-nodes", "1"] if entry.restarts else [])
    return argv + (["--", "torchrun", "train.py"] if entry.command else [])


@functools.cache
def launches(chosen: Combination) -> tuple[Launch, ...]:
    """Every launch kind on every group of the combination (its EKS groups and HyperPod's), for each of its teams
    and for none named, on two nodes (one where the group has one); the kinds that choose a rendezvous, once more
    over etcd."""
    outputs = planned(chosen)["outputs"]["trainstack"]
    groups = {name: (g["maxNodes"], g["acceleratorKind"] == "nvidia-gpu")
              for name, g in outputs["acceleratedGroups"].items()}
    groups.update({g["name"]: (g["count"], True) for g in (outputs.get("hyperpod") or {}).get("instanceGroups") or []})
    teams = [None, *((outputs.get("scheduling") or {}).get("queues") or {})]
    found = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "outputs.json"
        path.write_text(json.dumps({"trainstack": outputs}))
        for kind in KINDS:
            for group, (size, gpus) in groups.items():
                for team in teams if kind.queued else [None]:
                    for rendezvous in (None, "etcd") if "rendezvous" in kind.options else (None,):
                        code, out, err = run_cli(_argv(kind.name, path, group, size, gpus, team, rendezvous))
                        documents = tuple(yaml.safe_load_all(out)) if code == 0 and kind.image != "none" else ()
                        found.append(Launch(kind.name, group, team, rendezvous, code, documents, err))
    return tuple(found)


# -- what the record holds -----------------------------------------------------------------------------------------
def objects(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every Kubernetes object the record holds: a ConfigGroup's objects, and each resource that is one."""
    found = []
    for resource in document["resources"]:
        inputs = resource.get("inputs") or {}
        if resource["type"] == "kubernetes:yaml/v2:ConfigGroup":
            found += [item for item in inputs.get("objs") or [] if isinstance(item, dict)]
        elif "apiVersion" in inputs and "kind" in inputs:
            found.append(inputs)
    return found


def namespace_labels(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Each namespace the record makes -> its labels, with the name label the API server adds to every namespace."""
    return {o["metadata"]["name"]: {**(o["metadata"].get("labels") or {}),
                                    "kubernetes.io/metadata.name": o["metadata"]["name"]}
            for o in objects(document) if o["kind"] == "Namespace"}


def of_kind(document: dict[str, Any], kind: str, namespace: Optional[str] = None) -> list[dict[str, Any]]:
    return [o for o in objects(document)
            if o["kind"] == kind and (namespace is None or o["metadata"].get("namespace") == namespace)]


def resources(document: dict[str, Any], token: str) -> list[dict[str, Any]]:
    return [r for r in document["resources"] if r["type"] == token]


def kueue_configuration(document: dict[str, Any]) -> Optional[dict[str, Any]]:
    """Kueue's manager Configuration as its Helm release installs it; None where the record installs no Kueue."""
    release = next((r for r in resources(document, "kubernetes:helm.sh/v3:Release")
                    if r["inputs"].get("chart") == "kueue" or r["name"].endswith("-kueue")), None)
    if release is None:
        return None
    return yaml.safe_load(release["inputs"]["values"]["managerConfig"]["controllerManagerConfigYaml"])
