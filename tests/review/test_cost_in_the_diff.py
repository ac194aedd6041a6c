"""Cost in the pull request: the diff says each item's monthly cost before and after and the totals per
month, and the gate closes when the monthly cost at desired size rises past the stack's
cost.maxMonthlyIncreaseUsd."""

import json

import pytest
from support.plan_records import compare, record, save
from trainstack import catalog, cli
from trainstack.review import assess

P4D = catalog.get("p4d.24xlarge").price("us-east-1").usd_per_hour


def add_p4d(ceiling=None):
    def edit(config: dict) -> None:
        config["trainstack:nodeGroups"].append(
            {"name": "p4d", "instanceType": "p4d.24xlarge", "minSize": 0, "desiredSize": 1, "maxSize": 2,
             "zone": "us-east-1b", "efa": True})
        if ceiling is not None:
            config["trainstack:cost"] = {"maxMonthlyIncreaseUsd": ceiling}
    return edit


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("nemo-base"), "nemo-p4de")


def run_diff(tmp_path, base, head, *args):
    return cli.main(["diff", str(save(tmp_path / "base.json", base)), str(save(tmp_path / "head.json", head)),
                     "--cwd", str(tmp_path), *args])


def test_each_items_monthly_cost_before_and_after_and_the_monthly_totals(base, tmp_path, capsys):
    head = record(tmp_path / "head", "nemo-p4de", add_p4d())
    assert run_diff(tmp_path, base, head, "--format", "json") == 0
    deltas = json.loads(capsys.readouterr().out)["deltas"]
    (row,) = [r for r in deltas["costByItemUsdPerMonth"] if r["item"] == "nemo-p4de-eks-p4d (p4d.24xlarge)"]
    assert (row["base"], row["head"], row["change"]) == (None, round(P4D * 730, 2), round(P4D * 730, 2))
    monthly = deltas["costUsdPerMonth"]["desired"]
    assert monthly["change"] == pytest.approx(deltas["costUsdPerHour"]["desired"]["change"] * 730, abs=0.05)
    (fsx,) = [r for r in deltas["costByItemUsdPerMonth"] if r["item"].startswith("FSx ")]
    assert fsx["unpriced"] == ["base", "head"] and fsx["change"] is None  # never a zero


def test_the_markdown_report_tables_the_changed_items_per_month(base, tmp_path, capsys):
    head = record(tmp_path / "head", "nemo-p4de", add_p4d())
    assert run_diff(tmp_path, base, head, "--format", "markdown") == 0
    markdown = capsys.readouterr().out
    assert f"| nemo-p4de-eks-p4d (p4d.24xlarge) | none | ${P4D * 730:,.2f} | +${P4D * 730:,.2f} |" in markdown
    assert "| cost per month at desired size |" in markdown
    assert "| FSx nemo-p4de-fsx (1200 GiB PERSISTENT_2 250) | no price | no price | n/a |" in markdown


def test_a_monthly_increase_past_the_ceiling_closes_the_gate(base, tmp_path, capsys):
    head = record(tmp_path / "head", "nemo-p4de", add_p4d(ceiling=1000))
    (finding,) = [f for f in assess(compare(base, head)) if f.kind == "cost"]
    assert finding.severity == "blocking"
    assert "above the ceiling of $1,000.00 (cost.maxMonthlyIncreaseUsd)" in finding.title
    assert "nemo-p4de-eks-p4d (p4d.24xlarge)" in finding.detail
    assert run_diff(tmp_path, base, head) == 1


def test_an_increase_under_the_ceiling_passes(base, tmp_path):
    head = record(tmp_path / "head", "nemo-p4de", add_p4d(ceiling=100000))
    assert not [f for f in assess(compare(base, head)) if f.kind == "cost"]
