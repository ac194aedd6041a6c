"""The boundary between trainstack and the files people hand it.

Every file a tool reads (a project or stack file, a plan record, stack outputs, a policy
configuration) and every file it writes (``-o``) passes through here, once per kind of
file: a file that cannot be used is refused with one line naming the file and what is
wrong, as a :class:`FileProblem`, never a traceback. A value echoed in any error is cut
to :data:`SHOWN_MAX` characters (:func:`cut`), so a bad input cannot flood a terminal
or a CI log.

A key given twice in one mapping is refused with both lines, as the Pulumi engine's YAML reader
(go-yaml v3: "mapping key ... already defined at line N", decode.go) refuses it; PyYAML alone
keeps the last value and says nothing.

A project or stack file is at most :data:`YAML_FILE_BYTES_MAX` bytes, checked before a byte of it is
parsed: PyYAML reads a few hundred kilobytes a second, so a 50 MB file would hold a plan for most of a
minute before saying anything.

YAML aliases are bounded. PyYAML shares an aliased node instead of copying it, so a
"billion laughs" document loads in microseconds, but everything that walks the value
afterwards (JSON encoding of the config, validation, an error message) walks it
expanded. A stack file may hold at most :data:`YAML_ALIASES_MAX` aliases and expand
to at most :data:`YAML_NODES_MAX` nodes; a document that refers to itself is refused.

A Pulumi project or stack file is read as the Pulumi engine reads it (:func:`read_pulumi_yaml`): its plain
scalars are typed by go-yaml v3's rules, not YAML 1.1's, and a scalar whose reading would surprise its author
(``010``, ``1_000``, an unquoted date) is refused with its line and the fix (``yaml_scalars.py``).

YAML trainstack writes has no aliases: :func:`dump_yaml` and :func:`dump_yaml_all` are the one way
it renders YAML (jobs, engine and controller configurations, stack-file values), each value written
out where it appears (see :class:`_NoAliasDumper` for why). Every string it writes is read back as that
string by PyYAML, by the Pulumi engine and by kubectl: a string one of them would read as a number or a
boolean (``1e-4``, ``y``, ``0o17``) is quoted (:class:`_NoAliasDumper`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode

from .yaml_scalars import ScalarRefused, needs_quotes, pulumi_scalar

SHOWN_MAX = 80
"""Characters of a user's value an error shows (the rest is counted, not shown)."""
PATH_SHOWN_MAX = 4096
"""Characters of a path an error shows: Linux's PATH_MAX, so a real path is shown whole. The reader needs all of it to
find the file, and 80 characters cut an ordinary project's path (and the suite's own temporary paths, whose length
depends on $TMPDIR and on pytest-xdist's per-worker directories)."""
YAML_FILE_BYTES_MAX = 256 * 1024
"""Bytes a project or stack file may hold: fifteen times a stack of 64 node groups (17 KB), and read in about
a second. The stack-file reference (docs/stack-files.md) states it."""
JSON_FILE_BYTES_MAX = 64 * 1024 * 1024
"""Bytes a JSON file may hold where no smaller bound is named: a plan record (frontier-p5's, 2,052 nodes, is 0.75 MB)
eighty times over; what is read whole into memory is bounded, so ``/dev/zero`` or a wrong file is refused, not
read until memory runs out."""
SMALL_JSON_BYTES_MAX = 256 * 1024
"""Bytes of a small JSON file: stack outputs (frontier-p5's are 3 KB) and a policy configuration, bounded as a stack
file is."""
YAML_ALIASES_MAX = 64
"""Aliases (``*name``) one YAML document may use. Stack files need a handful at most."""
YAML_NODES_MAX = 100_000
"""Nodes a YAML document may expand to with its aliases followed: far above any stack
(the 64-group benchmark stack holds a few thousand), far below what hangs a plan."""


class FileProblem(ValueError):
    """A file trainstack reads or writes cannot be used; the message is one line, bounded."""


def shown_path(path: object) -> str:
    """A path as an error shows it: whole (up to PATH_SHOWN_MAX), one line."""
    return cut(str(path), PATH_SHOWN_MAX)


def cut(value: object, limit: int = SHOWN_MAX) -> str:
    """``value`` (a string as is, anything else as its repr) cut to ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\n", "\\n")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def read_text(path: Path, what: str, max_bytes: int | None = None) -> str:
    """The file's text, which must be UTF-8. ``what`` names the file's role in the message; a file of more
    than ``max_bytes`` is refused with its size, having read no more than that."""
    if path.is_dir():
        raise FileProblem(f"{what} {shown_path(path)} is a directory; give the file in it")
    try:
        with path.open("rb") as stream:
            data = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
        size = path.stat().st_size
    except OSError as error:
        raise FileProblem(f"{what} {shown_path(path)} cannot be read: {error.strerror or type(error).__name__}") \
            from None
    if max_bytes is not None:
        _refuse_larger(data, size, max_bytes, f"{what} {shown_path(path)}")
    return _decoded(data, f"{what} {shown_path(path)}")


def _refuse_larger(data: bytes, size: int, max_bytes: int, name: str) -> None:
    """Refuse ``data`` (read up to one byte past ``max_bytes``) when it holds more; ``size``: the file's, 0 for a
    pipe, which has none."""
    if len(data) > max_bytes:
        held = f"{size:,} bytes" if size > max_bytes else f"more than {max_bytes:,} bytes"
        raise FileProblem(f"{name} is {held}; trainstack reads at most {max_bytes:,} bytes "
                          f"({max_bytes // 1024:,} KiB) of it, before parsing: look for the wrong file, or a value "
                          "pasted in by mistake")


def _decoded(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FileProblem(f"{name} is not UTF-8 text (byte {error.start}: "
                          f"{data[error.start:error.start + 1]!r}); save it as UTF-8") from None


def read_yaml_mapping(path: Path, what: str) -> dict[str, Any]:
    """The YAML file's top-level mapping (an empty file is an empty mapping), its size and aliases bounded. Its plain
    scalars are typed as YAML 1.1 types them, as the Kubernetes Go libraries do (a kubeconfig); a Pulumi file is
    read with :func:`read_pulumi_yaml`."""
    return _read_mapping(path, what, _BoundedLoader)


def read_pulumi_yaml(path: Path, what: str) -> dict[str, Any]:
    """A Pulumi project or stack file's top-level mapping, its plain scalars typed as the Pulumi engine types them
    (go-yaml v3); a scalar that reader would read otherwise than the file seems to say is refused with its line."""
    return _read_mapping(path, what, _PulumiLoader)


def _read_mapping(path: Path, what: str, loader: type[_BoundedLoader]) -> dict[str, Any]:
    text = read_text(path, what, max_bytes=YAML_FILE_BYTES_MAX)
    try:
        document = yaml.load(text, Loader=loader)
    except _Refused as refused:
        raise FileProblem(f"{what} {shown_path(path)}, line {refused.line}: {refused.reason}") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise FileProblem(f"{what} {shown_path(path)} is not valid YAML{where}: "
                          f"{cut(error.problem or error.context or 'unreadable')}") from None
    except _DuplicateKey as duplicate:
        raise FileProblem(f"{what} {shown_path(path)}: key {cut(repr(duplicate.key))} is given twice in one mapping "
                          f"(lines {duplicate.first} and {duplicate.second}); keep one of them") from None
    except (yaml.YAMLError, _TooLarge) as error:
        raise FileProblem(f"{what} {shown_path(path)}: {cut(str(error), 2 * SHOWN_MAX)}") from None
    except RecursionError:
        raise FileProblem(f"{what} {shown_path(path)} is nested too deeply to read") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise FileProblem(f"{what} {shown_path(path)} holds a YAML {_kind(document)} at the top; it must be a "
                          "mapping of keys to values (key: value)")
    return document


def parse_yaml(text: str) -> Any:
    """A YAML (or JSON) document held in a value rather than a file (a kubeconfig a plan record carries), its
    aliases and expanded size bounded as a file's; None where it is not one that can be read."""
    try:
        return yaml.load(text, Loader=_BoundedLoader)
    except (yaml.YAMLError, _TooLarge, _DuplicateKey, RecursionError):
        return None


def read_json_object(path: Path, what: str, fix: str, max_bytes: int = JSON_FILE_BYTES_MAX) -> dict[str, Any]:
    """The JSON file's top-level object, of at most ``max_bytes`` (refused before more is read). ``path`` '-' is
    standard input; ``fix`` says how to make a good one."""
    if str(path) == "-":
        import sys

        stream = getattr(sys.stdin, "buffer", None)  # bytes, so that what is not UTF-8 is refused here too
        data = stream.read(max_bytes + 1) if stream is not None else sys.stdin.read(max_bytes + 1).encode()
        _refuse_larger(data, 0, max_bytes, f"{what} <stdin>")
        path, text = Path("<stdin>"), _decoded(data, f"{what} <stdin>")
    else:
        text = read_text(path, what, max_bytes=max_bytes)
    return parse_json_object(text, f"{what} {shown_path(path)}", fix)


def parse_json_object(text: str, name: str, fix: str) -> dict[str, Any]:
    """``text`` as a JSON object; ``name`` says whose text it is in the message."""
    try:
        document = json.loads(text, parse_constant=_not_json)
    except ValueError as error:
        where = f" at line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        reason = error.msg if isinstance(error, json.JSONDecodeError) else cut(str(error))
        raise FileProblem(f"{name} is not JSON{where} ({reason}); {fix}") from None
    except RecursionError:
        raise FileProblem(f"{name} is nested too deeply to read; {fix}") from None
    if not isinstance(document, dict):
        raise FileProblem(f"{name} holds a JSON {_kind(document)}, not an object; {fix}")
    return document


def check_writable(path: Path, what: str) -> None:
    """Refuse, before any work is done, an output path that is a directory or whose directory is missing."""
    if path.is_dir():
        raise FileProblem(f"{what} {shown_path(path)} is a directory; give a file name in it")
    if not path.parent.is_dir():
        raise FileProblem(f"{what} {shown_path(path)}: the directory {shown_path(path.parent)} does not exist; "
                          "create it first")


def write_text(path: Path, text: str, what: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), refusing what :func:`check_writable` refuses, in one line."""
    check_writable(path, what)
    shown = shown_path(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise FileProblem(f"{what} {shown} cannot be written: {error.strerror or type(error).__name__}") from None


def dump_yaml(value: Any, **options: Any) -> str:
    """``value`` as one YAML document, every shared object written out in full (no ``&id``/``*id``);
    ``options`` are PyYAML's (``sort_keys``, ``default_flow_style``, ``width``, ``allow_unicode``)."""
    text: str = yaml.dump(value, Dumper=_NoAliasDumper, **options)
    return text


def dump_yaml_all(documents: Iterable[Any], **options: Any) -> str:
    """``documents`` as one YAML stream (``---`` between them), without aliases, as :func:`dump_yaml`."""
    text: str = yaml.dump_all(documents, Dumper=_NoAliasDumper, **options)
    return text


class _NoAliasDumper(yaml.SafeDumper):
    """PyYAML's safe dumper that never writes an anchor and alias.

    PyYAML anchors any list or mapping that one Python object puts in two places (``&id001`` then
    ``*id001``; SafeRepresenter.ignore_aliases in yaml/pyyaml lib/yaml/representer.py@6.0.3 spares
    scalars only), and the launchers share one pod template between a job's replicas. The YAML is
    still valid, but what reads it next may not follow aliases: kustomize (kyaml) failed on aliased
    nodes from 3.9 ("expected sequence or mapping node", kubernetes-sigs/kustomize issue 3497; issue
    3675 for the fixes that followed), and a line-based patch or a reviewer's diff of the replicas sees
    ``*id001`` instead of the pod. Writing each value out costs bytes only. Nothing trainstack renders
    refers to itself, which an alias-free dumper could not write (it would recurse without end)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def resolve(self, kind: type[Node], value: str, implicit: tuple[bool, bool]) -> str:
        """The tag a plain scalar would be read with. PyYAML's emitter writes a string plain only where its own
        (YAML 1.1) reading is a string; a string that go-yaml v2 (kubectl) or v3 (Pulumi) would read as a number or
        a boolean is given another tag here, so that the emitter quotes it too."""
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]  # PyYAML's stubs
        if kind is ScalarNode and implicit == (True, False) and tag == STR_TAG and needs_quotes(value):
            return "tag:trainstack,2026:read-otherwise"
        return tag


def _not_json(constant: str) -> None:
    """Python's json reads NaN and Infinity; JSON has neither, and a NaN passes every comparison."""
    raise ValueError(f"{constant} is not a JSON number")


def _kind(value: object) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(type(value),
                                                                                             type(value).__name__)


class _TooLarge(Exception):
    pass


class _DuplicateKey(Exception):
    def __init__(self, key: object, first: int, second: int):
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that counts aliases and measures the document with them expanded."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            self.aliases += 1
            if self.aliases > YAML_ALIASES_MAX:
                raise _TooLarge(f"more than {YAML_ALIASES_MAX} YAML aliases (*name); write the values out")
        return Composer.compose_node(self, parent, index)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        """PyYAML's mapping, refusing a key written twice. Keys a merge (``<<: *defaults``) brings in may be
        overridden, as YAML's merge type says; only the keys written in this mapping are compared."""
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:  # as Python's dict compares keys: one of two equal keys would be lost
                    raise _DuplicateKey(key, seen[key], line)
                seen[key] = line
            except TypeError:
                pass  # an unhashable key: PyYAML's own construction refuses it, with its line
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def compose_document(self) -> Node | None:
        node: Node | None = Composer.compose_document(self)
        if node is not None:
            _expanded_size(node, {}, set())
        return node


class _Refused(Exception):
    def __init__(self, reason: str, line: int):
        super().__init__(reason)
        self.reason, self.line = reason, line


STR_TAG = "tag:yaml.org,2002:str"
_PULUMI_TAGS = {bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int", float: "tag:yaml.org,2002:float",
                str: "tag:yaml.org,2002:str", type(None): "tag:yaml.org,2002:null"}


class _PulumiLoader(_BoundedLoader):
    """The bounded loader with go-yaml v3's typing of plain scalars (yaml_scalars.pulumi_scalar), the reader of
    Pulumi's own files (pulumi/pulumi sdk/go/common/encoding/marshal.go reads them with gopkg.in/yaml.v3)."""

    def compose_scalar_node(self, anchor: Any) -> ScalarNode:
        event = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML's stubs leave it untyped
        try:
            node: ScalarNode = Composer.compose_scalar_node(self, anchor)
        except ScalarRefused as refused:
            raise _Refused(str(refused), event.start_mark.line + 1) from None
        return node

    def resolve(self, kind: type[Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode and implicit[0]:
            return "tag:yaml.org,2002:merge" if value == "<<" else _PULUMI_TAGS[type(pulumi_scalar(value))]
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]  # PyYAML's stubs
        return tag


def _expanded_size(node: Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """Nodes under ``node`` with aliases followed; refuses more than YAML_NODES_MAX or a cycle."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        raise _TooLarge("a YAML alias refers to the collection that holds it; write the values out")
    size = 1
    if isinstance(node, CollectionNode):
        open_nodes.add(key)
        children = [part for pair in node.value for part in pair] if isinstance(node, MappingNode) else node.value
        for child in children:
            size += _expanded_size(child, sizes, open_nodes)
            if size > YAML_NODES_MAX:
                raise _TooLarge(f"the YAML expands to more than {YAML_NODES_MAX} values with its aliases "
                                "followed; write the values out")
        open_nodes.discard(key)
    sizes[key] = size
    return size
