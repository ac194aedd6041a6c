"""HyperPod's own EKS add-ons on the orchestrating EKS cluster, each a switch.

    cert-manager (community add-on) -> HyperPod training operator
        (``amazon-sagemaker-hyperpod-training-operator``; IAM through Pod Identity)
    HyperPod task governance (``amazon-sagemaker-hyperpod-taskgovernance``)

Names and the cert-manager prerequisite: SageMaker developer guide (training operator
installation) and the EKS user guide's add-on list. The operator's service account,
``aws-hyperpod/hp-training-operator-controller-manager``, and its managed policy
``AmazonSageMakerHyperPodTrainingOperatorAccess`` are what AWS's installation steps
associate; the service account name was read in public infrastructure code that
installs the add-on, not in an AWS schema (an assumption to recheck on each add-on
release). Versions are pinned like every managed add-on: ``eks.addonVersions``, EKS's
default for the cluster version when unset.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from ..catalog.managed_policies import HYPERPOD_TRAINING_OPERATOR
from ..cluster.core_addons import core_addon
from ..cluster.iam import pod_identity_role
from ..config import AddonVersions, HyperPodConfig

CERT_MANAGER = "cert-manager"
TRAINING_OPERATOR = "amazon-sagemaker-hyperpod-training-operator"
TASK_GOVERNANCE = "amazon-sagemaker-hyperpod-taskgovernance"
TRAINING_OPERATOR_NAMESPACE = "aws-hyperpod"
TRAINING_OPERATOR_SERVICE_ACCOUNT = "hp-training-operator-controller-manager"
TRAINING_OPERATOR_POLICY = HYPERPOD_TRAINING_OPERATOR


def hyperpod_eks_addons(name: str, settings: HyperPodConfig, *, cluster_name: pulumi.Input[str],
                        versions: AddonVersions, parent: pulumi.Resource,
                        depends_on: list[pulumi.Resource]) -> dict[str, aws.eks.Addon]:
    """The add-ons ``settings`` switches on, by add-on name. ``depends_on``: the HyperPod cluster
    and what the EKS cluster needs before pods run (system nodes, CoreDNS)."""
    addons: dict[str, aws.eks.Addon] = {}
    if settings.training_operator:
        certificates = core_addon(name, CERT_MANAGER, cluster_name=cluster_name, versions=versions, parent=parent,
                                  depends_on=depends_on)
        identity = pod_identity_role(
            f"{name}-training-operator", cluster_name=cluster_name, namespace=TRAINING_OPERATOR_NAMESPACE,
            service_account=TRAINING_OPERATOR_SERVICE_ACCOUNT, managed_policy_arns=[TRAINING_OPERATOR_POLICY],
            parent=parent, depends_on=depends_on)
        addons[CERT_MANAGER] = certificates
        addons[TRAINING_OPERATOR] = core_addon(name, TRAINING_OPERATOR, cluster_name=cluster_name, versions=versions,
                                               parent=parent, depends_on=[*depends_on, certificates, identity])
    if settings.task_governance:
        addons[TASK_GOVERNANCE] = core_addon(name, TASK_GOVERNANCE, cluster_name=cluster_name, versions=versions,
                                             parent=parent, depends_on=depends_on)
    return addons
