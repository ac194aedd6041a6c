"""Each step of an upgrade is judged as its pull request would be, and the objects its plan renders are checked
against the API of the minor its control plane runs: an object that minor does not serve closes the step's gate."""

import copy

import pytest
from support.plan_records import stack_config, write_project
from trainstack.analysis import plan_stack
from trainstack.catalog.eks_addon_versions import from_the_guide
from trainstack.plan import find_project
from trainstack.upgrade import gate
from trainstack.upgrade.steps import upgrade_steps

BETA_CLAIM = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaimTemplate",
              "metadata": {"name": "gpus", "namespace": "llm"}, "spec": {"spec": {"devices": {"requests": []}}}}


@pytest.fixture(scope="module")
def kueue_p5_on_1_34(tmp_path_factory):
    config = copy.deepcopy(stack_config("kueue-p5"))
    config["trainstack:eks"]["version"] = "1.34"
    project = find_project(write_project(tmp_path_factory.mktemp("project"), "kueue-p5", config))
    return project, {"config": config}


def judged(project, document, monkeypatch=None):
    steps = upgrade_steps(document, "1.35", from_the_guide)
    path = project.stack_file("kueue-p5")
    files = gate.step_files(path.read_text(), document, steps, str(path))
    return list(gate.judged_steps(project, "kueue-p5", plan_stack("kueue-p5", project), steps, files))


def test_every_step_checks_the_objects_its_plan_renders_against_its_control_planes_minor(kueue_p5_on_1_34):
    project, document = kueue_p5_on_1_34
    steps = judged(project, document)
    assert [each.api_minor for each in steps] == ["1.35"] * 4
    assert all(each.objects > 20 and each.api_findings == [] and each.passed for each in steps)


def test_an_object_the_target_does_not_serve_closes_the_steps_gate(kueue_p5_on_1_34, monkeypatch):
    project, document = kueue_p5_on_1_34
    real = gate.stack_objects

    def with_a_beta_claim(plan):
        found = real(plan)
        found.apply.append(copy.deepcopy(BETA_CLAIM))
        return found

    monkeypatch.setattr(gate, "stack_objects", with_a_beta_claim)
    control_plane = judged(project, document)[0]
    assert control_plane.review.passed and not control_plane.passed
    [finding] = control_plane.api_blocking
    assert (finding.kind, finding.verdict, finding.api_version) == ("ResourceClaimTemplate", "not served",
                                                                    "resource.k8s.io/v1beta1")


def test_an_upgrade_over_three_minors_plans_every_step_and_rolls_the_nodes_in_the_last_alone(tmp_path):
    """trn1 from 1.33 to 1.36: the Neuron scheduler follows the control plane minor by minor, the node groups stay on
    1.33 (three minors behind at the end, which the version-skew policy allows) and roll once."""
    config = copy.deepcopy(stack_config("trn1"))
    config["trainstack:eks"]["version"] = "1.33"
    project = find_project(write_project(tmp_path, "trn1", config))
    document = {"config": config}
    steps = upgrade_steps(document, "1.36", from_the_guide)
    path = project.stack_file("trn1")
    files = gate.step_files(path.read_text(), document, steps, str(path))
    judged = list(gate.judged_steps(project, "trn1", plan_stack("trn1", project), steps, files))
    assert [each.api_minor for each in judged] == ["1.34"] * 3 + ["1.35"] * 3 + ["1.36"] * 4
    assert all(each.passed for each in judged)
    rolled = [each.step.title for each in judged if any(f.kind == "node-roll" for f in each.review.findings)]
    assert rolled == ["node groups to 1.36"]
