"""No import cycles in components/: a module is read after the modules it imports, never round and round.

Every import counts, those under ``if TYPE_CHECKING:`` and inside functions too: a model and its validator
that name each other are one concept split in two, however late the import runs. A package's ``__init__``
is left out: a name it re-exports is followed to the module it comes from (``support/module_imports.py``).
A type two modules share lives in a small module both import (``review/finding.py``, ``preflight/check.py``,
``controllers/groups.py``)."""

from collections import deque
from pathlib import Path

from support.module_imports import import_graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each set of modules that import one another round a loop (a strongly connected component of more than one
    module), its modules sorted, by Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = stack[stack.index(module):]
            del stack[stack.index(module):]
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def loop(graph: dict[str, set[str]], modules: list[str]) -> list[str]:
    """The shortest loop from the first of ``modules`` back to it, through ``modules`` alone."""
    first, inside = modules[0], set(modules)
    came_from: dict[str, str] = {}
    queue = deque([first])
    while queue:
        module = queue.popleft()
        for imported in sorted(graph[module] & inside):
            if imported == first:
                path = [module]
                while path[-1] != first:
                    path.append(came_from[path[-1]])
                return [first, *reversed(path[:-1]), first]
            if imported not in came_from:
                came_from[imported] = module
                queue.append(imported)
    return modules


def describe(graph: dict[str, set[str]], found: list[list[str]]) -> str:
    lines = [f"{len(found)} import cycles through {sum(map(len, found))} modules of components/:"]
    for modules in found:
        lines.append("  " + " -> ".join(loop(graph, modules)))
        lines += [f"      {module} imports {', '.join(sorted(graph[module] & set(modules)))}" for module in modules]
    return "\n".join(lines)


def test_no_module_of_components_imports_itself_round_a_loop():
    graph = import_graph()
    found = cycles(graph)
    assert not found, describe(graph, found)


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def test_the_scan_follows_type_checking_and_function_imports_and_names_the_loop(tmp_path):
    root = write(tmp_path, {
        "__init__.py": "",
        "config/__init__.py": "from .model import Model\nfrom .check import check\n",
        "config/model.py": "def validate():\n    from .check import check\n",
        "config/check.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .model import Model\n",
        "config/leaf.py": "",
        "review/risk.py": "from ..config import Model\nfrom . import cost\n",
        "review/cost.py": "from .risk import Finding\nfrom ..config import leaf\n",
    })
    graph = import_graph(root)
    assert graph["review.risk"] == {"config.model", "review.cost"}  # the package's re-export followed to its module
    assert graph["review.cost"] == {"review.risk", "config.leaf"}
    assert cycles(graph) == [["config.check", "config.model"], ["review.cost", "review.risk"]]
    assert describe(graph, cycles(graph)).splitlines()[:4] == [
        "2 import cycles through 4 modules of components/:",
        "  config.check -> config.model -> config.check",
        "      config.check imports config.model",
        "      config.model imports config.check"]


def test_a_package_init_that_imports_its_modules_makes_no_cycle(tmp_path):
    root = write(tmp_path, {"__init__.py": "", "review/__init__.py": "from .risk import assess\n",
                            "review/risk.py": "from . import cost\n", "review/cost.py": "from .. import review\n"})
    assert cycles(import_graph(root)) == []


def test_the_loop_named_is_the_shortest_through_the_cycle(tmp_path):
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert loop(graph, ["a", "b", "c"]) == ["a", "c", "a"]
