"""The imports of components/, read with ast as a reader follows them: every import counts, those under
``if TYPE_CHECKING:`` and inside functions too (a type-only import is still a dependency a reader has to follow).

Modules are named by their dotted path inside the package (``config.stack``); a package by its own path
(``config``), which is its ``__init__``."""

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "components"


def module_name(file: Path, root: Path = PACKAGE) -> str:
    """``config/stack.py`` is ``config.stack``; ``config/__init__.py`` is ``config``; the root's is ``""``."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(file: Path, root: Path = PACKAGE) -> Iterator[tuple[list[str], list[str]]]:
    """``(target, names)`` for each import of trainstack in ``file``: the module or package imported from, as
    path parts inside the package (``[]`` for the package root), and the names imported from it (``[]`` for a
    plain ``import``). Relative imports are resolved against the file's own package."""
    package = list(file.relative_to(root).parent.parts)
    for node in ast.walk(ast.parse(file.read_text(), filename=str(file))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            yield base + (node.module.split(".") if node.module else []), [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "trainstack":
            yield (node.module or "").split(".")[1:], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            yield from ((alias.name.split(".")[1:], []) for alias in node.names
                        if alias.name.split(".")[0] == "trainstack")


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module under ``root`` (packages' ``__init__`` left out) and the modules it imports.

    ``from .x import y`` is ``x.y`` where that is a module, else ``x``; a name a package's ``__init__``
    re-exports is followed to the module it comes from, so the ``__init__``'s own imports add no edge."""
    files = {module_name(file, root): file for file in sorted(root.rglob("*.py"))}
    exported = {name: {alias: target for target, aliases in imports_in(file, root) for alias in aliases}
                for name, file in files.items() if file.name == "__init__.py"}

    def resolve(target: list[str], alias: str) -> str:
        for _ in range(len(files)):  # re-exports of re-exports, never round and round
            if ".".join([*target, alias]) in files:
                return ".".join([*target, alias])
            if alias not in exported.get(".".join(target), {}):
                break
            target = exported[".".join(target)][alias]
        return ".".join(target)

    graph: dict[str, set[str]] = {name: set() for name, file in files.items() if file.name != "__init__.py"}
    for name, edges in graph.items():
        for target, aliases in imports_in(files[name], root):
            edges |= {resolve(target, alias) for alias in aliases} if aliases else {".".join(target)}
        edges &= graph.keys() - {name}
    return graph
