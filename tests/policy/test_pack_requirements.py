"""The pack's requirements.txt installs what the pack imports.

The engine installs a Python pack with ``python -m pip install -r requirements.txt`` run
*in the pack's directory* (pulumi/pulumi, sdk/python/toolchain/pip.go), and pip reads a
relative path in a requirements file against its working directory: ``-e ..`` is the
project root there. Resolving the whole set needs the package index; this checks,
offline, what can go wrong in the file itself."""

from __future__ import annotations

import tomllib
from importlib.metadata import version

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from support.policy_stacks import PROJECT

PACK_DIR = PROJECT.root / "policies"


def requirement_lines() -> list[str]:
    lines = (PACK_DIR / "requirements.txt").read_text().splitlines()
    return [line.split(" #")[0].strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def library_dependencies() -> dict[str, Requirement]:
    pyproject = tomllib.loads((PROJECT.root / "pyproject.toml").read_text())
    return {canonicalize_name(r.name): r for r in map(Requirement, pyproject["project"]["dependencies"])}


def test_the_editable_line_is_the_library_seen_from_the_pack_directory():
    editable = [line.split(None, 1)[1] for line in requirement_lines() if line.startswith("-e ")]
    assert len(editable) == 1
    target = (PACK_DIR / editable[0]).resolve()
    assert target == PROJECT.root.resolve()
    assert tomllib.loads((target / "pyproject.toml").read_text())["project"]["name"] == "trainstack"


def test_every_other_line_is_a_requirement_the_library_pins_alike_and_the_installed_version_meets():
    library = library_dependencies()
    for line in requirement_lines():
        if line.startswith("-e "):
            continue
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in library, f"{line}: the library does not depend on {requirement.name}"
        assert requirement.specifier == library[name].specifier, (line, str(library[name]))
        assert requirement.specifier.contains(version(requirement.name)), (line, version(requirement.name))


def test_the_pack_runs_in_its_own_virtualenv_with_the_python_runtime():
    manifest = yaml.safe_load((PACK_DIR / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}
