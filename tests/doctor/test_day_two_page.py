"""The day-two page (docs/day-two.md) shows what ``trainstack doctor`` prints. Each command whose output the page
shows runs as written, through the CLI, against the shared rehearsal of kueue-p5 with the plan's Helm releases
installed by Helm (support/helm_releases.py): once healthy, and once with four faults made by real mechanisms, as
tests/doctor's tests make them:

* a GPU fallen off the bus: ``AcceleratedHardwareReady`` False with reason ``NvidiaXID79Error`` on p5-13, written
  as the EKS node monitoring agent writes it (read the Node, put its condition in the list, JSON merge patch of the
  status: aws/eks-node-monitoring-agent v1.7.0 pkg/manager/node_exporter.go);
* an add-on at another version than its pin: the NVIDIA device plugin's release upgraded by Helm to 0.19.0;
* a job whose NCCL chose TCP sockets: vision's 2-node TrainJob, rendered by the launcher and run by the real Kueue,
  Trainer and JobSet, whose rank 0 log (served by kwok through the API server's ``pods/log``) is NCCL's
  ``NET/Socket`` start-up (nccl_socket.log);
* a job over its team's free quota: pending_faults.short_now (llm runs 12 p5 nodes, vision asks for 6 with 2 free).

Every line the page shows must be a line doctor printed, in the order shown; ``...`` stands for lines left out.
Before comparing, what differs from one run to the next is replaced by a fixed token, in the printed text and in the
page alike (``normalised``), and nothing else is:

* the rehearsal API server's loopback port: ``https://127.0.0.1:<port>``;
* a UTC time in RFC 3339 form (``2026-11-29T15:36:32Z``): ``<time>``;
* the five characters the cluster makes up at the end of a name: a pod's after its ``generateName`` (random) and a
  Kueue Workload's (a hash of its job's UID): ``<suffix>``, as read from the cluster's own pods and Workloads.

Every fault is undone before the test returns, and doctor is healthy again: the other doctor tests share the
cluster."""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.helm_releases import Releases, installed
from trainstack import cli, launch
from trainstack.doctor.aws_reads import READS
from trainstack.doctor.planned_releases import PlannedRelease, planned_releases
from trainstack.doctor.run import doctor
from trainstack.kube.client import Cluster
from trainstack.outputs import parse_outputs
from trainstack.plan import Plan
from trainstack.rehearsal import engines, kwok
from trainstack.rehearsal.cluster import RehearsalCluster
from trainstack.rehearsal.jobs import IMAGE, RenderedJob
from trainstack.rehearsal.submission import delete_job, submit
from trainstack.rehearsal.watch import pods_of

from . import pending_faults
from .conftest import SHARED_REHEARSAL, STACK, settle

pytestmark = [pytest.mark.engines(*engines.REHEARSAL, engines.PULUMI, engines.PULUMI_KUBERNETES), SHARED_REHEARSAL]

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "day-two.md"
HEALTHY, FAULTS = "a healthy rehearsal", "the rehearsal with faults"
SHOWN = re.compile(rf"<!-- output of `(trainstack doctor [^`]+)` on ({HEALTHY}|{FAULTS}): "
                   r"tests/doctor/test_day_two_page.py checks it -->\n```text\n(.*?)```", re.S)
POLICY = re.compile(r"<!-- the calls of doctor --aws: tests/doctor/test_day_two_page.py checks them -->\n"
                    r"```json\n(.*?)```", re.S)
ELIDED = "..."
KUBECONFIG = "kubeconfig.yaml"
"""The kubeconfig the page's commands name; the test gives the rehearsal's in its place."""
PORT = re.compile(r"(https://127\.0\.0\.1:)\d+")
TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b")
SUFFIX = "<suffix>"
SUFFIX_LENGTH = 5
"""A generated name ends in 5 random characters (kubernetes/apiserver v0.35.0 pkg/storage/names/generate.go,
randomLength), a Kueue Workload's in 5 hex digits of a hash of its job's UID (kubernetes-sigs/kueue v0.19.2
pkg/controller/jobframework/workload_names.go, hashLength)."""
WORKLOAD_API = "kueue.x-k8s.io/v1beta2"
XID_79 = {"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaXID79Error",
          "message": "Xid 79: GPU has fallen off the bus"}
"""The agent's condition for NVIDIA's Xid 79 (aws/eks-node-monitoring-agent v1.7.0 pkg/conditions/conditions.go,
pkg/reasons/reasons.yaml)."""
SOCKETS = (Path(__file__).resolve().parent / "nccl_socket.log").read_text().splitlines()
SICK_NODE, OFF_PIN = "p5-13", "0.19.0"


def shown_outputs(page: str) -> list[tuple[str, str, list[str]]]:
    """Each output the page shows: its command, on which rehearsal, and its lines."""
    return [(command, case, text.splitlines()) for command, case, text in SHOWN.findall(page)]


def normalised(text: str, made_up: Mapping[str, str]) -> str:
    """``text`` with the port, the times and the names in ``made_up`` (each to its tokened form) replaced."""
    text = TIME.sub("<time>", PORT.sub(r"\1<port>", text))
    for name in sorted(made_up, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", made_up[name], text)
    return text


def first_not_printed(printed: str, shown: list[str]) -> str | None:
    """The first shown line that is not a whole line of ``printed`` after the lines matched before it (trailing
    spaces aside); None when every one is, in order."""
    lines = iter(line.rstrip() for line in printed.splitlines())
    for wanted in shown:
        if wanted != ELIDED and not any(line == wanted.rstrip() for line in lines):
            return wanted
    return None


def made_up_names(cluster: Cluster) -> dict[str, str]:
    """Each name the cluster made up, to its form with ``SUFFIX``: pods named from their ``generateName`` and Kueue's
    Workloads."""
    names: dict[str, str] = {}
    for pod in cluster.list("v1", "Pod"):
        prefix, name = pod["metadata"].get("generateName"), pod["metadata"]["name"]
        if prefix and name.startswith(prefix) and len(name) == len(prefix) + SUFFIX_LENGTH:
            names[name] = prefix + SUFFIX
    for workload in cluster.list(WORKLOAD_API, "Workload"):
        name = workload["metadata"]["name"]
        if re.fullmatch(rf".+-[0-9a-f]{{{SUFFIX_LENGTH}}}", name):
            names[name] = name[:-SUFFIX_LENGTH] + SUFFIX
    return names


def _page_commands(case: str) -> list[tuple[str, list[str]]]:
    shown = [(command, lines) for command, on, lines in shown_outputs(PAGE.read_text(encoding="utf-8")) if on == case]
    assert shown, f"docs/day-two.md shows no output of doctor on {case}"
    return shown


def _run(capsys: pytest.CaptureFixture[str], command: str, kubeconfig: Path) -> tuple[int, str, str]:
    """``command`` as the page writes it, with the rehearsal's kubeconfig for ``KUBECONFIG`` and the repository as
    the project (kueue-p5 is a shipped stack)."""
    words = shlex.split(command)
    assert words[:2] == ["trainstack", "doctor"] and KUBECONFIG in words, command
    argv = [str(kubeconfig) if word == KUBECONFIG else word for word in words[1:]]
    code = cli.main([*argv, "--cwd", str(REPO)])
    out, err = capsys.readouterr()
    return code, out, err


def _check_page(case: str, printed: Mapping[str, str], made_up: Mapping[str, str]) -> None:
    """Each output the page shows on ``case`` against what its command printed; every one that differs said."""
    wrong = []
    for command, shown in _page_commands(case):
        said = normalised(printed[command], made_up)
        missing = first_not_printed(said, [normalised(line, made_up) for line in shown])
        if missing is not None:
            wrong.append(f"in the output of `{command}`, doctor did not print this line (or not in that order):\n"
                         f"{missing}\n\ndoctor printed, normalised:\n{said}")
    assert not wrong, f"docs/day-two.md on {case}:\n" + "\n\n".join(wrong)


def _daemonsets_ready(cluster: Cluster, releases: list[PlannedRelease]) -> bool:
    """Every DaemonSet Helm installed for ``releases`` has its current spec's pod Ready on each node it selects."""
    names = {release.name for release in releases}
    found = [d for d in cluster.list("apps/v1", "DaemonSet")
             if (d["metadata"].get("annotations") or {}).get("meta.helm.sh/release-name") in names]
    return bool(found) and all(
        (d.get("status") or {}).get("observedGeneration") == d["metadata"]["generation"]
        and 0 < d["status"].get("desiredNumberScheduled", 0) == d["status"].get("numberReady")
        == d["status"].get("updatedNumberScheduled") for d in found)


@pytest.fixture(scope="module")
def releases(kueue_p5: RehearsalCluster, kueue_p5_plan: Plan,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Releases]:
    planned = planned_releases(kueue_p5_plan)
    with installed(kueue_p5.plane.kubeconfig, tmp_path_factory.mktemp("day-two-releases"), planned,
                   progress=lambda line: None) as deployed:
        kueue_p5.cluster.wait_for("the releases' DaemonSets rolled out",
                                  lambda: _daemonsets_ready(kueue_p5.cluster, planned), timeout=120)
        yield deployed


@contextlib.contextmanager
def gpu_off_the_bus(cluster: Cluster, name: str) -> Iterator[None]:
    """The node monitoring agent's condition for Xid 79 on node ``name``, written as the agent writes it; taken out
    the same way on leaving."""
    def report(condition: dict[str, str] | None) -> None:
        node = cluster.get(f"/api/v1/nodes/{name}")
        conditions = [c for c in node["status"]["conditions"] if c["type"] != XID_79["type"]]
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if condition is not None:
            conditions.append({**condition, "lastHeartbeatTime": now, "lastTransitionTime": now})
        cluster.patch_status(node, {"conditions": conditions})

    report(XID_79)
    try:
        yield
    finally:
        report(None)


@contextlib.contextmanager
def chart_off_its_pin(cluster: Cluster, releases: Releases, plan: Plan, chart: str, version: str) -> Iterator[None]:
    """``chart``'s release upgraded by Helm to ``version``; back at its pin, rolled out, on leaving."""
    planned = planned_releases(plan)
    (release,) = [r for r in planned if r.chart.rsplit("/", 1)[-1] == chart]
    releases.up(planned, {release.resource: version})
    try:
        yield
    finally:
        releases.up(planned)
        cluster.wait_for("the releases back at their pins, rolled out", lambda: _daemonsets_ready(cluster, planned),
                         timeout=120)


@contextlib.contextmanager
def job_over_sockets(running: RehearsalCluster, plan: Plan, team: str, name: str) -> Iterator[None]:
    """``team``'s 2-node TrainJob on p5, running, its rank 0 log NCCL's choice of TCP sockets; deleted on leaving."""
    outputs = parse_outputs(plan.outputs)
    document = launch.render_trainjob(outputs, name=name, group_name="p5", nodes=2, image=IMAGE,
                                      command=["torchrun", "train.py"], queue=launch.QueueRequest(team=team))
    try:
        result = submit(running.cluster, running.nodes, RenderedJob(outputs.stack, "render_trainjob", "p5", 2,
                                                                    document), timeout=180, progress=lambda line: None)
        assert result.seen.running_whole, result.problem
        # Rank 0 is the node Job's pod of completion index 0 (Trainer's torch plugin: its node rank).
        (rank_zero,) = [pod for pod in pods_of(running.cluster, "TrainJob", name, team)
                        if pod["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") == "0"]
        with kwok.container_log(running.plane, rank_zero, "node", SOCKETS):
            yield
    finally:
        delete_job(running.cluster, document)


def test_the_page_shows_what_doctor_prints_on_a_healthy_cluster(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases,
        capsys: pytest.CaptureFixture[str]) -> None:
    settle(kueue_p5.cluster)
    printed: dict[str, str] = {}
    for command, _ in _page_commands(HEALTHY):
        code, out, err = _run(capsys, command, kueue_p5.plane.kubeconfig)
        assert (code, err) == (0, ""), (command, out, err)
        printed[command] = out
    _check_page(HEALTHY, printed, made_up_names(kueue_p5.cluster))


def test_the_page_shows_what_doctor_prints_on_a_cluster_with_faults(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases,
        capsys: pytest.CaptureFixture[str]) -> None:
    cluster = kueue_p5.cluster
    settle(cluster)
    printed: dict[str, str] = {}
    with contextlib.ExitStack() as faults:
        faults.enter_context(gpu_off_the_bus(cluster, SICK_NODE))
        faults.enter_context(chart_off_its_pin(cluster, releases, kueue_p5_plan, "nvidia-device-plugin", OFF_PIN))
        faults.enter_context(job_over_sockets(kueue_p5, kueue_p5_plan, "vision", "pretrain"))
        faults.enter_context(pending_faults.short_now(cluster))
        for command, _ in _page_commands(FAULTS):
            code, out, err = _run(capsys, command, kueue_p5.plane.kubeconfig)
            assert code == 1 and err.startswith(f"error: doctor of stack {STACK}: unhealthy: "), (command, out, err)
            printed[command] = out
        made_up = made_up_names(cluster)
    cluster.wait_for("doctor healthy again, every fault undone",
                     lambda: doctor(kueue_p5_plan, cluster).healthy, timeout=120)
    _check_page(FAULTS, printed, made_up)


def test_a_shown_line_doctor_did_not_print_is_caught_and_made_up_parts_are_tokens() -> None:
    printed = ("Doctor of stack s through https://127.0.0.1:40123 (cluster)\n\n"
               "cluster: node a: found X since 2026-11-29T15:36:32Z; pod job-x-4f2a1 on pretrain-node-0-0-rwf7f\n")
    made_up = {"job-x-4f2a1": "job-x-<suffix>", "pretrain-node-0-0-rwf7f": "pretrain-node-0-0-<suffix>"}
    shown = ["Doctor of stack s through https://127.0.0.1:<port> (cluster)", ELIDED,
             "cluster: node a: found X since <time>; pod job-x-<suffix> on pretrain-node-0-0-<suffix>"]
    assert first_not_printed(normalised(printed, made_up), shown) is None
    assert first_not_printed(normalised(printed, made_up), shown[::-1]) == shown[0]  # out of order
    assert first_not_printed(normalised(printed, made_up), ["cluster: node b"]) == "cluster: node b"
    assert normalised("job-x-4f2a1b", made_up) == "job-x-4f2a1b"  # only a whole name is replaced


def test_the_pages_iam_policy_allows_exactly_the_calls_doctor_aws_makes() -> None:
    (policy,) = POLICY.findall(PAGE.read_text(encoding="utf-8"))
    (statement,) = json.loads(policy)["Statement"]
    assert (statement["Effect"], statement["Resource"]) == ("Allow", "*")
    assert sorted(statement["Action"]) == sorted(READS)
