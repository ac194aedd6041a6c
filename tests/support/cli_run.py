"""The command line run in this process, as a user's shell would see it: its exit code, standard output and
standard error."""

from __future__ import annotations

import contextlib
import io

from trainstack import cli


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()
