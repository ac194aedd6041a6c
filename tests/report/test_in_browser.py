"""Every shipped stack's report, opened in a real headless Chromium (Debian's, driven by Playwright):
the overview, the graphs, the timeline and the cost table are drawn, nothing is logged as an error,
nothing is requested but the file itself; at 1,280 px the overview and every opened component graph
fit the page and nothing scrolls sideways (the 64-group benchmark stack too); frontier-p5 (2,048 nodes)
opens on its size and its overview fits a screen; and the page reads in a narrow window."""

from pathlib import Path
from typing import Any

import pytest
from support.browser import chromium
from support.plan_records import render_report

from .conftest import STACKS

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def browser() -> Any:
    with chromium() as context:
        yield context


def opened(browser: Any, path: Path, width: int = 1280) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri(), wait_until="load")
    return page, errors, requests


def unfold(page: Any, selector: str = "details") -> None:
    """Open the folded parts, as a reader selecting each summary would."""
    page.eval_on_selector_all(selector, "els => els.forEach(e => { e.open = true; })")


def drawn(page: Any, selector: str) -> list[dict[str, float]]:
    """Bounding boxes of the elements that match, as the browser laid them out."""
    return page.eval_on_selector_all(selector, "els => els.map(e => { const b = e.getBoundingClientRect(); "
                                               "return {width: b.width, height: b.height}; })")


@pytest.mark.parametrize("stack", STACKS)
def test_the_report_draws_the_graph_the_timeline_and_the_cost(browser, records, stack, tmp_path):
    path = tmp_path / f"{stack}.html"
    path.write_text(render_report(records[stack]))
    page, errors, requests = opened(browser, path)
    try:
        unfold(page)
        overview = drawn(page, "#overview svg g.node")
        assert overview and all(box["width"] > 0 and box["height"] > 0 for box in overview)
        shown = [r for r in records[stack]["resources"]
                 if (r["custom"] or r["remote"]) and not r["type"].startswith("pulumi:providers:")]
        nodes = drawn(page, "#graph svg g.node")
        assert len(nodes) == len(shown) and all(box["width"] > 0 and box["height"] > 0 for box in nodes)
        assert drawn(page, "#graph svg g.edge")
        bars = drawn(page, "#timeline svg g.bar rect")
        assert bars and all(box["width"] > 0 for box in bars)
        assert drawn(page, "#timeline svg g.bar.critical rect")
        rows = drawn(page, "#cost table.cost tbody tr")
        assert len(rows) == len(records[stack]["cost"]["lines"]) and all(box["height"] > 0 for box in rows)
        components = drawn(page, "#cost table.by-component tbody tr")
        # An existing cluster's stack makes nothing AWS bills for: its nodes are named as not counted, and there is
        # no table by component.
        counted = [line for line in records[stack]["cost"]["lines"] if line["kind"] != "not-counted"]
        assert (components or not counted) and all(box["height"] > 0 for box in components)
        screenshot = page.screenshot(full_page=True)
        assert screenshot.startswith(PNG) and len(screenshot) > 20_000
        assert errors == []
        assert requests == [path.as_uri()]
    finally:
        page.close()


def test_in_a_narrow_window_only_the_figures_scroll_sideways(browser, records, tmp_path):
    path = tmp_path / "fsdp-p5.html"
    path.write_text(render_report(records["fsdp-p5"]))
    page, errors, _ = opened(browser, path, width=380)
    try:
        unfold(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 380
        assert page.evaluate("document.querySelector('#graph figure').scrollWidth") > 380
        assert errors == []
    finally:
        page.close()


def test_printed_the_resource_table_is_on_paper(browser, records, tmp_path):
    path = tmp_path / "dev.html"
    path.write_text(render_report(records["dev"]))
    page, _, _ = opened(browser, path)
    try:
        visible = "document.querySelector('#resources table tbody tr').checkVisibility()"
        assert page.evaluate(visible) is False  # folded on screen
        page.emulate_media(media="print")
        assert page.evaluate(visible) is True
    finally:
        page.close()


WIDER_THAN_ITS_BOX = """els => els.filter(e => !e.closest('#graph')).filter(e => {
    const style = getComputedStyle(e);
    return ['auto', 'scroll'].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1;
}).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)"""


def fits_at_1280(browser: Any, document: dict[str, Any], path: Path) -> None:
    path.write_text(render_report(document))
    page, errors, _ = opened(browser, path, width=1280)
    try:
        unfold(page, "#components details, #timeline details")
        column = page.evaluate("document.querySelector('#overview').getBoundingClientRect().width")
        assert 1000 < column <= 1280
        figures = drawn(page, "#overview svg") + drawn(page, "#components svg") + drawn(page, "#timeline svg")
        assert len(figures) == 1 + 2 * len(drawn(page, "#components details")) + 1
        assert all(0 < box["width"] <= column for box in figures), [box["width"] for box in figures]
        # Fitted, still readable: no label of the overview or of a component graph under 8 px high.
        labels = drawn(page, "#overview svg text") + drawn(page, "#components svg text")
        assert min(box["height"] for box in labels) >= 8
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        assert page.eval_on_selector_all("body *", WIDER_THAN_ITS_BOX) == []
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize("stack", STACKS)
def test_at_1280_px_the_overview_and_every_opened_component_graph_fit_and_nothing_scrolls_sideways(
        browser, records, stack, tmp_path):
    fits_at_1280(browser, records[stack], tmp_path / f"{stack}.html")


def test_the_64_group_benchmark_stack_fits_the_page_too(browser, growth_record, tmp_path):
    fits_at_1280(browser, growth_record, tmp_path / "growth.html")


def test_frontier_p5_opens_on_the_clusters_size_and_its_whole_overview_fits_one_screen(browser, records, tmp_path):
    # Issue 55: the report of 2,048 p5.48xlarge opens with the overview readable: the first screen (1,280 x 900)
    # says the cluster's size and starts the overview's figure, and the figure (eight node groups, not a box or a
    # row per node) is no taller than a screen, its labels at least 8 px (fits_at_1280 checks them too).
    path = tmp_path / "frontier-p5.html"
    path.write_text(render_report(records["frontier-p5"]))
    page, errors, _ = opened(browser, path)
    try:
        said = page.eval_on_selector("#overview p.fleet", "e => [e.innerText, e.getBoundingClientRect().bottom]")
        assert said[0].startswith("2,051 nodes at desired size") and "16,384 H100 GPUs" in said[0]
        assert said[1] <= 900
        [figure] = page.eval_on_selector_all("#overview figure", "els => els.map(e => { "
                                             "const b = e.getBoundingClientRect(); return [b.top, b.height]; })")
        assert figure[0] < 900 and figure[1] <= 900, figure
        labels = drawn(page, "#overview svg text")
        assert len(labels) == 14 * 3 and min(box["height"] for box in labels) >= 8
        assert errors == []
    finally:
        page.close()
