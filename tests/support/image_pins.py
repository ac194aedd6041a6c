"""What trainstack pins, found in its code rather than listed by hand, so that a new pin cannot slip past the test of
pinned images (tests/catalog/test_pinned_images.py).

A pin is one of:

* ``chart NAME`` at its version: every chart of the add-on table (``catalog/addons.py``), whose images come at the
  tags that chart version names;
* ``manifest kustomize:OPERATOR`` at its version: every operator manifest of that table;
* ``image REPOSITORY`` at its tag: every container image written in ``components/``: a string that is a whole image
  reference (``registry.k8s.io/kubectl:v1.35.4``), an f-string that builds one (the module's own string constants
  filled in, anything else kept as ``{expression}``), or a ``(repository, tag)`` pair of strings whose tag is a
  version. An image is recognised by its registry host or its namespace (``pytorch/pytorch:...``): a Docker Hub
  library image is written ``docker.io/library/NAME:TAG``, which is also how the container runtimes resolve it (the
  shipped stacks' rendered images are checked against these pins too, and would show one written otherwise).

A registry that is per region (ECR: ``<account>.dkr.ecr.<region>.amazonaws.com``, or the ``{...host}`` an f-string
takes from catalog/image_registries.py) is written ``<regional ECR>``: one pin whatever the stack's region.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from trainstack.catalog import addons

PACKAGE = Path(addons.__file__).resolve().parents[1]

_HOST = r"(?:\{[^{}]+\}|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::[0-9]+)?)"
_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
# The distribution reference grammar (distribution/reference regexp.go): [host[:port]/]path[:tag], the path's
# components lower case; a tag up to 128 word characters, dots and dashes.
IMAGE = re.compile(rf"(?P<repository>(?:{_HOST}/)?{_PART}(?:/{_PART})*):(?P<tag>\w[\w.-]{{0,127}})")
_VERSION = re.compile(r"v?[0-9]+\.[0-9]")
_REGIONAL = re.compile(r"^(?:\{[^{}]+\}|[0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?)/")
REGIONAL_ECR = "<regional ECR>"

NOT_PINS = {
    "image rehearsal.invalid/trainstack": "the rehearsal's jobs, which kwok's nodes never pull; .invalid is a name "
                                          "that never resolves (RFC 2606)",
}
"""Image references in the code that no cluster pulls, and why."""


@dataclass(frozen=True, order=True)
class Pin:
    what: str
    """``chart NAME``, ``manifest kustomize:OPERATOR`` or ``image REPOSITORY``."""
    version: str
    """The chart's or manifest's version, or the image's tag."""
    where: str = field(compare=False)
    """Where the code pins it (the first place, where there are several)."""

    def __str__(self) -> str:
        return f"{self.what} {self.version}"


def regional(reference: str) -> str:
    """``reference`` with a per-region ECR host, or an f-string's host field, written ``<regional ECR>``."""
    return _REGIONAL.sub(f"{REGIONAL_ECR}/", reference)


def image_pin(reference: str, where: str) -> Optional[Pin]:
    """The pin ``reference`` is when it is a whole image reference with a tag and a namespace or host."""
    found = IMAGE.fullmatch(reference)
    if found is None or "/" not in found.group("repository"):
        return None
    return Pin(f"image {regional(found.group('repository'))}", found.group("tag"), where)


def catalog_pins() -> Iterator[Pin]:
    """Every chart and operator manifest ``catalog/addons.py`` defines, in ``CHARTS`` or not."""
    for name, value in vars(addons).items():
        rows = value.items() if isinstance(value, dict) else [(None, value)]
        for key, row in rows:
            where = f"catalog/addons.py {name}" + (f"[{key!r}]" if key is not None else "")
            if isinstance(row, addons.Chart):
                yield Pin(f"chart {row.name}", row.version, where)
            elif isinstance(row, addons.OperatorManifest):
                yield Pin(f"manifest {row.component}", row.version, where)


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """The module's ``NAME = "..."`` constants, which its f-strings may name."""
    return {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def _text(node: ast.AST, constants: Mapping[str, str]) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name) and \
                value.value.id in constants:
            parts.append(constants[value.value.id])
        else:
            parts.append("{" + ast.unparse(value.value if isinstance(value, ast.FormattedValue) else value) + "}")
    return "".join(parts)


def _pair(node: ast.AST) -> Optional[tuple[str, str]]:
    """A ``(repository, tag)`` tuple, or a ``{"repository": ..., "tag": ...}`` dict, of two string constants whose
    tag is a version (``v1.35.0``, ``2.31.0.0``): a pair of a label and its value (``("nvidia.com/gpu", "8")``) is
    none."""
    if isinstance(node, ast.Tuple) and len(node.elts) == 2:
        items = node.elts
    elif isinstance(node, ast.Dict):
        keyed = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
        items = [keyed.get("repository"), keyed.get("tag")]
    else:
        return None
    strings = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    return (strings[0], strings[1]) if len(strings) == 2 and _VERSION.match(strings[1]) else None


def written_images(package: Path = PACKAGE) -> Iterator[Pin]:
    """Every image reference written in the package's Python code, but those of ``NOT_PINS``."""
    for file in sorted(package.rglob("*.py")):
        tree = ast.parse(file.read_text())
        constants = _string_constants(tree)
        for node in ast.walk(tree):
            where = f"{file.relative_to(package).as_posix()}:{getattr(node, 'lineno', 0)}"
            pair = _pair(node)
            text = f"{pair[0]}:{pair[1]}" if pair else _text(node, constants)
            pin = image_pin(text, where) if text else None
            if pin is not None and pin.what not in NOT_PINS:
                yield pin


def pinned() -> dict[Pin, Pin]:
    """Every pin, once (a pin written in two places is kept with the first)."""
    found: dict[Pin, Pin] = {}
    for pin in [*catalog_pins(), *written_images()]:
        found.setdefault(pin, pin)
    return found


def rendered_images(record: Mapping[str, Any]) -> Iterator[tuple[str, Optional[Pin], str]]:
    """(image, the chart pin of the release it is a value of or None, resource) for every image a plan record
    renders: a reference, or a Helm value's ``image`` (``repository`` with its ``tag``, or alone: the chart's own
    tag). A repository alone is written without a tag."""
    for resource in record["resources"]:
        inputs = resource.get("inputs") or {}
        chart = None
        if "chart" in inputs and "version" in inputs:
            chart = Pin(f"chart {addons.chart_reference(str(inputs['chart']))}", str(inputs["version"]), "")
        for value in _image_values(inputs):
            if isinstance(value, str):
                yield value, None, resource["name"]
            elif isinstance(value, dict) and value.get("repository"):
                tagged = f"{value['repository']}:{value['tag']}" if value.get("tag") else str(value["repository"])
                yield tagged, chart, resource["name"]


def _image_values(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "image":
                yield item
            yield from _image_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _image_values(item)
