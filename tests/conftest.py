import json
import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent

# Each test directory's total time, and the suite's phases for .ci/run (support/suite_timing.py).
pytest_plugins = ["support.suite_timing"]


@pytest.fixture(scope="session")
def instance_facts() -> dict:
    return json.loads((DATA / "instance_facts.json").read_text())


@pytest.fixture(autouse=True, scope="session")
def every_recorded_plan_conforms_to_aws_contracts():
    """Every plan any test records is checked as it is recorded (support/conformance.py): IAM
    against the Service Authorization Reference, aws-native resources against CloudFormation.
    A test whose plan breaks either fails there, naming the resource and the finding."""
    from support.conformance import plan_problems
    from trainstack.plan import engine

    record = engine._run

    def checked(program, config, plan, fixtures, program_dir):
        record(program, config, plan, fixtures, program_dir)
        problems = plan_problems(plan, config, fixtures.default_region)
        if problems:
            raise AssertionError(f"plan {plan.project}/{plan.stack} breaks AWS's contracts:\n  "
                                 + "\n  ".join(problems))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_run", checked)
        yield


# Property-based tests (Hypothesis) run one fixed, modest profile: the same examples on every
# run (derandomize), no example database written into the checkout, no deadline (a plan takes
# about a second on a shared machine).
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("trainstack", max_examples=25, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("trainstack")


ENGINES_REFUSED = "TRAINSTACK_ENGINES_REFUSED"
"""Set for every test not marked ``engines``: engines/build.sh then refuses to build or hand out an engine, in
this process and in every process a test starts, so an unmarked test that starts one fails, naming itself."""


def needs_engines(item: pytest.Item) -> bool:
    return item.get_closest_marker("engines") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``engines`` run last: in CI the engines build in the background (.ci/run) while every other
    test runs (a stable sort keeps each group's own order)."""
    items.sort(key=needs_engines)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if needs_engines(item):
        os.environ.pop(ENGINES_REFUSED, None)
    else:
        os.environ[ENGINES_REFUSED] = (f"{item.nodeid} is not marked `engines` (pytest.mark.engines): a test that "
                                       "starts an engine says so, so that the suite runs it after the others")
    yield
