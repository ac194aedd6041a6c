"""Every Kubernetes launcher checks its arguments alike (launch/arguments.py): the same namespace
and image refusals word for word, and a job name the operator (or, for a TrainJob, JobSet's
webhook) would refuse is refused by the launcher, with the fix, before anything is rendered.
Property-based over names, namespaces and images (hypothesis)."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.rendered_jobs import outputs_of, variant_outputs
from trainstack import launch
from trainstack.launch import LaunchError, QueueRequest
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DNS1123 = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


def launchers():
    """Each launcher that takes a name, a namespace and an image: (its name, a call, the names its
    operator derives from the job's, longest first, as the operator's own rule spells them)."""
    fsdp, trn1, hyperpod = recorded("fsdp-p5"), recorded("trn1"), recorded("hyperpod-eks")
    kueue, trn1_trainer = outputs_of("kueue-p5"), variant_outputs("trn1-trainer")
    return {
        # A job of fixed size: Master 0 and Workers 0..2 (training operator's GenGeneralName).
        "pytorchjob": (lambda **a: launch.render_pytorchjob(fsdp, group_name="p5", nodes=4, command=["t"], **a),
                       lambda name: [f"{name}-master-0", f"{name}-worker-2"]),
        "mpijob": (lambda **a: launch.render_mpijob(trn1, group_name="trn1", nodes=4, command=["t"], **a),
                   lambda name: [f"{name}-launcher", f"{name}-worker-3"]),
        "hyperpod_pytorchjob": (lambda **a: launch.render_hyperpod_pytorchjob(
            hyperpod, group_name=next(g.name for g in hyperpod.hyperpod.instance_groups if g.accelerators_per_node),
            nodes=2, command=["t"], **a), lambda name: [f"{name}-master-0", f"{name}-worker-0"]),
        # JobSet's webhook: the longest pod name <set>-<replicated job>-<job index>-<pod index>-<5 random>.
        "trainjob (torch)": (lambda **a: launch.render_trainjob(kueue, group_name="p5", nodes=4, command=["t"],
                                                                queue=QueueRequest(team="llm"), **a),
                             lambda name: [f"{name}-node-0-3-xxxxx"]),
        "trainjob (mpi)": (lambda **a: launch.render_trainjob(trn1_trainer, group_name="trn1", nodes=4, command=["t"],
                                                              **{**a, "image": a["image"] if a["image"] != "img:1"
                                                                 else None}),
                           lambda name: [f"{name}-node-0-2-xxxxx", f"{name}-launcher-0-0-xxxxx"]),
    }


@pytest.fixture(scope="module")
def every_launcher():
    return launchers()


def refusal(call, **arguments) -> str:
    with pytest.raises(LaunchError) as refused:
        call(**arguments)
    return str(refused.value)


NAMESPACE_TEXT = st.text(alphabet="abcXYZ019-_.", min_size=0, max_size=70)
FEW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FEW
@given(namespace=NAMESPACE_TEXT.filter(lambda n: not (len(n) <= 63 and DNS1123.fullmatch(n))))
def test_every_launcher_refuses_a_namespace_kubernetes_refuses_with_the_same_words(every_launcher, namespace):
    said = {label: refusal(call, name="job", namespace=namespace, image="img:1")
            for label, (call, _) in every_launcher.items()}
    assert len(set(said.values())) == 1, said
    assert next(iter(said.values())).startswith(f"namespace {namespace}"[:40])


@FEW
@given(image=st.sampled_from(["", " ", "\t"]) | st.builds(lambda a, b: f"{a} {b}", st.text("abc:1", min_size=1),
                                                           st.text("abc-", min_size=1)))
def test_every_launcher_refuses_an_image_with_white_space_or_none_with_the_same_words(every_launcher, image):
    said = {label: refusal(call, name="job", namespace=None, image=image)
            for label, (call, _) in every_launcher.items()}
    assert len(set(said.values())) == 1, said
    assert "the container image is required and holds no spaces" in next(iter(said.values()))


@FEW
@given(name=st.text(alphabet="abz09-.", min_size=1, max_size=66))
def test_every_launcher_renders_a_name_exactly_when_its_operator_accepts_it_and_the_names_it_derives(
        every_launcher, name):
    for label, (call, derived) in every_launcher.items():
        accepted = all(len(n) <= 63 and DNS1035.fullmatch(n) for n in [name, *derived(name)])
        if accepted:
            job = call(name=name, namespace=None, image="img:1")
            assert job["metadata"]["name"] == name, label
        else:
            assert "Fix: pass --name" in refusal(call, name=name, namespace=None, image="img:1"), label
