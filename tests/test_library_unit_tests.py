"""docs/library.md's "Unit-test your own program" runs as a reader runs it: its mocks test file, and its
plan_stack test beside the page's own program of parts, its Pulumi.yaml and its stack file, collected and
run by pytest in a directory of their own, outside this checkout."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _section() -> str:
    text = (ROOT / "docs" / "library.md").read_text()
    return re.search(r"^## Unit-test your own program\n(.*?)(?=^## |\Z)", text, re.S | re.M).group(1)


def _block(marker: str, language: str) -> str:
    """The block under ``<!-- unit-test idiom: {marker} ... -->``."""
    found = re.search(rf"<!-- unit-test idiom: {re.escape(marker)}[^>]*-->\n```{language}\n(.*?)```", _section(),
                      re.S)
    assert found, f"docs/library.md has no {language} block marked '{marker}'"
    return found.group(1)


def _parts_program() -> str:
    """The page's program of parts (its "Parts of it"), the program the plan_stack test plans."""
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "library.md").read_text(), re.S)[1]


def test_the_pages_unit_tests_pass_under_pytest_in_both_idioms(tmp_path):
    (tmp_path / "test_cluster.py").write_text(_block("mocks", "python"))
    project = tmp_path / "my-training-cluster"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: my-training-cluster\nruntime: python\n")
    (project / "__main__.py").write_text(_parts_program())
    (project / "Pulumi.dev.yaml").write_text(_block("plan_stack, Pulumi.dev.yaml", "yaml"))
    (project / "test_plan.py").write_text(_block("plan_stack, test_plan.py", "python"))
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "test_cluster.py", "my-training-cluster/test_plan.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert re.search(r"\b3 passed\b", ran.stdout), ran.stdout[-2000:]
