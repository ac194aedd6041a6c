"""Finding a Pulumi project and reading one stack's configuration file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..boundary import FileProblem, cut, read_pulumi_yaml, shown_path
from ..yaml_scalars import engine_json

SECRET_PLACEHOLDER = "[secret: not decrypted by the offline plan]"
STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")
"""The top-level keys of a Pulumi stack file (Pulumi's stack settings file reference,
https://www.pulumi.com/docs/iac/concepts/projects/stack-settings-file/)."""


class ProjectError(Exception):
    """The project or stack could not be found or read."""


class StackFileProblem(FileProblem, ProjectError):
    """A project or stack file is readable but not what Pulumi expects (one line, like every FileProblem)."""


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
    spec = read_pulumi_yaml(project_file, "project file")
    root = project_file.parent
    if "name" not in spec:
        raise StackFileProblem(f"project file {project_file} has no 'name'.")
    for key in ("name", "main", "stackConfigDir"):
        if key in spec and not (isinstance(spec[key], str) and spec[key]):
            raise StackFileProblem(f"project file {project_file}: '{key}' is {cut(spec[key])}; it must be a "
                                   "non-empty string (a name or a path)")
    main = root / spec.get("main", ".")
    if main.is_file():
        main = main.parent
    return Project(root=root, name=spec["name"], main=main,
                   stack_config_dir=root / spec.get("stackConfigDir", "."))


def load_stack(project: Project, stack: str) -> StackSettings:
    path = project.stack_file(stack)
    if not path.is_file():
        known = ", ".join(project.stacks()) or "none"
        raise ProjectError(f"stack '{cut(stack)}' has no config file {shown_path(path)} (stacks here: {known}).")
    document = read_pulumi_yaml(path, "stack file")
    _refuse_unknown_keys(document, path)
    section = document.get("config")
    if section is None:
        section = {}
    if not isinstance(section, dict):
        raise StackFileProblem(f"stack file {path}: 'config' is {cut(section)}; it must be a mapping of "
                               "'namespace:key' to values")
    config: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in section.items():
        if not isinstance(key, str) or not key:
            raise StackFileProblem(f"stack file {path}: config key {cut(key)} is not a name; write keys as "
                                   "'namespace:key' (quote keys YAML reads as numbers, booleans or null)")
        if ":" not in key:
            key = f"{project.name}:{key}"
        if value is None:
            # Pulumi v3.259 hands the program "" for a key with no value, and warns that a later version will hand it
            # null (pkg/cmd/pulumi/config: "No value for configuration keys"): what the program sees would change.
            raise StackFileProblem(f"stack file {path}: {key} has no value (null); the Pulumi engine passes it as "
                                   "an empty string now and as null in later versions; give it a value, or remove "
                                   "the key")
        if isinstance(value, dict) and set(value) == {"secure"}:
            secret_keys.append(key)
            value = SECRET_PLACEHOLDER
        config[key] = _as_engine_string(_replace_nested_secrets(value, key, secret_keys), key, path)
    return StackSettings(name=stack, config=config, secret_keys=secret_keys)


def _refuse_unknown_keys(document: dict[Any, Any], path: Path) -> None:
    """A misspelled top-level key (``configs:``) is named, with the nearest known one; otherwise its config would
    be read as missing and reported as the keys missing from it."""
    import difflib

    unknown = [key for key in document if key not in STACK_FILE_KEYS]
    if not unknown:
        return
    key = unknown[0]
    close = difflib.get_close_matches(str(key), STACK_FILE_KEYS, n=1, cutoff=0.5)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise StackFileProblem(f"stack file {path}: unknown top-level key {cut(repr(key))}; {hint}a stack file "
                           f"holds {', '.join(STACK_FILE_KEYS)}")


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


def _as_engine_string(value: Any, key: str, path: Path) -> str:
    """The string the engine hands the program for ``value``: a string as it is, anything else as Go's JSON of it
    (maps with their keys sorted, floats as Go writes them: pulumi/pulumi sdk/go/common/resource/config/object.go,
    MarshalString). A value JSON cannot carry (a YAML binary or set, a mapping with a key that is not text) is
    refused."""
    if isinstance(value, str):
        return value
    where = _non_text_key(value)
    if where is not None:
        raise StackFileProblem(f"stack file {path}: {key} holds the key {cut(repr(where))}, which YAML reads as a "
                               f"{type(where).__name__}, not text; quote it: '{cut(where)}'")
    try:
        return engine_json(value)
    except (TypeError, ValueError) as error:
        raise StackFileProblem(f"stack file {path}: {key} holds a value the Pulumi engine cannot pass on "
                               f"({cut(str(error))}); quote dates and times, and write mappings with "
                               "string keys") from None


def _non_text_key(value: Any) -> Any:
    """The first mapping key under ``value`` that is not a string (the engine writes it with Go's ``%v``), or None."""
    if isinstance(value, dict):
        for item_key, item in value.items():
            if not isinstance(item_key, str):
                return item_key
            found = _non_text_key(item)
            if found is not None:
                return found
    if isinstance(value, list):
        for item in value:
            found = _non_text_key(item)
            if found is not None:
                return found
    return None
