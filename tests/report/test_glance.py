"""The page read at a glance: the summary says whether the change may merge, the overview says the
cluster's size once and has one box per component with its resources, cost and build time (a node
group's box its nodes too), each component's graph is folded below
it without implied arrows, and the timeline has a row per component with the critical path as
one red line and its longest waits in minutes."""

import html
import re

import pytest
from support.plan_records import record, render_report, stack_config
from trainstack.estimate import critical_path, estimate_cost, schedule
from trainstack.estimate.durations import minutes
from trainstack.plan import Plan
from trainstack.report.cost import hourly_by_component
from trainstack.report.groups import components

RED = 'stroke="#c0392b"'


def section(page: str, name: str) -> str:
    return re.search(rf'<section id="{name}">(.*?)</section>', page, re.S).group(1)


def boxes(svg: str) -> dict[str, str]:
    """A Graphviz SVG's nodes by their label text (lines joined by " | "), each with its SVG."""
    found = {}
    for block in re.findall(r'<g id="[^"]+" class="node">(.*?)</g>\n</g>|<g id="[^"]+" class="node">(.*?)</g>\n',
                            svg, re.S):
        body = block[0] or block[1]
        found[" | ".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", body))] = body
    return found


def drawn_edges(svg: str) -> list[tuple[str, str]]:
    return [tuple(html.unescape(t).split("->")) for t in re.findall(r'class="edge">\n<title>([^<]*)</title>', svg)]


# fsdp-p5's stack file: its p5 group runs 2 nodes and grows to 16; the system group (system_nodes.py) 2 to 4.
FSDP_P5_NODES = {"node group fsdp-p5-eks-p5": "2 p5.48xlarge (up to 16) · ",
                 "node group fsdp-p5-eks-system": "2 c5.2xlarge (up to 4) · "}


def test_the_overview_has_one_box_per_component_with_its_nodes_resources_cost_and_build_time(records):
    plan = Plan.from_dict(records["fsdp-p5"])
    parts, slots = components(plan), schedule(plan)
    hourly = hourly_by_component(estimate_cost(plan), parts)
    drawn = boxes(section(render_report(records["fsdp-p5"]), "overview"))
    assert len(drawn) == len(parts) == 8
    for component in parts:
        start = min(slots[r.urn].start for r in component.resources)
        end = max(slots[r.urn].end for r in component.resources)
        label = (f"{component.title} | {FSDP_P5_NODES.get(component.title, '')}{len(component.resources)} "
                 f"resource{'s' * (len(component.resources) != 1)} · ${hourly[component.key]:,.2f}/h | "
                 f"built {round(start, 1):g} to {round(end, 1):g} min")
        assert label in drawn, label
    assert "node group fsdp-p5-eks-p5 | 2 p5.48xlarge (up to 16) · 6 resources · $110.19/h | built 0 to 19.4 min" \
        in drawn


def test_at_frontier_size_the_overview_says_the_cluster_once_and_each_group_its_nodes(records):
    # Issue 55: frontier-p5's 2,048 p5.48xlarge (8 H100 GPUs each) are eight managed node groups of 256 (four
    # reservations of 512, two groups each) beside the system group. The overview says the cluster's size once,
    # above its figure; each of the eight boxes says its 256 nodes; nothing is drawn or listed per node.
    overview = section(render_report(records["frontier-p5"]), "overview")
    said = re.search(r'<h2>Overview</h2><p class="fleet"><strong>(.*?)</strong></p>', overview)
    assert said is not None, f"the overview does not open on the cluster's size: {overview[:200]}"
    assert said.group(1) == (
        "2,051 nodes at desired size (2,052 at max) in 9 node groups: 2,048 p5.48xlarge with 16,384 H100 GPUs "
        "(8 groups of 256), 3 c5.2xlarge (up to 4).")
    assert overview.index('class="fleet"') < overview.index("<svg")
    drawn = boxes(overview)
    assert len(drawn) == len(components(Plan.from_dict(records["frontier-p5"]))) == 14
    pool = sorted(label for label in drawn if label.startswith("node group frontier-p5-eks-p5-"))
    assert [label.split(" | ")[0] for label in pool] == [f"node group frontier-p5-eks-p5-{n}" for n in range(8)]
    assert all(re.fullmatch(r"[^|]* \| 256 p5\.48xlarge · 5 resources · \$[\d,.]+/h \| built [\d.]+ to [\d.]+ min",
                            label) for label in pool), pool
    assert "2,048" not in "".join(drawn)  # the total is said above the figure, not in a box


@pytest.mark.parametrize(("stack", "said"), [
    ("dev", "3 nodes at desired size (6 at max) in 2 node groups: 1 g5.2xlarge (up to 2) with 1 A10G GPU, "
            "2 c5.2xlarge (up to 4)."),
    ("trn1", "6 nodes at desired size (8 at max) in 2 node groups: 4 trn1.32xlarge with 64 Trainium chips, "
             "2 c5.2xlarge (up to 4)."),
    ("hyperpod-eks", "4 nodes at desired size (6 at max) in 1 node group and 1 HyperPod instance group: "
                     "2 ml.p5.48xlarge with 16 H100 GPUs, 2 c5.2xlarge (up to 4)."),
    ("byo-p5", None),  # an existing cluster's nodes are made elsewhere: the plan makes none
])
def test_the_overview_opens_on_the_nodes_the_stack_makes(records, stack, said):
    found = re.search(r'<h2>Overview</h2><p class="fleet"><strong>(.*?)</strong></p>',
                      section(render_report(records[stack]), "overview"))
    assert (found.group(1) if found else None) == said


def test_the_overview_outlines_the_critical_path_components_in_red_and_links_to_their_graphs(records):
    plan = Plan.from_dict(records["fsdp-p5"])
    parts = components(plan)
    on_path = {c.title for c in parts if {r.urn for r in c.resources} & {r.urn for r in critical_path(plan).chain}}
    overview = section(render_report(records["fsdp-p5"]), "overview")
    red = {label.split(" | ")[0] for label, svg in boxes(overview).items() if RED in svg}
    assert red == on_path == {"control plane fsdp-p5-eks", "node group fsdp-p5-eks-p5"}
    assert sorted(f"#component-{n}" for n in range(len(parts))) == sorted(
        re.findall(r'<a xlink:href="([^"]+)"', overview))


def test_the_overview_draws_arrows_between_components_only(records):
    overview = section(render_report(records["fsdp-p5"]), "overview")
    edges = drawn_edges(overview)
    assert edges and all(a.startswith("k") and b.startswith("k") and a != b for a, b in edges)
    # The network is waited on by the control plane (k0 -> k1); the node group's device plugins make
    # the control plane wait back on it later, drawn dashed so the boxes stand in build order.
    assert ("k0", "k1") in edges
    assert re.search(r'<title>k2&#45;&gt;k1</title>\n<path fill="none" stroke="#c0392b" stroke-width="2.2" '
                     r'stroke-dasharray="5,2"', overview)


def test_each_component_graph_is_folded_below_the_overview_without_implied_arrows(records):
    page = render_report(records["fsdp-p5"])
    folds = re.findall(r'<details id="component-(\d+)"><summary>(.*?)</summary>(.*?)</details>',
                       section(page, "components"), re.S)
    assert [int(n) for n, _, _ in folds] == list(range(8))
    assert "<details open" not in page
    network = next(svg for _, summary, svg in folds if "network fsdp-p5-network" in summary)
    edges = drawn_edges(network)
    for edge in edges:  # no drawn arrow is implied by the others: removing it loses a "waits for"
        rest = [e for e in edges if e != edge]
        assert edge[1] not in reachable(rest, edge[0]), edge
    # The recorded waits the picture leaves out are all still readable from it.
    plan = Plan.from_dict(records["fsdp-p5"])
    net = next(c for c in components(plan) if c.part == "network")
    ids = {r.urn: f"c0r{n}" for n, r in enumerate(net.resources)}
    recorded = [(ids[d], ids[r.urn]) for r in net.resources for d in r.dependencies if d in ids]
    assert len(recorded) > len(edges)
    assert all(b in reachable(edges, a) for a, b in recorded)


def reachable(edges: list[tuple[str, str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        for a, b in edges:
            if a == node and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def test_the_timeline_has_a_row_per_component_and_the_critical_path_as_one_red_line(records):
    plan = Plan.from_dict(records["fsdp-p5"])
    path = critical_path(plan)
    timeline = section(render_report(records["fsdp-p5"]), "timeline")
    chart = timeline[:timeline.index("<details")]
    assert [html.unescape(t) for t in re.findall(r'<g class="span"><title>([^:]*):', chart)] == [
        c.title for c in components(plan)]
    line = re.findall(r'<path class="critical-path" d="([^"]*)"', chart)
    assert len(line) == 1 and line[0].count("M") == 1  # one stroke, never lifted
    xs = [float(x) for x in re.findall(r"[MH]([\d.]+)", line[0])]
    assert xs == sorted(xs)  # forward in time only
    assert xs[0] == pytest.approx(280.0) and xs[-1] == pytest.approx(280.0 + 760.0, abs=0.1)
    # The three longest steps on the path say their minutes.
    longest = sorted(path.chain, key=lambda r: -minutes(r))[:3]
    labels = [html.unescape(t) for t in re.findall(r'<text class="wait"[^>]*>([^<]*)</text>', chart)]
    assert labels == [f"{r.name}: {minutes(r):g} min" for r in longest]
    assert labels[0] == "fsdp-p5-eks: 10 min"


def test_each_component_row_opens_on_its_own_steps(records):
    plan = Plan.from_dict(records["fsdp-p5"])
    timeline = section(render_report(records["fsdp-p5"]), "timeline")
    folds = re.findall(r'<details id="steps-(\d+)"><summary>(.*?)</summary>(.*?)</details>', timeline, re.S)
    for (_, summary, svg), component in zip(folds, components(plan), strict=True):
        assert html.unescape(summary).startswith(component.title + ": ")
        timed = {r.name for r in component.resources if minutes(r) > 0}
        assert {html.unescape(t) for t in re.findall(r'<g class="bar[^"]*"><title>(.*?) \(', svg)} == timed


def test_a_change_that_loses_data_says_blocked_and_why_before_anything_else(records, tmp_path):
    def smaller_file_system(config):
        # EFA-enabled file systems grow in 4800 GiB steps; a TCP one in 2400 GiB steps.
        config["trainstack:fsx"]["efa"] = False
        config["trainstack:fsx"]["storageCapacityGiB"] = 2400

    head = record(tmp_path / "head", "fsdp-p5", smaller_file_system, config=stack_config("fsdp-p5"))
    page = render_report(head, base=records["fsdp-p5"])
    gate = re.search(r'<div class="gate blocked"><p><strong>Blocked: (\d+) blocking findings?\.</strong> (.*?)'
                     r'</p><ul>(.*?)</ul></div>', section(page, "summary"), re.S)
    assert gate is not None
    assert "fsdp-p5-fsx" in gate.group(3) and "data" in gate.group(3)
    assert page.index('class="gate blocked"') < page.index('<section id="overview">')
    overview = boxes(section(page, "overview"))
    changed = [label for label in overview if label.endswith("changed")]
    assert changed and all(label.startswith(("storage fsdp-p5-fsx", "control plane", "node group"))
                           for label in changed)
    assert 'fill="#f9d3d3"' in overview[next(label for label in changed if label.startswith("storage"))]


def test_a_safe_change_says_the_gate_passes_and_counts_in_words(records, tmp_path):
    def one_more_node(config):
        config["trainstack:nodeGroups"][0]["maxSize"] += 1

    head = record(tmp_path / "head", "dev", one_more_node, config=stack_config("dev"))
    page = render_report(head, base=records["dev"])
    assert ('<div class="gate passed"><p><strong>Safe to merge: the gate passes.</strong> 1 resource changes from '
            "the base record; no blocking finding.</p></div>") in page
    assert "<caption>1 resource changes</caption>" in page
    assert "Mandatory policies</dt><dd>all pass" in page
    assert "1 resources" not in page and "1 failures" not in page
    assert '<div class="gate' not in render_report(records["dev"])


def test_the_stacks_components_pair_up_with_their_folds(records):
    for stack, document in records.items():
        page = render_report(document)
        parts = components(Plan.from_dict(document))
        assert len(re.findall(r'<details id="component-\d+">', page)) == len(parts), stack
        assert len(re.findall(r'<details id="steps-\d+">', page)) == len(parts), stack
        assert len(boxes(section(page, "overview"))) == len(parts), stack


def test_the_full_graph_stays_at_the_end_folded(records):
    page = render_report(records["dev"])
    order = [m.group(1) for m in re.finditer(r'<section id="([^"]+)">', page)]
    assert order == ["summary", "overview", "components", "timeline", "cost", "policies", "graph", "resources"]
    assert re.search(r'<section id="graph"><h2>Full resource graph</h2><details><summary>', page)


@pytest.mark.parametrize("stack", ["fsdp-p5", "hyperpod"])
def test_every_id_on_the_page_is_unique_so_each_link_opens_one_thing(records, stack):
    ids = re.findall(r'\sid="([^"]+)"', render_report(records[stack]))
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_with_many_components_a_box_says_everything_on_two_lines(growth_record):
    drawn = boxes(section(render_report(growth_record), "overview"))
    assert len(drawn) == len(components(Plan.from_dict(growth_record))) == 70
    assert sum(1 for label in drawn if label.startswith("node group")) == 65  # the 64 and the system group
    assert "node group growth-eks-p5-7 | 0 p5.48xlarge (up to 3) · 6 resources · $0.00/h · built 0 to 19.4 min" \
        in drawn


def test_the_page_counts_the_resources_trainstack_plan_says(records):
    # Issue 37: the plan counted its components and providers too, the page did not (69 against 60 for dev).
    from trainstack.plan import render_text

    for stack, document in records.items():
        plan = Plan.from_dict(document)
        said = int(re.match(r"Offline plan of \S+ / \S+: (\d+) resources", render_text(plan)).group(1))
        figures = section(render_report(document), "summary")
        assert f"<dt>Resources</dt><dd>{said}</dd>" in figures, stack
