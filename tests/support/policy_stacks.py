"""Helpers for policy tests: edit one resource of a stack as the engine would see it."""

import copy
import dataclasses
from pathlib import Path

from trainstack.plan import Plan, find_project
from trainstack.policy import Resource, Stack, stack_from_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])


def from_record(record: dict) -> Stack:
    """The policy engine's view of a plan record (`trainstack plan --json`)."""
    return stack_from_plan(Plan.from_dict(record))


def find(stack: Stack, type_token: str, name: str) -> Resource:
    return next(r for r in stack.resources if r.type == type_token and r.name == name)


def changed(stack: Stack, type_token: str, name: str, **fields) -> Stack:
    """A copy of ``stack`` with one resource's fields replaced (props deep-copied first)."""
    resources = []
    for resource in stack.resources:
        if resource.type == type_token and resource.name == name:
            resource = dataclasses.replace(copy.deepcopy(resource), **fields)
        resources.append(resource)
    return Stack(resources)


def with_props(stack: Stack, type_token: str, name: str, edit) -> Stack:
    props = copy.deepcopy(find(stack, type_token, name).props)
    edit(props)
    return changed(stack, type_token, name, props=props)


def added(stack: Stack, *resources: Resource) -> Stack:
    return Stack([*stack.resources, *resources])


def removed(stack: Stack, type_token: str, name: str) -> Stack:
    return Stack([r for r in stack.resources if not (r.type == type_token and r.name == name)])
