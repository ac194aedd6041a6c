"""Every function in components/ fits on a screen: at most 60 lines, from its ``def`` (decorators
not counted) to its last line, docstring included. A longer one is split into named steps that
read as the architecture they build.

Generated code is exempt only when listed here with the reason; nothing is listed today
(``package/config_types.py`` is generated, but holds no functions)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "components"
MOST_LINES = 60
GENERATED: dict[str, str] = {}
"""Module paths under components/ exempt from the limit, each with why."""


def long_functions(root: Path, most: int = MOST_LINES) -> list[str]:
    """``path:line name (N lines)`` for every function under ``root`` longer than ``most`` lines."""
    found = []
    for file in sorted(root.rglob("*.py")):
        relative = file.relative_to(root).as_posix()
        if relative in GENERATED:
            continue
        for node in ast.walk(ast.parse(file.read_text(), filename=str(file))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > most:
                    found.append(f"{relative}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_in_components_is_longer_than_60_lines():
    assert long_functions(PACKAGE) == []


def test_the_scan_names_a_function_one_line_over_the_limit(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MOST_LINES - 1))
    (tmp_path / "fits.py").write_text(f"def fits():\n{body}\n")
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "over.py").write_text(f"class A:\n    def over(self):\n{body}\n        y = 0\n"
                                               .replace("\n    x", "\n        x"))
    assert long_functions(tmp_path) == ["deep/over.py:2 over (61 lines)"]


def test_every_exemption_names_a_module_that_exists_and_a_reason():
    for path, reason in GENERATED.items():
        assert (PACKAGE / path).is_file() and reason.strip(), path
