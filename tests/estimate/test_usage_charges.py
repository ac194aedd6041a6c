"""Usage-based charges come from the stack's optional usage section (infracost's usage file): each use a line
of its own per month with its rate and source, apart from the hourly totals; a use without a dated rate is
listed unpriced, never zero; a stack without the section says they are not estimated; unknown keys are errors."""

import copy

import pytest
from support.plan_records import record, stack_config
from trainstack import cli
from trainstack.estimate.prices import NAT_DATA_PROCESSING, S3_STANDARD_STORAGE
from trainstack.estimate.usage import NOT_ESTIMATED

USAGE = {"natDataProcessedGb": 500, "checkpointStorageGb": 2000, "s3Requests": {"put": 100000, "get": 1000000},
         "fsxDataRepositoryGb": 300}


def with_usage(usage):
    def edit(config: dict) -> None:
        config["trainstack:usage"] = copy.deepcopy(usage)
    return edit


def test_each_use_is_a_monthly_line_with_its_rate_apart_from_the_hourly_totals(tmp_path):
    plain = record(tmp_path / "plain", "nemo-p4de")["cost"]
    cost = record(tmp_path / "usage", "nemo-p4de", with_usage(USAGE))["cost"]
    lines = {line["item"]: line for line in cost["usage"]["lines"]}
    assert lines["NAT data processing"]["monthlyUsd"] == pytest.approx(500 * NAT_DATA_PROCESSING.usd)
    assert lines["S3 checkpoint storage (Standard)"]["monthlyUsd"] == pytest.approx(2000 * S3_STANDARD_STORAGE.usd)
    assert cost["usage"]["monthlyUsd"] == pytest.approx(500 * 0.045 + 2000 * 0.023)
    assert cost["hourlyUsd"] == plain["hourlyUsd"]  # shown separately, not in the hourly totals
    assert "usage per month (the stack's usage section):" in cost["text"]


def test_a_use_without_a_dated_rate_is_listed_unpriced_never_zero(tmp_path):
    cost = record(tmp_path / "usage", "nemo-p4de", with_usage(USAGE))["cost"]
    unpriced = [line for line in cost["usage"]["lines"] if line["monthlyUsd"] is None]
    assert {line["item"] for line in unpriced} == {"S3 PUT requests", "S3 GET requests", "FSx data repository traffic"}
    assert all(line["usdPerUnit"] is None and line["source"].startswith("no dated") for line in unpriced)
    assert cost["usage"]["complete"] is False
    assert "FSx data repository traffic: 300 GB, no price" in cost["text"]


def test_without_a_usage_section_the_estimate_says_it_counted_none(tmp_path):
    cost = record(tmp_path / "plain", "nemo-p4de")["cost"]
    assert cost["usage"] is None and NOT_ESTIMATED in cost["text"]


def test_an_unknown_usage_key_is_refused_by_name(tmp_path, capsys):
    from support.plan_records import write_project

    config = stack_config("nemo-p4de")
    config["trainstack:usage"] = {"natGb": 5}
    project = write_project(tmp_path, "nemo-p4de", config)
    assert cli.main(["plan", "--stack", "nemo-p4de", "--cwd", str(project)]) == 2
    err = capsys.readouterr().err
    assert "trainstack:usage.natGb" in err
