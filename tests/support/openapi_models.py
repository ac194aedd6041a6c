"""Check a rendered object against the OpenAPI models a published SDK ships.

The Kubeflow training SDK and the Kubernetes client are generated from their
OpenAPI specs: each model lists its fields (``attribute_map``) and their types
(``openapi_types``). Walking a rendered dict through them refuses unknown keys and
wrong types, so a misspelled field fails the test instead of being ignored by the
API server.
"""

import re

import kubeflow.training.models as kubeflow_models
import kubernetes.client.models as k8s_models

PRIMITIVES = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object}


class ModelMismatch(AssertionError):
    pass


def check(value, type_name: str, path: str = "$") -> None:
    if type_name in PRIMITIVES:
        if not isinstance(value, PRIMITIVES[type_name]) or (type_name == "int" and isinstance(value, bool)):
            raise ModelMismatch(f"{path}: expected {type_name}, got {value!r}")
        return
    listed = re.fullmatch(r"list\[(.+)\]", type_name)
    if listed:
        if not isinstance(value, list):
            raise ModelMismatch(f"{path}: expected a list")
        for index, item in enumerate(value):
            check(item, listed.group(1), f"{path}[{index}]")
        return
    mapped = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if mapped:
        if not isinstance(value, dict):
            raise ModelMismatch(f"{path}: expected a mapping")
        for key, item in value.items():
            check(item, mapped.group(1), f"{path}.{key}")
        return
    model = getattr(kubeflow_models, type_name, None) or getattr(k8s_models, type_name, None)
    if model is None:
        raise ModelMismatch(f"{path}: no model {type_name} in the SDKs")
    if not isinstance(value, dict):
        raise ModelMismatch(f"{path}: expected a {type_name} mapping, got {value!r}")
    fields = {json_key: attribute for attribute, json_key in model.attribute_map.items()}
    for key, item in value.items():
        if key not in fields:
            raise ModelMismatch(f"{path}.{key}: {type_name} has no field {key!r}")
        check(item, model.openapi_types[fields[key]], f"{path}.{key}")
