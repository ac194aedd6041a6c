"""`trainstack preflight nodes` checks that datasets a team mounts with its pods' own credentials can be mounted:
the Mountpoint for S3 CSI driver must be v2 or later, whose CSIDriver asks the kubelet for the pod's token with the
EKS Pod Identity audience (awslabs/mountpoint-s3-csi-driver charts/aws-mountpoint-s3-csi-driver/templates/
csidriver.yaml@v2.0.0). v1.15.0's CSIDriver, as its chart renders it by default, asks only for ``sts.amazonaws.com``
(IRSA). The CSIDrivers below are those two charts' objects as rendered."""

from support.rendered_jobs import outputs_of
from trainstack.preflight.volume_drivers import POD_IDENTITY_AUDIENCE, check_volume_drivers, volume_needs

V1_15 = {"metadata": {"name": "s3.csi.aws.com"}, "spec": {
    "attachRequired": False, "podInfoOnMount": True, "requiresRepublish": True,
    "tokenRequests": [{"audience": "sts.amazonaws.com", "expirationSeconds": 3600}]}}
V2 = {"metadata": {"name": "s3.csi.aws.com"}, "spec": {
    **V1_15["spec"], "tokenRequests": [{"audience": "sts.amazonaws.com", "expirationSeconds": 3600},
                                       {"audience": "pods.eks.amazonaws.com", "expirationSeconds": 3600}]}}


def with_team_datasets(stack="fsdp-p5"):
    """A shipped stack's outputs with each dataset given to the team ``llm``: mounted with the pod's credentials."""
    outputs = outputs_of(stack)
    assert outputs.datasets, f"{stack} ships datasets"
    return outputs.model_copy(update={"datasets": [d.model_copy(update={"namespaces": ["llm"]})
                                                   for d in outputs.datasets]})


def team_dataset_need(outputs):
    (need,) = [n for n in volume_needs(outputs) if n.audience is not None]
    return need


def test_a_stack_whose_teams_mount_datasets_needs_the_pod_identity_audience_and_one_without_teams_does_not():
    need = team_dataset_need(with_team_datasets())
    assert (need.provisioner, need.audience, need.storage_class) == ("s3.csi.aws.com", POD_IDENTITY_AUDIENCE, "")
    assert need.claim.startswith("llm/")
    assert not [n for n in volume_needs(outputs_of("fsdp-p5")) if n.audience is not None], (
        "datasets mounted with the driver's own role need no pod token")


def test_a_v1_driver_fails_with_the_add_on_update_to_v2():
    need = team_dataset_need(with_team_datasets())
    (check,) = check_volume_drivers([need], [], [V1_15], "ml-platform-prod")
    assert check.status == "fail"
    assert "requests the pod's token for sts.amazonaws.com, not pods.eks.amazonaws.com" in check.reason
    assert "older than v2" in check.reason
    assert ("aws eks update-addon --cluster-name ml-platform-prod --addon-name aws-mountpoint-s3-csi-driver "
            "--addon-version <v2 version>") in check.reason


def test_a_v2_driver_passes():
    need = team_dataset_need(with_team_datasets())
    (check,) = check_volume_drivers([need], [], [V2], "c")
    assert check.status == "pass", check.reason
    assert check.subject == f"{need.claim} (static volumes of s3.csi.aws.com)"


def test_no_driver_at_all_fails_with_the_add_on_to_install():
    need = team_dataset_need(with_team_datasets())
    (check,) = check_volume_drivers([need], [], [{"metadata": {"name": "efs.csi.aws.com"}}], None)
    assert check.status == "fail"
    assert "no CSIDriver s3.csi.aws.com (it has: efs.csi.aws.com)" in check.reason
    assert "install the EKS add-on aws-mountpoint-s3-csi-driver" in check.reason
