"""The add-on versions an upgrade moves to: EKS's own default for the minor (DescribeAddonVersions, through a real
boto3 client answered by botocore's Stubber, since moto lacks the API), else the user guide's table, never a guess."""

import boto3
from botocore.stub import Stubber
from trainstack.catalog.eks_addon_versions import from_eks, from_the_guide


def answer(default_for):
    """A DescribeAddonVersions answer shaped as botocore's EKS model: two versions, the default one per minor."""
    return {"addons": [{"addonName": "kube-proxy", "addonVersions": [
        {"addonVersion": "v1.36.2-eksbuild.1",
         "compatibilities": [{"clusterVersion": "1.36", "defaultVersion": default_for == "v1.36.2-eksbuild.1"}]},
        {"addonVersion": "v1.36.1-eksbuild.3",
         "compatibilities": [{"clusterVersion": "1.36", "defaultVersion": default_for == "v1.36.1-eksbuild.3"}]},
    ]}]}


def test_eks_default_version_for_the_minor_is_the_one_marked_default():
    client = boto3.client("eks", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        stub.add_response("describe_addon_versions", answer("v1.36.1-eksbuild.3"),
                          {"addonName": "kube-proxy", "kubernetesVersion": "1.36"})
        assert from_eks(client, "kube-proxy", "1.36") == "v1.36.1-eksbuild.3"
        stub.assert_no_pending_responses()


def test_an_add_on_eks_gives_no_default_for_is_none():
    client = boto3.client("eks", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        stub.add_response("describe_addon_versions", answer(None), {"addonName": "kube-proxy",
                                                                     "kubernetesVersion": "1.36"})
        assert from_eks(client, "kube-proxy", "1.36") is None


def test_offline_the_guides_tables_give_kube_proxy_and_coredns_and_nothing_beyond_their_rows():
    assert from_the_guide("kube-proxy", "1.35") == "v1.35.3-eksbuild.2"
    assert from_the_guide("coredns", "1.34") == "v1.12.4-eksbuild.1"
    assert from_the_guide("coredns", "1.35") is None
    assert from_the_guide("vpc-cni", "1.34") is None
