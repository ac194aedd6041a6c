"""Every string trainstack writes as YAML reaches Kubernetes as that string: the oracle is the real kubectl (v1.35.4,
built from the same k8s.io/kubernetes module as the engines), reading the YAML as `kubectl apply -f` does and
printing the objects it would send (``kubectl annotate --local -f - -o json``, which needs no API server).

Before the writer quoted what go-yaml types (trainstack.boundary._NoAliasDumper.resolve), PyYAML wrote ``1e-4``,
``0o17`` and ``y`` plain, since YAML 1.1 reads them as text: kubectl read a training argument ``--lr 1e-4`` as the
number 0.0001, and refused a job named ``y`` ("json: cannot unmarshal bool into Go struct field
ObjectMeta.metadata.name of type string")."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.yaml_scalars import WORDS, WRITTEN_STRINGS
from trainstack import cli
from trainstack.boundary import dump_yaml_all
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)

OUTPUTS = Path(__file__).resolve().parents[1] / "data" / "outputs"
ORACLE = {"trainstack.dev/oracle": "read"}
"""What `kubectl annotate --local` adds to each object, and the comparison takes away."""


def kubectl_reads(text: str) -> list[dict[str, Any]]:
    """The objects kubectl reads from ``text`` (a YAML stream), as the JSON it would send."""
    kubectl = engines.directory(engines.KUBERNETES) / "kubectl"
    done = subprocess.run([str(kubectl), "annotate", "--local", "-f", "-", "-o", "json", "trainstack.dev/oracle=read"],
                          input=text, capture_output=True, text=True, check=False, timeout=120,
                          env={**os.environ, "KUBECONFIG": os.devnull})
    assert done.returncode == 0, f"kubectl refused what trainstack wrote:\n{done.stderr}\n{text}"
    objects: list[dict[str, Any]] = []
    decoder, at = json.JSONDecoder(), 0
    while done.stdout[at:].strip():  # one JSON object per document, one after another
        at += len(done.stdout[at:]) - len(done.stdout[at:].lstrip())
        printed, at = decoder.raw_decode(done.stdout, at)
        objects.append(printed)
    for read in objects:
        annotations = read["metadata"].pop("annotations")
        if annotations != ORACLE:
            read["metadata"]["annotations"] = {k: v for k, v in annotations.items() if k not in ORACLE}
    return objects


def oracle_object(index: int, value: Any) -> dict[str, Any]:
    return {"apiVersion": "trainstack.dev/v1", "kind": "Oracle", "metadata": {"name": f"written-{index}"},
            "spec": {"value": value}}


VALUES = st.recursive(WRITTEN_STRINGS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(WRITTEN_STRINGS.filter(bool), inner, max_size=4)), max_leaves=12)


@settings(max_examples=10)
@given(st.lists(VALUES, min_size=1, max_size=8))
def test_every_string_dump_yaml_writes_is_read_by_kubectl_as_that_string(values):
    documents = [oracle_object(index, value) for index, value in enumerate(values)]
    assert kubectl_reads(dump_yaml_all(documents, sort_keys=False)) == documents


ARGUMENTS = st.lists(st.one_of(st.sampled_from(WORDS), WRITTEN_STRINGS.filter(lambda s: s.isprintable() and s)),
                     min_size=1, max_size=6)
NAMES = st.sampled_from(("y", "n", "on", "off", "yes", "no", "true", "null", "e3", "train"))
"""DNS-1035 labels, each a valid job name, that a YAML reader may take for a boolean or a null."""
LAUNCHED = [("pytorchjob", "fsdp-p5", "p5", ["--image", "img:1"], ["torchrun", "train.py"]),
            ("mpijob", "trn1", "trn1", ["--image", "img:1"], ["python", "train.py"]),
            ("hyperpod-pytorchjob", "hyperpod-eks", "gpu", ["--image", "img:1"], ["torchrun", "train.py"])]


def launch(kind: str, stack: str, group: str, options: list[str], command: list[str]) -> str:
    out = io.StringIO()
    argv = ["launch", kind, "--outputs", str(OUTPUTS / f"{stack}.json"), "--group", group, "--nodes", "2",
            *options, "--", *command]
    with contextlib.redirect_stdout(out):
        assert cli.main(argv) == cli.EXIT_OK
    return out.getvalue()


@pytest.mark.parametrize(("kind", "stack", "group", "options", "program"), LAUNCHED, ids=[k[0] for k in LAUNCHED])
@settings(max_examples=6)
@given(name=NAMES, arguments=ARGUMENTS)
def test_a_launched_jobs_name_and_every_argument_reach_kubernetes_as_written(kind, stack, group, options, program,
                                                                            name, arguments):
    written = launch(kind, stack, group, ["--name", name, *options], [*program, *arguments])
    read = kubectl_reads(written)
    assert read == [document for document in yaml.safe_load_all(written) if document]
    job = read[-1]
    assert job["metadata"]["name"] == name
    commands = json.dumps(job["spec"])
    for argument in arguments:
        assert json.dumps(argument) in commands, f"{argument!r} is not among the job's strings"
