"""The gate closes on a controller model's new error as on a new mandatory policy failure: a
change that would plan and then stall in the cluster does not merge."""

import copy

import pytest
from support import rendered_jobs
from support.plan_records import compare, record
from trainstack.nodegroups import accelerated
from trainstack.review import RecordError, assess, blocking
from trainstack.review.records import check_record


def test_a_reserved_group_that_would_roll_with_default_closes_the_gate_naming_the_model(tmp_path, monkeypatch):
    base = rendered_jobs.planned_record("nemo-p4de")
    monkeypatch.setattr(accelerated, "update_config", lambda settings, in_placement_group: {"max_unavailable": 1})
    head = record(tmp_path, "nemo-p4de")
    [finding] = [f for f in blocking(assess(compare(base, head))) if f.kind == "policy"]
    assert "controller:eks-nodegroup-update" in finding.title
    assert "nemo-p4de-eks-p4de" in finding.detail and "MINIMAL" in finding.detail


def test_the_fixed_error_is_a_note_and_closes_nothing(tmp_path, monkeypatch):
    head = rendered_jobs.planned_record("nemo-p4de")
    monkeypatch.setattr(accelerated, "update_config", lambda settings, in_placement_group: {"max_unavailable": 1})
    base = record(tmp_path, "nemo-p4de")
    findings = assess(compare(base, head))
    assert not [f for f in blocking(findings) if f.kind == "policy"]
    assert any(f.kind == "policy" and "controller:eks-nodegroup-update" in f.title and f.severity == "note"
               for f in findings)


def test_a_record_whose_controller_findings_are_not_objects_is_refused():
    document = copy.deepcopy(rendered_jobs.planned_record("dev"))
    document["controllers"]["findings"] = ["not a finding"]
    with pytest.raises(RecordError) as refused:
        check_record(document, "head.json")
    assert "head.json" in str(refused.value) and "controllers" in str(refused.value)
