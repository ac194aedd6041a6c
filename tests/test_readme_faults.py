"""Each row of the fault table (docs/faults.md) points at tests that exist."""

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def fault_rows() -> list[str]:
    text = (REPO / "docs" / "faults.md").read_text()
    section = text.split("# Faults: what notices, what replaces, what the job does", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| fault ")]


def test_every_fault_row_names_tests_that_exist():
    rows = fault_rows()
    assert len(rows) >= 8
    for row in rows:
        references = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", row.rsplit("|", 2)[-2])
        assert references, f"no test named in: {row[:60]}"
        for path, name in references:
            tree = ast.parse((REPO / path).read_text())
            assert name in {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}, (path, name)
