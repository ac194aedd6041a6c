"""The Python API (docs/python-api.md), called as a program would, without the CLI."""

import json
from pathlib import Path

import pytest
from support.plan_records import record, save
from trainstack import cli
from trainstack.analysis import (
    JudgedPolicies,
    Plan,
    RecordError,
    SavedSection,
    Section,
    failed,
    judge_again,
    load_record,
    plan_stack,
    render_json,
    render_report,
    render_text,
    review,
)
from trainstack.config.ip_budget import IpBudget
from trainstack.controllers import Report as ControllerReport
from trainstack.estimate.cost import CostEstimate
from trainstack.estimate.critical_path import CriticalPath

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dev() -> Plan:
    return plan_stack("dev", REPO)


@pytest.fixture(scope="module")
def saved(dev: Plan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("records") / "dev.json"
    path.write_text(render_json(dev))
    return path


def test_a_planned_stack_carries_each_result_as_a_typed_section_in_record_order(dev):
    sections = dev.sections
    assert isinstance(sections.cost, CostEstimate) and isinstance(sections.critical_path, CriticalPath)
    assert isinstance(sections.ip_budget, IpBudget) and isinstance(sections.policies, JudgedPolicies)
    assert isinstance(sections.controllers, ControllerReport)
    assert all(isinstance(section, Section) for section in sections)
    document = dev.to_dict()
    assert [s.key for s in sections] == list(document)[list(document).index("invokes") + 1:]
    assert document["policies"]["config"] == {"profile": "dev", "maxHourlyUsd": 10.0}  # from the stack file
    assert not failed(dev)


def test_a_saved_record_reads_back_with_the_same_sections_and_writes_the_same_bytes(dev, saved):
    again = load_record(saved)
    assert [s.key for s in again.sections] == [s.key for s in dev.sections]
    assert all(isinstance(s, SavedSection) for s in again.sections)
    assert [s.render() for s in again.sections] == [s.render() for s in dev.sections]
    assert render_json(again) == saved.read_text()
    words = "\n\n".join(s.render() for s in dev.sections)
    assert render_text(again).endswith(words) and render_text(dev).endswith(words)


def test_a_section_this_version_does_not_know_is_kept_and_printed():
    document = {"formatVersion": 2, "project": "p", "stack": "s", "resources": [],
                "later": {"figure": 1, "text": "A later section."}}
    plan = Plan.from_dict(document)
    assert [s.key for s in plan.sections] == ["later"]
    assert plan.to_dict()["later"] == {"figure": 1, "text": "A later section."}
    assert render_text(plan).endswith("\n\nA later section.")


def test_judging_again_keeps_the_records_configuration_and_puts_the_extra_on_top(saved):
    judged = judge_again(load_record(saved), {"all": "advisory"})
    policies = judged.sections.policies
    assert isinstance(policies, JudgedPolicies)
    assert policies.config == {"profile": "dev", "maxHourlyUsd": 10.0, "all": "advisory"}
    assert {rule.enforcement for rule in policies.report.results} == {"advisory"}


def test_review_gates_two_plans_as_trainstack_diff_does(tmp_path, capsys):
    fsx = {"deploymentType": "SCRATCH_2", "storageCapacityGiB": 1200, "zone": "us-east-1a"}
    base_document = record(tmp_path / "base", "dev", lambda c: c.update({"trainstack:fsx": fsx}))
    head_document = record(tmp_path / "head", "dev", lambda c: c.update({"trainstack:fsx": {
        **fsx, "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 125}}))
    base_path, head_path = save(tmp_path / "base.json", base_document), save(tmp_path / "head.json", head_document)
    change = review(load_record(base_path), load_record(head_path))
    assert not change.passed and [f.kind for f in change.blocking] == ["data-loss"]
    assert cli.main(["diff", str(base_path), str(head_path), "--format", "json"]) == cli.EXIT_POLICY
    assert capsys.readouterr().out == change.render("json") + "\n"
    [lost] = change.blocking
    assert review(load_record(base_path), load_record(head_path), approvals=[lost.urn]).passed


def test_records_of_two_stacks_are_not_compared():
    with pytest.raises(RecordError, match="different stacks"):
        review(Plan(project="p", stack="a"), Plan(project="p", stack="b"))


def test_the_report_of_a_planned_stack_is_the_report_of_its_saved_record(dev, saved):
    # The planned plan's own cost and critical path are drawn; a saved record's are estimated again
    # from its resources: the same page either way.
    assert render_report(dev) == render_report(load_record(saved))


def test_a_policy_config_given_as_settings_is_checked_like_a_file():
    from trainstack.analysis import policy_config
    from trainstack.boundary import FileProblem

    assert policy_config(None, {"all": "advisory"}) == {"all": "advisory"}
    with pytest.raises(FileProblem, match="no-such-rule"):
        policy_config(None, {"no-such-rule": "disabled"})


def test_a_policy_config_with_many_problems_shows_each_problem_whole_and_counts_the_rest():
    from trainstack.analysis import policy_config
    from trainstack.boundary import FileProblem

    with pytest.raises(FileProblem) as raised:
        policy_config(None, {f"no-such-rule-{n}": "disabled" for n in range(40)})
    message = str(raised.value)
    assert "more characters" not in message  # the old bound cut the joined text mid-sentence
    shown = message.split(": ", 1)[1].rsplit(" (and ", 1)
    assert shown[0].endswith("].") and shown[1].endswith(" more problems)")
    assert message.count("no rule has this id") + int(shown[1].split()[0]) == 40


def test_the_record_of_the_api_is_the_record_of_the_cli(dev, capsys):
    assert cli.main(["plan", "--stack", "dev", "--cwd", str(REPO), "--json"]) == cli.EXIT_OK
    assert json.loads(capsys.readouterr().out) == json.loads(render_json(dev))


def test_plan_stack_reads_the_stack_file_once(monkeypatch):
    from trainstack.plan import project

    read = []
    original = project.read_pulumi_yaml
    monkeypatch.setattr(project, "read_pulumi_yaml", lambda path, what: read.append(path.name) or original(path, what))
    plan_stack("dev", REPO)
    assert read.count("Pulumi.dev.yaml") == 1
