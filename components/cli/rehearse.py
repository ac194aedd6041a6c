"""``trainstack rehearse``: the stack's Kubernetes layer and jobs through the real controllers on simulated nodes."""

from __future__ import annotations

import argparse
import json
import sys

from .errors import EXIT_OK, EXIT_POLICY


def rehearse(args: argparse.Namespace) -> int:
    """Exit 1 when a job the stack is built for cannot run."""
    from ..analysis import plan_stack
    from ..plan import find_project
    from ..rehearsal import rehearse as run_rehearsal
    from ..rehearsal.report import as_dict, render_text
    from .launch import BY_NAME

    planned = plan_stack(args.stack, find_project(args.cwd))

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    launchers = frozenset(BY_NAME[name].render.__name__ for name in args.only) if args.only else None
    result = run_rehearsal(planned, progress=progress, timeout=args.job_timeout, directory=args.logs,
                           faults=args.faults, launchers=launchers)
    print(json.dumps(as_dict(result), indent=2) if args.json else render_text(result))
    if result.ok:
        return EXIT_OK
    failed = sum(1 for job in result.jobs if not job.ok)
    if failed:
        print(f"error: {failed} of {len(result.jobs)} jobs of {result.stack} cannot run", file=sys.stderr)
    for fault in result.failed_faults:
        print(f"error: the fault '{fault}' did not end as {result.stack} is built for (its line above says how)",
              file=sys.stderr)
    return EXIT_POLICY
