import json
import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent

# Each test directory's total time, and the suite's phases for .ci/run (support/suite_timing.py).
pytest_plugins = ["support.suite_timing", "support.moto_server"]  # moto_server: the moto_endpoint fixture


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
# about a second on a shared machine). TRAINSTACK_HYPOTHESIS=nightly runs the nightly size instead
# (CONTRIBUTING.md): 40 times the examples, drawn afresh each run, still nothing written.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("trainstack", max_examples=25, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("nightly", settings.get_profile("trainstack"), max_examples=1000, derandomize=False)
settings.load_profile(os.environ.get("TRAINSTACK_HYPOTHESIS", "trainstack"))


def engines_named(item: pytest.Item) -> tuple[str, ...]:
    """The engines a test starts, as its ``pytest.mark.engines(...)`` names them (none for an unmarked test)."""
    marker = item.get_closest_marker("engines")
    return tuple(marker.args) if marker else ()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need no engine run first; then the engine tests, in the order ``engines/build.sh all`` builds
    what they name (engines.BUILD_ORDER): in CI, where the engines build in the background (.ci/run), every other
    test runs while they build, and each engine test starts as soon as its engines are there. A stable sort keeps
    each group's own order."""
    from trainstack.rehearsal.engines import BUILD_ORDER

    for item in items:
        marker = item.get_closest_marker("engines")
        if marker is not None and (not marker.args or not set(marker.args) <= set(BUILD_ORDER)):
            raise pytest.UsageError(f"{item.nodeid}: pytest.mark.engines{marker.args or '()'} must name the engines "
                                    f"the test starts, of {', '.join(BUILD_ORDER)}")
    items.sort(key=lambda item: max((BUILD_ORDER.index(engine) for engine in engines_named(item)), default=-1))
    for item in items:
        if item.get_closest_marker("xdist_group") is None:  # a test may say where it goes (tests/deploy does)
            item.add_marker(pytest.mark.xdist_group(name=worker_group(item)))
        if config.getoption("loadgroup", default=False):  # in a pytest-xdist worker, with --dist=loadgroup
            _send_with_group(item)


def _send_with_group(item: pytest.Item) -> None:
    """The test's id as pytest-xdist's loadgroup sends it to the scheduler: ``<id>@<group>``. pytest-xdist 3.8 writes
    it to ``item._nodeid``, which pytest 9 no longer reads (a node's id is ``item._id``), so every test went alone
    and two rehearsals ran side by side (seen in CI); written here where pytest 9 reads it."""
    from _pytest.nodeid import coerce_node_id

    mark = item.get_closest_marker("xdist_group")
    group = mark.args[0] if mark.args else mark.kwargs["name"]
    if not item.nodeid.endswith("@" + group):
        item._id = coerce_node_id(f"{item.nodeid}@{group}")


def worker_group(item: pytest.Item) -> str:
    """Which tests pytest-xdist (``--dist loadgroup``, pyproject.toml) keeps on one worker, one after another: a file
    of tests (its module fixtures are made once), and two wider groups: every test that runs the rehearsal's
    controllers (the training operator v1.8.1 insists on one fixed serving-certificate directory under /tmp, so two
    side by side would serve each other's certificates), and the tests of tests/engines that share one control plane
    (tests/engines/conftest.py). Tests that run the Pulumi CLI go a file at a time, or as they say (tests/deploy
    keeps each stack's life on one worker): each has its own control plane, ports and Pulumi state."""
    from trainstack.rehearsal import engines

    named, file = set(engines_named(item)), item.nodeid.split("::")[0]
    if not named:
        return file
    if named & {engines.PULUMI, engines.PULUMI_KUBERNETES}:
        return f"engines: the Pulumi CLI, {file}"  # apart from the file's tests that need no engine, which run early
    if named - {engines.KUBERNETES}:
        return "engines: the rehearsal's controllers"
    return "engines: one control plane"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """One worker more than the machine has cores (``--numprocesses=auto``, pyproject.toml). The engine tests mostly
    wait on the controllers' own clocks (a kube-controller-manager's sync, Kueue's requeue, the pod garbage
    collector's 40 s quarantine): a rehearsal broken one way used 25 s of CPU in 69 s, about a third of one core,
    and the rehearsal's tests run one after another on one worker (``worker_group``). The extra worker runs other
    tests in that idle time."""
    return (os.cpu_count() or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    """Each pytest-xdist worker picks the loopback ports of the engines it starts from its own share of the range the
    rehearsal uses (trainstack.rehearsal.control_plane.PORTS_VARIABLE), passed on to every process it starts: two
    control planes starting side by side never pick the same port."""
    worker, workers = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if worker is None or workers is None:
        return
    from trainstack.rehearsal import control_plane

    ports = range(control_plane.LOWEST_PORT, control_plane._ephemeral_ports().start)
    share = len(ports) // int(workers)
    low = ports.start + int(worker.removeprefix("gw")) * share
    os.environ[control_plane.PORTS_VARIABLE] = f"{low}-{low + share - 1}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """engines/build.sh refuses, in this process and every process a test starts, any engine the running test
    does not name: an unmarked test that starts one fails, naming itself, instead of waiting on a build."""
    os.environ["TRAINSTACK_ENGINES_TEST"] = item.nodeid
    os.environ["TRAINSTACK_ENGINES_ALLOWED"] = " ".join(engines_named(item))
    yield
