"""The checks of the VPC CNI's address targets (``eks.vpcCni``, config/vpc_cni.py)."""

from __future__ import annotations

from ..base import ConfigValueError
from ..vpc_cni import VpcCniConfig


def check_one_mode(cni: VpcCniConfig) -> None:
    """ipamd ignores ``WARM_ENI_TARGET`` once an IP target is set: a whole spare ENI, or the IP targets."""
    if cni.warm_eni_target is not None:
        if cni.warm_ip_target is not None or cni.minimum_ip_target is not None:
            raise ConfigValueError(
                "warmEniTarget is set together with warmIpTarget/minimumIpTarget; ipamd ignores "
                "WARM_ENI_TARGET once an IP target is set.",
                fix="keep warmEniTarget alone (a whole spare ENI per node), or remove it to use the IP targets.",
                path=("warmEniTarget",), value=cni.warm_eni_target)
