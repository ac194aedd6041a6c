"""The controller models the CrossGuard pack serves beside the rules, spoken to over gRPC as the engine does.

On every shipped stack the pack reports what ``trainstack plan`` reports in its controllers section: each
error as a mandatory violation of ``controller-<controller>``, with the line the plan prints, against the
resource the finding names. The stack is sent in the engine's shape only (support/engine_shape.py): the
models read what resources computed (a role's ARN, the cluster security group, the stack's outputs), which
the engine hands over as each resource's outputs and the offline shape, inputs alone, does not have.
A stack the controllers would stall fails the preview. What the engine does not hand a pack (the outputs
contract during a preview that does not know it yet, a kustomization's directory, the chart install the
program prints) is said, per policy, as not applicable with the reason, never passed in silence."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable

import pytest
from pulumi_policy import EnforcementLevel, StackValidationArgs
from support.analyzer import LEVEL_OF, PackProcess, Reported, Topology, analyzer_resources, reconcile, reported
from support.engine_shape import engine_shape
from support.policy_stacks import PROJECT
from trainstack.analysis import plan_stack, whole_node_pods
from trainstack.analysis.crossguard import IN_PART, NOT_JUDGED, PREFIX, WARNINGS, policies
from trainstack.controllers import STACK_MODELS, Finding, Rendered, check_stack
from trainstack.outputs import parse_outputs
from trainstack.plan import UNKNOWN_MARK, Plan
from trainstack.policy import Stack, stack_from_plan

SERVED = {*(f"{PREFIX}{controller}" for controller in STACK_MODELS), WARNINGS}
NODE_GROUP, KUSTOMIZE = "aws:eks/nodeGroup:NodeGroup", "kubernetes:kustomize/v2:Directory"
HYPERPOD = "aws-native:sagemaker:Cluster"


@pytest.fixture(scope="module")
def planned() -> dict[str, Plan]:
    """Every shipped stack as ``trainstack plan`` plans and judges it."""
    return {name: plan_stack(name, PROJECT) for name in sorted(PROJECT.stacks())}


def served(pack: PackProcess, plan: Plan, stack: Stack, topology: Topology) -> tuple[list[Reported], dict[str, str]]:
    """One preview's engine calls; the controller policies' violations and their not-applicable reasons."""
    info = pack.info()
    pack.configure_stack(plan.project, plan.stack)
    pack.configure(reconcile(info, {}))
    response = pack.analyze_stack(analyzer_resources(stack, topology))
    found = [f for f in reported(response, {p.name: p.description for p in info.policies}) if f.policy in SERVED]
    return ordered(found), {n.policy_name: n.reason for n in response.not_applicable if n.policy_name in SERVED}


def as_served(findings: Iterable[Finding]) -> list[Reported]:
    """What the pack must report for the plan's findings: errors mandatory, warnings advisory, the same line."""
    return ordered(Reported(f"{PREFIX}{f.controller}" if f.severity == "error" else WARNINGS, f.urn, str(f),
                            "mandatory" if f.severity == "error" else "advisory") for f in findings)


def ordered(found: Iterable[Reported]) -> list[Reported]:
    return sorted(found, key=lambda f: (f.policy, f.urn or "", f.message, f.level))


def offline_verdict(plan: Plan, stack: Stack) -> list[Finding]:
    """``trainstack plan``'s models over ``stack`` (a shipped stack, broken by a test), as the plan runs them."""
    outputs = parse_outputs(plan.outputs)
    printed = [d["message"] for d in plan.diagnostics]
    return list(check_stack(Rendered(stack, list(whole_node_pods(outputs).items()), outputs, printed)).findings)


def judged_in_part(plan: Plan) -> set[str]:
    """The policies that must say what they leave out: under the engine a kustomization's directory is not in
    view; the HyperPod chart install is printed, never handed to a pack."""
    partial = set()
    if plan.by_type(KUSTOMIZE):
        partial |= {f"{PREFIX}versions", f"{PREFIX}cluster-controllers"}
    if any("eks" in (r.inputs.get("orchestrator") or {}) for r in plan.by_type(HYPERPOD)):
        partial.add(f"{PREFIX}cluster-controllers")
    return partial | ({WARNINGS} if partial else set())


def test_the_pack_serves_one_mandatory_policy_per_model_and_an_advisory_one_for_warnings(pack: PackProcess):
    info = pack.info()
    names = [p.name for p in info.policies]
    assert names[-len(SERVED):] == [*(f"{PREFIX}{c}" for c in STACK_MODELS), WARNINGS]
    levels = {p.name: p.enforcementLevel for p in info.policies if p.name in SERVED}
    assert levels == {name: LEVEL_OF["advisory" if name == WARNINGS else "mandatory"] for name in SERVED}


@pytest.mark.parametrize("name", sorted(PROJECT.stacks()))
def test_every_shipped_stack_gets_the_plans_controller_verdict(pack, planned, name):
    plan = planned[name]
    section = plan.sections.controllers
    assert section is not None and list(section.models) == list(STACK_MODELS)

    engine_stack, topology = engine_shape(stack_from_plan(plan), plan)
    found, unjudged = served(pack, plan, engine_stack, topology)
    assert found == as_served(section.findings)
    assert {policy: reason.split(":")[0] for policy, reason in unjudged.items()} == \
        dict.fromkeys(judged_in_part(plan), IN_PART)


def _fewer_nodes_than_the_queues_give(stack: Stack) -> Stack:
    """Every group of kueue-p5 down to minSize 0: its topology-aware group keeps fewer nodes than its queues give
    (tests/controllers/test_kueue.py)."""
    return Stack([dataclasses.replace(r, props={**r.props, "scalingConfig": {**r.props["scalingConfig"], "minSize": 0}})
                  if r.type == NODE_GROUP else r for r in stack.resources])


def _kubelet_four_minors_behind(stack: Stack) -> Stack:
    """dev's first GPU group pinned four Kubernetes minors below the control plane's."""
    cluster = next(r for r in stack.resources if r.type == "eks:index:Cluster").props["version"]
    major, minor = map(int, str(cluster).split(".")[:2])
    group = next(r for r in stack.resources if r.type == NODE_GROUP and not r.name.endswith("-system"))
    return Stack([dataclasses.replace(r, props={**r.props, "version": f"{major}.{minor - 4}"}) if r is group else r
                  for r in stack.resources])


BROKEN = {
    "a topology-aware group keeps fewer nodes than its queues give": ("kueue-p5", _fewer_nodes_than_the_queues_give,
                                                                      "kueue"),
    "a kubelet four minors behind the control plane": ("dev", _kubelet_four_minors_behind, "versions"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_stack_the_controllers_would_stall_fails_the_preview_as_it_fails_the_plan(pack, planned, case):
    name, break_it, controller = BROKEN[case]
    plan = planned[name]
    broken = break_it(stack_from_plan(plan))
    expected = as_served(offline_verdict(plan, broken))
    assert (f"{PREFIX}{controller}", "mandatory") in {(f.policy, f.level) for f in expected}
    assert all(f.urn is not None for f in expected if f.policy == f"{PREFIX}{controller}")

    engine_stack, topology = engine_shape(broken, plan)
    assert served(pack, plan, engine_stack, topology)[0] == expected


def _root_outputs(stack: Stack, outputs: dict) -> Stack:
    return Stack([dataclasses.replace(r, props=outputs) if r.type == "pulumi:pulumi:Stack" else r
                  for r in stack.resources])


def test_a_contract_the_preview_does_not_know_leaves_the_pods_and_queues_unjudged_and_says_why(pack, planned):
    """A preview of a new stack knows the contract's config-made parts but not the cloud's (the cluster's
    endpoint): the autoscaler and Kueue models, which judge the contract's pods and queues, say so."""
    plan = planned["kueue-p5"]
    engine_stack, topology = engine_shape(_fewer_nodes_than_the_queues_give(stack_from_plan(plan)), plan)
    later = copy.deepcopy(plan.outputs["trainstack"])
    later["cluster"]["endpoint"] = UNKNOWN_MARK
    for outputs, words in (({"trainstack": later}, "(trainstack.cluster.endpoint)"),
                           ({"trainstack": UNKNOWN_MARK}, "(trainstack)"),
                           ({}, "exports no 'trainstack' output")):
        found, unjudged = served(pack, plan, _root_outputs(engine_stack, outputs), topology)
        for controller in ("cluster-autoscaler", "kueue"):
            reason = unjudged[f"{PREFIX}{controller}"]
            assert reason.startswith(f"{NOT_JUDGED}: ") and words in reason, reason
        assert not [f for f in found if f.policy in (f"{PREFIX}kueue", f"{PREFIX}cluster-autoscaler")]
    # Known, the same broken stack fails: the reason above is all that stood between it and the error.
    found, unjudged = served(pack, plan, engine_stack, topology)
    assert f"{PREFIX}kueue" in {f.policy for f in found} and f"{PREFIX}kueue" not in unjudged


def test_under_the_engine_the_kustomized_operators_are_said_to_be_left_out(pack, planned):
    plan = planned["dev"]
    engine_stack, topology = engine_shape(stack_from_plan(plan), plan)
    _, unjudged = served(pack, plan, engine_stack, topology)
    names = sorted(r.name for r in plan.by_type(KUSTOMIZE))
    assert names
    for policy in (f"{PREFIX}versions", f"{PREFIX}cluster-controllers"):
        assert all(name in unjudged[policy] for name in names)
        assert "no directory they were built from" in unjudged[policy]


def test_a_models_error_is_mandatory_and_its_warning_advisory_with_the_plans_line():
    def model(rendered: Rendered) -> list[Finding]:
        return [Finding("x", "group g", "stalls.", "src", urn="urn:g"),
                Finding("x", "group g", "slows.", "src", "warning")]

    errors, warnings = policies({"x": model})
    assert (errors.name, errors.enforcement_level) == (f"{PREFIX}x", EnforcementLevel.MANDATORY)
    assert (warnings.name, warnings.enforcement_level) == (WARNINGS, EnforcementLevel.ADVISORY)
    reported_by: dict[str, list[tuple[str | None, str]]] = {errors.name: [], warnings.name: []}
    for policy in (errors, warnings):
        policy.validate(StackValidationArgs([], {}), lambda m, urn=None, p=policy: reported_by[p.name].append((urn, m)))
    assert reported_by == {errors.name: [("urn:g", "x: group g: stalls. (src)")],
                           warnings.name: [(None, "x: group g: slows. (src)")]}
