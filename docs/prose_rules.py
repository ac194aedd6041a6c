"""The style sheet's rules (docs/contributing/style.md), judged on a page as docs/prose_stats.py reads it, and the
list of known exceptions that tests/test_prose.py holds the user pages to.

Hard rules fail a page: a sentence over 45 words, an internal path outside its "How this is checked" section, no
lead of at most two sentences under the title. Soft rules are warnings: sentences over 25 and 35 words, a
semicolon joining two clauses, more than one parenthesis in a sentence, and over 500 words without a heading.

The exceptions list (tests/data/prose_exceptions.json) only shrinks. After fixing a page, drop what no longer
applies with:

    .venv/bin/python docs/prose_rules.py --shrink

It removes entries and never adds one: a new break is fixed on the page.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import prose_stats
from prose_stats import ROOT, Page, Sentence

EXCEPTIONS = ROOT / "tests" / "data" / "prose_exceptions.json"
LONGEST_SENTENCE = 45
SOFT_LONG, SOFT_LONGER = 25, 35
WORDS_WITHOUT_HEADING = 500
OPENING_WORDS = 10
LONG, PATHS, NO_LEAD = "sentences over 45 words", "internal paths", "no lead"


def opening(sentence: Sentence) -> str:
    """How an exception names a sentence: its first words, as read (a code span reads CODE)."""
    return " ".join(sentence.text.split()[:OPENING_WORDS])


def hard_breaks(page: Page) -> dict[str, object]:
    """What of ``page`` breaks a hard rule, in the exceptions list's shape."""
    found: dict[str, object] = {}
    long = sorted(opening(s) for s in page.sentences if s.words > LONGEST_SENTENCE)
    paths = sorted(path for path, _, _ in page.paths_outside_checked())
    if long:
        found[LONG] = long
    if paths:
        found[PATHS] = paths
    if not page.lead or len(page.lead) > 2:
        found[NO_LEAD] = True
    return found


def soft_breaks(page: Page) -> list[str]:
    """The soft rules ``page`` breaks, one phrase each, with where."""
    over_25 = [s for s in page.sentences if s.words > SOFT_LONG]
    over_35 = [s for s in over_25 if s.words > SOFT_LONGER]
    semicolons = [s for s in page.sentences if prose_stats.SEMICOLON_CLAUSES.search(s.text)]
    parentheses = [s for s in page.sentences if s.text.count("(") > 1]
    unbroken = [(line, heading or "the title", words) for (line, heading), words in page.section_words().items()
                if words > WORDS_WITHOUT_HEADING]
    said = []
    if over_25:
        said.append(f"{len(over_25)} sentences over {SOFT_LONG} words ({len(over_35)} over {SOFT_LONGER}; "
                    f"the first at line {over_25[0].line})")
    if semicolons:
        said.append(f"{len(semicolons)} semicolons joining clauses (line {semicolons[0].line})")
    if parentheses:
        said.append(f"{len(parentheses)} sentences with more than one parenthesis (line {parentheses[0].line})")
    said += [f"{words} words under '{heading}' (line {line}) without a heading" for line, heading, words in unbroken]
    return said


def _items(breaks: dict[str, object], rule: str) -> Counter[str]:
    listed = breaks.get(rule, [])
    return Counter(listed if isinstance(listed, list) else [])


def unexcused(found: dict[str, object], allowed: dict[str, object]) -> tuple[list[str], list[str]]:
    """(breaks the list does not allow, listed breaks that no longer apply), each named for the reader."""
    new, gone = [], []
    for rule in (LONG, PATHS):
        have, listed = _items(found, rule), _items(allowed, rule)
        new += [f"{rule}: {item!r}" for item in sorted((have - listed).elements())]
        gone += [f"{rule}: {item!r}" for item in sorted((listed - have).elements())]
    if found.get(NO_LEAD) and not allowed.get(NO_LEAD):
        new.append(f"{NO_LEAD}: open the page with one or two sentences that say what it is for")
    if allowed.get(NO_LEAD) and not found.get(NO_LEAD):
        gone.append(NO_LEAD)
    return new, gone


def still_applying(found: dict[str, object], allowed: dict[str, object]) -> dict[str, object]:
    """The part of a page's exceptions that still applies: never more than was listed."""
    kept: dict[str, object] = {}
    for rule in (LONG, PATHS):
        items = sorted((_items(allowed, rule) & _items(found, rule)).elements())
        if items:
            kept[rule] = items
    if allowed.get(NO_LEAD) and found.get(NO_LEAD):
        kept[NO_LEAD] = True
    return kept


def exceptions() -> dict[str, dict[str, object]]:
    pages: dict[str, dict[str, object]] = json.loads(EXCEPTIONS.read_text(encoding="utf-8"))["pages"]
    return pages


def shrink() -> list[str]:
    """Drop from the exceptions list what no longer applies to the working tree's pages; say what was dropped."""
    document = json.loads(EXCEPTIONS.read_text(encoding="utf-8"))
    dropped, pages = [], {}
    for name, allowed in document["pages"].items():
        text = prose_stats.page_text(name)
        found = hard_breaks(prose_stats.read_page(name, text)) if text is not None else {}
        kept = still_applying(found, allowed)
        dropped += [f"{name}: {item}" for item in unexcused(found, allowed)[1]]
        if kept:
            pages[name] = kept
    document["pages"] = pages
    EXCEPTIONS.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return dropped


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--shrink", action="store_true", help="drop from tests/data/prose_exceptions.json what "
                                                               "no longer applies (it never adds)")
    args = options.parse_args(argv)
    if not args.shrink:
        options.error("nothing to do: give --shrink")
    dropped = shrink()
    print("\n".join(f"dropped {item}" for item in dropped) or "nothing to drop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
