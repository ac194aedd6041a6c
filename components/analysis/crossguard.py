"""The controller models as CrossGuard stack policies, so that ``pulumi preview --policy-pack policies`` gives
the verdict ``trainstack plan`` gives in its controllers section.

One policy per model of ``controllers.STACK_MODELS``, named ``controller-<controller>``, rather than one for
all: what the engine hands a pack lets some models judge everything and others only part or nothing, and the
engine hears that per policy (``PolicyNotApplicable``); a deployer can also set one model advisory or off by
its name in the policy pack config. Each reports its model's errors, mandatory by default, with the line
``trainstack plan`` prints (``str(Finding)``), against the finding's resource where it names one, else the
stack. Warnings go to one advisory policy, ``controller-warnings``, since a policy has one enforcement level.

The models run over what the engine hands ``AnalyzeStack``: every resource's outputs
(pulumi/pkg/resource/deploy/step_generator.go, ``AnalyzeResources``), the root ``pulumi:pulumi:Stack``
among them carrying the stack's outputs. Where that falls short of the plan record, the policy says so
through ``not_applicable`` (after any findings it could still report):

* ``cluster-autoscaler`` and ``kueue`` judge the pods and queues of the outputs contract, read from the root
  stack's ``trainstack`` output: not judged while it is missing or holds a value the preview does not know yet.
* ``versions`` and ``cluster-controllers`` read the directory a ``kustomize/v2:Directory`` was built from,
  which the engine does not hand over (``controllers.cluster_controllers.kustomization``): those operators
  are left out, and said to be.
* ``cluster-controllers`` also reads the HyperPod dependencies chart install the program prints (a warning;
  the engine hands a pack no diagnostics): on a stack with HyperPod on EKS, the chart is left out, and said to be.
* ``eks-nodegroup-update`` and ``hyperpod-eks`` read resources only, and judge everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from pulumi_policy import EnforcementLevel, StackValidationArgs, StackValidationPolicy

from ..controllers import STACK_MODELS, Finding, Rendered, cluster_autoscaler, cluster_controllers, kueue, versions
from ..controllers.cluster_controllers import kustomization
from ..names import HYPERPOD_CLUSTER, KUSTOMIZE_DIRECTORY, ROOT_STACK
from ..outputs import OUTPUT_NAME, ContractError, StackOutputs, parse_outputs
from ..policy import Stack, stack_from_crossguard
from ..policy.crossguard import not_applicable
from ..policy.model import UNKNOWN
from .planning import whole_node_claim_templates, whole_node_pods

Model = Callable[[Rendered], list[Finding]]
PREFIX = "controller-"
WARNINGS = f"{PREFIX}warnings"
NOT_JUDGED = "not judged under the engine"
IN_PART = "judged in part under the engine"
KUSTOMIZE_SOURCE = ("pulumi-kubernetes provider/pkg/provider/kustomize/v2/directory.go: the component's state "
                    "is its 'resources' alone")


@dataclass(frozen=True)
class Contract:
    """The outputs contract the engine handed over, or why there is none to judge by."""

    outputs: Optional[StackOutputs]
    problem: Optional[str]


def contract(stack: Stack) -> Contract:
    """The ``trainstack`` output of the root stack resource, parsed as ``trainstack plan`` parses the plan's."""
    root = next(iter(stack.of_type(ROOT_STACK)), None)
    if root is None:
        return Contract(None, f"the engine handed over no {ROOT_STACK} resource, whose outputs hold the contract")
    value = root.props.get(OUTPUT_NAME)
    if value is None:
        return Contract(None, f"the stack exports no '{OUTPUT_NAME}' output (the outputs contract, which "
                              "TrainingStack.export_outputs exports)")
    unknown = unknown_paths(value, OUTPUT_NAME)
    if unknown:
        shown = ", ".join(unknown[:3]) + (f" and {len(unknown) - 3} more" if len(unknown) > 3 else "")
        return Contract(None, f"the outputs contract is not known yet in this preview ({shown}): the engine "
                              "learns it as it deploys; `pulumi up` judges it, as does `trainstack plan`")
    try:
        return Contract(parse_outputs({OUTPUT_NAME: value}), None)
    except ContractError as error:
        return Contract(None, f"the outputs contract cannot be read: {error}")


def unknown_paths(value: Any, path: str) -> list[str]:
    """Where ``value`` holds a value the preview does not know (``crossguard_value`` marks them)."""
    if value == UNKNOWN:
        return [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in unknown_paths(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in unknown_paths(item, f"{path}[{index}]")]
    return []


def unseen_kustomizations(stack: Stack) -> Optional[str]:
    names = sorted(r.name for r in stack.of_type(KUSTOMIZE_DIRECTORY) if kustomization(r) is None)
    if not names:
        return None
    return (f"the operators installed by kustomization {', '.join(names)} are left out: the engine hands a "
            f"policy pack no directory they were built from ({KUSTOMIZE_SOURCE}); `trainstack plan` judges them")


def unseen_printed_chart(stack: Stack) -> Optional[str]:
    if not any("eks" in (r.props.get("orchestrator") or {}) for r in stack.of_type(HYPERPOD_CLUSTER)):
        return None
    return ("the HyperPod dependencies chart the program prints for you to install is left out: the engine hands "
            "a policy pack no diagnostics; `trainstack plan` judges its controllers beside the stack's")


def gaps(controller: str, stack: Stack, found: Contract) -> tuple[list[str], list[str]]:
    """(why the model cannot judge at all, what it leaves out) for ``controller`` on what the engine handed over."""
    total: list[str] = []
    if controller in (cluster_autoscaler.CONTROLLER, kueue.CONTROLLER) and found.problem is not None:
        total.append(found.problem)
    partial: list[Optional[str]] = []
    if controller in (versions.CONTROLLER, cluster_controllers.CONTROLLER):
        partial.append(unseen_kustomizations(stack))
    if controller == cluster_controllers.CONTROLLER:
        partial.append(unseen_printed_chart(stack))
    return total, [p for p in partial if p is not None]


def judge(controller: str, model: Model, args: StackValidationArgs) -> tuple[list[Finding], Optional[str]]:
    """The model's findings on what the engine handed over, and the not-applicable reason if any."""
    stack = stack_from_crossguard(args)
    found = contract(stack)
    total, partial = gaps(controller, stack, found)
    if total:
        return [], f"{NOT_JUDGED}: {'; '.join(total)}"
    pods = whole_node_pods(found.outputs) if found.outputs is not None else {}
    findings = model(Rendered(stack, [*pods.items(), *whole_node_claim_templates(found.outputs)], found.outputs))
    return findings, f"{IN_PART}: {'; '.join(partial)}" if partial else None


def model_policy(controller: str, model: Model) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
        findings, reason = judge(controller, model, args)
        for finding in findings:
            if finding.severity == "error":
                report_violation(str(finding), finding.urn)
        if reason is not None:
            not_applicable(args, reason)

    return StackValidationPolicy(
        name=f"{PREFIX}{controller}", validate=validate, enforcement_level=EnforcementLevel.MANDATORY,
        description=f"The {controller} controller model (trainstack.controllers) finds no error: what "
                    "`trainstack plan` reports in its controllers section.", tags=["controllers"])


def warnings_policy(models: Mapping[str, Model]) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
        reasons = []
        for controller, model in models.items():
            findings, reason = judge(controller, model, args)
            for finding in findings:
                if finding.severity == "warning":
                    report_violation(str(finding), finding.urn)
            if reason is not None:
                reasons.append(f"{controller}: {reason}")
        if reasons:
            not_applicable(args, f"{IN_PART}: " + " | ".join(reasons))

    return StackValidationPolicy(
        name=WARNINGS, validate=validate, enforcement_level=EnforcementLevel.ADVISORY,
        description="The controller models' warnings (trainstack.controllers): what a controller would do "
                    "that does not stop the stack, as `trainstack plan` lists them.", tags=["controllers"])


def policies(models: Optional[Mapping[str, Model]] = None) -> list[StackValidationPolicy]:
    """One mandatory policy per stack-level controller model, then the advisory one for their warnings."""
    served = STACK_MODELS if models is None else models
    return [*(model_policy(controller, model) for controller, model in served.items()), warnings_policy(served)]
