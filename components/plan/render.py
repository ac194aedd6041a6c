"""Human-readable views of a plan: the resource tree, counts, outputs."""

from __future__ import annotations

import json
from typing import Optional

from .record import Plan, ResourceRecord


def render_text(plan: Plan) -> str:
    counted = len(plan.cloud_resources)
    lines = [f"Offline plan of {plan.project} / {plan.stack}: {counted} resources, and "
             f"{len(plan.resources) - counted} components and providers that group and configure them "
             "(Pulumi mocks; no cloud calls; outputs are realistic placeholders)", ""]
    roots = [r for r in plan.resources if r.parent is None]
    for root in roots:
        lines.append(_label(root))
        _render_children(plan, root.urn, "", lines)
    lines += ["", "Resources by type:"]
    lines += [f"  {count:>4}  {type_token}" for type_token, count in plan.counts().items()]
    if plan.outputs:
        lines += ["", "Stack outputs:"]
        lines += [f"  {key}: {json.dumps(value)}" for key, value in plan.outputs.items()]
    if plan.diagnostics:
        lines += ["", "Diagnostics:"]
        lines += [f"  {d['severity']}: {d['message']}" for d in plan.diagnostics]
    if plan.secret_config_keys:
        lines += ["", "Secret config values were replaced by placeholders: " + ", ".join(plan.secret_config_keys)]
    for section in plan.sections:
        text = section.render()
        if text:
            lines += ["", text]
    return "\n".join(lines)


def _render_children(plan: Plan, urn: str, indent: str, lines: list[str]) -> None:
    children = plan.children(urn)
    for index, child in enumerate(children):
        last = index == len(children) - 1
        lines.append(f"{indent}{'└─ ' if last else '├─ '}{_label(child)}")
        _render_children(plan, child.urn, indent + ("   " if last else "│  "), lines)


def _label(resource: ResourceRecord) -> str:
    marks = []
    if resource.options.protect:
        marks.append("protected")
    if resource.options.retain_on_delete:
        marks.append("retained on delete")
    if resource.options.ignore_changes:
        marks.append("ignores " + ",".join(resource.options.ignore_changes))
    if resource.options.custom_timeouts:
        marks.append("timeouts " + ",".join(f"{k}={v}" for k, v in resource.options.custom_timeouts.items()))
    if resource.remote:
        marks.append("remote component: children not visible offline")
    detail = _detail(resource)
    return (f"{resource.type}  {resource.name}" + (f"  {detail}" if detail else "")
            + (f"  [{'; '.join(marks)}]" if marks else ""))


def _detail(resource: ResourceRecord) -> Optional[str]:
    """One telling input per resource, so the tree reads as architecture."""
    if "chart" in resource.inputs and "version" in resource.inputs:
        return f"chart={resource.inputs['chart']}@{resource.inputs['version']}"
    for key in ("region", "instanceTypes", "instanceType", "deploymentType", "cidrBlock",
                "availabilityZone", "bucketPrefix"):
        if key in resource.inputs:
            return f"{key}={json.dumps(resource.inputs[key])}"
    return None


def render_json(plan: Plan) -> str:
    return json.dumps(plan.to_dict(), indent=2, sort_keys=False, default=str)
