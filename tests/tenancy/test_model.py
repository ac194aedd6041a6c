"""Each team of a stack as a tenant: its group, service account, data, quota and Pod Security level, derived from
the stack's config; the access entries, roles and objects the plan records for it."""

import json
from pathlib import Path
from typing import Any

import pytest
from support import plan_records
from support.rendered_jobs import planned_record
from trainstack.config import ConfigError, validate_stack_config
from trainstack.tenancy import tenants
from trainstack.tenancy.isolation import namespace_labels

LLM = "arn:aws:iam::123456789012:role/llm-researchers"
VISION = "arn:aws:iam::123456789012:role/vision-researchers"


def kueue_p5(edit=None) -> dict[str, Any]:
    config = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config("kueue-p5").items()}
    if edit is not None:
        edit(config)
    return config


def refusal(config: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as error:
        validate_stack_config(config)
    return str(error.value)


def resources(record: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r for r in record["resources"] if r["type"] == type_]


def test_each_team_of_kueue_p5_is_a_tenant_with_its_group_account_prefix_and_reach():
    llm, vision = tenants(validate_stack_config(kueue_p5()))
    assert (llm.team, llm.namespace, llm.group, llm.service_account) == (
        "llm", "llm", "trainstack:team:llm", "llm-jobs")
    assert llm.members == (LLM,) and vision.members == (VISION,)
    assert llm.checkpoint_prefix == "teams/llm/" and vision.fsx_directory == "teams/vision"
    # Both borrow from the cohort: each can reach the whole reservation and the dev pool.
    assert llm.reach == {"p5": 16, "dev": 8}


def test_a_teams_quota_is_the_cpu_and_memory_of_every_node_it_can_reach_and_room_for_small_pods():
    llm = tenants(validate_stack_config(kueue_p5()))[0]
    # 16 p5.48xlarge (192 vCPUs, 2,048 GiB) and 8 g6.xlarge (4 vCPUs, 16 GiB), plus 10 cores and 20 GiB.
    assert llm.quota == {"requests.cpu": str(16 * 192 + 8 * 4 + 10), "requests.memory": f"{16 * 2048 + 8 * 16 + 20}Gi",
                         "pods": str(2 * 24 + 10), "persistentvolumeclaims": str(1 + 10)}


def test_a_team_that_does_not_borrow_is_given_the_quota_of_its_guarantee_and_a_given_key_wins():
    def edit(config):
        config["scheduling"]["teams"][1].update(borrowing=False, quota={"pods": 7})
    vision = tenants(validate_stack_config(kueue_p5(edit)))[1]
    assert vision.reach == {"p5": 4, "dev": 0}
    assert vision.quota["requests.cpu"] == str(4 * 192 + 10) and vision.quota["pods"] == "7"


def test_team_namespaces_enforce_baseline_and_warn_of_restricted():
    assert namespace_labels(tenants(validate_stack_config(kueue_p5()))[0]) == {
        "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/audit": "restricted", "trainstack.io/team": "llm"}


def test_the_plan_makes_each_team_namespace_with_its_pod_security_labels():
    record = planned_record("kueue-p5")
    labels = {r["inputs"]["metadata"]["name"]: r["inputs"]["metadata"].get("labels", {})
              for r in resources(record, "kubernetes:core/v1:Namespace")}
    assert labels["llm"]["pod-security.kubernetes.io/enforce"] == "baseline"
    assert labels["vision"]["pod-security.kubernetes.io/enforce"] == "baseline"


def test_each_member_and_viewer_gets_one_access_entry_in_its_group_and_no_access_policy():
    entries = {r["inputs"]["principalArn"]: r["inputs"] for r in
               resources(planned_record("kueue-p5"), "aws:eks/accessEntry:AccessEntry")
               if r["inputs"].get("type") == "STANDARD"}
    assert {arn: e["kubernetesGroups"] for arn, e in entries.items()} == {
        LLM: ["trainstack:team:llm"], VISION: ["trainstack:team:vision"],
        "arn:aws:iam::123456789012:role/ml-platform-oncall": ["trainstack:queue-viewers"]}
    policies = [r for r in planned_record("kueue-p5")["resources"]
                if r["type"] == "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
                and r["inputs"].get("principalArn") in entries]
    assert policies == []


def test_each_teams_service_account_gets_its_own_pod_identity_role_writing_only_its_prefix():
    record = planned_record("kueue-p5")
    associations = {r["inputs"]["namespace"]: r["inputs"]["serviceAccount"]
                    for r in resources(record, "aws:eks/podIdentityAssociation:PodIdentityAssociation")
                    if r["inputs"]["namespace"] in ("llm", "vision")}
    assert associations == {"llm": "llm-jobs", "vision": "vision-jobs"}
    policy = next(json.loads(r["inputs"]["policy"]) for r in resources(record, "aws:iam/rolePolicy:RolePolicy")
                  if r["urn"].endswith("kueue-p5-teams-llm"))
    writes = next(s for s in policy["Statement"] if "s3:PutObject" in s["Action"])
    assert [resource.split(":::", 1)[1].split("/", 1)[1] for resource in writes["Resource"]] == ["teams/llm/*"]


def test_the_vpc_cni_enforces_network_policy_on_a_stack_with_teams_and_not_on_one_without():
    def cni(record):
        addon = next(r for r in resources(record, "aws:eks/addon:Addon") if r["inputs"]["addonName"] == "vpc-cni")
        return json.loads(addon["inputs"]["configurationValues"])
    assert cni(planned_record("kueue-p5"))["enableNetworkPolicy"] == "true"
    assert "enableNetworkPolicy" not in cni(planned_record("dev"))


def test_an_existing_clusters_teams_get_their_objects_but_no_access_entry_or_iam_role():
    record = planned_record("byo-p5")
    groups = [r for r in resources(record, "kubernetes:yaml/v2:ConfigGroup") if r["urn"].endswith("-teams-research")]
    kinds = [o["kind"] for o in groups[0]["inputs"]["objs"]]
    assert kinds == ["Role", "RoleBinding", "NetworkPolicy", "ResourceQuota", "LimitRange", "ServiceAccount"]
    assert not [r for r in record["resources"] if r["type"].startswith("aws:")]


@pytest.mark.parametrize("edit, says", [
    (lambda c: c["scheduling"]["teams"][1]["members"].append(LLM),
     "is a member of team 'llm' (scheduling.teams[0].members[0]) and a member of team 'vision'"),
    (lambda c: c["scheduling"]["teams"][0]["members"].append("arn:aws:iam::123456789012:role/ml-platform-admin"),
     "is a cluster admin (eks.adminPrincipals[0]) and a member of team 'llm'"),
    (lambda c: c["scheduling"]["teams"][0]["members"].append("arn:aws:sts::123456789012:assumed-role/x/y"),
     "scheduling.teams[0].members[1]"),
    (lambda c: c["scheduling"]["teams"][0].update(namespace="kube-system"), "Kubernetes' or the platform's own"),
    (lambda c: c["scheduling"]["teams"][0].update(namespace="trainstack-system"), "Kubernetes' or the platform's own"),
    (lambda c: c["fsx"].update(dataRepository={"s3Path": "s3://corpus/c4/", "fileSystemPath": "/datasets"}),
     "the S3 data repository is at /datasets, outside every team's directory"),
    (lambda c: c["fsx"].update(checkpoints={"sizeGB": 100, "intervalMinutes": 30}),
     "the checkpoint export is at /checkpoints, outside every team's directory"),
    (lambda c: c.update(datasets=[{"name": "c4", "bucket": "corpus", "mountPath": "/data", "teams": ["nlp"]}]),
     "dataset 'c4' is given to team 'nlp', which is no team of the stack"),
])
def test_bad_team_input_is_refused_with_the_key_the_value_and_the_fix(edit, says):
    message = refusal(kueue_p5(edit))
    assert says in message and "Fix:" in message


def test_a_data_repository_or_checkpoint_export_inside_a_teams_directory_is_planned():
    def edit(config):
        config["fsx"].update(dataRepository={"s3Path": "s3://corpus/c4/", "fileSystemPath": "/teams/llm/c4"},
                             checkpoints={"sizeGB": 100, "intervalMinutes": 30, "path": "/teams/vision/checkpoints"})
    assert validate_stack_config(kueue_p5(edit)).fsx.data_repository.file_system_path == "/teams/llm/c4"


def test_a_member_leaving_touches_only_their_own_access_entry(tmp_path: Path):
    def add(config):
        config["trainstack:scheduling"]["teams"][0]["members"].insert(0, "arn:aws:iam::123456789012:role/new")
    before = {r["urn"] for r in resources(planned_record("kueue-p5"), "aws:eks/accessEntry:AccessEntry")}
    after = {r["urn"] for r in resources(plan_records.record(tmp_path, "kueue-p5", add),
                                         "aws:eks/accessEntry:AccessEntry")}
    assert before < after and len(after - before) == 1
