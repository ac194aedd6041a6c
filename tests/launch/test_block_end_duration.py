"""A job that says how long it runs (--duration) and would still run when its capacity block winds down is refused
by the launcher: from then its queue admits nothing and its pods get SIGTERM (addons/block_end.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from support import rendered_jobs
from trainstack import cli
from trainstack.cli.launch import check_block_end
from trainstack.launch import LaunchError

VARIANT = "p5-kueue-capacity-block"
NOW = datetime(2026, 12, 1, 0, 30, tzinfo=UTC)


def test_the_outputs_say_when_a_block_winds_down_and_only_for_a_block() -> None:
    groups = rendered_jobs.variant_outputs(VARIANT).accelerated_groups
    assert (groups["p5"].capacity_ends_at, groups["p5"].capacity_wind_down_at) == (
        "2026-12-01T11:30:00Z", "2026-12-01T10:30:00Z")
    assert groups["dev"].capacity_wind_down_at is None
    shipped = rendered_jobs.planned_record("kueue-p5")["outputs"]["trainstack"]["acceleratedGroups"]
    assert all("capacityWindDownAt" not in g for g in shipped.values())


def test_a_job_that_ends_before_the_wind_down_passes_and_one_that_would_not_is_refused() -> None:
    outputs = rendered_jobs.variant_outputs(VARIANT)
    check_block_end(outputs, "p5", 10, NOW)
    check_block_end(outputs, "dev", 1000, NOW)
    with pytest.raises(LaunchError) as caught:
        check_block_end(outputs, "p5", 10.5, NOW)
    assert str(caught.value).startswith(
        "--duration 10.5: group p5's capacity block winds down at 2026-12-01T10:30:00Z (it ends "
        "2026-12-01T11:30:00Z), 10.0 h from now")
    assert "Fix: run at most 10.0 h" in str(caught.value)


def test_the_command_refuses_it_with_exit_2(tmp_path, capsys) -> None:
    record = tmp_path / "plan.json"
    record.write_text(json.dumps(rendered_jobs.variant_record(VARIANT)))
    assert cli.main(["launch", "device-check", "--outputs", str(record), "--group", "p5", "--nodes", "1",
                     "--image", rendered_jobs.IMAGE, "--duration", "100000"]) == 2
    assert "winds down at 2026-12-01T10:30:00Z" in capsys.readouterr().err
