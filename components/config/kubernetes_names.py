"""Kubernetes syntax of node labels and taints, checked before EKS sees them.

Kubernetes' own rules (apimachinery's ``IsQualifiedName``, ``IsDNS1123Subdomain`` and
``IsValidLabelValue``; the API server applies them to node labels and taints):

* A label key or taint key is a *qualified name*: an optional prefix and ``/``, then a
  name of at most 63 characters made of letters, digits, ``-``, ``_`` and ``.``, that
  begins and ends with a letter or digit.
* The prefix is a *DNS subdomain*: at most 253 characters, lower-case letters, digits,
  ``-`` and ``.``, each dot-separated label beginning and ending with a letter or digit.
* A label value, and a taint value, is empty or a name as above (at most 63 characters).

EKS creates these nodes, and its managed node group API is stricter; where the two
disagree trainstack applies EKS's rule, because that is the one a stack meets at
``pulumi up``. From botocore's EKS model (CreateNodegroup): a label key, a taint key and
a label value each hold 1 to 63 characters *in all*, prefix included (Kubernetes would
allow a 253-character prefix), and a taint value at most 63. EKS also refuses keys
with the prefixes ``kubernetes.io/``, ``k8s.io/`` and ``eks.amazonaws.com/`` ("Label
cannot contain reserved prefixes ...", quoted in eksctl-io/eksctl#4006 and
aws/containers-roadmap#1451: secondary sources); Kubernetes' NodeRestriction admission
likewise keeps kubelets from setting labels under ``kubernetes.io`` and ``k8s.io``.
"""

from __future__ import annotations

import re
from typing import Optional

from .base import ConfigValueError

NAME_MAX = 63
PREFIX_MAX = 253
EKS_MAX = 63
"""EKS's limit on a whole label key, label value or taint key (botocore: labelKey, labelValue, taintKey)."""
RESERVED_PREFIXES = ("kubernetes.io", "k8s.io", "eks.amazonaws.com")

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

KEY_FIX = ("use a key such as 'team' or 'example.com/team': letters, digits, '-', '_' and '.', beginning "
           "and ending with a letter or digit, optionally after a lower-case DNS prefix and '/'; at most "
           f"{EKS_MAX} characters in all.")
VALUE_FIX = ("use letters, digits, '-', '_' and '.', beginning and ending with a letter or digit, at most "
             f"{NAME_MAX} characters.")


def key_problem(key: str) -> Optional[str]:
    """Which rule ``key`` breaks as a node label or taint key, or ``None`` when EKS takes it."""
    if not key:
        return "the key is empty"
    if len(key) > EKS_MAX:
        return f"EKS takes keys of at most {EKS_MAX} characters, prefix included; this one has {len(key)}"
    parts = key.split("/")
    if len(parts) > 2:
        return "a key has at most one '/', between the prefix and the name"
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "the prefix before '/' is empty"
        if len(prefix) > PREFIX_MAX or not _DNS_SUBDOMAIN.fullmatch(prefix):
            return (f"the prefix '{prefix}' is not a DNS subdomain (lower-case letters, digits, '-' and '.', "
                    "each part beginning and ending with a letter or digit)")
        reserved = next((r for r in RESERVED_PREFIXES if prefix == r or prefix.endswith("." + r)), None)
        if reserved is not None:
            return f"the prefix '{prefix}' is in the {reserved} namespace, which EKS and the kubelet reserve"
    if not name:
        return "the name after '/' is empty"
    if len(name) > NAME_MAX:
        return f"the name part has at most {NAME_MAX} characters; this one has {len(name)}"
    if not _NAME.fullmatch(name):
        return (f"the name '{name}' may hold only letters, digits, '-', '_' and '.', and must begin and end "
                "with a letter or digit")
    return None


def value_problem(value: str, *, may_be_empty: bool) -> Optional[str]:
    """Which rule ``value`` breaks as a label value (EKS: never empty) or taint value, or ``None``."""
    if not value:
        return None if may_be_empty else "EKS takes no empty label values"
    if len(value) > NAME_MAX:
        return f"a value has at most {NAME_MAX} characters; this one has {len(value)}"
    if not _NAME.fullmatch(value):
        return ("a value may hold only letters, digits, '-', '_' and '.', and must begin and end with a letter "
                "or digit")
    return None


def check_labels(labels: dict[str, str]) -> None:
    """Refuse the first label whose key or value EKS would refuse; the path names the key."""
    for key, value in labels.items():
        problem = key_problem(key)
        if problem is not None:
            raise ConfigValueError(f"label key '{key}' is not a valid Kubernetes label key: {problem}.",
                                   fix=KEY_FIX, path=(key,), value=key)
        problem = value_problem(value, may_be_empty=False)
        if problem is not None:
            raise ConfigValueError(f"the value of label '{key}' is not a valid Kubernetes label value: {problem}.",
                                   fix=VALUE_FIX, path=(key,), value=value)


def check_taint_key(key: str) -> str:
    problem = key_problem(key)
    if problem is not None:
        raise ConfigValueError(f"taint key '{key}' is not a valid Kubernetes taint key: {problem}.",
                               fix=KEY_FIX, value=key)
    return key


def check_taint_value(value: Optional[str]) -> Optional[str]:
    problem = value_problem(value, may_be_empty=True) if value is not None else None
    if problem is not None:
        raise ConfigValueError(f"taint value '{value}' is not a valid Kubernetes taint value: {problem}.",
                               fix=VALUE_FIX + " Or leave the value out.", value=value)
    return value
