"""A test that starts real engines names them (``pytest.mark.engines(...)``): the suite runs it after every test that
needs none, in the order ``engines/build.sh all`` builds what it names, and refuses it any engine it does not name.
So a new engine test cannot stall the suite halfway while the engines build (tests/rehearsal/test_block_end.py did,
when a hand-kept list in tests/conftest.py forgot it)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from trainstack.rehearsal import engines

BUILD = Path(__file__).resolve().parents[1] / "engines" / "build.sh"


def test_build_sh_all_builds_in_the_order_the_suite_runs_the_engine_tests() -> None:
    listed = re.search(r"for each in ([a-z\- ]+); do", BUILD.read_text()).group(1).split()
    assert tuple(listed) == engines.BUILD_ORDER


def test_the_suite_runs_the_tests_that_need_no_engine_first_then_each_engine_test_in_build_order(
        request: pytest.FixtureRequest) -> None:
    def position(item: pytest.Item) -> int:
        marker = item.get_closest_marker("engines")
        return max((engines.BUILD_ORDER.index(engine) for engine in (marker.args if marker else ())), default=-1)

    positions = [position(item) for item in request.session.items]
    assert positions == sorted(positions)


def test_an_engine_this_test_does_not_name_is_refused_naming_the_test(request: pytest.FixtureRequest) -> None:
    with pytest.raises(engines.EnginesMissing) as refused:
        engines.directory.__wrapped__(engines.KUBERNETES)  # uncached: build.sh is asked, and refuses
    assert f"kubernetes refused: {request.node.nodeid} does not name it" in str(refused.value)


def test_a_marked_test_is_refused_the_engines_it_does_not_name() -> None:
    test = "tests/test_engine_marks.py::t"
    env = {"TRAINSTACK_ENGINES_TEST": test, "TRAINSTACK_ENGINES_ALLOWED": "pulumi", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["bash", str(BUILD), engines.KUEUE], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 3
    assert f"kueue refused: {test} does not name it in its pytest.mark.engines(...) (names: pulumi)" in done.stderr


def test_every_test_that_runs_the_rehearsals_controllers_shares_one_worker(request: pytest.FixtureRequest) -> None:
    """The training operator v1.8.1 serves its webhook from one fixed directory under /tmp: two rehearsals on two
    pytest-xdist workers would serve each other's certificates."""
    controllers = set(engines.REHEARSAL) - {engines.KUBERNETES, engines.KWOK}
    groups = {item.get_closest_marker("xdist_group").kwargs["name"] for item in request.session.items
              if set(item.get_closest_marker("engines").args if item.get_closest_marker("engines") else ())
              & controllers}
    assert len(groups) <= 1, groups


def test_under_pytest_xdist_each_test_is_sent_with_its_group(request: pytest.FixtureRequest) -> None:
    """pytest-xdist's loadgroup keeps a group on one worker by the ``@group`` it appends to each test's id, reading the
    marks tests/conftest.py adds: which it does only if conftest's hook runs first."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("not run by a pytest-xdist worker (-n 0)")
    for item in request.session.items:
        assert item.nodeid.endswith("@" + item.get_closest_marker("xdist_group").kwargs["name"]), item.nodeid
