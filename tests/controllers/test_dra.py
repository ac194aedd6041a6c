"""The scheduler's DRA allocation on a running node of a DRA group (b200-dra): each claim finds its GPUs and
EFA interfaces only where the DRA drivers publish them, and a pod that asks a DRA node for extended resources
finds none."""

import copy

import pytest
from support import policy_stacks, rendered_jobs
from support.policy_stacks import from_record
from trainstack.controllers import cluster_autoscaler, cluster_controllers
from trainstack.launch import claims
from trainstack.names import HELM_RELEASE

STACK = "b200-dra"


def device_check_with_templates():
    outputs = rendered_jobs.outputs_of(STACK)
    check = next(j for j in rendered_jobs.jobs_for(outputs) if j.launcher == "render_device_check")
    *templates, job = claims.documents(outputs, check.group, check.document)
    return [(check.id, job), *((f"{check.id}/{t['metadata']['name']}", t) for t in templates)]


def planned():
    return from_record(rendered_jobs.planned_record(STACK))


def test_a_whole_node_claim_fits_a_running_b200_node_where_both_drivers_run():
    assert cluster_autoscaler.check(planned(), device_check_with_templates()) == []


def test_without_aws_dranet_no_efa_device_is_published_and_the_claim_never_allocates():
    stack = planned()
    dranet = next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"] == "aws-dranet")
    findings = cluster_autoscaler.check(policy_stacks.removed(stack, dranet.type, dranet.name),
                                        device_check_with_templates())
    assert findings and all("(running)" in f.subject for f in findings)
    assert all("claims 8 efa.networking.k8s.aws devices (request efa), the node publishes 0" in f.message
               and "its DRA driver (aws-dranet) is not installed" in f.message for f in findings)


def test_a_claim_for_more_gpus_than_the_node_publishes_is_refused():
    jobs = device_check_with_templates()
    template = copy.deepcopy(jobs[1][1])
    template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 9
    findings = cluster_autoscaler.check(planned(), [jobs[0], (jobs[1][0], template)])
    assert len(findings) == 1
    assert "claims 9 gpu.nvidia.com devices (request gpus), the node publishes 8" in findings[0].message


def test_a_claim_whose_template_was_not_rendered_is_named():
    findings = cluster_autoscaler.check(planned(), device_check_with_templates()[:1])
    assert len(findings) == 1 and "ResourceClaimTemplate b200-8-devices, which was not rendered" in findings[0].message


def test_a_pod_asking_a_dra_node_for_extended_gpus_finds_no_device_plugin_there():
    (job_id, job), *templates = device_check_with_templates()
    document = copy.deepcopy(job)
    container = document["spec"]["template"]["spec"]["containers"][0]
    for side in ("requests", "limits"):
        container["resources"][side]["nvidia.com/gpu"] = "8"
    findings = cluster_autoscaler.check(planned(), [(job_id, document), *templates])
    assert len(findings) == 1
    assert "requests 8 nvidia.com/gpu, the node has 0" in findings[0].message
    assert "its device plugin (nvidia-device-plugin) is not installed" in findings[0].message


def neuron_jobs(variant, group):
    """The device check and MPIJob on ``group`` of a generated variant, each with the templates it names."""
    outputs = rendered_jobs.variant_outputs(variant)
    result = []
    for job in rendered_jobs.variant_jobs(variant):
        if job.group == group:
            *templates, document = claims.documents(outputs, job.group, job.document)
            result += [(job.id, document), *((f"{job.id}/{t['metadata']['name']}", t) for t in templates)]
    return result


def variant(name):
    return from_record(rendered_jobs.variant_record(name))


@pytest.mark.parametrize(("name", "group"), [("trn1-dra", "trn1"), ("trn1-dra-beside-plugins", "trn1-dra"),
                                             ("trn1-dra-beside-plugins", "trn1")])
def test_every_trainium_job_fits_its_running_node_whichever_profile_its_group_has(name, group):
    jobs = neuron_jobs(name, group)
    assert any(j[1].get("kind") == "MPIJob" for j in jobs)
    assert cluster_autoscaler.check(variant(name), jobs) == []


def test_without_the_neuron_dra_driver_no_neuron_device_is_published_and_the_claim_never_allocates():
    stack = variant("trn1-dra")
    driver = next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"].endswith("neuron-helm-chart"))
    findings = cluster_autoscaler.check(policy_stacks.removed(stack, driver.type, driver.name),
                                        neuron_jobs("trn1-dra", "trn1"))
    assert findings and all("claims 16 neuron.aws.com devices (request neurons), the node publishes 0" in f.message
                            and "is not installed" in f.message for f in findings)


@pytest.mark.parametrize(("name", "group"), [("trn1-dra", "trn1"), ("trn1-dra-beside-plugins", "trn1-dra")])
def test_no_neuron_device_plugin_advertises_on_a_dra_trainium_node(name, group):
    """Alone, the DRA release switches the device plugin off (no placement: it would land anywhere if read as on);
    beside a device-plugin group, the plugin's own release selects the plugin groups' nodes only."""
    (job_id, job), *templates = neuron_jobs(name, group)[:2]
    document = copy.deepcopy(job)
    container = document["spec"]["template"]["spec"]["containers"][0]
    for side in ("requests", "limits"):
        container["resources"][side]["aws.amazon.com/neuron"] = "16"
    findings = cluster_autoscaler.check(variant(name), [(job_id, document), *templates])
    assert len(findings) == 1 and "requests 16 aws.amazon.com/neuron, the node has 0" in findings[0].message


def test_one_neuron_release_per_component_gives_each_resource_one_controller():
    stack = from_record(copy.deepcopy(rendered_jobs.variant_record("trn1-dra-beside-plugins")))  # changed below
    assert cluster_controllers.one_controller_per_kind(stack) == []
    plugin = next(r for r in stack.of_type(HELM_RELEASE) if r.name.endswith("-neuron"))
    plugin.props["values"]["draDriver"] = {"enabled": True}
    [finding] = cluster_controllers.one_controller_per_kind(stack)
    assert finding.subject == "deviceclass/neuron.aws.com"
