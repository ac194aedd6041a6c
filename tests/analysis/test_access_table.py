"""The plan's access table shows each team's access as the plan deploys it, read from the record's resources:
`trainstack plan` prints it, the record keeps it (``access``), and the HTML report shows the same rows."""

import copy
import functools
import tempfile
from html import escape
from pathlib import Path
from typing import Any

from support.plan_records import record, render_report
from trainstack.analysis.access_table import AccessTable
from trainstack.plan import Plan
from trainstack.review.access import read_access
from trainstack.review.access_words import team_rows


@functools.cache
def planned(stack: str) -> dict[str, Any]:
    return record(Path(tempfile.mkdtemp(prefix=f"{stack}-access-")), stack)


def rows(document: dict[str, Any], team: str) -> dict[str, str]:
    [data] = [t for t in document["access"]["teams"] if t["team"] == team]
    return dict(team_rows(data))


def test_kueue_p5_shows_each_team_its_member_group_namespace_queue_role_prefix_and_reach():
    document = planned("kueue-p5")
    llm = rows(document, "llm")
    assert llm["members"] == ("arn:aws:iam::123456789012:role/llm-researchers (access entry -> trainstack:team:llm)")
    assert llm["group"] == "trainstack:team:llm"
    assert llm["namespace"] == "llm (Pod Security: enforce baseline)"
    assert llm["queue"] == "LocalQueue llm"
    assert llm["reaches"] == "dev: up to 8 nodes (0 guaranteed); p5: up to 16 nodes (6 guaranteed)"
    assert llm["runs as"].startswith("llm/llm-jobs -> IAM role kueue-p5-teams-llm-")
    assert llm["checkpoints"].endswith("/teams/llm/ (read, write, delete)")
    assert llm["ingress"] == "its own pods"
    assert llm["fsx"].endswith("/teams/llm")
    assert "secrets" not in llm["kubernetes"] and "cluster-wide" not in llm["kubernetes"]
    [viewer] = document["access"]["viewers"]
    assert viewer["principal"].endswith("ml-platform-oncall") and viewer["groups"] == ["trainstack:queue-viewers"]
    assert "Team access" in document["access"]["text"] and "llm-researchers" in document["access"]["text"]


def test_the_table_is_read_from_the_record_so_an_edited_policy_shows_what_it_would_grant():
    document = copy.deepcopy(planned("kueue-p5"))
    policy = next(r for r in document["resources"] if r["type"] == "aws:iam/rolePolicy:RolePolicy"
                  and r["name"] == "kueue-p5-teams-llm")
    policy["inputs"]["policy"] = policy["inputs"]["policy"].replace("teams/llm/", "")
    table = AccessTable(read_access(Plan.from_dict(document)), {})
    [llm] = [t for t in table.as_dict()["teams"] if t["team"] == "llm"]
    bucket = document["outputs"]["trainstack"]["checkpointBucket"]
    assert llm["checkpoints"] == [f"s3://{bucket}/ (read, write, delete)"]


def test_an_existing_cluster_says_its_access_entries_are_left_alone_and_which_group_each_member_needs():
    document = planned("byo-p5")
    assert document["access"]["existingCluster"] is True
    research = rows(document, "research")
    assert research["members"] == ("arn:aws:iam::123456789012:role/research-team: no access entry here; map it to "
                                   "trainstack:team:research in the cluster's own access entries")
    assert "access entries are left alone" in document["access"]["text"]


def test_the_report_shows_the_same_rows_as_the_plan():
    document = planned("kueue-p5")
    page = render_report(document)
    section = page[page.index("<section id=\"access\">"):]
    section = section[:section.index("</section>")]
    for team in ("llm", "vision"):
        for label, value in rows(document, team).items():
            assert f"<th scope=\"row\">{label}</th>" in section
            assert f"<td>{escape(value)}</td>" in section, value


def test_a_stack_without_teams_has_no_access_section():
    assert "access" not in planned("dev")
