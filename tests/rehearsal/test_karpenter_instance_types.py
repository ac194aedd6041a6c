"""What the rehearsal hands Karpenter's kwok provider (rehearsal/karpenter.py), read without running it: each pool's
instance type shaped as the rehearsal's node model shapes the pool's nodes, offered in the pool's zone and capacity
type at the catalog's price, and the stack's own NodePool with only its node class swapped."""

from __future__ import annotations

import copy
import functools
from fractions import Fraction

from support import rendered_jobs
from trainstack import catalog
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.rehearsal import karpenter
from trainstack.rehearsal.nodes import group_shapes


@functools.cache
def _record() -> dict:
    return rendered_jobs.planned_record("kueue-p5")


def _pools(record: dict) -> tuple[list[karpenter.Pool], list[str]]:
    stack = stack_from_plan(Plan.from_dict(record))
    return karpenter.pools_to_run(stack, group_shapes(stack))


def test_the_dev_pools_g6_is_offered_with_the_models_allocatable_once_the_providers_reservation_is_taken_off() -> None:
    (pool,), left = _pools(_record())
    assert left == [] and pool.name == "dev"
    (entry,) = karpenter.instance_types([pool])
    allocatable = pool.shape.node.allocatable
    assert entry["name"] == "g6.xlarge" and entry["architecture"] == "amd64"
    resources = entry["resources"]
    # kwok/cloudprovider/helpers.go takes 100m and 10Mi off: the Node's allocatable is then the model's memory.
    assert int(resources["memory"]) - 10 * 2**20 == allocatable["memory"]
    assert (resources["nvidia.com/gpu"], resources["pods"]) == ("1", str(allocatable["pods"]))
    # 4 vCPUs, of which nodeadm reserves 80m: the cpu limit (8 x 4) counts capacity, which stays at 4 vCPUs.
    assert allocatable["cpu"] == Fraction(392, 100) and resources["cpu"] == "4000m"


def test_the_offering_is_the_pools_zone_and_capacity_type_at_the_catalogs_on_demand_price() -> None:
    (pool,), _ = _pools(_record())
    (offering,) = karpenter.instance_types([pool])[0]["offerings"]
    requirements = {r["key"]: r["values"] for r in offering["Requirements"]}
    assert requirements == {"karpenter.sh/capacity-type": ["on-demand"], "topology.kubernetes.io/zone": ["us-east-1a"],
                            "topology.kubernetes.io/region": ["us-east-1"]}
    price = catalog.get("g6.xlarge").price("us-east-1")
    assert price is not None and offering["Price"] == price.usd_per_hour


def test_the_nodepool_applied_is_the_plans_but_for_the_node_class_it_names() -> None:
    (pool,), _ = _pools(_record())
    applied = karpenter.node_pool(pool)
    assert applied["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.kwok.sh", "kind": "KWOKNodeClass", "name": "dev"}
    del applied["spec"]["template"]["spec"]["nodeClassRef"]
    planned = copy.deepcopy(pool.document)
    del planned["spec"]["template"]["spec"]["nodeClassRef"]
    assert applied == planned


def test_a_pool_of_reserved_capacity_is_left_to_the_model_saying_why() -> None:
    record = copy.deepcopy(_record())
    (pool,) = [r for r in record["resources"] if r["type"] == "kubernetes:karpenter.sh/v1:NodePool"]
    for requirement in pool["inputs"]["spec"]["template"]["spec"]["requirements"]:
        if requirement["key"] == "karpenter.sh/capacity-type":
            requirement["values"] = ["reserved"]
    pools, left = _pools(record)
    assert pools == []
    assert left == ["NodePool/dev: Karpenter is not run for a pool of reserved capacity (its kwok provider names no "
                    "reservation label); its nodes are added as the model launches them"]
