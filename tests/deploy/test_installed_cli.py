"""`trainstack preview|up|destroy` use the Pulumi CLI the user installed, with its plugins, backend and credentials;
the one trainstack builds from Go source only when asked (`--engine source`, the tests, the rehearsal). No CLI is
one line with the install command, and exit 2. (The real CLI run this way: tests/engines/test_installed_cli.py.)"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from trainstack import cli
from trainstack.deploy import engine
from trainstack.deploy.engine import INSTALL_PULUMI, Engine, PulumiCliMissing, _backend
from trainstack.plan import find_project
from trainstack.rehearsal import engines

REPO = Path(__file__).resolve().parents[2]


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho v3.259.0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_pulumi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with no Pulumi CLI: PATH without one, a home without ~/.pulumi, no PULUMI_HOME."""
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PULUMI_HOME", raising=False)
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    return bare


def _project(tmp_path: Path, stack: str = "byo-p5") -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (project / f"Pulumi.{stack}.yaml").write_text((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    return project


def test_without_a_pulumi_cli_preview_says_so_in_one_line_with_the_install_command_and_exits_2(no_pulumi, tmp_path,
                                                                                                monkeypatch):
    # Nothing may be built on the way: a build would need the engines' script, which is made to fail loudly.
    monkeypatch.setattr(engines, "directory", lambda name: pytest.fail(f"the engine {name} was asked for"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["preview", "--stack", "byo-p5", "--cwd", str(_project(tmp_path))])
    assert code == cli.EXIT_CONFIG
    (line,) = [said for said in err.getvalue().splitlines() if said.startswith("error:")]
    assert "no Pulumi CLI found on PATH" in line and f"install it with `{INSTALL_PULUMI}`" in line
    assert "--engine source" in line


def test_the_installed_cli_is_the_pulumi_on_path_first(no_pulumi, tmp_path):
    on_path = _executable(no_pulumi / "pulumi")
    _executable(tmp_path / "home" / ".pulumi" / "bin" / "pulumi")
    found = Engine.installed_cli()
    assert found.cli == on_path and found.installed and found.plugin_directories == []


def test_the_installed_cli_is_found_where_pulumis_installer_puts_it_when_path_lacks_it(no_pulumi, tmp_path,
                                                                                       monkeypatch):
    in_home = _executable(tmp_path / "home" / ".pulumi" / "bin" / "pulumi")
    assert Engine.installed_cli().cli == in_home
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "elsewhere"))
    in_pulumi_home = _executable(tmp_path / "elsewhere" / "bin" / "pulumi")
    assert Engine.installed_cli().cli == in_pulumi_home


def test_a_missing_cli_names_every_place_looked_in(no_pulumi, tmp_path, monkeypatch):
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "elsewhere"))
    with pytest.raises(PulumiCliMissing) as missing:
        Engine.installed_cli()
    assert f"{tmp_path / 'elsewhere' / 'bin'} or {tmp_path / 'home' / '.pulumi' / 'bin'}" in str(missing.value)


def test_the_installed_cli_keeps_its_own_backend_unless_a_directory_is_given(no_pulumi, tmp_path, monkeypatch):
    project = find_project(_project(tmp_path))
    installed = Engine(cli=_executable(no_pulumi / "pulumi"), installed=True)
    assert _backend(project, "byo-p5", installed, None).directory is None
    assert "pulumi login" in _backend(project, "byo-p5", installed, None).shown
    assert _backend(project, "byo-p5", installed, tmp_path / "state").directory == tmp_path / "state"
    monkeypatch.setenv("PULUMI_BACKEND_URL", "s3://bucket/state")
    assert _backend(project, "byo-p5", installed, None).directory is None
    assert "s3://bucket/state" in _backend(project, "byo-p5", installed, None).shown


def test_a_stack_an_earlier_trainstack_deployed_into_its_own_directory_stays_there(no_pulumi, tmp_path):
    """Its resources are recorded nowhere else: another backend would create them all again."""
    project = find_project(_project(tmp_path))
    installed = Engine(cli=_executable(no_pulumi / "pulumi"), installed=True)
    kept = project.root / engine.DEFAULT_STATE
    (kept / ".pulumi" / "stacks" / "trainstack").mkdir(parents=True)
    (kept / ".pulumi" / "stacks" / "trainstack" / "byo-p5.json").write_text("{}")
    assert _backend(project, "byo-p5", installed, None).directory == kept
    assert _backend(project, "dev", installed, None).directory is None


def test_the_source_built_engine_keeps_trainstacks_directory_as_before(no_pulumi, tmp_path):
    project = find_project(_project(tmp_path))
    built = Engine(cli=_executable(no_pulumi / "pulumi"), installed=False)
    assert _backend(project, "byo-p5", built, None).directory == project.root / engine.DEFAULT_STATE


def test_engine_source_asks_for_the_engines_built_from_source(no_pulumi, tmp_path, monkeypatch):
    asked: list[str] = []

    def directory(name: str) -> Path:
        asked.append(name)
        raise engines.EnginesMissing(f"engine '{name}' is not built")

    monkeypatch.setattr(engines, "directory", directory)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["preview", "--stack", "byo-p5", "--cwd", str(_project(tmp_path)), "--engine", "source"])
    assert asked == [engines.PULUMI] and code == cli.EXIT_FAILURE


@pytest.mark.parametrize(("cores", "minutes"), [(2, 7), (4, 3), (64, 2)])
def test_a_build_from_source_is_announced_with_its_time_on_this_machines_cores(cores, minutes):
    said = engines.build_announcement(engines.PULUMI, cores=cores)
    assert said.startswith("building the engine 'pulumi' from Go source")
    assert f"about {minutes} min on this machine's {cores} cores" in said
    assert f"{engines.COLD_BUILD_SECONDS[engines.PULUMI]} s on 2 cores" in said


def test_every_engine_has_a_measured_cold_build_time():
    assert set(engines.COLD_BUILD_SECONDS) == set(engines.BUILD_ORDER)
