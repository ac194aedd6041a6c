"""Finding a Pulumi project and reading one stack's configuration file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SECRET_PLACEHOLDER = "[secret: not decrypted by the offline plan]"


class ProjectError(Exception):
    """The project or stack could not be found or read."""


@dataclass(frozen=True)
class Project:
    root: Path
    name: str
    main: Path
    """The program directory (``main:`` in Pulumi.yaml)."""
    stack_config_dir: Path

    def stack_file(self, stack: str) -> Path:
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        prefix, suffix = "Pulumi.", ".yaml"
        return sorted(p.name[len(prefix):-len(suffix)] for p in self.stack_config_dir.glob("Pulumi.*.yaml"))


@dataclass(frozen=True)
class StackSettings:
    """One stack's config as the Pulumi engine would hand it to the program."""

    name: str
    config: dict[str, str]
    """``namespace:key`` -> string (objects as JSON, as the engine passes them)."""
    secret_keys: list[str] = field(default_factory=list)
    """Keys whose value was ``secure:`` and is replaced by a placeholder."""


def find_project(start: Path) -> Project:
    """The project whose Pulumi.yaml is nearest ``start`` going upward."""
    start = start.resolve()
    for directory in (start, *start.parents):
        project_file = directory / "Pulumi.yaml"
        if project_file.is_file():
            return _read_project(project_file)
    raise ProjectError(f"no Pulumi.yaml in {start} or any directory above it; "
                       "run from inside the project or pass --cwd.")


def _read_project(project_file: Path) -> Project:
    spec = yaml.safe_load(project_file.read_text()) or {}
    root = project_file.parent
    if "name" not in spec:
        raise ProjectError(f"{project_file} has no 'name'.")
    main = root / spec.get("main", ".")
    if main.is_file():
        main = main.parent
    return Project(root=root, name=spec["name"], main=main,
                   stack_config_dir=root / spec.get("stackConfigDir", "."))


def load_stack(project: Project, stack: str) -> StackSettings:
    path = project.stack_file(stack)
    if not path.is_file():
        known = ", ".join(project.stacks()) or "none"
        raise ProjectError(f"stack '{stack}' has no config file {path} (stacks here: {known}).")
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise ProjectError(f"{path} is not valid YAML: {error}") from None
    config: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in (document.get("config") or {}).items():
        if ":" not in key:
            key = f"{project.name}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            secret_keys.append(key)
            value = SECRET_PLACEHOLDER
        config[key] = _as_engine_string(_replace_nested_secrets(value, key, secret_keys))
    return StackSettings(name=stack, config=config, secret_keys=secret_keys)


def _replace_nested_secrets(value: Any, key: str, secret_keys: list[str]) -> Any:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            if key not in secret_keys:
                secret_keys.append(key)
            return SECRET_PLACEHOLDER
        return {k: _replace_nested_secrets(v, key, secret_keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_nested_secrets(v, key, secret_keys) for v in value]
    return value


def _as_engine_string(value: Any) -> str:
    """The engine passes strings as-is, everything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value)
