"""The ``trainstack`` command.

Exit codes: 0 ok; 1 a mandatory policy (plan) failed, preflight did not pass (a check
failed, could not run without --allow-unchecked, or nothing was checked), or the diff's
gate is closed (a new mandatory failure, unapproved data loss); 2 the project, its config,
an argument or a file read or written is invalid (one line naming it), a command that calls
AWS finds no usable credentials (one line: where botocore looked, how to give them), or
`report` lacks Graphviz's `dot`; 3 the program failed for another reason (``--debug`` shows the traceback).
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
import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

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
        with _cycle_collector_paused():
            return _run(args)
    except BrokenPipeError:
        # The reader stopped early (`trainstack plan | head`), which is not an error. Standard output points at
        # the null device from here, so the interpreter's last flush at exit has nowhere to fail (the Python
        # documentation's "Note on SIGPIPE", signal module).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """A command without CPython's cyclic garbage collector, switched back on after it (tests run commands
    in one long process).

    Why: a command is one short process that loads the provider SDKs (some 200,000 objects that live until it
    exits: classes, type hints, a plan's resources and outputs), and the collector walks every one of them
    again each time the heap has grown by a quarter. Measured with ``gc.callbacks``: 17% of the CPU time of
    `trainstack plan --stack dev`, 22% of a 64-group plan's, for a 64-group plan's peak memory 175 MiB with
    it and 181 MiB without (bench/cli_time.py times the command). Reference counting still frees everything
    that is not in a cycle, and the process ends within seconds."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; its errors printed by :func:`errors.print_error`, the one place they are mapped."""
    try:
        code: int = args.handler(args)
        return code
    except BrokenPipeError:
        raise  # not the command's failure: main() ends quietly
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return print_error(error, args)
