"""The page's words: the summary (with a base record, first of all whether the change may merge),
the policy results, and the changes from the base."""

from __future__ import annotations

from html import escape
from typing import Any, Optional

from ..estimate.totals import total_said
from ..plan import Plan
from ..review import Finding, PlanDiff, blocking, security
from .numbers import agreeing, counted


def summary(plan: Plan, drawn: int, deploy: float, serial: float, cost: dict[str, Any],
            diff: Optional[PlanDiff], findings: list[Finding]) -> str:
    """The figures a reviewer decides on; with a base record, the gate and its blocking findings first
    (the gate of ``trainstack diff``, so the page and the pull request's check say the same)."""
    section = plan.sections.policies
    failures = section.as_dict().get("mandatoryFailures") if section is not None else None
    items = [("Resources", str(drawn)),
             ("Deploy (critical path)", f"about {deploy:.0f} min"), ("Deploy (serial sum)", f"{serial:.0f} min"),
             ("Cost at desired size", total_said(cost, "desired")),
             ("Cost at max size", total_said(cost, "max")),
             ("Mandatory policies", "not evaluated" if failures is None
              else "all pass" if failures == 0 else f"{counted(failures, 'failure')}")]
    figures = "<dl>" + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in items) + "</dl>"
    return f"<section id=\"summary\"><h2>Summary</h2>{_gate(diff, findings)}{figures}</section>"


def _gate(diff: Optional[PlanDiff], findings: list[Finding]) -> str:
    if diff is None:
        return ""
    stops = blocking(findings)
    changes = agreeing(len(diff.changes), "resource", "change") if diff.changes else "no resource changes"
    widening = security(findings)
    # A change that widens a team's access passes the gate but is shown in it, each by name (review/widening.py).
    shown = ("<p><strong>Security: " + agreeing(len(widening), "change", "widen") + " a team's access</strong>; read "
             "each before merging.</p><ul class=\"security\">"
             + "".join(f"<li><strong>{escape(f.title)}</strong>. {escape(f.detail)}</li>" for f in widening)
             + "</ul>") if widening else ""
    if not stops:
        return (f"<div class=\"gate passed\"><p><strong>Safe to merge: the gate passes.</strong> {changes} from "
                f"the base record; no blocking finding.</p>{shown}</div>")
    return (f"<div class=\"gate blocked\"><p><strong>Blocked: {counted(len(stops), 'blocking finding')}.</strong> "
            f"{changes} from the base record.</p><ul>"
            + "".join(f"<li><strong>{escape(f.title)}</strong>. {escape(f.detail)}</li>" for f in stops)
            + f"</ul>{shown}</div>")


def policies(plan: Plan) -> str:
    judged = plan.sections.policies
    section = judged.as_dict() if judged is not None else None
    warnings = [d.get("message", "") for d in plan.diagnostics if d.get("severity") in ("warning", "error")]
    if section is None:
        results = "<p>This record has no policy results (it was not made by <code>trainstack plan</code>).</p>"
    else:
        failed = [r for r in section["rules"] if not r["passed"] and r["enforcement"] != "disabled"]
        # A rule whose settings are unset judged nothing: it is not configured, not passed (records before
        # issue 37 do not say, and count as configured).
        unjudged = [r["id"] for r in section["rules"] if not r.get("configured", True)]
        passed = sum(1 for r in section["rules"] if r["passed"] and r["id"] not in unjudged)
        results = (f"<p>{passed} of {counted(len(section['rules']), 'rule')} pass; "
                   f"{counted(section['mandatoryFailures'], 'mandatory failure')}"
                   + (f"; {len(unjudged)} not configured ({escape(', '.join(unjudged))})" if unjudged else "")
                   + ".</p>"
                   + ("<ul class=\"failures\">" + "".join(
                       f"<li><strong>{escape(r['id'])}</strong> ({escape(r['enforcement'])}): " + "; ".join(
                           escape(v["message"]) for v in r["violations"]) + "</li>" for r in failed) + "</ul>"
                       if failed else ""))
    notes = ("<h3>Warnings</h3><ul>" + "".join(f"<li>{escape(w)}</li>" for w in warnings) + "</ul>") if warnings \
        else "<p>The program logged no warnings.</p>"
    return f"<section id=\"policies\"><h2>Policies and warnings</h2>{results}{notes}</section>"


def changes(diff: PlanDiff, findings: list[Finding]) -> str:
    rows = "".join(f"<tr class=\"{c.action}\"><td>{c.action}</td><td>{escape(c.name)}</td><td>{escape(c.type)}</td>"
                   "</tr>" for c in diff.changes)
    risks = "".join(f"<li><strong>{escape(f.severity)}</strong>: {escape(f.title)}. {escape(f.detail)}</li>"
                    for f in findings)
    return ("<section id=\"changes\"><h2>Changes from the base record</h2>"
            + (f"<div class=\"scroll\"><table><caption>{agreeing(len(diff.changes), 'resource', 'change')}</caption>"
               "<thead><tr><th scope=\"col\">action</th><th scope=\"col\">name</th><th scope=\"col\">type</th></tr>"
               f"</thead><tbody>{rows}</tbody></table></div>" if diff.changes else "<p>No resource changes.</p>")
            + (f"<h3>Risks</h3><ul>{risks}</ul>" if risks else "") + "</section>")
