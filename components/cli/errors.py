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
EXIT_CODES = (f"exit codes: {EXIT_OK} done; {EXIT_POLICY} a mandatory policy failed (plan), preflight did not pass, "
              "the diff's gate is closed, or a real engine (rehearse, up) exited or stalled; "
              f"{EXIT_CONFIG} the input is invalid (project, configuration, argument, file, AWS credentials); "
              f"{EXIT_FAILURE} the program failed otherwise (--debug shows the traceback). The reason goes to standard "
              "error: one line (a configuration error: each problem, its value and fix).")
"""What ``trainstack --help`` says of the codes below."""
PROGRAM_ERROR_SHOWN = 300
"""Characters of an unexpected error's message the CLI prints (--debug shows all of it)."""
CONFIG_PATH_SHOWN = 120
"""Characters of a configuration key's path the one-line error shows."""


def print_error(error: Exception, args: argparse.Namespace) -> int:
    """One line (or, with --json, one JSON object) for ``error`` and its exit code: 2 for what the user can
    fix (configuration, project, files, a kubeconfig, arguments, an approval that matches nothing, AWS credentials
    missing or expired), 3 for the rest
    (commands with --debug; others re-raise)."""
    from ..kube.kubeconfig import KubeconfigError
    from ..launch import LaunchError
    from ..plan import ProjectError
    from ..report import ReportError
    from ..review import ApprovalError

    as_json = bool(getattr(args, "json", False))
    if isinstance(error, ConfigError):
        if as_json:
            print(json.dumps({"error": {"kind": "config", "issues": [i.as_dict() for i in error.issues]}}, indent=2))
            print(f"error: {_config_line(error)}", file=sys.stderr)
        else:
            print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    if isinstance(error, ProjectError):
        return _print_line(as_json, "project", str(error), EXIT_CONFIG)
    if isinstance(error, (FileProblem, ReportError, ApprovalError, UnknownRegionError, KubeconfigError)):
        return _print_line(as_json, "input", str(error), EXIT_CONFIG)
    from ..preflight.capacity_blocks import CapacityQueryError

    if isinstance(error, CapacityQueryError):
        return _print_line(as_json, "input", str(error), EXIT_CONFIG)
    if isinstance(error, LaunchError):
        return _print_line(as_json, "input", f"launch: {error}", EXIT_CONFIG)
    from ..upgrade.steps import UpgradeRefused

    if isinstance(error, UpgradeRefused):
        return _print_line(as_json, "input", f"upgrade: {error}", EXIT_CONFIG)
    from ..rehearsal.engines import EnginesMissing

    if isinstance(error, EnginesMissing):
        return _print_line(as_json, "engines", cut(str(error), PROGRAM_ERROR_SHOWN), EXIT_FAILURE)
    from ..rehearsal.control_plane import EngineFailure

    if isinstance(error, EngineFailure):  # whole: the engine's log lines are the diagnosis
        return _print_line(as_json, "engines", str(error), EXIT_POLICY)
    from ..preflight.credentials import credentials_problem

    # Missing or expired AWS credentials, for every command that calls AWS (prices, capacity, preflight, upgrade
    # --aws): where botocore looked and how to give them, not its bare "Unable to locate credentials".
    credentials = credentials_problem(error)
    if credentials is not None:
        return _print_line(as_json, "credentials", credentials, EXIT_CONFIG)
    if not hasattr(args, "debug"):
        raise error
    if args.debug:
        traceback.print_exception(error)
    return _print_line(as_json, "program", cut(f"{type(error).__name__}: {error}", PROGRAM_ERROR_SHOWN), EXIT_FAILURE)


def _print_line(as_json: bool, kind: str, message: str, code: int) -> int:
    """With --json the error is the JSON document on standard output, and its one line on standard error too
    (what a person or a CI log reads, while a program parses standard output)."""
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    print(f"error: {message}", file=sys.stderr)
    if code == EXIT_FAILURE and not as_json:
        print("(run again with --debug for the traceback)", file=sys.stderr)
    return code


def _config_line(error: ConfigError) -> str:
    """A configuration error in one line: how many problems, the first of them, where the rest are."""
    first = error.issues[0]
    more = f" (and {len(error.issues) - 1} more)" if len(error.issues) > 1 else ""
    reason = cut(first.message).rstrip(".")
    return (f"{error.source} is invalid: {cut(first.path, CONFIG_PATH_SHOWN)}: {reason}{more}; every problem, its "
            "value and fix are in the JSON document on standard output")
