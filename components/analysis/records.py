"""Plan records read back: a saved ``trainstack plan --json`` checked, then typed as a :class:`Plan`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..boundary import cut
from ..plan import Plan
from ..review import RecordError, check_record
from ..review import load_record as load_document


def load_record(path: Path) -> Plan:
    """The plan record saved in ``path``, checked (``review.check_record``): a RecordError names what is wrong."""
    return Plan.from_dict(load_document(path))


def read_record(document: Any, name: str) -> Plan:
    """A record already read (JSON-decoded), checked and typed; ``name`` says where it came from in errors."""
    return Plan.from_dict(check_record(document, name))


def same_stack(base: Plan, head: Plan) -> None:
    """Refuse to compare records of two different stacks."""
    if (base.stack, base.project) != (head.stack, head.project):
        raise RecordError(f"the records are of different stacks ({cut(base.project + '/' + base.stack)} and "
                          f"{cut(head.project + '/' + head.stack)}): compare a stack with itself")
