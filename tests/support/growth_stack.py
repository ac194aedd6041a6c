"""The benchmarks' generated stack: many p5.48xlarge groups (EFA on), and a head that changes it.

The head puts every fourth group on p5en.48xlarge (replaced: new launch template versions, node
rolls) and every other group one node larger. bench/diff_time.py and bench/report_time.py time
it; tests/report/test_in_browser.py checks that its report fits the page."""

from typing import Any


def config(groups: int, head: bool) -> dict[str, Any]:
    node_groups = []
    for index in range(groups):
        group = {"name": f"p5-{index}", "instanceType": "p5.48xlarge", "minSize": 0, "desiredSize": 0,
                 "maxSize": 2, "zone": "us-east-1a", "efa": True}
        if head and index % 4 == 0:
            group["instanceType"] = "p5en.48xlarge"
        elif head and index % 2 == 1:
            group["maxSize"] = 3
        node_groups.append(group)
    return {"trainstack:profile": "dev", "trainstack:region": "us-east-1",
            "trainstack:network": {"zones": ["us-east-1a", "us-east-1b"]},
            "trainstack:eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
            "trainstack:nodeGroups": node_groups}
