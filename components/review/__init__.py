"""Reviewing a change: two plan records of one stack compared, its risks named, reported, gated.

    from trainstack.review import assess, compare, load_record, render_markdown
    diff = compare(load_record(base_path), load_record(head_path))
    findings = assess(diff, approvals=frozenset({urn}))
"""

from .diff import IgnoredChange, InputChange, PlanDiff, PolicyFailure, ResourceChange, compare, flatten
from .finding import Finding
from .records import RecordError, check_record, load_record
from .render import REPORT_VERSION, as_dict, render_json, render_markdown, render_text
from .replacement import Decision, decide
from .risk import ApprovalError, assess, blocking, security
from .sarif import render_sarif

__all__ = [
    "ApprovalError", "Decision", "Finding", "IgnoredChange", "InputChange", "PlanDiff", "PolicyFailure",
    "REPORT_VERSION",
    "RecordError", "ResourceChange", "as_dict", "assess", "blocking", "check_record",
    "compare", "decide", "flatten", "load_record", "render_json", "render_markdown", "render_sarif", "render_text",
    "security",
]
