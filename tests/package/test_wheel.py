"""trainstack as users install it: the wheel built from the sdist, installed into a new
virtualenv outside the checkout, runs every command from a consumer project of its own, and
its records are the same bytes wherever the library is installed.

Slow by nature (a build and an install, about a minute each on a small machine); one module
fixture does both once.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import grpc
import pytest
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from support import wheel
from support.analyzer import PackProcess
from trainstack.analysis import crossguard as controller_models
from trainstack.policy import RULES

REPO = wheel.REPO
CONSUMER = REPO / "examples" / "consumer"
SHIPPED_STACK = "fsdp-p5"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
START_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> wheel.Built:
    tree = wheel.source_tree(tmp_path_factory.mktemp("source"))
    built = wheel.build(tree, tmp_path_factory.mktemp("dist"))
    (sdist,) = [p for p in built if p.name.endswith(".tar.gz")]
    (from_sdist,) = [p for p in built if p.suffix == ".whl"]
    return wheel.Built(sdist=sdist, wheel=from_sdist)


@pytest.fixture(scope="module")
def installed(built: wheel.Built, tmp_path_factory: pytest.TempPathFactory) -> wheel.Installed:
    return wheel.install(built.wheel, tmp_path_factory.mktemp("users-machine") / "venv")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The consumer project copied away from the checkout, with a shipped stack file beside its own."""
    copy = tmp_path_factory.mktemp("projects") / "my-training-cluster"
    shutil.copytree(CONSUMER, copy)
    shutil.copy(REPO / "stacks" / f"Pulumi.{SHIPPED_STACK}.yaml", copy)
    return copy


# The package: discovered from the tree, data files by pattern.


def test_every_package_and_file_of_the_source_tree_is_in_the_wheel(built):
    in_wheel = set(built.wheel_files())
    tracked = wheel.run(["git", "ls-files", "components"], REPO).stdout.split()
    expected = {"trainstack/" + name.removeprefix("components/") for name in tracked}
    missing = sorted(expected - in_wheel)
    assert not missing, f"the wheel lacks {missing}: setup.py's discovery or pyproject.toml's package-data patterns"


def test_the_engines_ship_so_that_rehearse_builds_them_where_trainstack_is_installed(built):
    """engines/ (build.sh and every wrapper module) is ``trainstack/engines`` in the wheel."""
    in_wheel = set(built.wheel_files())
    tracked = [name for name in wheel.run(["git", "ls-files", "engines"], REPO).stdout.split()]
    expected = {"trainstack/" + name for name in tracked}
    assert "trainstack/engines/build.sh" in expected and "trainstack/engines/kueue/go.mod" in expected
    assert not sorted(expected - in_wheel), sorted(expected - in_wheel)


def test_the_shipped_stacks_ship_so_that_init_writes_them_where_trainstack_is_installed(built):
    """stacks/ (each shipped stack file) is ``trainstack/stacks`` in the wheel: the workloads of ``init``."""
    in_wheel = set(built.wheel_files())
    shipped = {"trainstack/" + name for name in wheel.run(["git", "ls-files", "stacks"], REPO).stdout.split()}
    assert "trainstack/stacks/Pulumi.nemo-p4de.yaml" in shipped
    assert not sorted(shipped - in_wheel), sorted(shipped - in_wheel)


def test_every_file_the_package_opens_at_run_time_is_in_the_wheel(built, tmp_path):
    """Run from the checkout under an audit hook: every file the commands open inside the
    package (catalog data, overlays, dashboards, scripts, programs, schema) must ship, and none
    may be opened from the checkout outside the package (it would not exist for a user)."""
    opened = _files_opened_by_every_command(tmp_path)
    inside = sorted(p for p in opened if p.is_relative_to(REPO / "components") and p.suffix not in (".py", ".pyc"))
    # The project's own files (Pulumi.yaml, stacks/) are the user's, not the library's.
    tracked = {REPO / name for name in wheel.run(["git", "ls-files"], REPO).stdout.split()}
    outside = sorted(p for p in opened & tracked if not p.is_relative_to(REPO / "components")
                     and not p.is_relative_to(REPO / "stacks") and p != REPO / "Pulumi.yaml")
    assert not outside, f"the package opens files outside itself, which a wheel cannot ship: {outside}"
    kinds = {p.relative_to(REPO / "components").parts[0] for p in inside}
    assert {"catalog", "addons", "hyperpod", "launch"} <= kinds, kinds
    in_wheel = set(built.wheel_files())
    missing = [str(p.relative_to(REPO)) for p in inside
               if "trainstack/" + p.relative_to(REPO / "components").as_posix() not in in_wheel]
    assert not missing, f"opened at run time but not in the wheel: {missing}"


def test_the_sdist_builds_the_same_wheel_as_the_tree(built, tmp_path):
    (direct,) = wheel.build(wheel.source_tree(tmp_path / "tree"), tmp_path / "direct", wheel_only=True)
    assert _contents(direct) == _contents(built.wheel)


def test_twine_finds_the_metadata_fit_for_an_index(built):
    done = wheel.run([sys.executable, "-m", "twine", "check", "--strict", str(built.sdist), str(built.wheel)], REPO)
    assert done.stdout.count("PASSED") == 2, done.stdout


# The installed library, from a consumer project outside the checkout.


def test_the_installed_trainstack_is_the_wheel_not_the_checkout(installed):
    package = installed.package_dir
    assert "site-packages" in package.parts and not package.is_relative_to(REPO)


def test_trainstack_version_prints_the_release_and_the_outputs_contract(installed, project):
    done = installed.run([str(installed.trainstack), "--version"], cwd=project)
    assert done.stdout.strip() == f"trainstack {VERSION} (outputs contract 2)"


def test_the_consumer_project_plans_its_own_stack_and_a_shipped_one(installed, project):
    for stack in ("dev", SHIPPED_STACK):
        done = installed.run([str(installed.trainstack), "plan", "--stack", stack, "--json"], cwd=project)
        record = json.loads(done.stdout)
        assert record["project"] == "training-cluster" and record["stack"] == stack
        assert record["outputs"]["trainstack"]["contractVersion"] == 2


def test_init_from_the_wheel_writes_a_workloads_stack_that_plans_without_edits(installed, project):
    trainstack = str(installed.trainstack)
    installed.run([trainstack, "init", "--workload", "fsdp-p5", "--stack", "fsdp"], cwd=project)
    assert (project / "Pulumi.fsdp.yaml").read_text().startswith("# yaml-language-server: $schema=stack.schema.json")
    record = json.loads(installed.run([trainstack, "plan", "--stack", "fsdp", "--json"], cwd=project).stdout)
    assert record["stack"] == "fsdp" and record["policies"]["mandatoryFailures"] == 0


def test_the_consumer_project_diffs_reports_and_launches(installed, project, tmp_path):
    trainstack = str(installed.trainstack)
    base = _plan(installed, project, "dev")
    head_project = tmp_path / "head"
    shutil.copytree(project, head_project)
    stack_file = head_project / "Pulumi.dev.yaml"
    stack_file.write_text(stack_file.read_text().replace("maxSize: 2", "maxSize: 3"))
    head = _plan(installed, head_project, "dev")
    (tmp_path / "base.json").write_text(base)
    (tmp_path / "head.json").write_text(head)

    diff = installed.run([trainstack, "diff", "base.json", "head.json", "--format", "json"], cwd=tmp_path)
    changes = json.loads(diff.stdout)
    assert changes["gate"]["passed"] is True, changes["gate"]
    sarif = installed.run([trainstack, "diff", "base.json", "head.json", "--format", "sarif"], cwd=tmp_path)
    assert json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["version"] == VERSION

    installed.run([trainstack, "report", "head.json", "--base", "base.json", "-o", "report.html"], cwd=tmp_path)
    assert "<html" in (tmp_path / "report.html").read_text()[:500].lower()

    # `pulumi stack output --json` prints the stack's outputs by name, as the record holds them.
    (tmp_path / "outputs.json").write_text(json.dumps(json.loads(head)["outputs"]))
    job = installed.run([trainstack, "launch", "pytorchjob", "--outputs", "outputs.json", "--group", "gpu",
                         "--nodes", "1", "--image", "example.com/train:1", "--", "torchrun", "train.py"], cwd=tmp_path)
    assert "kind: PyTorchJob" in job.stdout

    for text in (base, head, diff.stdout, sarif.stdout, (tmp_path / "report.html").read_text()):
        _assert_names_no_install_path(text, installed)


def test_the_policy_pack_runs_on_the_installed_library(installed, tmp_path):
    pack = tmp_path / "policies"
    shutil.copytree(REPO / "policies", pack)
    process = PackProcess(pack, python=str(installed.python), env=wheel.clean_env())
    try:
        served = {policy.name for policy in process.info().policies}
    finally:
        process.close()
    # Every rule, and the controller models beside them (trainstack.analysis.crossguard).
    assert served == {rule.id for rule in RULES} | {policy.name for policy in controller_models.policies()}


def test_the_component_provider_serves_the_schema_it_ships(installed, tmp_path):
    """Started as the engine starts a plugin (its address first, the port on stdout)."""
    provider = subprocess.Popen([str(installed.python), "-m", "trainstack.package.host", "127.0.0.1:1"],
                                cwd=tmp_path, env=wheel.clean_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        port = int(provider.stdout.readline().strip())  # type: ignore[union-attr]
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=START_TIMEOUT_S)
        served = provider_pb2_grpc.ResourceProviderStub(channel).GetSchema(provider_pb2.GetSchemaRequest()).schema
        channel.close()
    finally:
        provider.kill()
        provider.communicate()
    shipped = installed.package_dir / "package" / "schema.json"
    assert json.loads(served) == json.loads(shipped.read_text())
    assert shipped.read_text() == (REPO / "components" / "package" / "schema.json").read_text()


# Records are the same bytes wherever trainstack is installed and wherever it runs from.


def test_a_stack_plans_to_the_same_bytes_from_the_checkout_the_virtualenv_and_elsewhere(
        installed, built, project, tmp_path):
    from_checkout = wheel.run([sys.executable, "-m", "trainstack.cli", "plan", "--cwd", str(project),
                               "--stack", SHIPPED_STACK, "--json"], REPO, env=None).stdout  # editable: components/
    in_virtualenv = _plan(installed, project, SHIPPED_STACK)

    # The same wheel unpacked somewhere else entirely, the project in another directory, and the
    # command started from a third.
    elsewhere = tmp_path / "opt" / "lib"
    installed.run([str(installed.python), "-m", "pip", "install", "-q", "--no-deps", "--target", str(elsewhere),
                   str(built.wheel)], cwd=tmp_path)
    moved = tmp_path / "work" / "deeper" / "cluster"
    shutil.copytree(project, moved)
    runner_cwd = tmp_path / "work"
    loaded_from = installed.run([str(installed.python), "-c", "import trainstack; print(trainstack.__file__)"],
                                cwd=runner_cwd, extra_env={"PYTHONPATH": str(elsewhere)}).stdout
    assert loaded_from.startswith(str(elsewhere))
    from_elsewhere = installed.run([str(installed.python), "-m", "trainstack.cli", "plan", "--cwd", "deeper/cluster",
                                    "--stack", SHIPPED_STACK, "--json"], cwd=runner_cwd,
                                   extra_env={"PYTHONPATH": str(elsewhere)}).stdout

    assert in_virtualenv == from_elsewhere
    assert from_checkout == in_virtualenv
    assert "trainstack:addons/kustomize/" in in_virtualenv
    _assert_names_no_install_path(in_virtualenv, installed, elsewhere, moved)


def test_the_consumer_project_in_the_checkout_plans_as_the_copy_does(installed, project):
    from_checkout = wheel.run([sys.executable, "-m", "trainstack.cli", "plan", "--cwd", str(CONSUMER),
                               "--stack", "dev", "--json"], REPO, env=None).stdout
    assert from_checkout == _plan(installed, project, "dev")


# Helpers.


def _plan(installed: wheel.Installed, project: Path, stack: str) -> str:
    return installed.run([str(installed.trainstack), "plan", "--stack", stack, "--json"], cwd=project).stdout


def _assert_names_no_install_path(text: str, installed: wheel.Installed, *more: Path) -> None:
    for place in (installed.root, installed.package_dir, REPO, *more):
        assert str(place) not in text, f"a record names {place}"
    assert not re.search(r"site-packages|/\.\./|\.venv", text), "a record names an installation path"


def _contents(archive: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(archive) as opened:
        return {name: opened.read(name) for name in opened.namelist()}


OPENED = """
import contextlib, io, json, sys
from pathlib import Path
opened = set()
sys.addaudithook(lambda event, args: opened.add(args[0]) if event == "open" and isinstance(args[0], str) else None)
from trainstack.cli import main
from trainstack.package import host

def run(argv):
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        main(argv)
    return printed.getvalue()

repo, out, stacks = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3])
for stack in stacks:
    run(["report", "--cwd", repo, "--stack", stack, "-o", str(out / f"{stack}.html")])
(out / "outputs.json").write_text(json.dumps(json.loads(run(["plan", "--cwd", repo, "--json"]))["outputs"]))
common = ["--outputs", str(out / "outputs.json"), "--group", "gpu", "--nodes", "1", "--image", "example.com/x:1"]
run(["launch", "device-check", *common])
run(["launch", "all-reduce", *common])
host.schema()
print(json.dumps(sorted(opened)))
"""


def _files_opened_by_every_command(tmp_path: Path) -> set[Path]:
    """Every shipped stack planned and reported, two launchers with their programs, the provider's schema."""
    stacks = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml")
                    for p in (REPO / "stacks").glob("Pulumi.*.yaml"))
    done = wheel.run([sys.executable, "-c", OPENED, str(REPO), str(tmp_path), json.dumps(stacks)], tmp_path, env=None)
    return {Path(p).resolve() for p in json.loads(done.stdout.splitlines()[-1])}
