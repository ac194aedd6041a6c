"""Where the suite's time goes, printed at the end of every run (a pytest plugin, loaded by tests/conftest.py):
each test directory's total, and, when ``TRAINSTACK_SUITE_PHASES`` names a file, the suite's two phases written
there for .ci/run's phase table: the tests that need no engine, then the engine tests (run last), the first of
which also waits for whatever engine CI's background build has not finished yet (time spent in engines/build.sh,
building or waiting on its lock, measured around ``trainstack.rehearsal.engines.directory``).

The 25 slowest tests are pytest's own ``--durations=25`` (pyproject.toml's addopts)."""

from __future__ import annotations

import functools
import json
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
PHASES = "TRAINSTACK_SUITE_PHASES"

_clock: dict[str, float] = {"start": time.time(), "engine_wait": 0.0}


def _directory(nodeid: str) -> str:
    """A test's directory under tests/ (``rehearsal`` for one in tests/rehearsal); ``(top)`` for tests/test_*.py."""
    parts = nodeid.split("::")[0].split("/")
    inside = parts[1:] if parts[0] == "tests" else parts
    return inside[0] if len(inside) > 1 else "(top)"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _clock["start"] = time.time()
    from trainstack.rehearsal import engines

    build = engines.directory.__wrapped__

    @functools.cache  # as engines.directory is: one engines/build.sh call per engine and process
    def timed(engine: str) -> Path:
        began = time.monotonic()
        try:
            return build(engine)
        finally:
            _clock["engine_wait"] += time.monotonic() - began

    engines.directory = timed


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if item.get_closest_marker("engines") is not None and "engine_tests" not in _clock:
        _clock["engine_tests"] = time.time()
    yield


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    # Every phase's report: a passing setup or teardown is filed under the empty category.
    for reports in terminalreporter.stats.values():
        for report in reports:
            if not isinstance(report, pytest.TestReport):
                continue
            totals[_directory(report.nodeid)] += report.duration
            if report.when == "call":
                counts[_directory(report.nodeid)] += 1
    if totals:
        terminalreporter.write_sep("=", "time by test directory (setup, call and teardown)")
        for directory, seconds in sorted(totals.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{seconds:9.1f} s  {counts[directory]:5d} tests  {directory}")
    target = os.environ.get(PHASES)
    if target:
        end = time.time()
        engine_tests = _clock.get("engine_tests", end)
        Path(target).write_text(json.dumps({
            "tests without engines": engine_tests - _clock["start"],
            "engine tests": end - engine_tests,
            "of which in engines/build.sh (building, or waiting for the background build)": _clock["engine_wait"],
        }))
