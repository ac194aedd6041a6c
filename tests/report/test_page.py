"""The report page is a record: the same input gives the same bytes, versioned, self-contained,
and it draws what the estimates say (critical path, protected and stateful resources, changes).
The overview, the component graphs, the timeline and the gate: tests/report/test_glance.py."""

import html
import re

import pytest
from support.plan_records import record, render_report, save, stack_config
from trainstack import cli
from trainstack.estimate import critical_path
from trainstack.plan import Plan
from trainstack.report import REPORT_FORMAT_VERSION


def graph_nodes(page: str) -> dict[str, str]:
    """The graph's nodes by their text alternative ("name (type)"), each with its SVG."""
    blocks = re.findall(r'<g id="r\d+" class="node">(.*?)</g>\n</g>', page, re.S)
    return {html.unescape(re.search(r'xlink:title="([^"]*?)(?:: [^"(]*)?"', b).group(1)): b for b in blocks}


def test_the_same_record_gives_the_same_bytes(records):
    assert render_report(records["dev"]) == render_report(records["dev"])


def test_the_page_says_its_format_version():
    assert REPORT_FORMAT_VERSION == 2


@pytest.mark.parametrize("stack", ["dev", "hyperpod"])
def test_the_page_carries_its_version_and_fetches_nothing(records, stack):
    page = render_report(records[stack])
    assert f'<meta name="trainstack-report-version" content="{REPORT_FORMAT_VERSION}">' in page
    for outside in ("<script", "<link", "src=", "url(", "@import", "<iframe", "<img"):
        assert outside not in page
    # The only addresses are XML namespace names, which are never fetched.
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {"http://www.w3.org/2000/svg",
                                                             "http://www.w3.org/1999/xlink"}


def test_the_critical_path_is_drawn_red_on_the_graph_and_the_timeline(records):
    page = render_report(records["nemo-p4de"])
    chain = critical_path(Plan.from_dict(records["nemo-p4de"])).chain
    for resource in chain:
        assert re.search(rf'<g class="bar critical[^"]*"><title>{re.escape(resource.name)} ', page), resource.name
    drawn_red = [title for title, block in graph_nodes(page).items() if 'stroke="#c0392b"' in block]
    assert sorted(drawn_red) == sorted(f"{r.name} ({r.type})" for r in chain)


def test_protected_and_stateful_resources_are_marked_and_listed(records):
    page = render_report(records["fsdp-p5"])
    fsx = re.search(r'<tr><td>storage</td><td>([^<]+)</td><td>aws:fsx/lustreFileSystem:LustreFileSystem</td>'
                    r'<td>[^<]+</td><td>[^<]+</td><td>([^<]+)</td>', page)
    assert fsx is not None and "protected" in fsx.group(2) and "stateful" in fsx.group(2)
    fsx_node = graph_nodes(page)[f"{fsx.group(1)} (aws:fsx/lustreFileSystem:LustreFileSystem)"]
    assert "protected, stateful" in fsx_node
    assert fsx_node.count("<path") == 4  # a cylinder (body and lid), drawn twice: the double outline of protection


def test_the_timeline_states_the_critical_path_and_the_serial_sum(records):
    path = critical_path(Plan.from_dict(records["dev"]))
    page = render_report(records["dev"])
    assert f"about <strong>{path.minutes:.0f} min</strong> along the critical path" in page
    assert f"<strong>{path.serial_minutes:.0f} min</strong> if everything ran one after another" in page


def test_unpriced_items_are_listed_as_such(records):
    page = render_report(records["hyperpod"])
    unpriced = [line["item"].strip() for line in records["hyperpod"]["cost"]["lines"] if line["usdPerHour"] is None]
    if not unpriced:
        pytest.skip("every hyperpod item has a price")
    assert "<strong>Not priced</strong>" in page
    for item in unpriced:
        assert item in page


def cost_by_component(page: str) -> dict[str, tuple[float, float]]:
    table = re.search(r'<table class="by-component">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return {name: (float(desired.replace(",", "")), float(maximum.replace(",", "")))
            for name, desired, maximum in re.findall(r'<th scope="row">([^<]*)</th><td>([^<]*)</td><td>([^<]*)</td>',
                                                     table)}


def test_the_cost_is_split_by_component_and_the_parts_add_up_to_the_total(records):
    lines = records["dev"]["cost"]["lines"]
    by_component = cost_by_component(render_report(records["dev"]))
    assert set(by_component) == {"network", "control plane", "node groups"}
    # Every node group's instances and root volumes, the system group's included, are node groups' money;
    # the control plane is EKS's fee alone.
    nodes = [line for line in lines if line["item"].strip().startswith(("dev-eks-system", "dev-eks-gpu"))]
    assert len(nodes) == 4
    for at, index in (("desired", 0), ("max", 1)):
        assert by_component["node groups"][index] == pytest.approx(
            sum(line[at] * line["usdPerHour"] for line in nodes), abs=0.005)
        assert by_component["control plane"][index] == pytest.approx(
            next(line["usdPerHour"] for line in lines if line["item"] == "EKS control plane"), abs=0.005)
        assert sum(costs[index] for costs in by_component.values()) == pytest.approx(
            records["dev"]["cost"]["hourlyUsd"][at], abs=0.005 * len(by_component))


def test_each_component_counts_its_unpriced_items(records):
    table = re.search(r'<table class="by-component">.*?</table>', render_report(records["hyperpod"]), re.S).group(0)
    unpriced = {name: int(count or 0) for name, count in re.findall(
        r'<th scope="row">([^<]*)</th><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>', table)}
    # HyperPod's two instance groups, the FSx file system: no published price in the stack's record.
    lines = records["hyperpod"]["cost"]["lines"]
    assert unpriced["HyperPod"] == (sum(1 for line in lines
                                           if line["item"].startswith("HyperPod") and line["usdPerHour"] is None))
    assert unpriced["storage"] == (sum(1 for line in lines
                                          if line["item"].startswith("FSx") and line["usdPerHour"] is None))
    assert unpriced["total"] == sum(1 for line in lines if line["usdPerHour"] is None) > 0


def test_a_base_record_marks_what_the_pull_request_changes(records, tmp_path):
    def bigger_gpus(config):
        config["trainstack:nodeGroups"][0]["instanceType"] = "g5.4xlarge"

    head = record(tmp_path / "head", "dev", bigger_gpus, config=stack_config("dev"))
    page = render_report(head, base=records["dev"])
    assert '<section id="changes">' in page
    assert re.search(r'<tr class="replace"><td>replace</td><td>dev-eks-gpu</td><td>aws:eks/nodeGroup:NodeGroup', page)
    replaced = [title for title, block in graph_nodes(page).items() if 'fill="#f9d3d3"' in block]
    assert replaced and all(title.startswith("dev-eks-gpu") for title in replaced)
    assert re.search(r'<g class="bar[^"]* replace"><title>dev-eks-gpu', page)
    assert '<section id="changes">' not in render_report(records["dev"])


def test_the_command_writes_the_page_of_a_saved_record(records, tmp_path):
    saved = save(tmp_path / "dev.json", records["dev"])
    assert cli.main(["report", str(saved), "-o", str(tmp_path / "dev.html")]) == 0
    assert (tmp_path / "dev.html").read_text() == render_report(records["dev"])


def test_without_graphviz_the_command_names_the_fix_instead_of_a_traceback(records, tmp_path, monkeypatch, capsys):
    saved = save(tmp_path / "dev.json", records["dev"])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli.main(["report", str(saved)]) == 2
    error = capsys.readouterr().err
    assert "`dot` program is not on PATH" in error and "apt-get install graphviz" in error
    assert "Traceback" not in error


def test_a_record_reads_back_into_the_same_plan(records):
    document = {key: value for key, value in records["fsdp-p5"].items()}
    assert Plan.from_dict(document).to_dict() == document


def test_the_report_refuses_a_base_of_another_stack(records, tmp_path, capsys):
    head, base = save(tmp_path / "dev.json", records["dev"]), save(tmp_path / "trn1.json", records["trn1"])
    assert cli.main(["report", str(head), "--base", str(base)]) == 2
    assert "different stacks" in capsys.readouterr().err


def test_the_storage_section_shows_the_checkpoint_the_plan_sized_the_file_system_by(tmp_path):
    """trn1: 182 GB every 30 min by 4 x trn1.32xlarge over TCP; 2400 GiB at 500 = 1,172 MB/s; 155 s; 8.6%."""
    page = render_report(record(tmp_path, "trn1"))
    section = re.search(r'<section id="storage">.*?</section>', page, re.S).group(0)
    assert ("<td>trn1-fsx</td><td>182 GB every 30 min</td><td>4 x trn1.32xlarge (TCP)</td><td>1,172</td>"
            "<td>155</td><td>8.6%</td><td>546 of 2,577 GB</td>") in section


def test_a_plan_without_a_checkpoint_has_no_storage_section(records):
    assert 'id="storage"' not in render_report(records["dev"])
