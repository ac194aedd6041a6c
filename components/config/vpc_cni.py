"""How the VPC CNI holds addresses on each node: the vpc-cni add-on's configuration.

ipamd's default (``WARM_ENI_TARGET=1``) keeps a whole spare ENI's addresses on every
node; trainstack sets the IP targets for training nodes instead (amazon-vpc-cni-k8s
README, "WARM_IP_TARGET" / "MINIMUM_IP_TARGET", and ``docs/eni-and-ip-target.md``).
Why 16 and 8, and no prefix delegation: docs/adr/0004-vpc-cni-ip-targets.md

The keys rendered are the add-on's documented configuration: its schema (``aws eks
describe-addon-configuration --addon-name vpc-cni``) has an ``env`` object whose
properties are the CNI's environment variables, each a string. The variables used
here are documented in the amazon-vpc-cni-k8s README ("CNI configuration
variables") and named for the managed add-on by AWS re:Post, "How do I prevent
configuration conflicts when I create or update my Amazon EKS managed add-ons?"
(WARM_PREFIX_TARGET, WARM_IP_TARGET and MINIMUM_IP_TARGET); WARM_ENI_TARGET is in
the chart's own ``env`` defaults (charts/aws-vpc-cni/values.yaml), from which the
add-on's schema is generated.
"""

from __future__ import annotations

import json
from typing import Literal, Optional

from pydantic import Field

from .base import ConfigModel

DEFAULT_MINIMUM_IP_TARGET = 16
DEFAULT_WARM_IP_TARGET = 8

# The add-on's ``env`` properties trainstack may render (see the module docstring for sources).
ADDON_ENV_KEYS = frozenset({"WARM_ENI_TARGET", "WARM_IP_TARGET", "MINIMUM_IP_TARGET"})


class VpcCniConfig(ConfigModel):
    """How many addresses ipamd holds per node. Either the IP targets (the default, set for
    training nodes) or ``warmEniTarget`` alone, the VPC CNI's own default mode."""

    minimum_ip_target: Optional[int] = Field(default=None, ge=1, le=1000)
    """``MINIMUM_IP_TARGET``: addresses every node holds from the start. Default 16."""
    warm_ip_target: Optional[int] = Field(default=None, ge=0, le=1000)
    """``WARM_IP_TARGET``: free addresses kept beyond the running pods. Default 8."""
    warm_eni_target: Optional[int] = Field(default=None, ge=0, le=15)
    """``WARM_ENI_TARGET``: whole spare ENIs kept per node instead of the IP targets
    (ipamd ignores it when an IP target is set, so it cannot be combined with them)."""

    @property
    def minimum_ips(self) -> int:
        """``MINIMUM_IP_TARGET`` as ipamd runs it in the IP-target mode: as given, else the default."""
        return DEFAULT_MINIMUM_IP_TARGET if self.minimum_ip_target is None else self.minimum_ip_target

    @property
    def warm_ips(self) -> int:
        """``WARM_IP_TARGET`` as ipamd runs it in the IP-target mode: as given, else the default."""
        return DEFAULT_WARM_IP_TARGET if self.warm_ip_target is None else self.warm_ip_target

    @property
    def mode(self) -> Literal["ipTargets", "eniTarget"]:
        return "eniTarget" if self.warm_eni_target is not None else "ipTargets"

    def env(self) -> dict[str, str]:
        """The add-on's ``env`` (the schema types every value as a string)."""
        if self.warm_eni_target is not None:
            return {"WARM_ENI_TARGET": str(self.warm_eni_target)}
        return {"MINIMUM_IP_TARGET": str(self.minimum_ips), "WARM_IP_TARGET": str(self.warm_ips)}

    def configuration_values(self, network_policy: bool = False) -> str:
        """The vpc-cni add-on's ``configurationValues`` document; ``network_policy`` turns on the CNI's network
        policy agent, which enforces Kubernetes NetworkPolicy (the add-on's ``enableNetworkPolicy``, a string:
        EKS user guide, cni-network-policy-configure.html)."""
        env = self.env()
        unknown = set(env) - ADDON_ENV_KEYS
        if unknown:
            raise ValueError(f"not documented vpc-cni add-on keys: {sorted(unknown)}")
        return json.dumps({"env": env, **({"enableNetworkPolicy": "true"} if network_policy else {})},
                          sort_keys=True)

    def describe(self) -> str:
        return ", ".join(f"{key}={value}" for key, value in sorted(self.env().items()))
