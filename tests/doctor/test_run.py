"""Doctor's core: it only reads (a write is refused before it is sent), what it cannot reach is ``Unreachable``
naming what and why, and the diagnosis says its findings one a line and what was checked."""

from __future__ import annotations

import pytest
from support.rendered_jobs import planned_record
from trainstack.doctor.finding import Finding, Unreachable
from trainstack.doctor.run import Diagnosis, ReadOnlyCluster, WriteRefused, doctor
from trainstack.kube.client import Cluster
from trainstack.plan import Plan
from trainstack.rehearsal.control_plane import free_port


def _nowhere() -> Cluster:
    return Cluster(f"https://127.0.0.1:{free_port()}", None, "token")


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_a_write_is_refused_before_it_is_sent(method: str) -> None:
    sent: list[str] = []
    inner = _nowhere()
    inner.request = lambda method, path, *rest, **options: sent.append(method) or {}  # type: ignore[method-assign]
    reader = ReadOnlyCluster(inner)
    with pytest.raises(WriteRefused, match=f"doctor only reads, and a section asked to {method} /api/v1/nodes/n"):
        reader.request(method, "/api/v1/nodes/n", {})
    assert sent == []
    reader.request("GET", "/api/v1/nodes")
    assert sent == ["GET"]


def test_an_api_server_nothing_answers_on_is_unreachable_naming_it() -> None:
    cluster = _nowhere()
    with pytest.raises(Unreachable, match=f"^the API server {cluster.url} could not be read: no answer \\(.*"
                                          "Connection refused.*\\); check the server's address"):
        doctor(Plan.from_dict(planned_record("kueue-p5")), cluster, sections=("cluster",))


def test_leaving_out_a_check_doctor_does_not_have_is_refused_naming_the_ones_it_has() -> None:
    with pytest.raises(ValueError, match="doctor has no check helm to leave out; its checks: nodes, addons, pending"):
        doctor(Plan.from_dict(planned_record("kueue-p5")), _nowhere(), left_out={"helm": "why"})


def test_the_aws_section_needs_clients_and_the_others_a_cluster() -> None:
    plan = Plan.from_dict(planned_record("kueue-p5"))
    with pytest.raises(ValueError, match="give aws_clients"):
        doctor(plan, _nowhere(), sections=("aws",))
    with pytest.raises(ValueError, match="doctor's cluster, pending sections read a cluster"):
        doctor(plan, None, sections=("cluster", "pending", "aws"), aws_clients=object())


def test_the_diagnosis_says_one_line_a_finding_and_what_was_checked() -> None:
    cordoned = Finding("cluster", "node p5-3", "schedulable", "cordoned", "kubectl uncordon p5-3")
    held = Finding("pending", "workload llm/job", "admitted", "waiting", "kueuectl ...")
    checked = {"node groups": 3, "nodes": 18, "charts": 6, "workloads": 2}
    sick = Diagnosis("kueue-p5", "https://example", ("cluster", "pending"), (cordoned, held), checked,
                     {"addons": "no releases"})
    assert sick.render_text().splitlines() == [
        "Doctor of stack kueue-p5 through https://example (cluster, pending)", "",
        "cluster: node p5-3: expected schedulable; found cordoned. Fix: kubectl uncordon p5-3",
        "pending: workload llm/job: expected admitted; found waiting. Fix: kueuectl ...", "",
        "unhealthy: 2 findings (cluster 1, pending 1); 3 node groups, 18 nodes, 6 charts, 2 workloads checked; "
        "addons not checked: no releases"]
    well = Diagnosis("kueue-p5", "https://example", ("cluster",), (), checked)
    assert well.healthy and well.summary() == "healthy: 3 node groups, 18 nodes, 6 charts, 2 workloads checked"
    assert well.as_dict()["findings"] == [] and sick.as_dict()["findings"][0] == cordoned.as_dict()
