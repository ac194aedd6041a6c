"""YAML trainstack writes has no anchors or aliases (``&id001`` / ``*id001``): kustomize and line-based
patch tools may not follow them (trainstack.boundary._NoAliasDumper says where that was seen). The one
writer is the file boundary's; a job whose replicas share one pod template prints each replica whole."""

import ast
import re
from pathlib import Path

import yaml
from support.cli_run import run_cli
from trainstack.boundary import dump_yaml, dump_yaml_all

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "components"
RECORDED = REPO / "tests" / "data" / "outputs"
ALIAS = re.compile(r"[&*]id\d+")
YAML_WRITERS = {"dump", "dump_all", "safe_dump", "safe_dump_all", "serialize", "serialize_all", "emit"}


def test_an_object_in_two_places_is_written_out_in_both():
    template = {"spec": {"containers": [{"name": "pytorch"}]}}
    job = {"Master": {"template": template}, "Worker": {"template": template}}
    text = dump_yaml(job, sort_keys=False)
    assert not ALIAS.search(text), text
    assert text.count("name: pytorch") == 2
    assert yaml.safe_load(text) == job


def test_a_stream_of_documents_each_holding_an_object_twice_has_no_aliases_either():
    labels = {"app": "train"}
    claim = {"metadata": {"labels": labels}, "spec": {"selector": labels}}
    text = dump_yaml_all([claim, claim], sort_keys=False)
    assert not ALIAS.search(text), text
    assert list(yaml.safe_load_all(text)) == [claim, claim]


def _yaml_writes(path: Path) -> list[str]:
    """Where ``path`` calls PyYAML's writers (``yaml.safe_dump(...)``, ``from yaml import dump``) or names a Dumper."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "yaml" \
                and (node.attr in YAML_WRITERS or node.attr.endswith("Dumper")):
            found.append(f"{path.relative_to(REPO)}:{node.lineno} yaml.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("yaml"):
            found += [f"{path.relative_to(REPO)}:{node.lineno} from {node.module} import {alias.name}"
                      for alias in node.names if alias.name in YAML_WRITERS or alias.name.endswith("Dumper")]
    return found


def test_only_the_file_boundary_writes_yaml():
    writers = [found for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "boundary.py"
               for found in _yaml_writes(path)]
    assert writers == [], "write YAML with trainstack.boundary.dump_yaml / dump_yaml_all (no aliases)"


def test_the_hyperpod_pytorchjob_prints_its_master_and_worker_pod_templates_whole():
    """The launcher hands Master and Worker one pod template object; PyYAML alone anchors it."""
    code, out, err = run_cli(["launch", "hyperpod-pytorchjob", "--outputs", str(RECORDED / "hyperpod-eks.json"),
                              "--group", "gpu", "--nodes", "2", "--image", "img:1", "--", "torchrun", "train.py"])
    assert (code, err) == (0, "")
    text = out
    assert not ALIAS.search(text), ALIAS.findall(text)
    replicas = yaml.safe_load(text)["spec"]["pytorchReplicaSpecs"]
    assert replicas["Master"]["template"] == replicas["Worker"]["template"]
    assert text.count("nodeSelector:") == 2
