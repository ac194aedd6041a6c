"""Mountpoint for Amazon S3: the add-on with a Pod Identity role scoped to the dataset buckets,
read-only unless asked; one static volume and claim per dataset, cached on local NVMe; the
launchers mounting them beside FSx; the outputs contract carrying them."""

import base64
import copy
import json

import pytest
from trainstack.config import ConfigError
from trainstack.launch import render_pytorchjob
from trainstack.outputs import parse_outputs
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"
STACK = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "p5", "instanceType": "p5.48xlarge", "maxSize": 4, "zone": "us-east-1a"}],
    "fsx": {"zone": "us-east-1a", "namespace": "training"},
    "datasets": [
        {"name": "corpus", "bucket": "team-datasets", "prefix": "c4/en/", "mountPath": "/datasets/c4",
         "cacheGiB": 2000},
        {"name": "scratch", "bucket": "team-scratch", "mountPath": "/scratch-s3", "readOnly": False,
         "metadataTtl": "minimal"},
    ],
}


def contract(plan) -> dict:
    return plan.get("trainstack:index:TrainingStack", "s").outputs["trainstack"]


@pytest.fixture(scope="module")
def plan():
    return run_program(lambda: TrainingStack("s", STACK), project="demo", stack="s")


def test_the_driver_is_the_eks_add_on_with_a_pod_identity_role_for_its_service_account(plan):
    addon = plan.get("aws:eks/addon:Addon", "s-datasets-driver")
    association = plan.get("aws:eks/podIdentityAssociation:PodIdentityAssociation", "s-datasets-driver")
    assert addon.inputs["addonName"] == "aws-mountpoint-s3-csi-driver"
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system",
                                                                                       "s3-csi-driver-sa")
    assert association.urn in addon.dependencies


def test_the_role_lists_and_reads_only_the_named_prefixes_and_writes_only_where_asked_never_deletes(plan):
    policy = json.loads(plan.get("aws:iam/rolePolicy:RolePolicy", "s-datasets-driver").inputs["policy"])
    assert policy["Statement"] == [
        {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::team-datasets"],
         "Condition": {"StringLike": {"s3:prefix": ["c4/en/*"]}}},
        {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::team-datasets/c4/en/*"]},
        {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::team-scratch"]},
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"],
         "Resource": ["arn:aws:s3:::team-scratch/*"]},
    ]


def test_a_read_only_dataset_is_a_static_volume_of_its_prefix_cached_on_the_instance_store(plan):
    volume = plan.get(PV, "s-datasets-corpus").inputs["spec"]
    assert volume["mountOptions"] == ["region us-east-1", "metadata-ttl indefinite", "prefix c4/en/", "read-only"]
    assert volume["csi"] == {"driver": "s3.csi.aws.com", "volumeHandle": "corpus-dataset-training",
                             "volumeAttributes": {"bucketName": "team-datasets", "cache": "emptyDir",
                                                  "cacheEmptyDirSizeLimit": "2000Gi"}}
    assert volume["accessModes"] == ["ReadOnlyMany"] and volume["storageClassName"] == ""
    assert volume["claimRef"] == {"namespace": "training", "name": "corpus-dataset"}
    claim = plan.get(PVC, "s-datasets-corpus").inputs
    assert claim["metadata"] == {"name": "corpus-dataset", "namespace": "training"}
    assert claim["spec"]["volumeName"] == "corpus-dataset-training"


def test_a_writable_dataset_mounts_without_read_only_and_without_a_cache(plan):
    volume = plan.get(PV, "s-datasets-scratch").inputs["spec"]
    assert volume["mountOptions"] == ["region us-east-1", "metadata-ttl minimal"]
    assert volume["accessModes"] == ["ReadWriteMany"]
    assert volume["csi"]["volumeAttributes"] == {"bucketName": "team-scratch"}


def test_nodes_with_an_instance_store_put_containerd_and_the_kubelet_on_its_raid0(plan):
    user_data = base64.b64decode(plan.get("aws:ec2/launchTemplate:LaunchTemplate", "s-eks-p5")
                                 .inputs["userData"]).decode()
    assert "  instance:\n    localStorage:\n      strategy: RAID0\n" in user_data


def test_the_contract_carries_the_datasets_and_the_launcher_mounts_them_beside_fsx(plan):
    outputs = parse_outputs(contract(plan))
    assert [(d.name, d.claim_name, d.mount_path, d.read_only) for d in outputs.datasets] == [
        ("corpus", "corpus-dataset", "/datasets/c4", True), ("scratch", "scratch-dataset", "/scratch-s3", False)]
    job = render_pytorchjob(outputs, name="t", group_name="p5", nodes=2, image="i", command=["torchrun", "t.py"])
    pod = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert {"name": "dataset-corpus", "persistentVolumeClaim": {"claimName": "corpus-dataset", "readOnly": True}} \
        in pod["volumes"]
    mounts = pod["containers"][0]["volumeMounts"]
    assert {"name": "dataset-corpus", "mountPath": "/datasets/c4", "readOnly": True} in mounts
    assert {"name": "dataset-scratch", "mountPath": "/scratch-s3"} in mounts
    assert any(m["name"] == "fsx" for m in mounts)


def test_a_version_1_contract_without_datasets_still_reads():
    document = copy.deepcopy(contract(run_program(lambda: TrainingStack("s", {**STACK, "datasets": []}),
                                                  project="demo", stack="s")))
    assert document["datasets"] == []
    document.update(contractVersion=1)
    del document["datasets"]
    assert parse_outputs(document).datasets == []


@pytest.mark.parametrize("change, path", [
    ({"datasets": [{**STACK["datasets"][0], "cacheGiB": 40000}]}, "datasets[0].cacheGiB"),
    ({"datasets": [STACK["datasets"][0], {**STACK["datasets"][1], "name": "corpus"}]}, "datasets[1].name"),
    ({"datasets": [{**STACK["datasets"][0], "mountPath": "/fsx"}]}, "datasets[0].mountPath"),
    ({"datasets": [{**STACK["datasets"][0], "bucket": "Bad_Bucket"}]}, "datasets[0].bucket"),
])
def test_bad_datasets_are_refused_before_anything_is_registered(change, path):
    with pytest.raises(ConfigError) as error:
        TrainingStack("s", {**STACK, **change})
    assert f"trainstack:{path}" in str(error.value)


# On a stack with teams, each team reads its datasets with its own Pod Identity role (tenancy/data.py), so a
# dataset's volume goes only where a team given it runs, and Mountpoint mounts it with the pod's credentials.
TEAMS = {"kueue": True}
SCHEDULING = {"teams": [{"name": "llm", "namespace": "llm", "guaranteedNodes": {"p5": 2}},
                        {"name": "vision", "namespace": "vision", "guaranteedNodes": {"p5": 2}}]}
TEAMS_STACK = {**STACK, "operators": TEAMS, "scheduling": SCHEDULING,
               "datasets": [{**STACK["datasets"][0], "teams": ["llm"]}, STACK["datasets"][1]]}


@pytest.fixture(scope="module")
def teams_plan():
    return run_program(lambda: TrainingStack("s", TEAMS_STACK), project="demo", stack="s")


def claimed(plan, kind) -> dict[str, str]:
    """Resource name -> the namespace of its claim, for every dataset volume or claim the plan records."""
    return {r.name: (r.inputs["spec"]["claimRef"]["namespace"] if kind == PV else r.inputs["metadata"]["namespace"])
            for r in plan.resources if r.type == kind and r.name.startswith("s-datasets-")}


def test_with_teams_a_dataset_is_claimed_only_in_the_namespaces_of_the_teams_given_it(teams_plan):
    # Job namespaces: training (the FSx claim's), llm, vision. No team runs in training; corpus is llm's only.
    expected = {"s-datasets-corpus-llm": "llm", "s-datasets-scratch-llm": "llm",
                "s-datasets-scratch-vision": "vision"}
    assert claimed(teams_plan, PV) == expected
    assert claimed(teams_plan, PVC) == expected


def test_with_teams_every_volume_mounts_with_the_pods_own_credentials(teams_plan):
    for resource in teams_plan.resources:
        if resource.type == PV and resource.name.startswith("s-datasets-"):
            assert resource.inputs["spec"]["csi"]["volumeAttributes"]["authenticationSource"] == "pod", resource.name
    assert teams_plan.get(PV, "s-datasets-corpus-llm").inputs["spec"]["csi"]["volumeAttributes"] == {
        "bucketName": "team-datasets", "authenticationSource": "pod", "cache": "emptyDir",
        "cacheEmptyDirSizeLimit": "2000Gi"}


def test_with_teams_the_driver_has_no_role_of_its_own_and_each_team_reads_only_what_it_was_given(teams_plan):
    assert not [r.name for r in teams_plan.resources if r.name.startswith("s-datasets-driver") and r.type in (
        "aws:iam/role:Role", "aws:iam/rolePolicy:RolePolicy",
        "aws:eks/podIdentityAssociation:PodIdentityAssociation")]
    assert teams_plan.get("aws:eks/addon:Addon", "s-datasets-driver").inputs["addonName"] == \
        "aws-mountpoint-s3-csi-driver"

    def buckets(team):
        policy = json.loads(teams_plan.get("aws:iam/rolePolicy:RolePolicy", f"s-teams-{team}").inputs["policy"])
        return {arn for s in policy["Statement"] for arn in s["Resource"] if "checkpoints" not in arn}
    assert buckets("llm") == {"arn:aws:s3:::team-datasets", "arn:aws:s3:::team-datasets/c4/en/*",
                              "arn:aws:s3:::team-scratch", "arn:aws:s3:::team-scratch/*"}
    assert buckets("vision") == {"arn:aws:s3:::team-scratch", "arn:aws:s3:::team-scratch/*"}


def driver_args(**readers) -> dict:
    import pulumi_kubernetes as k8s

    return {"datasets": STACK["datasets"], "region": "us-east-1", "namespaces": ["llm", "vision"],
            "cluster_name": "c", "provider": k8s.Provider("c-k8s", kubeconfig="{}"), "depends_on": [],
            "readers": readers}


@pytest.mark.parametrize("readers, path, value", [
    ({"corpus": ["llm"], "images": ["llm"]}, "S3Datasets(d):readers.images", "images"),
    ({"corpus": ["llm", "audio"]}, "S3Datasets(d):readers.corpus", "audio"),
])
def test_readers_that_name_no_dataset_or_no_job_namespace_are_refused_before_anything_is_registered(
        readers, path, value):
    from trainstack.storage.s3_datasets import S3Datasets

    registered = []

    def program():
        with pytest.raises(ConfigError) as error:
            S3Datasets("d", driver_args(**readers))
        registered.append(error.value)
    plan = run_program(program, project="demo", stack="s")
    # The cluster's provider, which the Args take (a Provider: None is refused), is the test's own.
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack", "pulumi:providers:kubernetes"]
    (issue,) = registered[0].issues
    assert (issue.path, issue.value) == (path, value) and issue.fix
