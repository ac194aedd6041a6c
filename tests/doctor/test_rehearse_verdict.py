"""`trainstack rehearse` ends with doctor's verdict on the cluster it built, in its text and its JSON record: the same
reading `trainstack doctor` gives a deployed cluster, less the add-on checks, which read Helm's release records and
a rehearsal installs no Helm release. The verdict is reported; a job's fate alone decides the rehearsal's exit.

Doctor reads the cluster as it is when the jobs are done: on a short rehearsal the FSx directories Job's pod may
still wait for the controller manager to bind its claim, and doctor says so (the pending section); the nodes the
rehearsal registered and Karpenter launched are as the plan says."""

from __future__ import annotations

import pytest
from support.rendered_jobs import planned_record
from trainstack.doctor.finding import Finding
from trainstack.plan import Plan
from trainstack.rehearsal import engines, rehearse
from trainstack.rehearsal.report import as_dict, render_text
from trainstack.rehearsal.run import DOCTOR_LEAVES_OUT

pytestmark = pytest.mark.engines(*engines.REHEARSAL)


def test_the_rehearsal_of_kueue_p5_ends_with_doctors_verdict_on_the_cluster_it_built() -> None:
    result = rehearse(Plan.from_dict(planned_record("kueue-p5")), launchers=frozenset({"render_device_check"}))
    assert result.ok, render_text(result)
    diagnosis = as_dict(result)["doctor"]
    assert diagnosis["notChecked"] == DOCTOR_LEAVES_OUT
    # Every node there at the end read: the groups' own, and those Karpenter launched for the dev pool's jobs.
    nodes = sum(group["registeredAtEnd"] for group in result.groups.values())
    assert nodes > 18 and f"3 node groups, {nodes} nodes, 6 charts, " in diagnosis["summary"]
    assert [f for f in diagnosis["findings"] if f["section"] == "cluster"] == [], render_text(result)
    text = render_text(result).splitlines()
    at = text.index(f"Doctor: {diagnosis['summary']}")
    assert text[at + 1:at + 1 + len(diagnosis["findings"])] == [f"    {Finding(**f).line()}"
                                                                for f in diagnosis["findings"]]
    assert text[at + 1 + len(diagnosis["findings"]):] == ["", text[-1]] and text[-1].endswith(" MiB")
    assert result.seconds["doctor"] < 30
