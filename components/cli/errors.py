"""The one place the CLI maps an error to its exit code and prints it."""

from __future__ import annotations

import argparse
import json
import sys
import traceback

from ..boundary import FileProblem, cut
from ..catalog.regions import UnknownRegionError
from ..config import ConfigError

EXIT_OK, EXIT_POLICY, EXIT_CONFIG, EXIT_FAILURE = 0, 1, 2, 3
PROGRAM_ERROR_SHOWN = 300
"""Characters of an unexpected error's message the CLI prints (--debug shows all of it)."""


def print_error(error: Exception, args: argparse.Namespace) -> int:
    """One line (or, with --json, one JSON object) for ``error`` and its exit code: 2 for what the user can
    fix (configuration, project, files, arguments), 3 for the rest (commands with --debug; others re-raise)."""
    from ..launch import LaunchError
    from ..plan import ProjectError
    from ..report import ReportError

    as_json = bool(getattr(args, "json", False))
    if isinstance(error, ConfigError):
        if as_json:
            print(json.dumps({"error": {"kind": "config", "issues": [i.as_dict() for i in error.issues]}}, indent=2))
        else:
            print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    if isinstance(error, ProjectError):
        return _print_line(as_json, "project", str(error), EXIT_CONFIG)
    if isinstance(error, (FileProblem, ReportError, UnknownRegionError)):
        return _print_line(as_json, "input", str(error), EXIT_CONFIG)
    if isinstance(error, LaunchError):
        return _print_line(as_json, "input", f"launch: {error}", EXIT_CONFIG)
    if not hasattr(args, "debug"):
        raise error
    if args.debug:
        traceback.print_exception(error)
    return _print_line(as_json, "program", cut(f"{type(error).__name__}: {error}", PROGRAM_ERROR_SHOWN), EXIT_FAILURE)


def _print_line(as_json: bool, kind: str, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
        if code == EXIT_FAILURE:
            print("(run again with --debug for the traceback)", file=sys.stderr)
    return code
