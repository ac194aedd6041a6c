"""Where in the stack file a finding points: the line of the config key behind a resource.

A resource belongs to the component that rendered it (``GpuNodeGroup p5`` renders the node
group, its launch template and placement group; ``LustreFileSystem`` the file system and
its security group), and each component comes from one key of ``Pulumi.<stack>.yaml``.
The most specific key that exists in the file wins (``nodeGroups[0].efa``, else
``nodeGroups[0]``); a finding with no resource points at the key its rule reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import yaml

from ..catalog import resource_types

Key = str | int
NAMESPACE = "trainstack:"

# The setting a rule reads, under its component's key (a changed input's: its row in catalog/resource_types.py).
RULE_LEAVES = {
    "efa-security-group-self-rules": "efa", "efa-layout-matches-catalog": "efa",
    "accelerated-groups-single-zone": "zone", "capacity-block-market-type": "capacity",
    "dev-groups-scale-to-zero": "minSize", "ebs-encrypted": "rootVolume", "fsx-zone-and-ports": "zone",
    "storage-protected-in-production": "protect", "checkpoint-bucket-versioning": "enabled",
    "eks-endpoint-private-in-production": "endpointAccess", "eks-secrets-encrypted": "version",
}
STACK_WIDE_RULES = {"hourly-cost-ceiling": ("cost", "maxHourlyUsd"), "required-tags": ("tags",)}
"""Rules about the whole stack: the stack file key (and setting) their findings point at."""


def config_keys(record: dict[str, Any], config: dict[str, Any], urn: Optional[str], rule: Optional[str] = None,
                input_path: Optional[str] = None) -> list[list[Key]]:
    """Candidate config paths for a finding, most specific first (without the ``config`` root)."""
    if urn is None:
        wide = STACK_WIDE_RULES.get(rule or "")
        return [[NAMESPACE + wide[0], *wide[1:]], [NAMESPACE + wide[0]]] if wide else []
    by_urn = {r["urn"]: r for r in record["resources"]}
    resource = by_urn.get(urn)
    component, key = None, None
    while resource is not None:
        key = _config_key(resource["type"])
        if key:
            component = resource
            break
        resource = by_urn.get(resource.get("parent") or "")
    if component is None or key is None:
        return [[f"{NAMESPACE}profile"]]
    root: list[Key] = [NAMESPACE + key]
    if key == "nodeGroups":
        index = _node_group_index(config, component["name"])
        if index is None:
            return [root]
        root = [*root, index]
    leaves: list[str] = []
    target = resource_types.find(str((by_urn.get(urn) or {}).get("type")))
    leaf = target.config_leaves.get(input_path.split(".")[0].split("[")[0]) if target and input_path else None
    if leaf:
        leaves.append(leaf)
    if rule in RULE_LEAVES:
        leaves.append(RULE_LEAVES[rule or ""])
    return [[*root, leaf] for leaf in leaves] + [root]


def _config_key(type_token: str) -> Optional[str]:
    row = resource_types.find(type_token)
    return row.config_key if row else None


def _node_group_index(config: dict[str, Any], component_name: str) -> Optional[int]:
    """The ``nodeGroups`` entry a node group component renders (its name ends with the group's)."""
    groups = config.get("nodeGroups")
    if not isinstance(groups, list):
        return None
    matches = [(len(g.get("name", "")), i) for i, g in enumerate(groups)
               if isinstance(g, dict) and g.get("name") and component_name.endswith(f"-{g['name']}")]
    return max(matches)[1] if matches else None


def line_of(stack_file: Path, candidates: list[list[Key]]) -> Optional[int]:
    """The 1-based line of the first candidate key present in ``stack_file`` (None if none is, or no file)."""
    try:
        root = yaml.compose(stack_file.read_text())
    except (OSError, yaml.YAMLError):
        return None
    config = _child(root, "config")[1]
    for path in candidates:
        node, line = config, None
        for part in path:
            line, node = _child(node, part)
            if node is None:
                break
        if node is not None and line is not None:
            return line + 1
    return None


def load_config(stack_file: Path) -> dict[str, Any]:
    """The stack's ``trainstack:`` keys (without the namespace), for matching node groups by name."""
    from ..boundary import FileProblem, read_pulumi_yaml

    try:  # read as the engine reads it, as the plan did
        document = read_pulumi_yaml(stack_file, "stack file")
    except FileProblem:
        return {}
    return {k[len(NAMESPACE):]: v for k, v in (document.get("config") or {}).items()
            if isinstance(k, str) and k.startswith(NAMESPACE)}


def _child(node: Optional[yaml.Node], part: Key) -> tuple[Optional[int], Optional[yaml.Node]]:
    """(0-based line of the key or item, its value node) at ``part`` of ``node``; (None, None) if absent."""
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for key, value in node.value:
            if key.value == part:
                return int(key.start_mark.line), value
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        item = node.value[part]
        return int(item.start_mark.line), item
    return None, None
