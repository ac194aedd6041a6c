"""A YAML file changed in place: only the text of the keys whose values change is rewritten, every other byte kept.

``trainstack upgrade --write`` hands each step to a reviewer as a pull request. Dumping the parsed document again
dropped every comment (the shipped stacks and ``trainstack init`` explain each key in one) and the
``# yaml-language-server: $schema=...`` line that lets editors check the file, and re-quoted and re-indented
untouched values, so the control plane step, which sets two keys (5 lines), showed as a diff of 34 lines on the
shipped dev stack and 215 on the file ``trainstack init`` writes for frontier-p5 (issue 63, class 7). :func:`edited`
instead compares the document the file holds with the one it must become and splices text where they differ:

* a changed scalar or flow collection (``[a, b]``) is replaced where it stands, in its own quotes where those read
  back the same (``"1.33"`` becomes ``"1.34"``), so a comment on its line stays; a new string that needs quotes
  takes the ones the file uses most;
* a key added goes at the end of its mapping: after the last line of the mapping's last value, before any comment
  lines that follow it (those introduce the next key), indented as its siblings;
* a key removed takes its own lines and the comment on them; a comment line above it stays, since nothing says
  whether it speaks of that key;
* any other change (a block value that becomes a scalar, a list of mappings) rewrites that one entry.

New values are written by the file boundary's one YAML writer (:func:`trainstack.boundary.dump_yaml`), which quotes a
string a reader would take for another type (``'1.30'``, ``'on'``). The result is read again and must be the
document before with exactly these changes, type for type; otherwise :class:`NotEditable`, never a wrong file.

Why splices rather than a round-trip library. ruamel.yaml (0.19.1, in the environment through check-jsonschema) keeps
a comment by attaching it to the token before it, so the comment lines above a key belong to the previous key's
value. Measured on a ``trainstack init`` file: a key added at the end of ``trainstack:eks`` went in below the comment
that describes the next key, ``trainstack:nodeGroups``, and removing ``eks.controlPlaneTier`` removed that comment
too (reported against tools built on it: wwkimball/yamlpath issue 170, kwoodson/ansible-role-yedit issue 76). Its
indent setting is one for the whole file, so a file that indents some lists under their key and not others has one
kind rewritten (measured too). PyYAML, already the reader, gives each node's position in the text
(``Node.start_mark``/``end_mark``), which is all a splice needs; no dependency is added.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import yaml
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from .boundary import FileProblem, cut, dump_yaml, parse_yaml

Path = tuple[Any, ...]
"""Keys from the top of the document to a value."""
_REMOVED = object()
_MERGE = "tag:yaml.org,2002:merge"
_LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


class NotEditable(FileProblem):
    """The change cannot be made in place (an aliased value, a merge key, a file that is not a block mapping)."""


@dataclass(frozen=True)
class _Splice:
    start: int
    end: int
    text: str


def edited(text: str, before: Mapping[str, Any], after: Mapping[str, Any], name: str) -> str:
    """``text``, which holds ``before``, changed in place to hold ``after``; ``name`` names the file in errors.

    ``before`` and ``after`` are the caller's readings of the file (a Pulumi stack file's, say), so a value the two
    readings share is left as it is written, whatever another YAML reader would make of it."""
    held = parse_yaml(text)
    root = yaml.compose(text, Loader=yaml.SafeLoader) if isinstance(held, dict) else None
    if not isinstance(root, MappingNode) or not _block_mapping(root):
        raise NotEditable(f"{name} is not a YAML mapping written in block style (key: value lines), so trainstack "
                          "cannot change it in place; write it so")
    editor = _Editor(text, name, root)
    editor.mapping(root, before, after, ())
    result = editor.result()
    held = _unshared(held)  # PyYAML hands an alias the anchored value itself: an edit of one must not show in both
    try:
        for path, value in editor.made:
            _put(held, path, value)
    except (KeyError, TypeError):
        held = None  # the file's keys read otherwise by PyYAML than by the caller's reader: the check below refuses
    if held is None or not _same(parse_yaml(result), held):
        raise NotEditable(f"{name}: changing {', '.join(_shown(path) for path, _ in editor.made)} in place would not "
                          "read back as written; please report it with the file")
    return result


class _Editor:
    """The splices that turn the file's text into the new document's, and the changes they claim to make."""

    def __init__(self, text: str, name: str, root: MappingNode) -> None:
        self.text, self.name = text, name
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = _indent_unit(root)
        self.shared = _shared(root)
        self.quote = _quote(root)
        self.splices: list[_Splice] = []
        self.made: list[tuple[Path, Any]] = []

    def mapping(self, node: MappingNode, before: Mapping[Any, Any], after: Mapping[Any, Any], path: Path) -> None:
        """The splices that make the block mapping ``node`` (holding ``before``) hold ``after``."""
        self.own(node, path)
        last: Optional[tuple[Node, Node]] = None
        for key_node, value_node in node.value:
            key = self.key(key_node, before, path)
            if key not in after:
                self.remove(key_node, value_node, (*path, key))
                continue
            last = key_node, value_node
            if not _same(before[key], after[key]):
                self.change(key_node, value_node, before[key], after[key], (*path, key))
        added = {key: value for key, value in after.items() if key not in before}
        if added and last is None:
            raise NotEditable(f"{self.name}: every key of {_shown(path)} changes, so there is nothing to edit in place")
        if added and last is not None:
            self.add(last, added, path)

    def change(self, key_node: Node, value_node: Node, old: Any, new: Any, path: Path) -> None:
        if (isinstance(old, dict) and isinstance(new, dict) and set(old) & set(new) and _block_mapping(value_node)
                and isinstance(value_node, MappingNode)):
            self.mapping(value_node, old, new, path)
            return
        self.own(value_node, path)
        inline = _flow_collection(value_node) or (isinstance(value_node, ScalarNode) and value_node.style not in (
            "|", ">") and value_node.end_mark.index > value_node.start_mark.index)  # not a block scalar, not empty
        if inline and (_flow_collection(value_node) or not _nested(new)):
            style = value_node.style if isinstance(value_node, ScalarNode) else None
            self.splice(value_node.start_mark.index, value_node.end_mark.index, self.scalar(new, style))
        else:
            column = self.line_column(key_node, path)
            key = self.text[key_node.start_mark.index:key_node.end_mark.index]
            first, *rest = self.entry(key, new, column)
            end = self.line_end(self.end(value_node, key_node))
            self.splice(key_node.start_mark.index, end,
                        self.newline.join([first[column:] + self.key_comment(key_node), *rest]))
        self.made.append((path, new))

    def remove(self, key_node: Node, value_node: Node, path: Path) -> None:
        """The key's lines go, with the comments on them; the line break after them too."""
        self.line_column(key_node, path)
        start = self.text.rfind("\n", 0, key_node.start_mark.index) + 1
        end = self.line_end(self.end(value_node, key_node))
        end += len(self.newline) if self.text.startswith(self.newline, end) else 0
        self.splice(start, end, "")
        self.made.append((path, _REMOVED))

    def add(self, last: tuple[Node, Node], added: dict[Any, Any], path: Path) -> None:
        """``added`` after the last line of the mapping's last value that stays, indented as that value's key."""
        key_node, value_node = last
        column = self.line_column(key_node, path)
        lines = [line for key, value in added.items() for line in self.entry(_flow(key), value, column)]
        at = self.line_end(self.end(value_node, key_node))
        self.splice(at, at, "".join(self.newline + line for line in lines))
        self.made += [((*path, key), value) for key, value in added.items()]

    def entry(self, key: str, value: Any, column: int) -> list[str]:
        """``key: value`` as block YAML lines at ``column``: mappings a key a line, lists of scalars inline as the
        shipped stacks and ``trainstack init`` write them, lists of mappings one ``- `` item each."""
        pad = " " * column
        if isinstance(value, dict) and value:
            return [f"{pad}{key}:", *[line for inner, item in value.items()
                                      for line in self.entry(_flow(inner), item, column + self.unit)]]
        if isinstance(value, list) and any(isinstance(item, dict) and item for item in value):
            return [f"{pad}{key}:", *[line for item in value for line in self.item(item, column + self.unit)]]
        return [f"{pad}{key}: {self.scalar(value)}"]

    def scalar(self, value: Any, style: Optional[str] = None) -> str:
        """``value`` on one line in ``style``'s quotes if it had some, else in the file's quotes where it needs any."""
        text = _flow(value, style)
        return _flow(value, self.quote) if style is None and text.startswith("'") and self.quote == '"' else text

    def item(self, item: Any, column: int) -> list[str]:
        if isinstance(item, dict) and item:
            # "- " takes the place of the item's indent on its first key's line; the rest line up under it.
            first, *rest = [line for key, value in item.items() for line in self.entry(_flow(key), value, column + 2)]
            return [" " * column + "- " + first[column + 2:], *rest]
        return [" " * column + "- " + self.scalar(item)]

    def key(self, key_node: Node, before: Mapping[Any, Any], path: Path) -> Any:
        """The key of ``before`` that ``key_node`` writes (the caller's reading of it, not PyYAML's)."""
        if isinstance(key_node, ScalarNode) and key_node.value in before:
            return key_node.value
        constructed = yaml.SafeLoader("").construct_object(key_node, deep=True)
        if constructed in before:
            return constructed
        raise NotEditable(f"{self.name}: the key {cut(key_node.value)} under {_shown(path)} is read otherwise by "
                          "trainstack's readers; quote it")

    def own(self, node: Node, path: Path) -> None:
        """Refuse a change inside a value written once and used twice (``&anchor``/``*alias``, ``<<`` merges)."""
        if id(node) in self.shared or (isinstance(node, MappingNode) and any(key.tag == _MERGE
                                                                            for key, _ in node.value)):
            raise NotEditable(f"{self.name}: {_shown(path)} is an aliased value or merges one (&name, *name, <<), "
                              "so changing it in place would change it everywhere it is used; write it out")

    def line_column(self, key_node: Node, path: Path) -> int:
        """The key's column, refusing a key that does not start its line (``? key``, a flow mapping)."""
        start = self.text.rfind("\n", 0, key_node.start_mark.index) + 1
        if self.text[start:key_node.start_mark.index].strip():
            raise NotEditable(f"{self.name}: {_shown(path)} does not start its line, so trainstack cannot change "
                              "it in place; write it as key: value on a line of its own")
        return key_node.start_mark.column

    def end(self, node: Node, key_node: Node) -> int:
        """Where the last line of a key's value ends its content (before comment lines after it)."""
        if id(node) in self.shared:
            raise NotEditable(f"{self.name}: the value of {cut(str(getattr(key_node, 'value', '')))} is written "
                              "once and used again (&name, *name), so trainstack cannot tell where its text ends; "
                              "write it out")
        if isinstance(node, CollectionNode) and not node.flow_style and node.value:
            last = node.value[-1]
            return self.end(last[1], last[0]) if isinstance(node, MappingNode) else self.end(last, key_node)
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            # A block scalar's end mark lies past the blank lines that follow its text.
            return len(self.text[:node.end_mark.index].rstrip())
        return max(node.end_mark.index, key_node.end_mark.index)

    def line_end(self, index: int) -> int:
        """Where the line holding ``index`` ends, before its line break."""
        found = self.text.find("\n", index)
        end = len(self.text) if found < 0 else found
        return end - 1 if end > index and self.text[end - 1] == "\r" else end

    def key_comment(self, key_node: Node) -> str:
        """The comment after ``key:`` where nothing else follows on its line (the value starts below, or is empty)."""
        rest = self.text[key_node.end_mark.index:self.line_end(key_node.end_mark.index)]
        before_comment, hash_mark, comment = rest.partition("#")
        return " " * (len(before_comment) - 1) + "#" + comment if hash_mark and before_comment.strip() == ":" else ""

    def splice(self, start: int, end: int, text: str) -> None:
        self.splices.append(_Splice(start, end, text))

    def result(self) -> str:
        text, bound = self.text, len(self.text)
        for splice in sorted(self.splices, key=lambda each: (each.start, each.end), reverse=True):
            if splice.end > bound:
                raise NotEditable(f"{self.name}: two changes touch the same lines; please report it with the file")
            text, bound = text[:splice.start] + splice.text + text[splice.end:], splice.start
        return text


def _flow(value: Any, style: Optional[str] = None) -> str:
    """``value`` on one line as the file boundary writes it, in ``style``'s quotes (``'`` or ``"``) for a string
    that had them. Where PyYAML's text would hold a line break, it is written double-quoted, its breaks escaped: a
    single-quoted or plain scalar continues on lines whose indent must suit the place it is put, and PyYAML leaves
    the breaks YAML 1.1 adds to ``\\n`` (``\\x85``, ``\\u2028``, ``\\u2029``: YAML 1.1 spec, section 5.4) unescaped
    in single quotes."""
    options = {"width": float("inf"), "allow_unicode": True, "sort_keys": False, "default_flow_style": True}
    quoted = style if isinstance(value, str) and style in ("'", '"') else None
    text = dump_yaml(value, default_style=quoted, **options).removesuffix("\n").removesuffix("\n...")
    if any(brk in text for brk in _LINE_BREAKS):
        text = dump_yaml(value, default_style='"', **options).removesuffix("\n")
    return text


def _nested(value: Any) -> bool:
    """Whether ``value`` is written on lines of its own: a mapping, or a list holding a collection."""
    return (isinstance(value, dict) and bool(value)) or (isinstance(value, list) and any(
        isinstance(item, (dict, list)) for item in value))


def _block_mapping(node: Node) -> bool:
    return isinstance(node, MappingNode) and not node.flow_style and bool(node.value)


def _flow_collection(node: Node) -> bool:
    return isinstance(node, (MappingNode, SequenceNode)) and bool(node.flow_style)


def _indent_unit(root: MappingNode) -> int:
    """Columns a nested mapping's keys sit right of their parent key, as the file writes it (else 2)."""
    for key, value in root.value:
        if _block_mapping(value) and value.value[0][0].start_mark.column > key.start_mark.column:
            return int(value.value[0][0].start_mark.column - key.start_mark.column)
    return 2


def _quote(root: Node) -> str:
    """The quote the file writes its quoted values with: ``"`` where it has more of those than ``'``."""
    styles: Counter[Optional[str]] = Counter()
    waiting = [root]
    while waiting:
        node = waiting.pop()
        styles[node.style if isinstance(node, ScalarNode) else None] += 1
        waiting += _children(node)
    return '"' if styles['"'] > styles["'"] else "'"


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value) if isinstance(node, SequenceNode) else []


def _shared(root: Node) -> set[int]:
    """The nodes written once and used in more than one place (``&name`` and its ``*name``), and all under them:
    PyYAML's composer hands an alias the anchored node itself, so such a node is met more than once."""
    met: Counter[int] = Counter()
    waiting = [root]
    while waiting:  # the reader bounds how far aliases expand (boundary.YAML_NODES_MAX), so this ends soon
        node = waiting.pop()
        met[id(node)] += 1
        waiting += _children(node)
    return {node for node, times in met.items() if times > 1}


def _put(document: Any, path: Path, value: Any) -> None:
    """``value`` set at ``path`` in ``document`` (removed for _REMOVED), as the edit claims to have made it."""
    *parents, last = path
    for key in parents:
        document = document[key]
    if value is _REMOVED:
        del document[last]
    else:
        document[last] = copy.deepcopy(value)


def _unshared(value: Any) -> Any:
    """A copy of ``value`` with every mapping and list its own (``copy.deepcopy`` keeps what is shared shared)."""
    if isinstance(value, dict):
        return {key: _unshared(item) for key, item in value.items()}
    return [_unshared(item) for item in value] if isinstance(value, list) else value


def _same(one: Any, other: Any) -> bool:
    """Equal, and of the same type at every level: ``True == 1`` and ``1.0 == 1`` in Python, not in a stack file."""
    if type(one) is not type(other):
        return False
    if isinstance(one, dict):
        return one.keys() == other.keys() and all(_same(one[key], other[key]) for key in one)
    if isinstance(one, list):
        return len(one) == len(other) and all(_same(a, b) for a, b in zip(one, other, strict=True))
    return bool(one == other or (one != one and other != other))  # NaN is itself


def _shown(path: Path) -> str:
    return cut(".".join(str(key) for key in path) or "the top")
