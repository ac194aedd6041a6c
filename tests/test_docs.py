"""The docs site (docs/, mkdocs.yml) builds in strict mode: a broken link or anchor, a missing page, or a page left
out of the nav fails it. Its reference pages are what docs/generate.py makes from the config models and the
parser, one page for every stack-file key and every command."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from trainstack.cli.parser import parser
from trainstack.config import StackConfig

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    # NO_MKDOCS_2_WARNING: Material's banner about MkDocs 2.0 and its own end of life (ADR 0011), not a finding.
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=root,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def copy_of_the_site(tmp_path: Path) -> Path:
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path


def test_the_reference_pages_are_what_the_models_and_the_parser_make():
    stale = _generator().stale()
    assert not stale, f"stale reference pages {[str(p.relative_to(ROOT)) for p in stale]}: run python docs/generate.py"


def test_every_stack_file_key_has_its_page_and_every_command_its_section():
    pages = {path.stem for path in (DOCS / "reference" / "stack").glob("*.md")}
    assert pages == {field.alias for field in StackConfig.model_fields.values()} | {"index"}
    cli = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    commands = next(a for a in parser()._actions if a.dest == "command").choices
    for name, command in commands.items():
        assert f"## `trainstack {name}`" in cli, name
        for action in command._actions:
            for flag in set(action.option_strings) - {"-h", "--help"}:
                assert f"`{flag}`" in cli, (name, flag)


def test_a_key_with_a_value_to_get_wrong_shows_the_error_that_value_gets():
    """docs/wrong_values.py puts a refused value into a shipped stack and shows what validation says of it."""
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (DOCS / "reference" / "stack").glob("*.md")}
    shown = sum(page.count("A wrong value, `") for page in pages.values())
    assert shown >= 150, shown
    max_size = ("A wrong value, `maxSize: 0`, gets:\n\n```text\ntrainstack:nodeGroups[0].maxSize = 0\n"
                "    Input should be greater than or equal to 1.\n    Fix: use a value at least 1.\n```")
    assert max_size in pages["nodeGroups"]
    assert "A wrong value, `profile: \"not-one-of-these\"`, gets:" in pages["profile"]


def test_the_policy_page_lists_every_rule_of_the_pack_with_its_source():
    from trainstack.policy import RULES

    page = (DOCS / "reference" / "policies.md").read_text(encoding="utf-8")
    rows = {re.search(r"\| `([\w-]+)` \|", line).group(1): line for line in page.splitlines()
            if re.match(r"\| [a-z ]+ \| `", line)}
    assert set(rows) == {rule.id for rule in RULES}
    assert all(not row.rstrip().endswith("| — |") for row in rows.values()), "a rule without its source"


def test_the_python_api_page_documents_every_key_of_every_components_args():
    """Args are documented where they are declared: a key without a docstring shows as an empty cell."""
    page = (DOCS / "reference" / "python.md").read_text(encoding="utf-8")
    sections = re.split(r"^### ", page, flags=re.M)
    args = [s for s in sections if re.match(r"`(\w+Args|ClusterAttachment)`", s)]
    assert len(args) >= 10
    undocumented = [(s.split("`")[1], row.split("`")[1]) for s in args for row in s.splitlines()
                    if row.startswith("| `") and row.rstrip().endswith("|  |")]
    assert undocumented == []


def test_the_site_builds_in_strict_mode_with_every_page(tmp_path):
    built = build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    pages = sorted(p.relative_to(DOCS) for p in DOCS.rglob("*.md"))
    missing = [str(page) for page in pages if not (tmp_path / "site" / _html(page)).is_file()]
    assert not missing, missing


def _html(page: Path) -> Path:
    if page.name in ("index.md", "README.md"):
        return page.parent / "index.html"
    return page.with_suffix("") / "index.html"


@pytest.mark.parametrize("break_it, named", [
    (lambda docs: _append(docs / "index.md", "\n[gone](no-such-page.md)\n"), "no-such-page.md"),
    (lambda docs: _append(docs / "index.md", "\n[gone](reference/cli.md#no-such-anchor)\n"), "no-such-anchor"),
    (lambda docs: (docs / "orphan.md").write_text("# Orphan\n"), "orphan.md"),
], ids=["a link to a missing page", "a link to a missing anchor", "a page left out of the nav"])
def test_a_broken_site_fails_the_build_naming_what_broke(tmp_path, break_it, named):
    root = copy_of_the_site(tmp_path)
    break_it(root / "docs")
    built = build(root, tmp_path / "site")
    assert built.returncode != 0 and named in built.stderr, built.stderr


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _two_commands(text: str) -> str:
    return text.split("```bash\n", 1)[1].split("```", 1)[0]


def test_getting_started_shows_the_readmes_two_commands_and_what_command_2_sets_up():
    readme, page = (ROOT / "README.md").read_text(encoding="utf-8"), (DOCS / "getting-started.md").read_text(
        encoding="utf-8")
    assert _two_commands(page) == _two_commands(readme.split("## Two commands", 1)[1])
    setup = readme.split("\n\nCommand 2 first runs", 1)[1].split("\n\n", 1)[0]
    assert "Command 2 first runs" + setup in page


def test_the_readme_stays_short_and_links_into_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    linked = {target.split("#")[0] for target in re.findall(r"\]\((docs/[^)]+)\)", readme)}
    assert {"docs/index.md", "docs/getting-started.md", "docs/stack-files.md", "docs/reference/stack/index.md",
            "docs/reference/cli.md"} <= linked
    assert all((ROOT / target).is_file() for target in linked), linked
