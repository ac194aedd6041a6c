"""A stack planned and analysed: the program run offline, then every estimate and judgement on its record.

The stack's ``trainstack:`` configuration is read and validated once here (the program
validates its own copy as it runs); the IP budget and the policies' stack-wide settings
both come from that one :class:`~trainstack.config.StackConfig`. The results are the
plan's typed :class:`~trainstack.plan.Sections`, in the order the record lists them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Optional

from ..config import StackConfig, validate_stack_config
from ..config.device_wait import DeviceWaitPlan, device_needs, hyperpod_groups_not_waited
from ..config.ip_budget import ip_budget
from ..config.quotas import quota_section
from ..controllers import Rendered, check_stack
from ..controllers import Report as ControllerReport
from ..estimate import critical_path, estimate_cost
from ..estimate.checkpoint import storage_sizing
from ..estimate.cost import CostEstimate
from ..estimate.node_rates import NodeRate, node_rate
from ..estimate.usage import usage_lines
from ..launch.claims import claim_template, is_dra, pod_claims
from ..launch.node_needs import HugePagesNeed, hugepages_needs
from ..launch.placement import pod_placement, resources
from ..launch.queueing import describe_queues
from ..outputs import OUTPUT_NAME, StackOutputs, parse_outputs
from ..plan import Plan, Project, ProjectError, StackSettings, find_project, load_stack, run_plan
from ..policy import stack_from_plan
from .access_table import access_table
from .control_plane import control_plane_sizing
from .policies import judge, policy_config

PolicyConfig = Path | Mapping[str, Any] | None
"""A policy pack configuration on top of the stack's own: a JSON file, or its settings as a mapping."""


@dataclass(frozen=True)
class QueueSummary:
    """The stack's Kueue queues and quotas in words (the ``queues`` section: words only)."""

    key: ClassVar[str] = "queues"
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {}

    def render(self) -> str:
        return self.text


@dataclass(frozen=True)
class HugePagesSummary:
    """What the pods of each EFA group ask of a node in 2 MiB huge pages, and how to check running nodes offer it
    (the ``efaHugePages`` section): the figure the models take a node to offer is the pods' request, while a node
    offers what its AMI reserved (docs/adr/0005-efa-huge-pages.md)."""

    key: ClassVar[str] = "efaHugePages"
    needs: tuple[HugePagesNeed, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"groups": {n.group: {"instanceType": n.instance_type, "request": n.request,
                                     "nodeSelector": n.node_selector} for n in self.needs}}

    def render(self) -> str:
        lines = ["EFA huge pages (hugepages-2Mi; one pod per node, so each node must offer what one pod requests):"]
        lines += [f"  pods on {n.group} ({n.instance_type}) request {n.request} hugepages-2Mi" for n in self.needs]
        lines += ["  a node offers what its AMI reserved at boot, which can differ by AMI release "
                  "(docs/adr/0005-efa-huge-pages.md)", f"  once nodes run, check they offer it: {NODE_CHECK_COMMAND}"]
        return "\n".join(lines)


NODE_CHECK_COMMAND = "pulumi stack output --json --show-secrets | trainstack preflight nodes"
"""The command that checks a deployed stack's running nodes against what its pods request."""


def plan_stack(stack: str = "dev", project: Project | Path | None = None,
               policy_config_file: PolicyConfig = None) -> Plan:
    """``stack`` of ``project`` (a :class:`Project`, or a directory to find ``Pulumi.yaml`` from; default the
    current one) planned offline, with its cost, critical path, IP budget, storage sizing, policies,
    controller models and queues as the plan's sections. Raises ``ConfigError`` (bad configuration),
    ``ProjectError`` (no project or stack) or ``FileProblem`` (a policy config that cannot be used)."""
    if not isinstance(project, Project):
        project = find_project(project if project is not None else Path.cwd())
    settings = load_stack(project, stack)
    _refuse_secret_trainstack_keys(settings)
    plan = run_plan(project, stack, settings)
    config = stack_config(settings)
    sections = plan.sections
    policies = policy_config(config, policy_config_file)
    cost = estimate_cost(plan)
    cost.max_monthly_increase_usd = config.cost.max_monthly_increase_usd if config is not None else None
    if config is not None and config.usage is not None:
        cost.usage = usage_lines(config.usage.model_dump(by_alias=True, exclude_none=True), cost.region)
    sections.cost = cost
    sections.critical_path = critical_path(plan)
    sections.ip_budget = ip_budget(config) if config is not None else None
    sections.storage = storage_sizing(plan)
    sections.policies = judge(plan, policies)
    # The outputs contract, read once for the models' whole-node pods and the queues.
    outputs = parse_outputs(plan.outputs) if isinstance(plan.outputs.get(OUTPUT_NAME), dict) else None
    sections.controllers = controller_models(plan, outputs)
    needs = tuple(hugepages_needs(outputs)) if outputs is not None else ()
    sections.efa_huge_pages = HugePagesSummary(needs) if needs else None
    queues = describe_queues(outputs, queue_cost(outputs, cost)) if outputs is not None else None
    sections.queues = QueueSummary(queues) if queues is not None else None
    sections.access = access_table(plan, config)
    sections.device_wait = device_wait_plan(config)
    sections.quotas = quota_section(config, sections.ip_budget) if config is not None else None
    sections.control_plane = control_plane_sizing(plan, config)
    return plan


def device_wait_plan(config: Optional[StackConfig]) -> Optional[DeviceWaitPlan]:
    """The wait ``trainstack up`` does once deployed, on a stack that sets ``deviceWait``; None elsewhere, so the
    records of the stacks that do not set it are unchanged."""
    if config is None or config.device_wait is None:
        return None
    return DeviceWaitPlan(config.device_wait, tuple(device_needs(config.node_groups)),
                          hyperpod_groups_not_waited(config.hyperpod))


def queue_cost(outputs: StackOutputs, estimate: Optional[CostEstimate] = None) -> Callable[[str, int], str]:
    """A group's nodes priced in words (per hour and per month), for the queues section: at the rate and for the
    hours of the cost estimate's line for the group, so a team's figures and the cost section agree."""

    def cost(group: str, nodes: int) -> str:
        facts = outputs.accelerated_groups.get(group)
        if facts is None:
            return "no price: not an accelerated group of the stack"
        line = estimate.group_line(group) if estimate is not None else None
        if line is not None:
            return NodeRate.of_line(line).said(nodes)
        return node_rate(facts.instance_type, outputs.region, facts.capacity_type).said(nodes)
    return cost


def failed(plan: Plan) -> bool:
    """A mandatory policy failed or a controller model found an error: ``trainstack plan`` exits 1."""
    policies, controllers = plan.sections.policies, plan.sections.controllers
    return bool((policies is not None and policies.as_dict()["mandatoryFailures"])
                or (controllers is not None and controllers.as_dict()["errors"]))


def stack_config(settings: StackSettings) -> Optional[StackConfig]:
    """The stack's validated StackConfig, from its ``trainstack:`` keys (None when it has none)."""
    raw: dict[str, Any] = {}
    for key, value in settings.config.items():
        if key.startswith("trainstack:"):
            try:
                raw[key.split(":", 1)[1]] = json.loads(value)
            except ValueError:
                raw[key.split(":", 1)[1]] = value
    return validate_stack_config(raw) if raw else None


def controller_models(plan: Plan, outputs: Optional[StackOutputs]) -> ControllerReport:
    """The controller models over the plan, judging the pod the EKS launchers render on a whole node of
    each accelerated group."""
    pods = whole_node_pods(outputs) if outputs is not None else {}
    printed = [str(d.get("message", "")) for d in plan.diagnostics]
    return check_stack(Rendered(stack_from_plan(plan), [*pods.items(), *whole_node_claim_templates(outputs)],
                                outputs, printed))


def whole_node_pods(outputs: StackOutputs) -> dict[str, dict[str, Any]]:
    """Per accelerated group, its pods' placement and whole-node requests (and, on a DRA group, its claim),
    from the launchers' own functions."""
    return {f"{name}/whole-node pod": {
        **pod_placement(group), **pod_claims(group, name, group.accelerators_per_node), "containers": [
            {"name": "job", "resources": resources(group, group.accelerators_per_node)}]}
        for name, group in sorted(outputs.accelerated_groups.items())}


def whole_node_claim_templates(outputs: Optional[StackOutputs]) -> list[tuple[str, dict[str, Any]]]:
    """The ResourceClaimTemplates the whole-node pods of DRA groups name (none on device plugins)."""
    groups = sorted(outputs.accelerated_groups.items()) if outputs is not None else []
    return [(f"{name}/claim template", claim_template(group, name, group.accelerators_per_node, None))
            for name, group in groups if is_dra(group)]


def _refuse_secret_trainstack_keys(settings: StackSettings) -> None:
    """The offline plan cannot decrypt ``secure:`` values; trainstack's own keys hold no secrets,
    so an encrypted one would only fail validation with a confusing message."""
    secret = [k for k in settings.secret_keys if k.startswith("trainstack:")]
    if secret:
        raise ProjectError(f"{', '.join(secret)} {'is' if len(secret) == 1 else 'are'} secure: the offline plan "
                           "cannot decrypt it. trainstack keys hold no secrets: keep them in plain text "
                           "(secrets of other namespaces are fine and become placeholders).")
