"""The ``trainstack`` command.

Exit codes: 0 ok; 1 a mandatory policy (plan) failed, preflight did not pass (a check
failed, could not run without --allow-unchecked, or nothing was checked), or the diff's
gate is closed (a new mandatory failure, unapproved data loss); 2 the project, its config,
an argument or a file read or written is invalid (one line naming it), or `report` lacks
Graphviz's `dot`; 3 the program failed for another reason (``--debug`` shows the traceback).
The reason goes to standard error (one line; a configuration error lists each problem); with
``--json`` standard output holds one JSON document (the record, or the error) and a line is on
standard error too.

Every file a command reads or writes passes through ``trainstack.boundary`` (one reader
per kind of file: YAML project and stack files, JSON records, outputs and policy
configuration, and ``-o`` outputs). The work is ``trainstack.analysis``'s: this module
parses arguments (``parser``), calls it (``commands``, ``launch``: the table of job kinds), and maps
its errors to exit codes in one place (``errors.print_error``).
"""

from __future__ import annotations

import argparse

from .errors import EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, EXIT_POLICY, print_error
from .parser import parser as _parser

__all__ = ["EXIT_CONFIG", "EXIT_FAILURE", "EXIT_OK", "EXIT_POLICY", "main"]


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_CONFIG
    try:
        return _run(args)
    except BrokenPipeError:  # output piped into `head`
        return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; its errors printed by :func:`errors.print_error`, the one place they are mapped."""
    try:
        code: int = args.handler(args)
        return code
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return print_error(error, args)
