"""The network: VPC, subnets, NAT, endpoints, and the EFA security group."""

from .efa_security_group import efa_security_group
from .subnets import SubnetPlan, plan_subnets
from .vpc import Network, NetworkArgs

__all__ = ["Network", "NetworkArgs", "SubnetPlan", "efa_security_group", "plan_subnets"]
