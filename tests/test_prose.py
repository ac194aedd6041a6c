"""The user pages keep the style sheet's hard rules (docs/contributing/style.md), read as docs/prose_stats.py reads
them: no sentence over 45 words, no internal path outside a page's "How this is checked" section, and a lead of at
most two sentences under the title. The soft rules are reported as warnings.

tests/data/prose_exceptions.json lists what broke a hard rule when the check arrived. The list only shrinks: a
page may keep a listed break, a new one fails, and so does a listed one that no longer applies, so that fixing a
page removes its entry (``python docs/prose_rules.py --shrink`` drops it)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import prose_stats as prose  # noqa: E402
from prose_rules import OPENING_WORDS, exceptions, hard_breaks, soft_breaks, still_applying, unexcused  # noqa: E402


class ProseWarning(UserWarning):
    """A soft rule of the style sheet broken: reported, never failed."""


def read(text: str, name: str = "a page"):
    return prose.read_page(name, text)


# How a page is read and judged.

def test_a_sentence_of_46_words_breaks_the_hard_rule_and_one_of_45_does_not():
    page = read("# T\n\nThis page is a test.\n\n" + " ".join(["word"] * 45) + ". " + " ".join(["more"] * 46) + ".\n")
    assert [s.words for s in page.sentences] == [5, 45, 46]
    assert hard_breaks(page) == {"sentences over 45 words": [" ".join(["more"] * OPENING_WORDS)]}


def test_an_internal_path_breaks_the_rule_outside_how_this_is_checked_and_not_inside_it():
    page = read("# T\n\nA lead.\n\nSee `tests/test_guides.py` and trainstack.launch.pytorchjob.\n\n"
                "## How this is checked\n\n`tests/test_prose.py` reads `components/outputs.py`.\n")
    assert hard_breaks(page) == {"internal paths": ["tests/test_guides.py", "trainstack.launch.pytorchjob"]}
    assert [p for p, _, _ in page.paths] == ["tests/test_guides.py", "trainstack.launch.pytorchjob",
                                             "tests/test_prose.py", "components/outputs.py"]


def test_what_is_not_an_internal_path():
    page = read("# T\n\nA lead.\n\n`from trainstack.launch import render_pytorchjob` in your `train.py`, from "
                "`examples/consumer/__main__.py`, see [the guide](guides/fsdp-on-p5.md) and "
                "https://github.com/o/r/blob/main/components/x.py.\n\n```bash\npytest tests/test_prose.py\n```\n")
    assert page.paths == []


def test_code_front_matter_comments_images_and_link_urls_are_not_prose():
    page = read("---\ntitle: x\n---\n# T\n\n<!-- a comment of many words that is not read -->\nOne [two](a/b.md) "
                "`three four five` ![six](x.png).\n\n```text\nseven. eight.\n```\n")
    assert [(s.text, s.words) for s in page.sentences] == [("One two CODE .", 3)]


def test_sentences_split_after_a_full_stop_but_not_after_an_abbreviation_or_an_ellipsis():
    page = read("# T\n\nIt plans offline, e.g. the dev stack. It needs no account ... nor the CLI! Does it? Yes.\n")
    assert [s.text for s in page.sentences] == ["It plans offline, e.g. the dev stack.",
                                                "It needs no account \u2026 nor the CLI!", "Does it?", "Yes."]


def test_list_items_are_sentences_short_table_cells_are_values_and_headings_are_neither():
    page = read("# T\n\nA lead.\n\n## Keys\n\n- first item\n  continued here\n- second\n\n| key | what it does |\n"
                "|---|---|\n| `a` | a cell of exactly six words here |\n")
    assert [s.text for s in page.sentences] == ["A lead.", "first item continued here", "second",
                                                "a cell of exactly six words here"]
    assert page.headings == [(2, "Keys", 5)]


def test_a_page_without_a_lead_of_at_most_two_sentences_breaks_the_rule():
    assert hard_breaks(read("# T\n\n## Straight to a heading\n\nText.\n")) == {"no lead": True}
    assert hard_breaks(read("# T\n\n- a list first\n")) == {"no lead": True}
    assert hard_breaks(read("# T\n\n```\ncode first\n```\n")) == {"no lead": True}
    assert hard_breaks(read("# T\n\nOne. Two. Three.\n")) == {"no lead": True}
    assert hard_breaks(read("# T\n\nOne. Two.\n\nThree.\n")) == {}


def test_callouts_tab_sets_and_diagrams_are_counted():
    page = read('# T\n\nA lead.\n\n!!! warning "Billing"\n    It keeps billing.\n\n=== "One"\n\n    a\n\n'
                '=== "Two"\n\n    b\n\nAfter.\n\n=== "Again"\n\n    c\n\n```mermaid\ngraph LR\n```\n')
    assert (page.callouts, page.tab_sets, page.diagrams) == (1, 2, 1)
    assert "It keeps billing." in [s.text for s in page.sentences]


def test_the_soft_rules_are_named_with_where():
    page = read("# T\n\nA lead.\n\n" + " ".join(["word"] * 30) + ". The plan runs offline; it needs no account. "
                "Kueue (the queue) admits it (when quota allows).\n\n" + "Some words here. " * 170 + "\n")
    said = soft_breaks(page)
    assert said[:3] == ["1 sentences over 25 words (0 over 35; the first at line 5)",
                        "1 semicolons joining clauses (line 5)",
                        "1 sentences with more than one parenthesis (line 5)"]
    assert said[3].startswith("5") and said[3].endswith("words under 'the title' (line 0) without a heading")


def test_the_statistics_pool_every_sentence():
    pages = [read("# A\n\nOne two three. One two three four five.\n"), read("# B\n\n## H\n\nOne (two).\n")]
    figures = prose.stats(pages)
    assert (figures.words, figures.sentences, figures.p90) == (10, 3, 5)
    assert figures.mean == pytest.approx(10 / 3) and figures.parentheses_per_100 == pytest.approx(10.0)
    assert figures.headings_per_1000 == pytest.approx(100.0)


def test_a_new_break_fails_and_so_does_a_listed_one_that_no_longer_applies():
    found = {"internal paths": ["tests/<a>.py", "tests/<a>.py"], "sentences over 45 words": ["x y"]}
    allowed = {"internal paths": ["tests/<a>.py"], "sentences over 45 words": ["x y", "gone"], "no lead": True}
    assert unexcused(found, allowed) == (["internal paths: 'tests/<a>.py'"],
                                         ["sentences over 45 words: 'gone'", "no lead"])


def test_shrinking_keeps_only_what_was_listed_and_still_applies():
    found = {"internal paths": ["tests/<a>.py", "tests/<b>.py"], "no lead": True}
    allowed = {"internal paths": ["tests/<a>.py", "tests/<c>.py"], "sentences over 45 words": ["gone"]}
    assert still_applying(found, allowed) == {"internal paths": ["tests/<a>.py"]}


# The pages.

def test_the_check_reads_every_user_page_and_no_generated_adr_or_contributors_page():
    pages = prose.user_pages()
    assert {"README.md", "docs/index.md", "docs/getting-started.md", "docs/glossary.md",
            "docs/guides/fsdp-on-p5.md"} <= set(pages)
    assert not [p for p in pages if p.startswith(("docs/reference/", "docs/adr/", "docs/contributing/"))
                or p in ("docs/ARCHITECTURE.md", "docs/layout.md", "docs/benchmark.md")]
    assert set(prose.MOST_READ) <= set(pages) and len(prose.MOST_READ) == 20


def test_every_exception_names_a_user_page():
    assert sorted(set(exceptions()) - set(prose.user_pages())) == []


@pytest.mark.parametrize("name", prose.user_pages())
def test_the_page_keeps_the_hard_rules_or_its_listed_exceptions(name):
    page = prose.read_page(name, (ROOT / name).read_text(encoding="utf-8"))
    soft = soft_breaks(page)
    if soft:
        warnings.warn(ProseWarning(f"{name}: " + "; ".join(soft)), stacklevel=1)
    new, gone = unexcused(hard_breaks(page), exceptions().get(name, {}))
    assert not new and not gone, "\n".join(
        ([f"{name} breaks the style sheet's hard rules (docs/contributing/style.md; `python docs/prose_stats.py "
          f"--show 45 {name}` gives each line):", *(f"  {item}" for item in new)] if new else [])
        + ([f"tests/data/prose_exceptions.json lists what {name} no longer does; drop:",
            *(f"  {item}" for item in gone)] if gone else []))
