"""Which ECR registry serves AWS's own images in each region: one table per publisher, each with
its source. ECR is regional, and AWS publishes its images from a different account in some
regions (opt-in regions, China, GovCloud), so an image path is derived from the stack's region,
never pinned to one region's registry. A region a table does not name is refused with a clear
error rather than guessed.

* Deep Learning Containers (and their Neuron images): aws/deep-learning-containers
  ``available_images.md`` at 00819950, "Available Deep Learning Containers Images" (region, the
  "Neuron Container" column, and the example URL's account). The same table is the DLC
  developer guide's: https://docs.aws.amazon.com/deep-learning-containers/latest/devguide/ .
* Amazon EKS add-on images (the EFA device plugin's ``eks/aws-efa-k8s-device-plugin``): the EKS
  user guide, "View Amazon container image registries for Amazon EKS add-ons",
  https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html (the table as
  aws-ia/terraform-aws-eks-blueprints copies it, ``amazon_container_image_registry_uris``); the
  regions opened since (ap-east-2, ap-southeast-5, ap-southeast-7, ca-west-1, il-central-1,
  mx-central-1) from the same accounts as GuardDuty's user guide lists them for its EKS add-on,
  https://docs.aws.amazon.com/guardduty/latest/ug/runtime-monitoring-ecr-repository-gdu-agent.html .

Images from registries that are not regional (public.ecr.aws, registry.k8s.io, quay.io, Docker
Hub, ghcr.io) need no table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


class UnknownRegistryRegion(ValueError):
    """The region has no registry in the table an image needs: what is wrong, and the fix."""

    def __init__(self, problem: str, fix: str):
        super().__init__(f"{problem} {fix}")
        self.problem, self.fix = problem, fix


@dataclass(frozen=True)
class Registry:
    account: str
    region: str

    @property
    def host(self) -> str:
        # China's regions are a partition of their own, with their own domain.
        domain = "amazonaws.com.cn" if self.region.startswith("cn-") else "amazonaws.com"
        return f"{self.account}.dkr.ecr.{self.region}.{domain}"


DLC_SOURCE = "aws/deep-learning-containers available_images.md@00819950"
_DLC_ACCOUNTS: Mapping[str, str] = MappingProxyType({
    "us-east-1": "763104351884", "us-east-2": "763104351884", "us-west-1": "763104351884",
    "us-west-2": "763104351884", "af-south-1": "626614931356", "ap-east-1": "871362719292",
    "ap-south-1": "763104351884", "ap-northeast-3": "364406365360", "ap-northeast-2": "763104351884",
    "ap-southeast-1": "763104351884", "ap-southeast-2": "763104351884", "ap-southeast-3": "907027046896",
    "ap-northeast-1": "763104351884", "ca-central-1": "763104351884", "eu-central-1": "763104351884",
    "eu-west-1": "763104351884", "eu-west-2": "763104351884", "eu-south-1": "692866216735",
    "eu-west-3": "763104351884", "eu-north-1": "763104351884", "me-south-1": "217643126080",
    "me-central-1": "914824155844", "sa-east-1": "763104351884", "cn-north-1": "727897471807",
    "cn-northwest-1": "727897471807",
})
# The regions whose DLC registry has the Neuron containers ("Neuron Container: Available").
_DLC_NEURON_REGIONS = frozenset({
    "us-east-1", "us-east-2", "us-west-2", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1",
    "eu-central-1", "eu-west-1", "eu-west-3", "sa-east-1",
})

EKS_SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html"
_EKS_ACCOUNTS: Mapping[str, str] = MappingProxyType({
    "af-south-1": "877085696533", "ap-east-1": "800184023465", "ap-northeast-1": "602401143452",
    "ap-northeast-2": "602401143452", "ap-northeast-3": "602401143452", "ap-south-1": "602401143452",
    "ap-south-2": "900889452093", "ap-southeast-1": "602401143452", "ap-southeast-2": "602401143452",
    "ap-southeast-3": "296578399912", "ap-southeast-4": "491585149902", "ca-central-1": "602401143452",
    "cn-north-1": "918309763551", "cn-northwest-1": "961992271922", "eu-central-1": "602401143452",
    "eu-central-2": "900612956339", "eu-north-1": "602401143452", "eu-south-1": "590381155156",
    "eu-south-2": "455263428931", "eu-west-1": "602401143452", "eu-west-2": "602401143452",
    "eu-west-3": "602401143452", "me-south-1": "558608220178", "me-central-1": "759879836304",
    "sa-east-1": "602401143452", "us-east-1": "602401143452", "us-east-2": "602401143452",
    "us-gov-east-1": "151742754352", "us-gov-west-1": "013241004608", "us-west-1": "602401143452",
    "us-west-2": "602401143452",
    "ap-east-2": "533267051163", "ap-southeast-5": "151610086707", "ap-southeast-7": "121268973566",
    "ca-west-1": "761377655185", "il-central-1": "066635153087", "mx-central-1": "730335286997",
})


def dlc_registry(region: str, *, neuron: bool = False) -> Registry:
    """The Deep Learning Containers registry of ``region``; ``neuron``: one that has the Neuron images."""
    account = _DLC_ACCOUNTS.get(region)
    if account is None or (neuron and region not in _DLC_NEURON_REGIONS):
        known = sorted(_DLC_NEURON_REGIONS if neuron else _DLC_ACCOUNTS)
        kind = "Neuron Deep Learning Containers" if neuron else "Deep Learning Containers"
        raise UnknownRegistryRegion(
            f"region {region}: AWS publishes no {kind} there ({DLC_SOURCE}); regions that have them: "
            f"{', '.join(known)}.", "use one of those regions, or copy the image into your own registry.")
    return Registry(account, region)


def eks_registry(region: str) -> Registry:
    """The registry Amazon EKS serves its add-on images from in ``region``."""
    account = _EKS_ACCOUNTS.get(region)
    if account is None:
        raise UnknownRegistryRegion(
            f"region {region}: trainstack's table of Amazon EKS image registries ({EKS_SOURCE}) does not "
            f"name it; regions it names: {', '.join(sorted(_EKS_ACCOUNTS))}.",
            "use one of those regions, or add the region's registry to catalog/image_registries.py from that page.")
    return Registry(account, region)
