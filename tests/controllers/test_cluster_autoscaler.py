"""The Cluster Autoscaler and the kubelet admit every job the launchers render for a group:
the template node of a group at zero, and a running node's allocatable."""

import base64
import copy
from fractions import Fraction

import pytest
from support import plan_records, policy_stacks, rendered_jobs
from support.policy_stacks import from_record
from trainstack.controllers import cluster_autoscaler, karpenter
from trainstack.kube.quantity import quantity
from trainstack.names import HELM_RELEASE, NODE_GROUP_LABEL

TAG = "aws:autoscaling/tag:Tag"
HUGEPAGES_TAG = "k8s.io/cluster-autoscaler/node-template/resources/hugepages-2Mi"


def jobs(rendered):
    """(job id, document) of each job, with what is applied before it on a DRA group (the ResourceClaimTemplates its
    pods name, the TrainingRuntime a TrainJob brings): what `trainstack launch` prints."""
    return [(job.id, job.document) for job in rendered] + [
        (f"{job.id}/{d['metadata']['name']}", d) for job in rendered for d in job.prerequisites]


def shipped(stack):
    """(job id, document) of every job rendered for a shipped stack (and what its DRA groups' jobs bring)."""
    return jobs(list(rendered_jobs.jobs_for(rendered_jobs.outputs_of(stack))))


def dev_device_check():
    rendered = rendered_jobs.jobs_for(rendered_jobs.outputs_of("dev"))
    return next(j for j in rendered if j.launcher == "render_device_check")


def group(stack, name):
    return next(g for g in cluster_autoscaler.managed_groups(stack) if g.name == name)


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_shipped_job_fits_its_groups_template_and_running_nodes(stack):
    assert cluster_autoscaler.check(from_record(rendered_jobs.planned_record(stack)), shipped(stack)) == []


@pytest.mark.parametrize("variant", sorted(rendered_jobs.VARIANTS))
def test_every_variant_job_fits_its_groups_template_and_running_nodes(variant):
    findings = cluster_autoscaler.check(from_record(rendered_jobs.variant_record(variant)),
                                        jobs(rendered_jobs.variant_jobs(variant)))
    assert findings == []


def test_the_model_judges_every_accelerated_pod_of_the_shipped_stacks():
    """No job slips past the model unjudged: every accelerated pod selects a managed group or a
    Karpenter pool it knows (HyperPod's groups are not EKS managed node groups)."""
    judged = 0
    for stack in rendered_jobs.SHIPPED_STACKS:
        planned = from_record(rendered_jobs.planned_record(stack))
        groups = {g.name for g in [*cluster_autoscaler.managed_groups(planned), *karpenter.pool_groups(planned)]}
        for job in rendered_jobs.jobs_for(rendered_jobs.outputs_of(stack)):
            for pod in cluster_autoscaler.pod_specs(job.document):
                selected = (pod.get("nodeSelector") or {}).get(NODE_GROUP_LABEL)
                if selected is not None and job.launcher != "render_hyperpod_pytorchjob":
                    assert selected in groups, job.id
                    judged += 1
    assert judged >= 20


def test_fsdp_p5_group_at_zero_is_tagged_with_the_huge_pages_every_efa_job_requests():
    """Finding 1: the p5 group idles at zero and its template carried GPUs and EFA only, so the
    autoscaler decided no FSDP job fits and never scaled it up."""
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    p5 = group(stack, "p5")
    assert p5.min_size == 0
    assert p5.asg_tags[HUGEPAGES_TAG] == "5120Mi"
    template = cluster_autoscaler.template_node(p5)
    assert template.allocatable["hugepages-2Mi"] == quantity("5120Mi")
    fsdp = [job for job in rendered_jobs.jobs_for(rendered_jobs.outputs_of("fsdp-p5"))
            if job.launcher == "render_pytorchjob" and job.nodes == 16]
    assert fsdp and cluster_autoscaler.check(stack, jobs(fsdp)) == []


def test_a_group_at_zero_without_the_huge_pages_tag_never_scales_up_for_an_efa_job():
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    untagged = policy_stacks.removed(stack, TAG, "fsdp-p5-eks-p5-template-hugepages-2Mi")
    findings = cluster_autoscaler.check(untagged, shipped("fsdp-p5"))
    assert findings
    assert all("template at zero" in f.subject and "hugepages-2Mi" in f.message for f in findings)
    assert "never scales the group up" in findings[0].message
    assert "aws_manager.go buildNodeFromTemplate" in findings[0].source


def test_the_template_node_is_built_as_build_node_from_template_builds_it():
    """110 pods, vCPUs, memory and GPUs from the EC2 instance data, then the ASG's resource tags;
    labels of the managed group over the generic ones; the group's taints."""
    p5 = group(from_record(rendered_jobs.planned_record("fsdp-p5")), "p5")
    node = cluster_autoscaler.template_node(p5)
    assert node.allocatable["pods"] == 110
    assert node.allocatable["cpu"] == 192
    assert node.allocatable["memory"] == 2097152 * 2**20  # DescribeInstanceTypes SizeInMiB
    assert node.allocatable["nvidia.com/gpu"] == 8
    assert node.allocatable["vpc.amazonaws.com/efa"] == 32
    assert node.labels["node.kubernetes.io/instance-type"] == "p5.48xlarge"
    assert node.labels["topology.kubernetes.io/zone"] == "us-east-1a"
    assert node.labels["trainstack.io/node-group"] == "p5"
    assert [(t.key, t.effect) for t in node.taints] == [("nvidia.com/gpu", "NoSchedule")]


def test_trainium_templates_count_no_gpus_and_take_neuron_devices_from_tags():
    trn1 = group(from_record(rendered_jobs.variant_record("trn1-from-zero")), "trn1")
    node = cluster_autoscaler.template_node(trn1)
    assert node.allocatable["nvidia.com/gpu"] == 0
    assert node.allocatable["aws.amazon.com/neuron"] == 16
    assert node.allocatable["aws.amazon.com/neuroncore"] == 32
    assert node.allocatable["hugepages-2Mi"] == quantity("5120Mi")


def test_a_group_without_efa_is_not_tagged_with_huge_pages_and_its_jobs_request_none():
    stack = from_record(rendered_jobs.variant_record("p5-without-efa"))
    p5 = group(stack, "p5")
    assert HUGEPAGES_TAG not in p5.asg_tags and p5.efa_interfaces == 0
    for job in rendered_jobs.variant_jobs("p5-without-efa"):
        for pod in cluster_autoscaler.pod_specs(job.document):
            assert "hugepages-2Mi" not in str(pod)


def test_a_running_p5_node_keeps_what_nodeadm_reserves():
    """kube-reserved CPU 60m + 10m + 2 x 5m + 188 cores x 2.5m = 550m; memory 11 x 242 + 255 MiB
    (nodeadm's own max pods for p5.48xlarge, not the NodeConfig's), 100Mi eviction, and the
    EFA huge pages out of memory."""
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    p5 = group(stack, "p5")
    node = cluster_autoscaler.running_node(p5, cluster_autoscaler.installed_charts(stack))
    assert node.allocatable["cpu"] == Fraction(191450, 1000)
    default_max_pods = p5.instance.network.max_pods
    assert node.allocatable["memory"] == (2097152 - (11 * default_max_pods + 255) - 100) * 2**20 - 5120 * 2**20
    assert node.allocatable["pods"] == p5.max_pods
    assert node.allocatable["vpc.amazonaws.com/efa"] == 32 and node.allocatable["nvidia.com/gpu"] == 8


def test_the_running_nodes_max_pods_is_the_launch_templates_node_config():
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    p5 = group(stack, "p5")
    template = policy_stacks.find(stack, "aws:ec2/launchTemplate:LaunchTemplate", "fsdp-p5-eks-p5")
    assert f"maxPods: {p5.max_pods}" in base64.b64decode(template.props["userData"]).decode()


def test_without_the_efa_device_plugin_no_running_node_offers_efa_and_the_jobs_never_schedule():
    stack = from_record(rendered_jobs.planned_record("fsdp-p5"))
    plugin = next(r for r in stack.of_type(HELM_RELEASE)
                  if r.props["chart"] == "aws-efa-k8s-device-plugin")
    without = policy_stacks.removed(stack, plugin.type, plugin.name)
    findings = cluster_autoscaler.check(without, shipped("fsdp-p5"))
    assert findings and all("(running)" in f.subject and "vpc.amazonaws.com/efa" in f.message for f in findings)


def test_a_job_that_does_not_tolerate_the_groups_taint_is_refused_with_the_taint_named():
    stack = from_record(rendered_jobs.planned_record("dev"))
    job = dev_device_check()
    document = copy.deepcopy(job.document)
    document["spec"]["template"]["spec"]["tolerations"] = []
    findings = cluster_autoscaler.check(stack, [(job.id, document)])
    assert {f.subject.rsplit(" on ", 1)[1] for f in findings} == {"gpu (template at zero)", "gpu (running)"}
    assert all("does not tolerate the taint nvidia.com/gpu=true:NoSchedule" in f.message for f in findings)


def test_a_job_asking_for_more_gpus_than_the_type_has_is_refused_on_both_nodes():
    stack = from_record(rendered_jobs.planned_record("dev"))
    job = dev_device_check()
    document = copy.deepcopy(job.document)
    container = document["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"]["nvidia.com/gpu"] = "2"
    container["resources"]["requests"]["nvidia.com/gpu"] = "2"
    findings = cluster_autoscaler.check(stack, [(job.id, document)])
    assert len(findings) == 2 and all("requests 2 nvidia.com/gpu, the node has 1" in f.message for f in findings)


@pytest.mark.parametrize(("variant", "effect"), [("p5-with-a-team-taint", "NoSchedule"),
                                                 ("trn1-with-a-team-taint", "NoExecute")])
def test_device_plugins_run_under_a_groups_own_taints_so_its_devices_are_advertised(variant, effect):
    """Found on variants with nodeGroups[].taints: the jobs tolerate the group's taints (the outputs carry
    them) but the device plugins did not, so a running node advertised no accelerator or EFA device."""
    stack = from_record(rendered_jobs.variant_record(variant))
    serving = [r for r in stack.of_type(HELM_RELEASE) if "plugin" in r.name or "neuron" in r.name]
    assert len(serving) == 2
    for release in serving:
        values = release.props["values"]
        listed = (values.get("devicePlugin") or values)["tolerations"]
        assert {"key": "team", "operator": "Exists", "effect": effect} in listed, release.name


def test_a_device_plugin_kept_off_a_node_is_named_in_the_finding():
    stack = from_record(rendered_jobs.variant_record("p5-with-a-team-taint"))
    plugin = next(r for r in stack.of_type(HELM_RELEASE)
                  if r.props["chart"] == "nvidia-device-plugin")
    untolerated = policy_stacks.with_props(stack, plugin.type, plugin.name, lambda props: props["values"].update(
        tolerations=[t for t in props["values"]["tolerations"] if t["key"] != "team"]))
    findings = cluster_autoscaler.check(untolerated, jobs(rendered_jobs.variant_jobs("p5-with-a-team-taint")))
    assert findings
    assert all("No nvidia.com/gpu there: its device plugin (nvidia-device-plugin) does not tolerate the taint "
               "team=research:NoSchedule" in f.message for f in findings)


def test_neuron_jobs_of_the_custom_scheduler_count_unless_the_autoscaler_is_limited_to_other_schedulers():
    stack = from_record(rendered_jobs.planned_record("trn1"))
    trn1 = shipped("trn1")
    assert any(pod.get("schedulerName") == "my-scheduler" for _, document in trn1
               for pod in cluster_autoscaler.pod_specs(document))
    assert cluster_autoscaler.check(stack, trn1) == []
    release = next(r for r in stack.of_type(HELM_RELEASE)
                   if r.props["chart"] == "cluster-autoscaler")
    limited = policy_stacks.with_props(stack, release.type, release.name, lambda props: props["values"][
        "extraArgs"].update({"allowed-scheduler-names": "default-scheduler"}))
    findings = cluster_autoscaler.check(limited, trn1)
    assert findings and all("ignores this pod of scheduler my-scheduler" in f.message for f in findings)


def test_a_pod_on_the_karpenter_dev_pool_is_judged_against_its_g6_node_and_two_gpus_do_not_fit():
    stack = from_record(rendered_jobs.planned_record("kueue-p5"))
    [pool] = karpenter.pool_groups(stack)
    assert (pool.name, pool.instance.name, pool.zone, pool.efa_interfaces) == ("dev", "g6.xlarge", "us-east-1a", 0)
    [job] = [j for j in rendered_jobs.jobs_for(rendered_jobs.outputs_of("kueue-p5"))
             if j.id.startswith("kueue-p5/dev/render_device_check")][:1]
    assert cluster_autoscaler.check(stack, [(job.id, job.document)]) == []
    wide = copy.deepcopy(job.document)
    for pod in cluster_autoscaler.pod_specs(wide):
        for container in pod["containers"]:
            for bound in ("requests", "limits"):
                container["resources"][bound]["nvidia.com/gpu"] = "2"
    findings = cluster_autoscaler.check(stack, [(job.id, wide)])
    assert findings and all("dev (running)" in f.subject for f in findings), findings


# DRA on Kubernetes 1.34: the pinned chart 9.52.0 (cluster-autoscaler 1.34.1) leaves DRA handling off and grants
# nothing of resource.k8s.io; 1.35's chart 9.59.0 has both (catalog/autoscaler_dra.py).

@pytest.fixture(scope="module")
def b200_dra_on_1_34(tmp_path_factory):
    def on_1_34(config):
        config["trainstack:eks"]["version"] = "1.34"
        config["trainstack:operators"] = {"trainingOperator": False, "trainer": True}  # TrainJobs claim devices

    return from_record(plan_records.record(tmp_path_factory.mktemp("b200-dra-1.34"), "b200-dra", on_1_34))


def autoscaler_release(stack):
    return next(r for r in stack.of_type(HELM_RELEASE) if r.props["chart"] == "cluster-autoscaler")


def test_on_1_34_the_autoscaler_of_a_dra_group_handles_claims_with_the_flag_and_read_only_dra_rules(
        b200_dra_on_1_34):
    assert [f.message for f in cluster_autoscaler.check_dra_handling(b200_dra_on_1_34)] == []
    release = autoscaler_release(b200_dra_on_1_34)
    assert release.props["version"] == "9.52.0"
    assert release.props["values"]["extraArgs"]["enable-dynamic-resource-allocation"] is True
    assert release.props["values"]["rbac"]["additionalRules"] == [{
        "apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses", "resourceclaims"],
        "verbs": ["watch", "list", "get"]}]


@pytest.mark.parametrize("edit, words", [
    (lambda values: values["extraArgs"].pop("enable-dynamic-resource-allocation"),
     "--enable-dynamic-resource-allocation is not set to true"),
    (lambda values: values["rbac"].pop("additionalRules"),
     "does not grant watch resourceslices, list resourceslices, get resourceslices"),
    (lambda values: values["rbac"]["additionalRules"][0].update(verbs=["get"]),
     "does not grant watch resourceslices, list resourceslices, watch deviceclasses"),
])
def test_a_1_34_autoscaler_without_dra_handling_is_an_error_on_the_dra_group_it_resizes(b200_dra_on_1_34, edit,
                                                                                       words):
    release = autoscaler_release(b200_dra_on_1_34)
    broken = policy_stacks.with_props(b200_dra_on_1_34, release.type, release.name,
                                      lambda props: edit(props["values"]))
    (finding,) = cluster_autoscaler.check_dra_handling(broken)
    assert finding.subject == "group b200" and finding.severity == "error"
    assert words in finding.message and "by CPU and memory alone" in finding.message
    assert finding.urn == group(broken, "b200").resource.urn


def test_a_dra_group_the_autoscaler_never_resizes_needs_no_dra_handling(b200_dra_on_1_34):
    release = autoscaler_release(b200_dra_on_1_34)
    b200 = group(b200_dra_on_1_34, "b200").resource
    unhandled = policy_stacks.with_props(b200_dra_on_1_34, release.type, release.name,
                                         lambda props: props["values"]["extraArgs"].clear())
    fixed = policy_stacks.with_props(unhandled, b200.type, b200.name,
                                     lambda props: props["scalingConfig"].update(minSize=8, desiredSize=8))
    assert cluster_autoscaler.check_dra_handling(fixed) == []


def test_on_1_35_the_charts_own_autoscaler_handles_dra_and_trainstack_adds_nothing():
    stack = from_record(rendered_jobs.planned_record("b200-dra"))
    release = autoscaler_release(stack)
    assert release.props["version"] == "9.59.0"
    assert "enable-dynamic-resource-allocation" not in release.props["values"]["extraArgs"]
    assert "additionalRules" not in release.props["values"]["rbac"]
    assert cluster_autoscaler.check_dra_handling(stack) == []
