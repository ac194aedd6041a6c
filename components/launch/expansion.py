"""A command's words as a container receives them. The kubelet expands a container's command and args with the
container's environment (the variables the pod spec sets and those the operators add, such as ``MASTER_ADDR`` or
``PET_NNODES``): ``$(NAME)`` becomes NAME's value where NAME is set, ``$$`` becomes ``$``, and a ``$`` before any other
byte is copied with that byte read as a character of its own, which garbles a non-ASCII character after a ``$``
(kubernetes/kubernetes third_party/forked/golang/expansion/expand.go, ``tryReadVariableName``; its cases in
expand_test.go; Kubernetes documentation, "Define a Command and Arguments for a Container").

A launcher hands the user's words on as written, as the sbatch script does: a word where any of that would apply
gets every ``$`` doubled, which the kubelet reduces back; other words pass through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_EXPANDED = re.compile(r"\$[$(\x80-\U0010ffff]")
"""A ``$`` the kubelet would not copy as written: before ``(``, ``$`` or a non-ASCII character."""


def as_written(words: Sequence[str]) -> list[str]:
    """``words`` for a container's command, each reaching the process unchanged by the kubelet's expansion."""
    return [word.replace("$", "$$") if _EXPANDED.search(word) else word for word in words]
