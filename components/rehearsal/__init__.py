"""Rehearse a stack before paying for it: its planned Kubernetes layer and jobs through the real
controllers it installs, on nodes kwok plays (``rehearsal.run``).

    from trainstack.analysis import plan_stack
    from trainstack.rehearsal import rehearse
    result = rehearse(plan_stack("fsdp-p5"))

Imported lazily: the CLI reads ``rehearsal.engines`` for its errors without loading the rest.
"""

from __future__ import annotations

from typing import Any

__all__ = ["JobResult", "Rehearsal", "rehearse"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
