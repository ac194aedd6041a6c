"""How readable the docs' prose is, measured the same way on every page: sentence length, internal paths,
parentheses, headings, callouts, tab sets and diagrams. The style sheet (docs/contributing/style.md) sets the
targets; docs/prose_rules.py judges its rules and tests/test_prose.py holds the user pages to them, both with this
reading.

    .venv/bin/python docs/prose_stats.py                  # every user page, at the working tree
    .venv/bin/python docs/prose_stats.py --most-read      # the 20 most-read pages
    .venv/bin/python docs/prose_stats.py --rev 5a4c3fb    # the same pages as committed at a revision
    .venv/bin/python docs/prose_stats.py docs/plan.md README.md

How a page is read:

- **Not prose**: front matter, HTML comments, fenced code blocks (a ```mermaid fence counts as a diagram, as
  does an image of docs/diagrams/),
  images, link URLs, bare URLs, HTML tags, attribute lists (`{ #id }`), footnote markers, headings' hashes,
  admonition and tab markers with their titles. A code span is one word; its text is not prose, but an internal
  path inside it still counts.
- **Units**: a paragraph, a list item (with its continuation lines), a footnote, an admonition's paragraph and a
  table cell are units. A unit is split into sentences after `.`, `!` or `?` followed by a space, except after
  an abbreviation (e.g., i.e., etc., vs., cf.) or an ellipsis. A list item or a unit without a full stop is
  one sentence: a list item is read as one.
- **Table cells**: a cell of fewer than 6 words is a label or a value, scanned rather than read, and is left
  out entirely; a longer cell is split into sentences like a paragraph.
- **Headings** (`##` and deeper; the `#` title is not counted) are neither sentences nor words.
- **Words**: the tokens of a sentence that hold a letter or a digit. The mean, the 90th percentile (nearest
  rank) and the shares over 25 and 35 words are over sentences; parentheses per 100 words and headings per
  1,000 words are over the words of those sentences. Totals pool every sentence of every page measured.
- **Internal paths**: a path into the test suite (anything under `tests/`, or a `test_*.py` file), into the
  library's source (anything under `components/`), any other path to a Python file with a folder (`stacks/`,
  `bench/`, a module path relative to `components/`; not `examples/`, which is the user's template), and a
  dotted module path two levels under `trainstack` (`trainstack.<package>.<module>`; the public
  `trainstack.<package>` is not internal). Counted in prose and in code spans, not in fenced code. `paths`
  counts those outside a "How this is checked" section, where the style sheet puts them; `chk` those inside.
- **Callouts** are admonitions (`!!!`, `???`, `???+`); a **tab set** is a run of `=== "..."` tabs.

User pages are README.md and docs/**/*.md except the generated reference (docs/reference/), the design
decisions (docs/adr/) and the contributors' pages (CONTRIBUTORS below).
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONTRIBUTORS = ("docs/ARCHITECTURE.md", "docs/layout.md", "docs/benchmark.md", "docs/contributing/")
"""Pages for people who change trainstack, not use it: the code map, the repository's layout, the benchmark's
figures, and the contributors' folder (the style sheet). Module paths are their subject."""

NOT_USER_PAGES = ("docs/reference/", "docs/adr/", *CONTRIBUTORS)

MOST_READ = (
    "README.md", "docs/index.md", "docs/getting-started.md",
    "docs/stacks.md", "docs/stack-files.md", "docs/plan.md",
    "docs/guides/nemo-on-p4de.md", "docs/guides/fsdp-on-p5.md", "docs/guides/neuron-on-trn1.md",
    "docs/guides/teams-on-a-reservation.md", "docs/guides/frontier-p5.md", "docs/guides/hyperpod-slurm.md",
    "docs/guides/hyperpod-on-eks.md", "docs/guides/validation-cluster.md", "docs/guides/blackwell-with-dra.md",
    "docs/guides/existing-cluster.md",
    "docs/launchers.md", "docs/faults.md", "docs/validation-jobs.md", "docs/hyperpod.md",
)
"""The 20 most-read pages, fixed so that before and after compare the same pages. The site has no analytics, so
"most read" is the path a newcomer walks: the README, the home page, the nav's Getting started section (getting
started, shipped stacks, stack files, plan), every workload guide (at 5a4c3fb), and the four pages those 16 link
to most (launchers 11 links, faults 6, validation jobs 5, HyperPod 5, counted at 5a4c3fb)."""

CHECKED_SECTION = "how this is checked"
LONGEST_TABLE_LABEL = 5
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.", "fig.")

FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
CALLOUT = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*[\w-]+")
TAB = re.compile(r'^(\s*)===\+?\s+"')
FOOTNOTE_DEF = re.compile(r"^\[\^[^\]]+\]:\s*(.*)$")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")

CODE_SPAN = re.compile(r"(`+)(.+?)\1")
URL = re.compile(r"<?https?://[^\s)>]+>?")
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
FOOTNOTE_REF = re.compile(r"\[\^[^\]]+\]")
ATTR_LIST = re.compile(r"\{\s*[#.:][^}]*\}")
HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
WORD = re.compile(r"\S*[A-Za-z0-9]\S*")
SEMICOLON_CLAUSES = re.compile(r"\w+(?:\W+\w+){2,}\s*;\s*\w+(?:\W+\w+){2,}")

INTERNAL_PATH = re.compile(
    r"(?<![\w./:@-])(?:"
    r"(?:tests|components)/[\w./<>*-]*[\w>*]"  # the suite and the library's source
    r"|(?!examples/)(?:[\w.-]+/)+[\w.-]+\.py\b"  # any other Python file with a folder
    r"|test_\w+\.py\b"  # a test file named alone
    r"|trainstack(?:\.[a-z_]\w*){2,}"  # trainstack.<package>.<module>
    r")")


@dataclass
class Sentence:
    text: str
    words: int
    line: int
    section: str


@dataclass
class Page:
    """What one page holds, as the docstring says it is read."""

    name: str
    sentences: list[Sentence] = field(default_factory=list)
    headings: list[tuple[int, str, int]] = field(default_factory=list)  # level, text, line
    paths: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, section
    callouts: int = 0
    tab_sets: int = 0
    diagrams: int = 0
    lead: list[Sentence] | None = None  # the first paragraph after the title; None when something else comes first

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sentences)

    @property
    def parentheses(self) -> int:
        return sum(s.text.count("(") for s in self.sentences)

    def paths_outside_checked(self) -> list[tuple[str, int, str]]:
        return [p for p in self.paths if p[2].lower() != CHECKED_SECTION]

    def section_words(self) -> dict[tuple[int, str], int]:
        """Words under each heading (line, text), the text before the first heading under the title's."""
        words: dict[tuple[int, str], int] = {}
        for sentence in self.sentences:
            heading = max((h for h in self.headings if h[2] < sentence.line), key=lambda h: h[2], default=None)
            key = (heading[2], heading[1]) if heading else (0, "")
            words[key] = words.get(key, 0) + sentence.words
        return words


def plain(text: str) -> str:
    """A unit's text as read: code spans one word, links their text, markup and URLs gone."""
    text = IMAGE.sub("", text)
    text = CODE_SPAN.sub(" CODE ", text)
    text = URL.sub(" URL ", text)
    text = LINK.sub(r"\1", text)
    text = FOOTNOTE_REF.sub("", text)
    text = ATTR_LIST.sub("", text)
    text = HTML_TAG.sub("", text)
    text = text.replace("**", "").replace("...", "\u2026")
    return re.sub(r"\s+", " ", text).strip()


def internal_paths(text: str) -> list[str]:
    """The internal paths a unit names, in its prose and its code spans (URLs and link targets are not read)."""
    text = IMAGE.sub("", URL.sub(" ", re.sub(r"\]\([^)]*\)", "]", text)))
    return INTERNAL_PATH.findall(text)


def split_sentences(text: str) -> list[str]:
    pieces: list[str] = []
    for piece in SENTENCE_END.split(text):
        if pieces and pieces[-1].lower().endswith(ABBREVIATIONS):
            pieces[-1] = f"{pieces[-1]} {piece}"
        elif piece.strip():
            pieces.append(piece.strip())
    return pieces


class _Reader:
    """One pass over a page's lines, gathering units (paragraphs, list items, cells) as they end."""

    def __init__(self, name: str) -> None:
        self.page = Page(name)
        self.section = ""
        self.unit: list[str] = []
        self.unit_line = 0
        self.unit_is_paragraph = False
        self.seen_title = False
        self.lead_open = True  # the lead is still to come: nothing but the title read yet
        self.tab_indent: int | None = None

    def end_unit(self) -> None:
        if not self.unit:
            return
        before = len(self.page.sentences)
        self.add(" ".join(self.unit), self.unit_line, table_cell=False)
        if self.lead_open and self.seen_title:
            self.page.lead = self.page.sentences[before:] if self.unit_is_paragraph else None
            self.lead_open = False
        self.unit = []

    def add(self, text: str, line: int, table_cell: bool) -> None:
        self.page.paths += [(path, line, self.section) for path in internal_paths(text)]
        for piece in split_sentences(plain(text)):
            words = len(WORD.findall(piece))
            if words and not (table_cell and words <= LONGEST_TABLE_LABEL):
                self.page.sentences.append(Sentence(piece, words, line, self.section))

    def start_unit(self, text: str, line: int, paragraph: bool) -> None:
        self.end_unit()
        self.unit, self.unit_line, self.unit_is_paragraph = [text], line, paragraph

    def something_else_first(self) -> None:
        """A heading, table, list, code block or callout before any paragraph: the page has no lead."""
        if self.lead_open and self.seen_title:
            self.page.lead, self.lead_open = None, False


DIAGRAM_IMAGE = re.compile(r"!\[[^\]]*\]\((?:\.\./)*diagrams/[^)]+\.svg\)")
"""An image of a rendered diagram (docs/diagrams.py): ``![what it shows](diagrams/<name>.svg)``."""


def _read_line(reader: _Reader, line: str, number: int) -> None:
    stripped = line.strip()
    reader.page.diagrams += len(DIAGRAM_IMAGE.findall(line))
    heading = HEADING.match(line)
    if tab := TAB.match(line):
        reader.end_unit()
        reader.page.tab_sets += reader.tab_indent is None
        reader.tab_indent = len(tab.group(1))
        return
    if reader.tab_indent is not None and stripped and len(line) - len(line.lstrip()) <= reader.tab_indent:
        reader.tab_indent = None
    if not stripped:
        reader.end_unit()
    elif heading:
        reader.end_unit()
        level, text = len(heading.group(1)), plain(heading.group(2).replace("`", ""))
        if level == 1 and not reader.seen_title:
            reader.seen_title = True
            return
        reader.something_else_first()
        reader.page.headings.append((level, text, number))
        reader.section = text
        reader.page.paths += [(path, number, text) for path in internal_paths(heading.group(2))]
    elif CALLOUT.match(line):
        reader.end_unit()
        reader.something_else_first()
        reader.page.callouts += 1
    elif stripped.startswith("|"):
        reader.end_unit()
        reader.something_else_first()
        if not TABLE_RULE.match(stripped):
            for cell in re.split(r"(?<!\\)\|", stripped.strip("|")):
                reader.add(cell, number, table_cell=True)
    elif item := LIST_ITEM.match(line):
        reader.something_else_first()
        reader.start_unit(item.group(2), number, paragraph=False)
    elif footnote := FOOTNOTE_DEF.match(stripped):
        reader.start_unit(footnote.group(1), number, paragraph=False)
    elif reader.unit:
        reader.unit.append(stripped.lstrip("> "))
    else:
        reader.start_unit(stripped.lstrip("> "), number, paragraph=True)


def read_page(name: str, text: str) -> Page:
    """The page ``name`` (its path from the repository root) read from ``text``."""
    text = FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    reader = _Reader(name)
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not opened.group(2):
                fence = None
            continue
        if opened:
            reader.end_unit()
            reader.something_else_first()
            fence = opened.group(1)
            reader.page.diagrams += opened.group(2) == "mermaid"
            continue
        _read_line(reader, line, number)
    reader.end_unit()
    return reader.page


def is_user_page(name: str) -> bool:
    return name == "README.md" or (name.startswith("docs/") and name.endswith(".md")
                                   and not name.startswith(NOT_USER_PAGES))


def user_pages(rev: str | None = None) -> list[str]:
    """Every user page in the working tree, or committed at ``rev``."""
    if rev is None:
        names = ["README.md", *(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))]
    else:
        names = _git("ls-tree", "-r", "--name-only", rev, "--", "README.md", "docs").splitlines()
    return sorted(name for name in names if is_user_page(name))


def page_text(name: str, rev: str | None = None) -> str | None:
    """A page's text, or None where the working tree (or ``rev``) has no such page."""
    if rev is None:
        path = ROOT / name
        return path.read_text(encoding="utf-8") if path.is_file() else None
    shown = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@dataclass(frozen=True)
class Stats:
    words: int
    sentences: int
    mean: float
    p90: int
    over_25: float  # % of sentences
    over_35: float
    paths: int
    checked_paths: int
    parentheses_per_100: float
    headings_per_1000: float
    callouts: int
    tab_sets: int
    diagrams: int


def stats(pages: list[Page]) -> Stats:
    """The statistics of ``pages`` taken together: every sentence of every page pooled."""
    lengths = sorted(s.words for page in pages for s in page.sentences)
    words, count = sum(lengths), len(lengths)
    paths = sum(len(page.paths_outside_checked()) for page in pages)
    return Stats(
        words=words, sentences=count, mean=words / count if count else 0.0,
        p90=lengths[math.ceil(0.9 * count) - 1] if count else 0,
        over_25=100 * sum(n > 25 for n in lengths) / count if count else 0.0,
        over_35=100 * sum(n > 35 for n in lengths) / count if count else 0.0,
        paths=paths, checked_paths=sum(len(page.paths) for page in pages) - paths,
        parentheses_per_100=100 * sum(page.parentheses for page in pages) / words if words else 0.0,
        headings_per_1000=1000 * sum(len(page.headings) for page in pages) / words if words else 0.0,
        callouts=sum(page.callouts for page in pages), tab_sets=sum(page.tab_sets for page in pages),
        diagrams=sum(page.diagrams for page in pages))


COLUMNS = ("words", "sent", "mean", "p90", ">25%", ">35%", "paths", "chk", "()/100w", "h/1kw", "callouts/tabs/diag")


def row(name: str, s: Stats) -> str:
    figures = (f"{s.words:,}", f"{s.sentences}", f"{s.mean:.1f}", f"{s.p90}", f"{s.over_25:.0f}",
               f"{s.over_35:.0f}", f"{s.paths}", f"{s.checked_paths}", f"{s.parentheses_per_100:.1f}",
               f"{s.headings_per_1000:.1f}", f"{s.callouts} / {s.tab_sets} / {s.diagrams}")
    cells = zip(figures, COLUMNS, strict=True)
    return f"{name:<42}" + "".join(f"{figure:>{max(len(column), 7) + 2}}" for figure, column in cells)


def table(names: list[str], rev: str | None = None) -> str:
    """Page by page, then the totals over the pages that exist (a page missing at ``rev`` says so)."""
    header = f"{'page':<42}" + "".join(f"{column:>{max(len(column), 7) + 2}}" for column in COLUMNS)
    lines, pages = [header], []
    for name in names:
        text = page_text(name, rev)
        if text is None:
            lines.append(f"{name:<42}  (no such page{' at ' + rev if rev else ''})")
            continue
        pages.append(read_page(name, text))
        lines.append(row(name, stats([pages[-1]])))
    lines.append(row(f"total ({len(pages)} pages)", stats(pages)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("pages", nargs="*", help="pages to measure, from the repository root (default: every user "
                                                  "page)")
    options.add_argument("--most-read", action="store_true", help="the 20 most-read pages (MOST_READ)")
    options.add_argument("--rev", help="read the pages as committed at this git revision (git show REV:PAGE)")
    options.add_argument("--show", type=int, metavar="WORDS",
                         help="after the table, list each sentence over WORDS words and each internal path outside "
                              "a 'How this is checked' section, with its line")
    args = options.parse_args(argv)
    if args.pages and args.most_read:
        options.error("give pages or --most-read, not both")
    names = list(MOST_READ) if args.most_read else args.pages or user_pages(args.rev)
    print(f"prose of {len(names)} pages{' at ' + args.rev if args.rev else ''}")
    print(table(names, args.rev))
    if args.show is not None:
        print(findings(names, args.show, args.rev))
    return 0


def findings(names: list[str], longest: int, rev: str | None = None) -> str:
    """``page:line`` of each sentence over ``longest`` words and each internal path outside the checked section."""
    lines = []
    for name in names:
        text = page_text(name, rev)
        page = read_page(name, text) if text is not None else Page(name)
        lines += [f"{name}:{s.line}: {s.words} words: {s.text}" for s in page.sentences if s.words > longest]
        lines += [f"{name}:{line}: internal path {path}" for path, line, _ in page.paths_outside_checked()]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
