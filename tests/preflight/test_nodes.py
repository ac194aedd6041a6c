"""Preflight of running nodes, judged without a cluster: each EFA group's nodes against the 2 MiB huge pages its
pods request. Nodes are Node objects as the API server returns them; the request is what the launchers render
(launch.node_needs), never a copy of the figure."""

import pytest
from support.rendered_jobs import outputs_of
from trainstack.catalog import HUGEPAGES_RESOURCE
from trainstack.launch.node_needs import HugePagesNeed
from trainstack.launch.placement import resources
from trainstack.preflight import verdict
from trainstack.preflight.node_preflight import CLUSTER
from trainstack.preflight.nodes import check_nodes

P5 = outputs_of("fsdp-p5").accelerated_groups["p5"]
REQUEST = resources(P5, P5.accelerators_per_node)["requests"][HUGEPAGES_RESOURCE]
"""What the launchers' pods on p5 request: the comparison must follow it, whatever it is."""
NEED = HugePagesNeed("p5", "p5.48xlarge", {"trainstack.io/node-group": "p5"}, REQUEST)
MI = 2**20


def node(name, allocatable, group="p5"):
    status = {"allocatable": {"cpu": "191450m", HUGEPAGES_RESOURCE: allocatable} if allocatable is not None
              else {"cpu": "191450m"}}
    return {"metadata": {"name": name, "labels": {"trainstack.io/node-group": group}}, "status": status}


def mebibytes(quantity_text):
    from trainstack.kube.quantity import quantity
    return int(quantity(quantity_text) / MI)


def test_a_group_whose_nodes_offer_what_a_pod_requests_passes_and_says_the_least():
    enough, more = node("ip-10-0-1-1", REQUEST), node("ip-10-0-1-2", f"{2 * mebibytes(REQUEST)}Mi")
    (check,) = check_nodes([NEED], [more, enough])
    assert check.status == "pass"
    assert check.subject == "p5 (p5.48xlarge)"
    assert f"the least is {REQUEST} on ip-10-0-1-1" in check.reason


def test_a_node_short_of_huge_pages_fails_its_group_naming_the_node_what_it_offers_the_request_and_the_fix():
    short_by_one_page = f"{mebibytes(REQUEST) - 2}Mi"
    (check,) = check_nodes([NEED], [node("ip-10-0-1-1", REQUEST), node("ip-10-0-1-9", short_by_one_page)])
    assert check.status == "fail"
    assert "1 of 2 nodes offer less than" in check.reason
    assert f"ip-10-0-1-9 offers {short_by_one_page}" in check.reason
    assert "ip-10-0-1-1" not in check.reason
    assert f"the {REQUEST} of hugepages-2Mi each pod on p5 requests" in check.reason
    assert "Insufficient hugepages-2Mi" in check.reason
    pages = mebibytes(REQUEST) // 2
    assert f"Fix: give each node of p5 at least {pages} huge pages of 2 MiB at boot" in check.reason
    assert "docs/adr/0005-efa-huge-pages.md" in check.reason


def test_a_node_that_reports_no_huge_pages_offers_none():
    (check,) = check_nodes([NEED], [node("ip-10-0-1-3", None)])
    assert check.status == "fail"
    assert "ip-10-0-1-3 offers none (no allocatable hugepages-2Mi)" in check.reason


def test_an_allocatable_that_is_not_a_quantity_is_short_and_shown_as_given():
    (check,) = check_nodes([NEED], [node("ip-10-0-1-4", "lots")])
    assert check.status == "fail"
    assert "ip-10-0-1-4 offers 'lots' (not a quantity)" in check.reason


def test_quantities_compare_by_amount_not_by_spelling():
    in_gibibytes = f"{mebibytes(REQUEST) / 1024:g}Gi"
    in_bytes = str(mebibytes(REQUEST) * MI)
    (check,) = check_nodes([NEED], [node("a", in_gibibytes), node("b", in_bytes)])
    assert check.status == "pass", check.reason


def test_only_nodes_the_pods_select_count():
    # A short node of another group is not p5's problem; p5's own node offers enough.
    (check,) = check_nodes([NEED], [node("ip-10-0-2-1", "0", group="system"), node("ip-10-0-1-1", REQUEST)])
    assert check.status == "pass"
    assert check.reason.startswith("1 node offers enough")


def test_a_group_with_no_running_node_could_not_be_checked_and_says_which_label_it_looked_for():
    (check,) = check_nodes([NEED], [node("ip-10-0-2-1", REQUEST, group="system")])
    assert check.status == "could-not-check"
    assert "none labelled trainstack.io/node-group=p5" in check.reason
    assert f"each pod on p5 requests {REQUEST} of hugepages-2Mi" in check.reason


def test_many_short_nodes_are_named_up_to_five_and_counted():
    (check,) = check_nodes([NEED], [node(f"n{i}", "0") for i in range(8)])
    assert "8 of 8 nodes" in check.reason and "n4 offers 0" in check.reason and "n5" not in check.reason
    assert "and 3 more" in check.reason


def test_a_hyperpod_group_is_told_that_hyperpods_ami_and_its_lifecycle_scripts_decide():
    need = HugePagesNeed("gpu", "ml.p5.48xlarge", {"trainstack.io/node-group": "gpu"}, REQUEST, hyperpod=True)
    (check,) = check_nodes([need], [node("hyperpod-i-0abc", "0", group="gpu")])
    assert "HyperPod's AMI and the group's lifecycle scripts decide them" in check.reason


@pytest.mark.parametrize(("offers", "allow_unchecked", "why_not"), [
    ([REQUEST], False, None),
    (["0"], False, "1 check failed"),
    ([], False, "nothing was checked against the cluster: all 1 checks could not run"),
    ([], True, "nothing was checked against the cluster: all 1 checks could not run"),
])
def test_the_verdict_passes_only_when_nodes_were_checked_and_none_is_short(offers, allow_unchecked, why_not):
    checks = check_nodes([NEED], [node(f"n{i}", offer) for i, offer in enumerate(offers)])
    said = verdict(checks, allow_unchecked, CLUSTER)
    assert said is None if why_not is None else said.startswith(why_not)


def test_a_stack_without_an_accelerated_or_efa_group_checks_nothing_and_does_not_pass():
    assert verdict(check_nodes([], [node("n", "0")]), scope=CLUSTER) == (
        "nothing was checked against the cluster: no group of this stack has accelerators or runs pods that request "
        "hugepages-2Mi, and it makes no claim a CSI driver must provision or team a NetworkPolicy fences")
