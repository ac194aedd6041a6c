"""The deploy schedule (each resource's earliest start and end) is the model the critical path is
read from: the Gantt chart of `trainstack report` draws it, so the two must always agree."""

from pathlib import Path

import pytest
from trainstack.estimate import critical_path, schedule
from trainstack.estimate.durations import minutes
from trainstack.plan import find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def plans():
    return {stack: run_plan(PROJECT, stack) for stack in ("dev", "hyperpod")}


@pytest.mark.parametrize("stack", ["dev", "hyperpod"])
def test_every_resource_ends_its_own_duration_after_it_starts(plans, stack):
    slots = schedule(plans[stack])
    assert set(slots) == {r.urn for r in plans[stack].resources}
    for resource in plans[stack].resources:
        assert slots[resource.urn].end == pytest.approx(slots[resource.urn].start + minutes(resource))


@pytest.mark.parametrize("stack", ["dev", "hyperpod"])
def test_a_resource_starts_when_the_last_thing_it_waits_for_ends(plans, stack):
    plan = plans[stack]
    slots = schedule(plan)
    for resource in plan.resources:
        inputs = [slots[u].end for u in resource.dependencies if u in slots and u != resource.urn]
        assert slots[resource.urn].start >= max(inputs, default=0.0)


@pytest.mark.parametrize("stack", ["dev", "hyperpod"])
def test_the_critical_path_is_the_schedules_last_end_and_its_chain_runs_back_to_back(plans, stack):
    slots = schedule(plans[stack])
    path = critical_path(plans[stack])
    assert path.minutes == max(slot.end for slot in slots.values())
    assert slots[path.chain[0].urn].start == 0.0
    for before, after in zip(path.chain, path.chain[1:], strict=False):
        assert slots[after.urn].start == pytest.approx(slots[before.urn].end)
    assert slots[path.chain[-1].urn].end == path.minutes
