"""Cost per team and per job: each Kueue team's nominal quota (what it is guaranteed) and its quota with
what it may borrow (what it can cost at most), per hour and per month; a launched job's nodes x the group's
rate, and its total over a duration."""

import json
from pathlib import Path

import pytest
from trainstack import catalog, cli
from trainstack.analysis import plan_stack
from trainstack.estimate.prices import HYPERPOD
from trainstack.plan import render_json

PROJECT_ROOT = Path(__file__).resolve().parents[2]
P5 = catalog.get("p5.48xlarge").price("us-east-1").usd_per_hour


@pytest.fixture(scope="module")
def kueue_record(tmp_path_factory):
    path = tmp_path_factory.mktemp("kueue") / "kueue-p5.json"
    path.write_text(render_json(plan_stack("kueue-p5", PROJECT_ROOT)))
    return path


def test_each_team_sees_its_guaranteed_and_its_most_cost_per_hour_and_month():
    queues = plan_stack("kueue-p5", PROJECT_ROOT).sections.queues.render()
    llm = queues.split("  vision:")[0]
    # llm: 6 of the 16 reserved p5 nodes guaranteed, all 16 with what it borrows from the cohort.
    assert f"guaranteed ${6 * P5:,.2f}/h, ${6 * P5 * 730:,.0f}/month; at most ${16 * P5:,.2f}/h" in llm


def test_launch_says_the_jobs_hourly_cost_and_its_total_over_a_duration(kueue_record, capsys):
    argv = ["launch", "trainjob", "--outputs", str(kueue_record), "--group", "p5", "--nodes", "4", "--team", "llm",
            "--image", "registry.example/train:1"]
    command = ["--", "torchrun", "train.py"]
    assert cli.main([*argv, *command]) == 0
    assert capsys.readouterr().err == ""  # not asked: nothing said
    assert cli.main([*argv, "--duration", "12", *command]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"cost: 4 x p5.48xlarge = ${4 * P5:,.2f}/h; ${4 * P5 * 12:,.2f} for 12 h (")


def test_a_duration_that_is_not_hours_is_refused_by_name(kueue_record, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["launch", "trainjob", "--outputs", str(kueue_record), "--group", "p5", "--nodes", "4",
                  "--team", "llm", "--image", "registry.example/train:1", "--duration", "soon"])
    assert stopped.value.code == 2
    assert "'soon' is not a number of hours above 0" in capsys.readouterr().err


def test_a_hyperpod_job_is_priced_at_the_ml_rate_or_says_it_has_none():
    contract = json.loads(render_json(plan_stack("hyperpod-eks", PROJECT_ROOT)))["outputs"]["trainstack"]
    group = contract["hyperpod"]["instanceGroups"][0]
    rate = HYPERPOD.get((group["instanceType"], "us-east-1"))
    from trainstack.cli.launch import job_cost
    from trainstack.outputs import parse_outputs

    said = job_cost(parse_outputs({"trainstack": contract}), group["name"], 2, 10)
    if rate is None:
        assert said.startswith(f"cost: 2 x {group['instanceType']}: no price (")
    else:
        assert said.startswith(f"cost: 2 x {group['instanceType']} = ${2 * rate.usd:,.2f}/h; ${20 * rate.usd:,.2f}")
