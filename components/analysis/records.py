"""Plan records read back: a saved ``trainstack plan --json`` checked, then typed as a :class:`Plan`; and the
outputs contract read from either a plan record or ``pulumi stack output --json`` (the launchers' input)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..boundary import cut
from ..outputs import OUTPUT_NAME, StackOutputs, parse_outputs
from ..plan import Plan
from ..review import RecordError, check_record
from ..review import load_record as load_document


def load_record(path: Path) -> Plan:
    """The plan record saved in ``path``, checked (``review.check_record``): a RecordError names what is wrong."""
    return Plan.from_dict(load_document(path))


def read_record(document: Any, name: str) -> Plan:
    """A record already read (JSON-decoded), checked and typed; ``name`` says where it came from in errors."""
    return Plan.from_dict(check_record(document, name))


RECORD_KEYS = ("formatVersion", "resources")
"""Keys only a plan record has at its top (a stack's outputs are ``trainstack`` and ``kubeconfig``)."""
OUTPUTS_SHAPES = ("a plan record (`trainstack plan --json > plan.json`, no AWS account needed) or the stack's "
                  "outputs (`pulumi stack output --json > outputs.json`)")


def read_outputs(document: Any, name: str) -> StackOutputs:
    """The outputs contract in ``document`` (JSON-decoded; ``name`` says where it came from in errors).

    Two shapes hold it: a plan record, whose ``outputs`` are what the deployed stack would export (so
    a job can be rendered before anything is deployed), and ``pulumi stack output --json`` (or its
    ``trainstack`` value alone). Which one is told by the keys only a record has at its top; a record
    is checked as every record is (``review.check_record``). Anything else is refused in one line
    naming ``name`` and both shapes (a RecordError, or a ContractError for outputs of another version)."""
    if isinstance(document, dict) and (any(key in document for key in RECORD_KEYS) or set(document) == {"error"}):
        record = read_record(document, name)
        if OUTPUT_NAME not in record.outputs:
            raise RecordError(f"{name}: the plan record has no '{OUTPUT_NAME}' output, so its program is not a "
                              "trainstack TrainingStack; plan a stack of this project (stacks/)")
        return parse_outputs(record.outputs)
    if not isinstance(document, dict) or not (OUTPUT_NAME in document or "contractVersion" in document):
        keys = ", ".join(cut(str(key), 40) for key in list(document)[:5]) if isinstance(document, dict) else ""
        raise RecordError(f"{name} holds neither shape a launcher reads ({f'keys: {keys}' if keys else 'no keys'}); "
                          f"give {OUTPUTS_SHAPES}")
    return parse_outputs(document)


def same_stack(base: Plan, head: Plan) -> None:
    """Refuse to compare records of two different stacks."""
    if (base.stack, base.project) != (head.stack, head.project):
        raise RecordError(f"the records are of different stacks ({cut(base.project + '/' + base.stack)} and "
                          f"{cut(head.project + '/' + head.stack)}): compare a stack with itself")
