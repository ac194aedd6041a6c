import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


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


ENGINE_TESTS = ("engines", "deploy", "rehearsal/test_rehearse.py", "rehearsal/test_models_against_controllers.py",
                "test_bench.py")
"""Tests that run built engines (engines/build.sh): run last, so that in CI, where the engines build in
the background (.ci/run), every other test runs while they build."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def needs_engines(item: pytest.Item) -> bool:
        path = Path(str(item.fspath)).relative_to(REPO / "tests").as_posix()
        return any(path == test or path.startswith(test + "/") for test in ENGINE_TESTS)

    items.sort(key=needs_engines)
