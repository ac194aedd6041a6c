"""The page's access table: each team's members, namespace, queue, data and reach, as the plan deploys them.

Drawn from the plan's ``access`` section (a planned plan's or a saved record's alike), in the same rows as
``trainstack plan`` prints (``review/access_words.py``): one column per team, one row per thing it reaches.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..plan import Plan
from ..review.access_words import EXISTING_CLUSTER, team_rows


def access_section(plan: Plan) -> str:
    """The ``access`` section of the page; nothing on a plan without teams."""
    section = plan.sections.get("access")
    data: dict[str, Any] = section.as_dict() if section is not None else {}
    teams = data.get("teams") or []
    if not teams:
        return ""
    rows = [team_rows(team) for team in teams]
    head = "".join(f"<th scope=\"col\">{escape(team['team'])}</th>" for team in teams)
    body = "".join(
        f"<tr><th scope=\"row\">{escape(label)}</th>"
        + "".join(f"<td>{escape(row[index][1])}</td>" for row in rows) + "</tr>"
        for index, (label, _) in enumerate(rows[0]))
    viewers = "".join(f"<li><code>{escape(v['principal'])}</code> ({escape(', '.join(v['groups']))}): "
                      f"{escape('; '.join(v['kubernetes']) or 'nothing bound')}</li>"
                      for v in data.get("viewers") or [])
    return ("<section id=\"access\"><h2>Team access</h2><p>What each team reaches, read from the resources the plan "
            "would deploy: its members' access entries, its Role and bindings, its Pod Identity role's policy, its "
            "namespace's Pod Security label and NetworkPolicy.</p>"
            + (f"<p>{escape(EXISTING_CLUSTER)}.</p>" if data.get("existingCluster") else "")
            + f"<div class=\"scroll\"><table><thead><tr><th scope=\"col\"></th>{head}</tr></thead><tbody>{body}"
            "</tbody></table></div>" + (f"<h3>Queue viewers</h3><ul>{viewers}</ul>" if viewers else "")
            + "</section>")
