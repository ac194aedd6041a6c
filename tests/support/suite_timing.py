"""Where the suite's time goes, printed at the end of every run (a pytest plugin, loaded by tests/conftest.py): each
test directory's total, and, when ``TRAINSTACK_SUITE_PHASES`` names a file, the suite's phases written there for
.ci/run's phase table: the span of the tests that need no engine, the span of the engine tests, and the time the
engine tests spent in engines/build.sh (building, or waiting on the lock of CI's background build), measured around
``trainstack.rehearsal.engines.directory``.

Everything is read from the tests' reports (their start and stop times, and a user property for the engine wait), so
the same figures come out whether the tests ran in this process or in pytest-xdist's workers. The 25 slowest tests are
pytest's own ``--durations=25`` (pyproject.toml's addopts)."""

from __future__ import annotations

import functools
import json
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

PHASES = "TRAINSTACK_SUITE_PHASES"
ENGINE_WAIT = "seconds in engines/build.sh"

_waited = {"seconds": 0.0}
_began = {"at": time.time()}


def _directory(nodeid: str) -> str:
    """A test's directory under tests/ (``rehearsal`` for one in tests/rehearsal); ``(top)`` for tests/test_*.py."""
    parts = nodeid.split("::")[0].split("/")
    inside = parts[1:] if parts[0] == "tests" else parts
    return inside[0] if len(inside) > 1 else "(top)"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _began["at"] = time.time()
    from trainstack.rehearsal import engines

    build = engines.directory.__wrapped__

    @functools.cache  # as engines.directory is: one engines/build.sh call per engine and process
    def timed(engine: str) -> Path:
        began = time.monotonic()
        try:
            return build(engine)
        finally:
            _waited["seconds"] += time.monotonic() - began

    engines.directory = timed


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _waited["before this test"] = _waited["seconds"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """The test's wait rides on its last report, which reaches the main process from an xdist worker too."""
    outcome = yield
    waited = _waited["seconds"] - _waited.get("before this test", _waited["seconds"])
    if call.when == "teardown" and waited > 0:
        outcome.get_result().user_properties.append((ENGINE_WAIT, waited))


def _reports(terminalreporter: pytest.TerminalReporter) -> list[pytest.TestReport]:
    # Every phase's report: a passing setup or teardown is filed under the empty category.
    return [report for reports in terminalreporter.stats.values() for report in reports
            if isinstance(report, pytest.TestReport)]


def _span(reports: list[pytest.TestReport]) -> float:
    return max(r.stop for r in reports) - min(r.start for r in reports) if reports else 0.0


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    reports = _reports(terminalreporter)
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for report in reports:
        totals[_directory(report.nodeid)] += report.duration
        counts[_directory(report.nodeid)] += report.when == "call"
    if totals:
        terminalreporter.write_sep("=", "time by test directory (setup, call and teardown)")
        for directory, seconds in sorted(totals.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{seconds:9.1f} s  {counts[directory]:5d} tests  {directory}")
    target = os.environ.get(PHASES)
    if target:
        engine_tests = [r for r in reports if "engines" in r.keywords]
        others = [r for r in reports if "engines" not in r.keywords]
        workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT") or str(terminalreporter.config.getoption("numprocesses",
                                                                                                          None) or 1)
        Path(target).write_text(json.dumps({
            f"pytest ({workers} worker(s)), collection and start-up": min(
                (r.start for r in reports), default=time.time()) - _began["at"],
            "tests without engines, first start to last end": _span(others),
            "engine tests, first start to last end": _span(engine_tests),
            "  of which in engines/build.sh (building, or waiting for the background build)": sum(
                seconds for r in engine_tests for name, seconds in r.user_properties if name == ENGINE_WAIT),
        }))
