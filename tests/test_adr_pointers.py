"""Design decisions live in docs/adr/ (ADR 0001); the code points at them. Every pointer in the
code and the docs resolves to a record (tests/test_references.py, with every other path), the
code points at the records, and the index lists every record."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADR = ROOT / "docs" / "adr"
POINTER = re.compile(r"docs/adr/\d{4}-[\w.-]+?\.md")
SEARCHED = ("components", "tests", "stacks", "policies", "bench", "docs", "README.md", "CONTRIBUTING.md")


def pointers(root: Path = ROOT) -> dict[str, list[str]]:
    """Every ``docs/adr/...md`` named in the searched files, with the files that name it."""
    found: dict[str, list[str]] = {}
    for entry in SEARCHED:
        path = root / entry
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in (".py", ".md"))
        for file in files:
            if file == Path(__file__).resolve():
                continue  # its own example of a missing record below
            for target in POINTER.findall(file.read_text(encoding="utf-8")):
                found.setdefault(target, []).append(file.relative_to(root).as_posix())
    return found


def records() -> list[str]:
    return sorted(p.name for p in ADR.glob("[0-9][0-9][0-9][0-9]-*.md"))


def test_the_code_points_at_its_decisions():
    named = {Path(target).name for target in pointers()}
    assert {"0002-config-defaults-on-the-models.md", "0004-vpc-cni-ip-targets.md",
            "0005-efa-huge-pages.md"} <= named


def test_records_are_numbered_in_order_and_each_has_the_four_parts():
    numbers = [int(name[:4]) for name in records()]
    assert numbers == list(range(1, len(numbers) + 1))
    for name in records():
        text = (ADR / name).read_text(encoding="utf-8")
        assert text.startswith(f"# {int(name[:4])}. "), name
        for part in ("* Status: ", "## Context", "## Decision", "## Consequences"):
            assert part in text, (name, part)


def test_the_index_lists_every_record():
    index = (ADR / "README.md").read_text(encoding="utf-8")
    assert [name for name in records() if f"]({name})" not in index] == []


def test_a_pointer_to_a_missing_record_is_found(tmp_path):
    (tmp_path / "components").mkdir()
    (tmp_path / "components" / "x.py").write_text("# Why: docs/adr/0099-nothing.md\n")
    assert pointers(tmp_path) == {"docs/adr/0099-nothing.md": ["components/x.py"]}
    assert not (tmp_path / "docs/adr/0099-nothing.md").is_file()
