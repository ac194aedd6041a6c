"""Validate rendered custom resources against their project's published CRDs (tests/data/crds/).

The API server prunes fields a structural schema does not declare, silently: a misspelt
field would vanish, not fail. So the schema is made strict before validating: every object
schema that lists its properties (and does not preserve unknown fields) refuses others.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import jsonschema
import yaml

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"


@functools.cache
def _crds(project: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> the strict openAPIV3Schema of that served version."""
    schemas = {}
    for path in sorted((CRDS / project).glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if version.get("served"):
                schemas[(f"{group}/{version['name']}", kind)] = _strict(version["schema"]["openAPIV3Schema"])
    return schemas


def _strict(schema: Any) -> Any:
    schema = copy.deepcopy(schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if ("properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    # metadata is the API server's ObjectMeta, which CRDs leave open.
    schema.get("properties", {}).get("metadata", {}).pop("additionalProperties", None)
    return schema


def validate(project: str, document: dict[str, Any]) -> None:
    """Raises jsonschema.ValidationError (or KeyError for a kind/version the CRDs do not serve)."""
    schema = _crds(project)[(document["apiVersion"], document["kind"])]
    jsonschema.validate(document, schema, cls=jsonschema.Draft7Validator)
