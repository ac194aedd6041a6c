"""`trainstack init`: a workload's stack file, written into a project of your own, commented from the models.

The workloads are the shipped stacks (``stacks/Pulumi.<workload>.yaml``, installed in the wheel as
``trainstack.stacks``): each is planned, policy-checked and rendered to jobs by the tests, so the file ``init``
writes plans without edits. It carries the shipped file's own opening comment (what the stack is for and what
to change) and, above every key, that key's description from the config models.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .errors import EXIT_OK

_CHECKOUT, _INSTALLED = Path(__file__).resolve().parents[2] / "stacks", Path(__file__).resolve().parents[1] / "stacks"
STACKS = _INSTALLED if (_INSTALLED / "__main__.py").is_file() else _CHECKOUT
"""The shipped stacks: the wheel's ``trainstack/stacks`` (package data), else the checkout's ``stacks/``."""
SCHEMA_NAME = "stack.schema.json"


def workloads() -> dict[str, Path]:
    """Each shipped stack by its name."""
    return {path.name.removeprefix("Pulumi.").removesuffix(".yaml"): path
            for path in sorted(STACKS.glob("Pulumi.*.yaml"))}


def add_init(commands: Any, here: dict[str, Any]) -> None:
    known = workloads()
    init = commands.add_parser("init", help="write a commented stack file for a workload (a shipped stack) into "
                                            "the project, with the JSON Schema editors check it against")
    init.add_argument("--workload", "-w", required=True, choices=sorted(known), metavar="WORKLOAD",
                      help=f"the shipped stack to start from: {', '.join(sorted(known))}")
    init.add_argument("--stack", "-s", help="the new stack's name (Pulumi.<stack>.yaml); default the workload's")
    init.add_argument("--cwd", **here)
    init.add_argument("--force", action="store_true", help="replace a stack file that exists")
    init.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    init.set_defaults(handler=initialise)


def initialise(args: argparse.Namespace) -> int:
    """Write ``Pulumi.<stack>.yaml`` and ``stack.schema.json`` into the project's stack directory."""
    from ..boundary import FileProblem, read_pulumi_yaml, read_text, shown_path, write_text
    from ..config.commented import commented_stack_file
    from ..config.schema import render as render_schema
    from ..plan import find_project

    project = find_project(args.cwd)
    stack = args.stack or args.workload
    target = project.stack_file(stack)
    if target.exists() and not args.force:
        raise FileProblem(f"{target.name} exists in {shown_path(target.parent)}: choose another --stack, or pass "
                          "--force to replace it")
    shipped = workloads()[args.workload]
    document = read_pulumi_yaml(shipped, "shipped stack")
    schema = target.parent / SCHEMA_NAME
    header = [f"# yaml-language-server: $schema={SCHEMA_NAME}",
              *_opening_comment(read_text(shipped, "shipped stack")),
              f"# Written by `trainstack init --workload {args.workload}`; the comment above each key is its",
              "# description in the stack file reference. `trainstack plan --stack "
              f"{stack}` plans it offline."]
    write_text(schema, render_schema(), "schema file")
    write_text(target, commented_stack_file(document, header), "stack file")
    shown = os.path.relpath(target, Path.cwd()) if target.is_relative_to(Path.cwd()) else str(target)
    print(f"wrote {shown} (workload {args.workload}) and {SCHEMA_NAME} beside it", file=sys.stderr)
    return EXIT_OK


def _opening_comment(text: str) -> list[str]:
    """The shipped file's comment lines before ``config:``, less its own schema line (the new file has one)."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        if "yaml-language-server" not in line:
            lines.append(line)
    return lines
