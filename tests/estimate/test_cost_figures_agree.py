"""One stack, one cost: for generated variations of the shipped stacks (region, sizes, a reservation or a Capacity
Block of a few days or weeks, a cost ceiling), every figure a user reads is the one the record's lines add up to.

The oracle is independent of the estimate's totals: it adds the record's priced lines itself, each for a month of
730 hours (AWS's Pricing Calculator month: aws.amazon.com/calculator/calculator-assumptions) or, in a Capacity
Block shorter than that, for the block's own hours. The plan's words, the record's totals, the HTML report, the
diff's JSON and each team's queue figures must all say that; a total that leaves out unpriced items says "at least"
and names them; the cost ceiling judges from the same figures, or says it cannot, by one rule in every region.
"""

import json
import re
from typing import Any, Optional

from hypothesis import event, given, note, settings
from support.cost_stacks import Variant, planned, variants
from trainstack.analysis import render_report, review

HOURS_PER_MONTH = 730
AT = ("desired", "max")
FEW = settings(max_examples=10)
"""Each example plans a stack (about a second), renders its report and diffs it."""


def billed_hours(line: dict[str, Any], variant: Variant) -> float:
    """The hours of a month a line bills: a block's own hours when it ends sooner, else the 730-hour month."""
    if "capacity block" in line["item"] and variant.block_hours is not None:
        return min(variant.block_hours, HOURS_PER_MONTH)
    return HOURS_PER_MONTH


def counted(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The lines a total adds: all but an existing cluster's nodes, which the stack does not make."""
    return [line for line in record["cost"]["lines"] if line.get("kind") != "not-counted"]


def oracle(record: dict[str, Any], variant: Variant) -> dict[str, Any]:
    """The totals the record's own lines add up to, and what they leave out."""
    priced = [line for line in counted(record) if line["usdPerHour"] is not None]
    return {"hourly": {at: sum(line[at] * line["usdPerHour"] for line in priced) for at in AT},
            "monthly": {at: sum(line[at] * line["usdPerHour"] * billed_hours(line, variant) for line in priced)
                        for at in AT},
            "unpriced": [line["item"].strip() for line in counted(record) if line["usdPerHour"] is None],
            "elsewhere": [group["name"] for group in variant.config.get("trainstack:nodeGroups") or []]
            if "trainstack:existingCluster" in variant.config else []}


def amounts(text: str) -> list[float]:
    return [float(amount.replace(",", "")) for amount in re.findall(r"\$([\d,]+(?:\.\d+)?)", text)]


def close(shown: float, exact: float, cents: float = 0.01) -> bool:
    return abs(shown - exact) <= cents


def check_the_record(record: dict[str, Any], expected: dict[str, Any]) -> None:
    cost = record["cost"]
    for at in AT:
        assert close(cost["hourlyUsd"][at], expected["hourly"][at], 0.0001), (at, cost["hourlyUsd"], expected)
        assert close(cost["monthlyUsd"][at], expected["monthly"][at]), (at, cost["monthlyUsd"], expected)
    assert cost["complete"] is (not expected["unpriced"])


def check_the_plans_words(record: dict[str, Any], expected: dict[str, Any]) -> None:
    """``at desired size: [at least ]$H/h, [at least ]$M per month (730 h)[; not priced ...][; not counted ...]``."""
    for at in AT:
        (said,) = [line for line in record["cost"]["text"].splitlines() if line.startswith(f"  at {at} size: ")]
        hourly, monthly = amounts(said)[:2]
        assert close(hourly, expected["hourly"][at], 0.006) and close(monthly, expected["monthly"][at], 0.5), said
        assert " per month (730 h)" in said, said
        assert ("at least" in said) is bool(expected["unpriced"]), said
        assert all(item in said for item in expected["unpriced"]), said
        assert all(f"-{name} (" in said.split("not counted", 1)[-1] for name in expected["elsewhere"]), said


def check_the_report(page: str, expected: dict[str, Any]) -> None:
    """The summary's two figures and the cost section's first words say the same totals."""
    section = page.split('<section id="cost">', 1)[1].split("</p>", 1)[0]
    shown = amounts(section)
    wanted = [expected[kind][at] for at in AT for kind in ("hourly", "monthly")]
    assert len(shown) == 4 and all(close(s, w, 0.5) for s, w in zip(shown, wanted, strict=True)), (section, wanted)
    assert ("at least" in section) is bool(expected["unpriced"]), section
    for at in AT:
        (figure,) = re.findall(rf"<dt>Cost at {at} size</dt><dd>(.*?)</dd>", page)
        assert close(amounts(figure)[0], expected["hourly"][at], 0.006), figure
        assert ("at least" in figure) is bool(expected["unpriced"]), figure


def check_the_diff(report: dict[str, Any], record: dict[str, Any], expected: dict[str, Any]) -> None:
    """The stack diffed against itself: both sides' figures are the record's, per hour, per month and by item."""
    deltas = report["deltas"]
    for side in ("base", "head"):
        for at in AT:
            assert deltas["costUsdPerHour"][at][side] == record["cost"]["hourlyUsd"][at], (side, at, deltas)
            assert deltas["costUsdPerMonth"][at][side] == record["cost"]["monthlyUsd"][at], (side, at, deltas)
        by_item = [row[side] for row in deltas["costByItemUsdPerMonth"] if row[side] is not None]
        assert close(sum(by_item), expected["monthly"]["desired"], 0.01 * len(by_item) + 0.01), (by_item, expected)


def team_figures(queues: str) -> list[tuple[str, int, int, str]]:
    """(group, guaranteed nodes, most nodes, the cost words) of each team's quota in the queues section."""
    found = re.findall(r"\n    ([\w-]+): (\d+) nodes guaranteed, up to (\d+) .*\n      cost: (.*)", queues)
    return [(group, int(guaranteed), int(most), words) for group, guaranteed, most, words in found]


def group_line(record: dict[str, Any], stack: str, group: str) -> Optional[dict[str, Any]]:
    """The line pricing the nodes of ``group`` (a managed group, a Karpenter pool, or an existing cluster's group)."""
    pattern = re.compile(rf"^{re.escape(stack)}-eks-{re.escape(group)}(-nodepool)? \(")
    return next((line for line in record["cost"]["lines"] if pattern.match(line["item"])), None)


def check_the_team_split(record: dict[str, Any], variant: Variant) -> None:
    """A team's nodes cost the group's line rate, per hour and for the hours of the month the line bills."""
    for group, guaranteed, most, words in team_figures("\n" + ((record.get("queues") or {}).get("text") or "")):
        line = group_line(record, variant.stack, group)
        assert line is not None, (group, [li["item"] for li in record["cost"]["lines"]])
        quota = re.fullmatch(r"guaranteed (.*); at most (.*)", words)
        assert quota is not None, words
        for nodes, said in zip((guaranteed, most), quota.groups(), strict=True):
            if line["usdPerHour"] is None:
                assert said.startswith("no price"), (group, said)
                continue
            hourly = nodes * line["usdPerHour"]
            monthly = hourly * billed_hours(line, variant)
            assert said.startswith(f"${hourly:,.2f}/h, ${monthly:,.0f}/month"), (group, nodes, said, line)


@FEW
@given(variant=variants())
def test_the_plan_the_record_the_report_the_diff_and_the_teams_say_one_cost(tmp_path_factory, variant):
    plan, record = planned(tmp_path_factory.mktemp("stack"), variant)
    note(json.dumps({"stack": variant.stack, "region": variant.config["trainstack:region"],
                     "nodeGroups": variant.config.get("trainstack:nodeGroups"), "blockHours": variant.block_hours}))
    event(drawn(variant))
    expected = oracle(record, variant)
    check_the_record(record, expected)
    check_the_plans_words(record, expected)
    check_the_report(render_report(plan), expected)
    check_the_diff(json.loads(review(plan, plan).render("json")), record, expected)
    check_the_team_split(record, variant)


def drawn(variant: Variant) -> str:
    """What the example exercises, for Hypothesis' statistics."""
    groups = variant.config.get("trainstack:nodeGroups") or [{}]
    capacity = (groups[0].get("capacity") or {}).get("type", "no reservation")
    return f"{variant.stack} in {variant.config['trainstack:region']}, {capacity}"


def ceiling_violations(record: dict[str, Any]) -> list[dict[str, Any]]:
    (rule,) = [r for r in record["policies"]["rules"] if r["id"] == "hourly-cost-ceiling"]
    return rule["violations"]


@FEW
@given(variant=variants(ceiling=True))
def test_the_cost_ceiling_judges_the_cost_sections_figures_or_says_it_cannot_in_every_region(tmp_path_factory,
                                                                                             variant):
    _, record = planned(tmp_path_factory.mktemp("stack"), variant)
    note(json.dumps({"stack": variant.stack, "region": variant.config["trainstack:region"],
                     "ceiling": variant.ceiling}))
    event(drawn(variant))
    expected = oracle(record, variant)
    violations = ceiling_violations(record)
    messages = " | ".join(v["message"] for v in violations)
    if expected["hourly"]["max"] > variant.ceiling:
        # Even what is priced is over: the whole costs at least that.
        (over,) = violations
        assert "above the ceiling" in over["message"], messages
        assert f"${expected['hourly']['max']:,.2f}/h" in over["message"], (messages, expected)
    elif expected["unpriced"] or expected["elsewhere"]:
        # Under the ceiling so far, but not all of it is priced or counted: it cannot judge, and says so by item.
        assert violations and "above the ceiling" not in messages, (messages, expected)
        assert all(item in messages for item in expected["unpriced"]), (messages, expected)
        assert all(f"-{name} (" in messages for name in expected["elsewhere"]), (messages, expected)
    else:
        assert violations == [], messages
