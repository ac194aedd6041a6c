"""The plan says, per EFA group, the 2 MiB huge pages its pods request of each node, and how to check running
nodes offer them (the record's ``efaHugePages`` section): the figure is the launchers' own, and the command it
names is one the CLI runs."""

import shlex

from support.rendered_jobs import outputs_for, planned_record, variant_record
from trainstack.analysis.planning import NODE_CHECK_COMMAND
from trainstack.catalog import HUGEPAGES_RESOURCE
from trainstack.cli import commands
from trainstack.cli.parser import parser
from trainstack.launch.hyperpod_eks import pod_resources
from trainstack.launch.placement import resources


def test_each_efa_group_is_said_with_what_its_pods_request_and_how_to_check_running_nodes():
    p5 = outputs_for("fsdp-p5").accelerated_groups["p5"]
    request = resources(p5, p5.accelerators_per_node)["requests"][HUGEPAGES_RESOURCE]
    section = planned_record("fsdp-p5")["efaHugePages"]
    assert section["groups"] == {"p5": {"instanceType": "p5.48xlarge", "request": request,
                                        "nodeSelector": {"trainstack.io/node-group": "p5"}}}
    assert f"  pods on p5 (p5.48xlarge) request {request} hugepages-2Mi\n" in section["text"]
    assert "can differ by AMI release (docs/adr/0005-efa-huge-pages.md)" in section["text"]
    assert section["text"].endswith(f"once nodes run, check they offer it: {NODE_CHECK_COMMAND}")


def test_a_hyperpod_eks_instance_group_is_said_too():
    gpu = next(g for g in outputs_for("hyperpod-eks-dev").hyperpod.instance_groups if g.name == "gpu")
    request = pod_resources(gpu, gpu.accelerators_per_node)["requests"][HUGEPAGES_RESOURCE]
    assert variant_record("hyperpod-eks-dev")["efaHugePages"]["groups"]["gpu"]["request"] == request


def test_a_stack_without_an_efa_group_has_no_such_section():
    assert "efaHugePages" not in planned_record("dev")
    assert "efaHugePages" not in variant_record("p5-without-efa")


def test_the_command_the_plan_names_is_the_node_preflight():
    pulumi, trainstack = (shlex.split(part) for part in NODE_CHECK_COMMAND.split("|"))
    assert pulumi == ["pulumi", "stack", "output", "--json", "--show-secrets"]
    assert trainstack[0] == "trainstack"
    assert parser().parse_args(trainstack[1:]).handler is commands.preflight_nodes
