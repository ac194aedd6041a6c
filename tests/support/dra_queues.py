"""A stack whose Kueue queues hold a DRA group beside a device-plugin group: the shipped kueue-p5 with its reserved
group on p6-b200.48xlarge under DRA (in us-east-2, whose us-east-2a offers it) and its Karpenter pool replaced by
two p5.48xlarge nodes on the device plugins. Both types carry EC2 network labels (4 layers and 3), so only the
device allocation decides which flavor Kueue places by topology (addons/kueue.py)."""

from __future__ import annotations

from typing import Any

from support import plan_records


def config() -> dict[str, Any]:
    """The stack's configuration, keys without the ``trainstack:`` namespace (as support.scratch writes them)."""
    config = {key.split(":", 1)[1]: value for key, value in plan_records.stack_config("kueue-p5").items()}
    b200 = config["nodeGroups"][0]
    b200.update(instanceType="p6-b200.48xlarge", deviceAllocation="dra", zone="us-east-2a",
                capacity={**b200["capacity"], "zone": "us-east-2a"})
    config["nodeGroups"][1] = {"name": "h100", "instanceType": "p5.48xlarge", "minSize": 2, "desiredSize": 2,
                               "maxSize": 2, "zone": "us-east-2a", "efa": True}
    config.update(region="us-east-2", network={"zones": ["us-east-2a", "us-east-2b"]})
    config["fsx"]["zone"] = "us-east-2a"
    return config
