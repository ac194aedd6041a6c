"""The checks of the profile (``profile``, config/profiles.py): what production forbids. Its defaults are filled
in before validation (config/profiles.py); what it refuses is refused here."""

from __future__ import annotations

from ...catalog.addons import EKS_AMI_RELEASE
from ..base import ConfigValueError
from ..stack import StackConfig


def check_profile(stack: StackConfig) -> None:
    """Production keeps the Kubernetes API private and pins its Karpenter pools' AMI."""
    production = stack.profile == "production"
    if stack.eks is not None:
        access = stack.eks.endpoint_access
        if production and access != "private":
            raise ConfigValueError(
                "production stacks keep the Kubernetes API private.",
                fix="remove endpointAccess (or set it to private) and run `pulumi up` from inside the VPC "
                "(a bastion, VPN or CI runner there), or use profile: dev.",
                path=("eks", "endpointAccess"), value=access)
        for index, group in enumerate(stack.node_groups):
            if production and group.autoscaler == "karpenter" and group.ami_version in (None, "latest"):
                # Karpenter's nodeclasses.md (v1.14.1, amiSelectorTerms alias): @latest drifts every
                # node to each new AMI as it is published; production pins and rolls on purpose.
                raise ConfigValueError(
                    f"Karpenter group '{group.name}' would follow al2023@latest: every AMI release AWS "
                    "publishes would drift and replace its nodes, pods and all.",
                    fix=f"set amiVersion to a release, e.g. {EKS_AMI_RELEASE} (awslabs/amazon-eks-ami "
                    "releases), and roll it on purpose by changing it; or use profile: dev.",
                    path=("nodeGroups", index, "amiVersion"), value=group.ami_version)
