"""The EFA security group: all traffic to and from itself, both ways.

EFA's OS bypass only works when the interface's security group allows all
inbound and outbound traffic to and from the group itself (EC2 user guide,
create-efa). The rules reference the group, not CIDRs: a CIDR rule, even
0.0.0.0/0, does not satisfy EFA.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws


def efa_security_group(name: str, vpc_id: pulumi.Input[str], opts: pulumi.ResourceOptions, *,
                       https_egress: bool = False) -> aws.ec2.SecurityGroup:
    """The EFA security group of a VPC (all traffic to and from itself).

    ``https_egress``: also allow HTTPS out, for members whose only group this is (HyperPod nodes
    reach AWS APIs and S3 through it); EKS nodes get egress from the cluster security group instead."""
    child = opts
    group = aws.ec2.SecurityGroup(
        name, vpc_id=vpc_id, description="EFA: all traffic between members (OS bypass)",
        tags={"Name": name}, opts=child)
    aws.vpc.SecurityGroupIngressRule(
        f"{name}-in-from-self", security_group_id=group.id, referenced_security_group_id=group.id,
        ip_protocol="-1", description="EFA: all inbound from members", opts=child)
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-out-to-self", security_group_id=group.id, referenced_security_group_id=group.id,
        ip_protocol="-1", description="EFA: all outbound to members", opts=child)
    if https_egress:
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-out-https", security_group_id=group.id, cidr_ipv4="0.0.0.0/0", ip_protocol="tcp",
            from_port=443, to_port=443, description="HTTPS to AWS APIs and S3", opts=child)
    return group
