"""Waiting for an engine to come up follows its progress: a slow start on a loaded machine is not a failure, an
engine that stalls or exits is, and the failure names the engine, how long it was waited for and the end of its
log, with exit 1 from the command line (the machine's or the stack's problem, not trainstack's)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from trainstack import cli
from trainstack.rehearsal.control_plane import EngineFailure, Processes

# Stand-ins for an engine, so that these waits need no engine built: one that logs a line every 0.2 s (a slow
# start that shows progress), one that logs once and then sleeps (a stalled start), one that exits.
LOGGING = "import time\nfor i in range(1000):\n    print('starting, step', i, flush=True)\n    time.sleep(0.2)"
STALLED = "import time\nprint('listening soon', flush=True)\ntime.sleep(1000)"
EXITING = "import sys\nprint('cannot bind 127.0.0.1:10250', flush=True)\nsys.exit(7)"


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    running = Processes(tmp_path)
    yield running
    running.stop()


def test_a_slow_start_that_shows_progress_is_waited_for_past_the_quiet_limit(processes: Processes) -> None:
    processes.start("webhook", [sys.executable, "-c", LOGGING])
    began = time.monotonic()
    processes.wait_for("webhook", "its server", lambda: time.monotonic() - began > 2.5, quiet_limit=1.0)
    assert time.monotonic() - began > 2.5


def test_an_engine_that_stalls_fails_after_the_quiet_limit_naming_itself_the_wait_and_its_log(
        processes: Processes) -> None:
    processes.start("training-operator", [sys.executable, "-c", STALLED])
    began = time.monotonic()
    with pytest.raises(EngineFailure) as failure:
        processes.wait_for("training-operator", "its webhook server on 127.0.0.1:10443", lambda: False,
                           quiet_limit=1.5)
    assert 1.5 < time.monotonic() - began < 10
    message = str(failure.value)
    assert message.startswith("training-operator: waited ")
    assert "for its webhook server on 127.0.0.1:10443 (no progress for the last " in message
    assert "training-operator.log" in message and message.endswith("listening soon")


def test_even_a_progressing_start_ends_at_the_wait_limit(processes: Processes) -> None:
    processes.start("kube-apiserver", [sys.executable, "-c", LOGGING])
    with pytest.raises(EngineFailure, match=r"the limit of 2 s reached while it still made progress"):
        processes.wait_for("kube-apiserver", "/readyz", lambda: False, quiet_limit=1.0, wait_limit=2.0)


def test_an_engine_that_exits_fails_the_wait_at_once_with_its_exit_code_and_log(processes: Processes) -> None:
    processes.start("kwok", [sys.executable, "-c", EXITING])
    began = time.monotonic()
    with pytest.raises(EngineFailure, match=r"kwok exited \(7\); the end of its log:\ncannot bind 127.0.0.1:10250"):
        processes.wait_for("kwok", "every registered node Ready", lambda: False)
    assert time.monotonic() - began < 30


def test_the_command_line_exits_1_with_the_whole_message_when_an_engine_fails(monkeypatch, capsys) -> None:
    import trainstack.rehearsal as rehearsal

    def stalled(*args, **kwargs):
        raise EngineFailure("training-operator: waited 142 s for its webhook server (no progress for the last "
                            "91 s); the end of its log (/tmp/x/training-operator.log):\nline one\nline two")

    monkeypatch.setattr(rehearsal, "rehearse", stalled)
    repo = Path(__file__).resolve().parents[2]
    assert cli.main(["rehearse", "--stack", "fsdp-p5", "--cwd", str(repo), "--quiet"]) == 1
    error = capsys.readouterr().err
    assert error.startswith("error: training-operator: waited 142 s") and error.rstrip().endswith("line two")
    assert "--debug" not in error
