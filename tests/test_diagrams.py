"""The docs' diagrams (docs/diagrams/) are what their Graphviz sources draw, each is shown on a page, none makes the
site ask another host for anything, and the ones drawn from a shipped stack say what its plan says.

docs/diagrams.py renders them and says why they are Graphviz rather than Mermaid."""

import importlib.util
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from support.rendered_jobs import planned_record
from trainstack.cli.parser import parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SVG = "{http://www.w3.org/2000/svg}"
IMAGE = re.compile(r"!\[([^\]]*)\]\(((?:\.\./)*diagrams/[\w-]+\.svg)\)")


def _module():
    spec = importlib.util.spec_from_file_location("docs_diagrams", DOCS / "diagrams.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


diagrams = _module()


def texts(name: str) -> dict[str, str]:
    """The words each node, cluster and edge of a rendered diagram shows, by its id in the source (an edge's is
    ``tail->head``)."""
    root = ET.parse(DOCS / "diagrams" / f"{name}.svg").getroot()
    return {group.find(f"{SVG}title").text: " ".join(part for text in group.iter(f"{SVG}text")
                                                     for part in " ".join(text.itertext()).split())
            for group in root.iter(f"{SVG}g") if group.get("class") in ("node", "cluster", "edge")}


def members_of(name: str) -> dict[str, list[str]]:
    """Each cluster of a diagram's source, with the ids of the nodes declared inside it."""
    source = (DOCS / "diagrams" / f"{name}.dot").read_text(encoding="utf-8")
    return {cluster: re.findall(r"^\s+(\w+) \[label=", body, re.M)
            for cluster, body in re.findall(r"subgraph (cluster_\w+) \{(.*?)\n  \}", source, re.S)}


# Rendering.

def test_each_diagram_is_what_its_source_draws():
    assert diagrams.diagrams(), "no diagrams under docs/diagrams"
    assert diagrams.problems() == []


def test_a_stale_edited_missing_or_stray_svg_is_named(tmp_path):
    copy = tmp_path / "diagrams"
    shutil.copytree(DOCS / "diagrams", copy)
    first, second, third = (d.source.stem for d in diagrams.diagrams(copy)[:3])
    (copy / f"{first}.dot").write_text((copy / f"{first}.dot").read_text() + "// a change not rendered\n")
    (copy / f"{second}.svg").write_text((copy / f"{second}.svg").read_text().replace("</svg>", "<g/></svg>"))
    (copy / f"{third}.svg").unlink()
    stray = "stray"
    (copy / f"{stray}.svg").write_text("<svg/>")
    assert sorted(diagrams.problems(copy)) == sorted([
        f"docs/diagrams/{first}.dot changed after docs/diagrams/{first}.svg was rendered from it: "
        "run python docs/diagrams.py",
        f"docs/diagrams/{second}.svg was edited after it was rendered: edit docs/diagrams/{second}.dot instead, "
        "then run python docs/diagrams.py",
        f"docs/diagrams/{third}.dot has no SVG: run python docs/diagrams.py",
        f"docs/diagrams/{stray}.svg has no source {stray}.dot beside it"])


def test_a_drawing_edited_with_its_digest_redone_is_caught_by_rendering_it_again(tmp_path):
    """The digests catch an honest mistake; where the local dot drew the SVG, drawing it again catches the rest."""
    copy = tmp_path / "diagrams"
    copy.mkdir()
    plain = "plain"
    (copy / f"{plain}.dot").write_text('digraph { a [label="etcd"] }\n')
    diagrams.write(copy)
    svg = (copy / f"{plain}.svg").read_text()
    stamp = diagrams.STAMP.match(svg)
    drawing = svg[stamp.end():].replace(">etcd<", ">etcd3<")
    (copy / f"{plain}.svg").write_text(svg[:stamp.end()].replace(stamp["drawing_sha"], diagrams._sha256(drawing))
                                    + drawing)
    assert diagrams.problems(copy) == [f"docs/diagrams/{plain}.svg is not what dot {diagrams.dot_version()} draws "
                                       f"from docs/diagrams/{plain}.dot: run python docs/diagrams.py"]


def test_a_diagram_that_links_to_another_host_is_named(tmp_path):
    copy = tmp_path / "diagrams"
    copy.mkdir()
    linked = "linked"
    (copy / f"{linked}.dot").write_text('digraph { a [URL="https://example.com/a"] }\n')
    diagrams.write(copy)
    assert diagrams.problems(copy) == [
        f'docs/diagrams/{linked}.svg refers to another host (href="https://): the site must open without one; '
        "drop the URL attribute from the source"]


def test_no_diagram_refers_to_another_host():
    drawn = {d.svg.name: d.svg.read_text(encoding="utf-8") for d in diagrams.diagrams()}
    assert [name for name, svg in drawn.items() if diagrams.ANOTHER_HOST.search(svg)] == []


# Pages.

def test_every_diagram_is_shown_on_a_page_with_words_that_say_what_it_shows():
    shown: dict[str, list[tuple[str, str]]] = {}
    for page in sorted(DOCS.rglob("*.md")):
        for alt, target in IMAGE.findall(page.read_text(encoding="utf-8")):
            assert (page.parent / target).resolve().is_file(), (page, target)
            shown.setdefault(Path(target).stem, []).append((str(page.relative_to(DOCS)), alt))
    assert sorted(shown) == sorted(d.source.stem for d in diagrams.diagrams())
    assert [(name, page) for name, uses in shown.items() for page, alt in uses if len(alt.split()) < 6] == []


# What the diagrams say.

def test_the_commands_on_the_way_from_a_stack_file_to_a_job_are_trainstacks():
    commands = next(a for a in parser()._actions if a.dest == "command").choices
    named = set(re.findall(r"trainstack (\w+)", " ".join(texts("stack-file-to-job").values())))
    assert named and named <= set(commands), named - set(commands)


def test_the_pool_diagram_shows_the_managed_node_groups_frontier_p5_is_made_as():
    record = planned_record("frontier-p5")
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.frontier-p5.yaml").read_text())["config"]
    cidrs = {s["id"]: s["cidr"] for s in config["trainstack:network"]["existingVpc"]["privateSubnets"]}
    made = {}
    for resource in record["resources"]:
        part = re.fullmatch(r"frontier-p5-eks-p5-(\d+)", resource["name"])
        if part and resource["type"] == "aws:eks/nodeGroup:NodeGroup":
            made.setdefault(int(part[1]), {}).update(nodes=resource["inputs"]["scalingConfig"]["maxSize"],
                                                     cidr=cidrs[resource["inputs"]["subnetIds"][0]])
        elif part and resource["type"] == "aws:ec2/launchTemplate:LaunchTemplate":
            target = resource["inputs"]["capacityReservationSpecification"]["capacityReservationTarget"]
            made.setdefault(int(part[1]), {})["reservation"] = target["capacityReservationId"]
    shown, clusters = texts("frontier-pool"), members_of("frontier-pool")
    assert len(made) == 8
    for index, part in made.items():
        assert shown[f"part_{index}"] == f"p5-{index} {part['nodes']} nodes {part['cidr']}"
        holder = next(cluster for cluster, nodes in clusters.items() if f"part_{index}" in nodes)
        assert part["reservation"] in shown[holder], (index, shown[holder])
    queues = record["outputs"]["trainstack"]["scheduling"]
    levels = [*queues["topologyLevels"]["p5"], "kubernetes.io/hostname"]
    assert " ".join(levels) in shown["topology"]
    for team, queue in queues["queues"].items():
        assert f"{team}: {queue['quotas']['p5']['guaranteedNodes']:,}" in shown["queues"], team


def test_the_queues_diagram_shows_the_quotas_kueue_p5_is_planned_with():
    record = planned_record("kueue-p5")
    outputs = record["outputs"]["trainstack"]
    per_node = {name: group["acceleratorsPerNode"] for name, group in outputs["acceleratedGroups"].items()}
    kueue = {(r["type"].rsplit(":", 1)[1], r["inputs"]["metadata"]["name"]): r["inputs"]["spec"]
             for r in record["resources"]
             if r["type"].startswith("kubernetes:kueue.x-k8s.io/") and "spec" in r["inputs"]}
    shown = texts("kueue-queues")

    def nodes(spec: dict, flavor: str) -> int:
        quota = next(f for f in spec["resourceGroups"][0]["flavors"] if f["name"] == flavor)["resources"]
        return int(next(r for r in quota if r["name"] == "nvidia.com/gpu")["nominalQuota"]) // per_node[flavor]

    teams = outputs["scheduling"]["queues"]
    for team, queue in teams.items():
        spec = kueue[("ClusterQueue", queue["clusterQueue"])]
        for flavor in per_node:
            assert f"guaranteed {flavor}: {nodes(spec, flavor)} nodes" in shown[f"{team}_cq"], (team, flavor)
    cohort = kueue[("Cohort", next(iter(teams.values()))["cohort"])]
    assert ", ".join(f"{flavor}: {nodes(cohort, flavor)} nodes" for flavor in ("p5", "dev")) in shown["shared"]
    assert f"Cohort {next(iter(teams.values()))['cohort']}" in shown["cluster_cohort"]
    for flavor in per_node:
        topology = kueue[("ResourceFlavor", flavor)].get("topologyName")
        assert (f"Topology {topology}" in shown[f"{flavor}_flavor"]) == (topology is not None), flavor


def test_the_tenants_diagram_shows_each_teams_account_prefix_and_queue_as_planned():
    queues = planned_record("kueue-p5")["outputs"]["trainstack"]["scheduling"]["queues"]
    shown = " ".join(texts("teams-as-tenants").values())
    for queue in queues.values():
        assert f"ServiceAccount {queue['serviceAccount']}" in shown
        assert f"writes {queue['checkpointPrefix']}" in shown
        assert f"LocalQueue {queue['localQueue']}" in shown
        assert (f"ClusterQueue {queue['clusterQueue']} p5: {queue['quotas']['p5']['guaranteedNodes']} nodes "
                f"guaranteed, up to {queue['quotas']['p5']['maxNodes']} by borrowing") in shown
        assert f"Cohort {queue['cohort']}" in shown

