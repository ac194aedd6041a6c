"""fsdp-p5 grown to frontier size (2,048 p5.48xlarge), for the quota tests of the plan and of the preflight."""

import copy

from trainstack import validate_stack_config

from support import plan_records

# 2,048 p5.48xlarge in five groups (maxSize is capped at 1000 per group today), on an existing VPC whose
# private subnets hold their addresses (a new VPC is at most a /16).
FRONTIER_SIZES = (410, 410, 410, 410, 408)
FRONTIER_SUBNETS = [("us-east-1a", "10.0.0.0/16"), ("us-east-1a", "10.1.0.0/16"), ("us-east-1b", "10.2.0.0/16")]


def fsdp_p5_grown(sizes=FRONTIER_SIZES):
    """fsdp-p5's stack configuration with its p5 group grown into one group per size."""
    config = copy.deepcopy(plan_records.stack_config("fsdp-p5"))
    p5 = config["trainstack:nodeGroups"][0]
    config["trainstack:nodeGroups"] = [dict(p5, name=f"p5-{index}", desiredSize=0, maxSize=size)
                                       for index, size in enumerate(sizes)]
    config["trainstack:network"] = {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
        {"id": f"subnet-0123456789abcdef{index}", "zone": zone, "cidr": cidr}
        for index, (zone, cidr) in enumerate(FRONTIER_SUBNETS)]}}
    return config


def validated(config):
    return validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})
