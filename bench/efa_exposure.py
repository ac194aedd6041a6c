"""EFA exposure: for every EFA type in the catalog, the EFA interfaces the rendered
launch template carries against the type's maximum.

    .venv/bin/python bench/efa_exposure.py [--types p5.48xlarge trn1.32xlarge]
    .venv/bin/python bench/efa_exposure.py --quick       # three multi-card types: what CI runs (tests/test_bench.py)

Each launch template is rendered the way node groups render it (offline plan,
Pulumi mocks) and the interfaces are read back from the recorded inputs.
"""

from __future__ import annotations

import argparse

import pulumi
from trainstack import catalog
from trainstack.catalog.efa_layout import EFA_INTERFACE_TYPES, efa_layout, max_pods
from trainstack.config import Capacity, RootVolume
from trainstack.nodegroups.launch_template import launch_template
from trainstack.plan import run_program


def rendered_efa_interfaces(instance: catalog.InstanceType) -> int:
    def program():
        holder = pulumi.ComponentResource("bench:index:Holder", "holder")
        layout = efa_layout(instance)
        launch_template("lt", layout=layout, security_group_ids=["sg-cluster", "sg-efa"], root_volume=RootVolume(),
                        max_pods=max_pods(instance, layout), capacity=Capacity(), placement_group=None, parent=holder)

    plan = run_program(program, project="bench", stack="efa")
    interfaces = plan.get("aws:ec2/launchTemplate:LaunchTemplate", "lt").inputs["networkInterfaces"]
    return sum(1 for i in interfaces if i["interfaceType"] in EFA_INTERFACE_TYPES)


QUICK_TYPES = ("p4d.24xlarge", "p5.48xlarge", "trn1.32xlarge")
"""Multi-card layouts (4, 32 and 8 EFA interfaces), where exposure is easiest to get wrong."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--types", nargs="+", metavar="TYPE", help="only these types (default: every EFA type)")
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK_TYPES)}: what CI runs")
    args = parser.parse_args()
    wanted = set(QUICK_TYPES if args.quick else args.types or ())
    unknown = wanted - {instance.name for instance in catalog.INSTANCE_TYPES}
    if unknown:
        parser.error(f"not in the catalog: {', '.join(sorted(unknown))}")
    print(f"{'instance type':<20} {'rendered':>8} {'maximum':>8} {'exposure':>9}")
    for instance in catalog.INSTANCE_TYPES:
        if not instance.efa.supported or (wanted and instance.name not in wanted):
            continue
        maximum = instance.efa.max_interfaces
        if maximum is None:
            print(f"{instance.name:<20} {'-':>8} {'unknown':>8} {'refused':>9}  (EFA facts unknown: no layout)")
            continue
        rendered = rendered_efa_interfaces(instance)
        print(f"{instance.name:<20} {rendered:>8} {maximum:>8} {rendered / maximum:>8.0%}")


if __name__ == "__main__":
    main()
