"""The analysis of a stack, for programs and for the ``trainstack`` command alike.

    from trainstack.analysis import load_record, plan_stack, render_report, review

    head = plan_stack("dev", project=Path("."))              # planned offline, every section filled
    base = load_record(Path("base.json"))                     # a saved `trainstack plan --json`
    change = review(base, head, approvals=[])                 # the diff, its findings, the gate
    print(change.render("markdown")); print(change.passed)
    html = render_report(head, base)                          # the HTML page (needs Graphviz's dot)

A plan's results are its typed ``plan.sections`` (cost, critical path, IP budget, storage,
policies, controller models, queues), each a :class:`Section`; ``render_json(plan)`` writes
the record ``trainstack plan --json`` prints, and :func:`load_record` reads it back;
:func:`read_outputs` reads the outputs contract from a record or from ``pulumi stack output --json``.
"""

from ..plan import Plan, SavedSection, Section, Sections, render_json, render_text
from ..report import ReportError, render_report
from ..review import ApprovalError, RecordError
from .gate import DIFF_FORMATS, DiffFormat, Review, review
from .planning import PolicyConfig, QueueSummary, failed, plan_stack, stack_config, whole_node_pods
from .policies import JudgedPolicies, judge, judge_again, policy_config, policy_config_file
from .records import load_record, read_outputs, read_record, same_stack

__all__ = [
    "ApprovalError", "DIFF_FORMATS", "DiffFormat", "JudgedPolicies", "Plan", "PolicyConfig", "QueueSummary",
    "RecordError",
    "ReportError", "Review", "SavedSection", "Section", "Sections", "failed", "judge", "judge_again", "load_record",
    "plan_stack", "policy_config", "policy_config_file", "read_outputs", "read_record", "render_json", "render_report",
    "render_text", "review", "same_stack", "stack_config", "whole_node_pods",
]
