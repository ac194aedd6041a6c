"""Doctor's fabric section judges what it reads: the pods of the jobs the launchers render for kueue-p5 (as their
controllers make them, support/operator_pods.py), NCCL's start-up lines in rank 0's log, and the validation
programs' own verdicts (device_check.sh run for real, all_reduce.py's ``report``).

The two NCCL logs beside this file are rank 0's pod of a two-node p5 job, written from the format strings of NCCL
v2.28.9-1 (src/init.cc ``Using network``, src/transport/net_socket.cc, src/plugin/net.cc, src/transport/net.cc's
channel lines) and aws-ofi-nccl v1.19.2 (src/nccl_ofi_net.cpp): one with aws-ofi-nccl missing, so NCCL falls back
to TCP sockets, and one over aws-ofi-nccl's Libfabric with the efa provider and GPUDirect RDMA."""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.operator_pods import pods_of
from trainstack import launch
from trainstack.doctor.fabric import efa_interfaces, judge_running
from trainstack.doctor.fabric_pods import ALL_REDUCE, DEVICE_CHECK, TRAINING, Job, jobs_of, rank_container
from trainstack.doctor.fabric_verdicts import failing_lines, judge_all_reduce, judge_device_check, latest_validations
from trainstack.launch.programs.all_reduce import PASS, TOO_SLOW, WRONG_TRANSPORT, report
from trainstack.launch.validation import all_reduce_floor
from trainstack.outputs import AcceleratedGroup, StackOutputs, parse_outputs
from trainstack.plan import Plan
from trainstack.rehearsal.jobs import IMAGE

HERE = Path(__file__).resolve().parent
SOCKETS, OFI_EFA = (HERE / "nccl_socket.log").read_text(), (HERE / "nccl_ofi_efa.log").read_text()
TEAM = launch.QueueRequest(team="llm")


@pytest.fixture(scope="module")
def outputs(kueue_p5_plan: Plan) -> StackOutputs:
    return parse_outputs(kueue_p5_plan.outputs)


@pytest.fixture(scope="module")
def p5(outputs: StackOutputs) -> AcceleratedGroup:
    return outputs.accelerated_groups["p5"]


def running(document: dict[str, Any], *, finished: int | None = None, at: str = "2026-12-01T10:00:00Z") -> list[dict]:
    """The pods the job's controller makes, each bound to its own node and Running (or ended with ``finished``)."""
    pods = pods_of(document)
    for index, pod in enumerate(pods):
        pod["spec"]["nodeName"] = f"p5-{index}"
        pod["metadata"]["uid"] = f"{pod['metadata']['name']}-uid"
        if finished is None:
            pod["status"] = {"phase": "Running"}
        else:
            pod["status"] = {"phase": "Succeeded" if finished == 0 else "Failed", "containerStatuses": [
                {"name": c["name"], "state": {"terminated": {"exitCode": finished, "finishedAt": at}}}
                for c in pod["spec"]["containers"]]}
    return pods


def the_job(outputs: StackOutputs, pods: list[dict]) -> Job:
    (job,) = jobs_of(pods, outputs.accelerated_groups)
    return job


def trainjob(outputs: StackOutputs, nodes: int = 2, name: str = "p5-2") -> dict[str, Any]:
    return launch.render_trainjob(outputs, name=name, group_name="p5", nodes=nodes, image=IMAGE,
                                  command=["torchrun", "train.py"], queue=TEAM)


def test_a_two_node_job_on_sockets_is_a_finding_that_names_it_its_rank_0_pod_and_the_fix(outputs, p5):
    job = the_job(outputs, running(trainjob(outputs)))
    (finding,) = judge_running(job, p5, SOCKETS)
    assert finding.section == "fabric" and finding.subject == "job llm/p5-2 on node group p5"
    assert "NCCL network Socket" in finding.actual and "pod p5-2-node-0-0 on node p5-0" in finding.actual
    assert "aws-ofi-nccl" in finding.expected and "provider efa" in finding.expected
    assert "FI_PROVIDER=efa" in finding.fix and "kubectl get node p5-0" in finding.fix
    assert "trainstack launch all-reduce --group p5 --nodes 2" in finding.fix


def test_a_job_over_aws_ofi_nccl_with_the_efa_provider_and_gpudirect_rdma_is_no_finding(outputs, p5):
    assert judge_running(the_job(outputs, running(trainjob(outputs))), p5, OFI_EFA) == []


def test_efa_without_gpudirect_rdma_on_a_p5_is_a_finding(outputs, p5):
    staged = OFI_EFA.replace("/GDRDMA", "")
    (finding,) = judge_running(the_job(outputs, running(trainjob(outputs))), p5, staged)
    assert "GPUDirect RDMA on every connection" in finding.expected and "without GPUDirect RDMA" in finding.fix


def test_one_node_on_nvlink_alone_is_no_finding_even_with_nccls_socket_network_loaded(outputs, p5):
    within = "\n".join(line for line in SOCKETS.splitlines() if "via NET/" not in line)
    assert judge_running(the_job(outputs, running(trainjob(outputs, nodes=1, name="p5-1"))), p5, within) == []


def test_a_log_naming_no_network_asks_for_nccl_debug_unless_the_pods_set_it(outputs, p5):
    """The launchers set NCCL_DEBUG=INFO (catalog.fabric_env): a quiet log from their pods is the image's doing and
    no finding. A pod without it (a job rendered elsewhere, or the variable taken out) is asked to set it."""
    quiet = "\n".join(line for line in SOCKETS.splitlines() if "NCCL INFO" not in line)
    pods = running(trainjob(outputs))
    assert all({"name": "NCCL_DEBUG", "value": "INFO"} in pod["spec"]["containers"][0]["env"] for pod in pods)
    assert judge_running(the_job(outputs, pods), p5, quiet) == []
    for pod in pods:
        container = pod["spec"]["containers"][0]
        container["env"] = [variable for variable in container["env"] if variable["name"] != "NCCL_DEBUG"]
    (finding,) = judge_running(the_job(outputs, pods), p5, quiet)
    assert "NCCL_DEBUG=INFO" in finding.fix and "kubectl -n llm logs p5-2-node-0-0" in finding.fix


def test_a_log_that_could_not_be_read_says_nothing_of_the_transport(outputs, p5):
    assert judge_running(the_job(outputs, running(trainjob(outputs))), p5, None) == []


def test_the_launchers_pods_request_every_efa_interface_of_the_catalogs_layout(outputs, p5):
    assert efa_interfaces(p5) == 32 == p5.efa_interfaces_per_node
    assert judge_running(the_job(outputs, running(trainjob(outputs))), p5, None) == []


def test_a_pod_that_requests_fewer_efa_interfaces_is_a_finding(outputs, p5):
    pods = running(trainjob(outputs))
    for wanted in pods[1]["spec"]["containers"][0]["resources"].values():
        wanted.pop("vpc.amazonaws.com/efa")
    (finding,) = judge_running(the_job(outputs, pods), p5, OFI_EFA)
    assert finding.actual == "1 of 2 pods request fewer: p5-2-node-0-1 requests 0"
    assert "all 32 EFA interfaces of a p5.48xlarge" in finding.expected


def test_rank_0_is_the_first_node_pod_of_a_trainjob_and_the_master_of_a_pytorchjob(outputs):
    pods = running(trainjob(outputs, nodes=3, name="p5-3"))
    assert the_job(outputs, list(reversed(pods))).rank_zero["metadata"]["name"] == "p5-3-node-0-0"
    master, worker = pods[:2]
    master["metadata"]["labels"].update({"training.kubeflow.org/job-name": "x", "training.kubeflow.org/replica-type":
                                         "master", "training.kubeflow.org/replica-index": "0"})
    worker["metadata"]["labels"].update({"training.kubeflow.org/job-name": "x", "training.kubeflow.org/replica-type":
                                         "worker", "training.kubeflow.org/replica-index": "0"})
    master["metadata"]["name"] = "x-master-0"
    assert the_job(outputs, [worker, master]).rank_zero["metadata"]["name"] == "x-master-0"
    assert rank_container(master, "nvidia.com/gpu") == "node"


def test_only_pods_of_a_job_on_a_group_of_the_plan_are_judged(outputs):
    pods = running(trainjob(outputs))
    stray = copy.deepcopy(pods[0])
    stray["spec"]["nodeSelector"]["trainstack.io/node-group"] = "not-in-the-plan"
    bare = copy.deepcopy(pods[0])
    bare["metadata"]["labels"] = {}
    assert jobs_of([stray, bare], outputs.accelerated_groups) == []


def test_the_kind_of_a_job_is_read_from_the_program_its_pods_run(outputs):
    check = launch.render_device_check(outputs, name="check", group_name="p5", nodes=2, image=IMAGE, queue=TEAM)
    reduce = launch.render_all_reduce(outputs, name="ar", group_name="p5", nodes=2, image=IMAGE, queue=TEAM)
    assert [the_job(outputs, running(d)).kind for d in (check, reduce, trainjob(outputs))] == [
        DEVICE_CHECK, ALL_REDUCE, TRAINING]


def all_reduce_line(outputs: StackOutputs, measured: float, code: int, transport: str, problem: str = "") -> str:
    floor = all_reduce_floor(outputs, group_name="p5", nodes=2)
    return report(measured, floor.gbps, floor.expected_gbps, floor.basis, 16, 2, code, transport, problem or None)


def test_an_all_reduce_below_its_floor_is_a_finding_with_its_figure_and_floor(outputs):
    job = the_job(outputs, running(launch.render_all_reduce(outputs, name="ar", group_name="p5", nodes=2,
                                                            image=IMAGE, queue=TEAM), finished=1))
    line = all_reduce_line(outputs, 210.4, TOO_SLOW, "NCCL network Libfabric, provider efa, 64 connection(s) over it")
    (finding,) = judge_all_reduce(job, {"ar-node-0-0": f"torchrun says hello\n{line}\n"})
    assert finding.subject == "all-reduce llm/ar on node group p5"
    assert "floor of 1600 Gbit/s over 16 GPUs" in finding.expected
    assert finding.actual.startswith("210.4 Gbit/s on 2 node(s)") and finding.actual.endswith("FAIL: below the floor")
    assert "trainstack launch device-check --group p5 --nodes 2" in finding.fix


def test_an_all_reduce_on_the_wrong_transport_says_so_and_a_pass_is_no_finding(outputs):
    job = the_job(outputs, running(launch.render_all_reduce(outputs, name="ar", group_name="p5", nodes=2,
                                                            image=IMAGE, queue=TEAM), finished=1))
    wrong = all_reduce_line(outputs, 24.8, WRONG_TRANSPORT, "NCCL network Socket, 64 connection(s) over it",
                            "NCCL used its Socket network, not aws-ofi-nccl over EFA")
    (finding,) = judge_all_reduce(job, {"ar-node-0-0": wrong})
    assert "FAIL: wrong transport: NCCL used its Socket network" in finding.actual and "aws-ofi-nccl" in finding.fix
    passed = all_reduce_line(outputs, 2600.0, PASS, "NCCL network Libfabric, provider efa")
    assert judge_all_reduce(job, {"ar-node-0-0": passed}) == []


def test_an_all_reduce_that_failed_without_a_verdict_line_is_a_finding_and_one_that_succeeded_is_not(outputs):
    document = launch.render_all_reduce(outputs, name="ar", group_name="p5", nodes=2, image=IMAGE, queue=TEAM)
    (finding,) = judge_all_reduce(the_job(outputs, running(document, finished=137)), {"ar-node-0-0": None})
    assert "exit code 137" in finding.actual and "floor of 1600 Gbit/s" in finding.expected
    assert judge_all_reduce(the_job(outputs, running(document, finished=0)), {"ar-node-0-0": None}) == []


def device_check_run(command: list[str], tmp_path: Path, efa_devices: int) -> subprocess.CompletedProcess[str]:
    """The rendered device check's command, run as its pod would on a p5 with eight GPUs and ``efa_devices``."""
    bin_dir, efa_dir = tmp_path / "bin", tmp_path / "infiniband"
    bin_dir.mkdir()
    efa_dir.mkdir()
    for index in range(efa_devices):
        (efa_dir / f"uverbs{index}").touch()
    smi = bin_dir / "nvidia-smi"
    smi.write_text('#!/bin/sh\nfor i in 0 1 2 3 4 5 6 7; do\n  if [ "$1" = --query-gpu=index ]; then echo $i; '
                   'else echo "$i, Completed, Success"; fi\ndone\n')
    smi.chmod(0o755)
    (tmp_path / "meminfo").write_text("MemTotal:       2097152000 kB\n")
    script = "ulimit() { echo unlimited; }\n" + command[2]
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "EFA_DEVICE_DIR": str(efa_dir),
           "MEMINFO": str(tmp_path / "meminfo")}
    return subprocess.run([command[0], command[1], script, *command[3:]], capture_output=True, text=True, env=env)


def test_a_device_check_whose_pod_saw_no_efa_device_is_a_finding_quoting_its_line(outputs, tmp_path):
    document = launch.render_device_check(outputs, name="check", group_name="p5", nodes=2, image=IMAGE, queue=TEAM)
    command = document["spec"]["template"]["spec"]["containers"][0]["command"]
    ran = device_check_run(command, tmp_path, efa_devices=0)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    job = the_job(outputs, running(document, finished=ran.returncode))
    (finding,) = judge_device_check(job, {job.pods[0]["metadata"]["name"]: ran.stdout})
    assert finding.subject == "device check llm/check on node group p5"
    assert "8 nvidia-gpu accelerators and 32 EFA devices" in finding.expected
    assert "2 of 2 pods failed" in finding.actual and "EFA devices: 0 of 32: EFA ABSENT" in finding.actual
    assert "accelerators" not in finding.actual and "kubectl cordon p5-0" in finding.fix


def test_a_device_check_that_passed_is_no_finding_and_its_log_lines_name_no_failure(outputs, tmp_path):
    document = launch.render_device_check(outputs, name="check", group_name="p5", nodes=2, image=IMAGE, queue=TEAM)
    ran = device_check_run(document["spec"]["template"]["spec"]["containers"][0]["command"], tmp_path, 32)
    assert ran.returncode == 0 and "device check: PASS" in ran.stdout, ran.stdout
    assert failing_lines(ran.stdout) == []
    assert judge_device_check(the_job(outputs, running(document, finished=0)), {}) == []


def test_the_last_validation_job_of_each_group_and_kind_is_the_one_that_finished_last(outputs):
    def check(name: str, at: str) -> Job:
        return the_job(outputs, running(launch.render_device_check(outputs, name=name, group_name="p5", nodes=1,
                                                                   image=IMAGE, queue=TEAM), finished=0, at=at))
    earlier, later = check("monday", "2026-11-30T09:00:00Z"), check("tuesday", "2026-12-01T09:00:00Z")
    training = the_job(outputs, running(trainjob(outputs), finished=0))
    assert [job.name for job in latest_validations([later, earlier, training])] == ["tuesday"]
