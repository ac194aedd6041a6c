"""The two kubectl commands a capacity block's wind-down Job runs (addons/block_end.py), done through the REST
client against the rehearsal's API server as kubectl does them: the rehearsal has no kubectl and its kwok nodes run
no containers, so the test does the Job's steps itself, reading each command from the recorded CronJob."""

from __future__ import annotations

import json
from typing import Any

from trainstack.kube.client import Cluster

KUEUE_VERSION = "kueue.x-k8s.io/v1beta2"


def run(cluster: Cluster, command: list[str]) -> None:
    """One recorded command; anything else is refused, so a changed command fails the test until this follows."""
    match command:
        case ["kubectl", "patch", "clusterqueues.kueue.x-k8s.io", name, "--type=merge", "--patch", body]:
            cluster.patch({"apiVersion": KUEUE_VERSION, "kind": "ClusterQueue", "metadata": {"name": name}},
                          json.loads(body))
        case ["kubectl", "taint", "nodes", "--selector", selector, taint, "--overwrite"]:
            for node in cluster.list("v1", "Node", labelSelector=selector):
                _taint(cluster, node, taint)
        case _:
            raise AssertionError(f"not a wind-down step this rehearsal knows: {command}")


def _taint(cluster: Cluster, node: dict[str, Any], taint: str) -> None:
    """``kubectl taint --overwrite``: the node's taints with this key and effect replaced by the new one."""
    pair, effect = taint.rsplit(":", 1)
    key, value = pair.split("=", 1)
    kept = [t for t in node["spec"].get("taints", []) if (t["key"], t["effect"]) != (key, effect)]
    cluster.patch({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node["metadata"]["name"]}},
                  {"spec": {"taints": [*kept, {"key": key, "value": value, "effect": effect}]}})
