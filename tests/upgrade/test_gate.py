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
