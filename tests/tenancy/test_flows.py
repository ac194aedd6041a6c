"""Which connections the NetworkPolicies a stack renders allow, judged by Kubernetes' NetworkPolicy semantics
(tenancy/flows.py): a team's own pods reach one another (torchrun's c10d store, Open MPI's ssh), another team's pods
are refused, Prometheus reaches team pods where the stack runs it, and team pods reach what lies outside the team
namespaces (etcd, DNS), since egress is left open. The policies' admission by the real API server is in
tests/rehearsal/test_tenancy.py; their enforcement needs the VPC CNI's agent on real nodes, which is not run."""

from typing import Any

import pytest
from support import operator_pods, plan_records
from support.rendered_jobs import jobs_for, outputs_of, planned_record
from trainstack.addons.observability import MONITORING
from trainstack.addons.operators import ETCD_NAMESPACE
from trainstack.names import YAML_CONFIG_GROUP
from trainstack.tenancy.flows import Pod, UnmodelledPolicy, flow

ETCD = Pod(ETCD_NAMESPACE, {"app.kubernetes.io/name": "etcd"})
COREDNS = Pod("kube-system", {"k8s-app": "kube-dns"})
PROMETHEUS = Pod(MONITORING, {"app.kubernetes.io/name": "prometheus"})


def network_policies(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for r in record["resources"] if r["type"] == YAML_CONFIG_GROUP
            for o in r["inputs"].get("objs") or [] if o["kind"] == "NetworkPolicy"]


def with_prometheus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    def edit(config: dict[str, Any]) -> None:
        config.setdefault("trainstack:observability", {})["prometheus"] = True
    return plan_records.record(tmp_path_factory.mktemp("prometheus"), "kueue-p5", edit)


def pod_of(job_pod: dict[str, Any]) -> Pod:
    return Pod(job_pod["metadata"]["namespace"], job_pod["metadata"].get("labels") or {})


def test_kueue_p5_renders_one_ingress_policy_per_team_namespace() -> None:
    policies = network_policies(planned_record("kueue-p5"))
    assert sorted(p["metadata"]["namespace"] for p in policies) == ["llm", "vision"]
    assert all(p["spec"]["policyTypes"] == ["Ingress"] for p in policies)


def test_a_trainjobs_node_pods_reach_the_first_nodes_c10d_store_in_their_own_namespace() -> None:
    policies = network_policies(planned_record("kueue-p5"))
    trainjobs = [j.document for j in jobs_for(outputs_of("kueue-p5"))
                 if j.launcher == "render_trainjob" and j.nodes > 1]
    assert trainjobs
    for job in trainjobs:
        assert isinstance(job, dict)
        first, *others = operator_pods.pods_of(job)
        for other in others:
            verdict = flow(policies, pod_of(other), pod_of(first))
            assert verdict.allowed, verdict.why
            assert "trainstack-team-ingress allows it" in verdict.why


def test_an_mpi_launcher_opens_ssh_to_its_workers_in_its_own_namespace() -> None:
    policies = network_policies(planned_record("kueue-p5"))
    job = {"training.kubeflow.org/job-name": "train"}
    launcher = Pod("llm", {**job, "training.kubeflow.org/replica-type": "launcher"})
    worker = Pod("llm", {**job, "training.kubeflow.org/replica-type": "worker"})
    assert flow(policies, launcher, worker).allowed


@pytest.mark.parametrize("source, destination", [("llm", "vision"), ("vision", "llm")])
def test_another_teams_pods_are_refused(source: str, destination: str) -> None:
    verdict = flow(network_policies(planned_record("kueue-p5")), Pod(source), Pod(destination))
    assert not verdict.allowed
    assert verdict.why == (f"ingress of {destination} is isolated by {destination}/trainstack-team-ingress and no "
                           f"rule allows {source}")


def test_prometheus_reaches_team_pods_only_on_a_stack_that_runs_it(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    without = network_policies(planned_record("kueue-p5"))
    assert not flow(without, PROMETHEUS, Pod("llm")).allowed
    scraped = network_policies(with_prometheus(tmp_path_factory))
    assert all(flow(scraped, PROMETHEUS, Pod(team)).allowed for team in ("llm", "vision"))
    # Prometheus's namespace is let in, not every namespace: the teams still cannot reach each other.
    assert not flow(scraped, Pod("vision"), Pod("llm")).allowed


def test_team_pods_reach_etcd_and_dns_whose_namespaces_no_policy_isolates() -> None:
    record = planned_record("byo-p5")
    policies = network_policies(record)
    assert [p["metadata"]["namespace"] for p in policies] == ["research"]
    assert any(r["type"] == "kubernetes:apps/v1:StatefulSet" and r["inputs"]["metadata"]["namespace"] == "etcd"
               for r in record["resources"])
    for destination in (ETCD, COREDNS):
        verdict = flow(policies, Pod("research"), destination)
        assert verdict.allowed and verdict.why.startswith("no policy isolates research pods for egress")


def test_egress_is_open_a_team_pod_connects_anywhere_its_destination_accepts() -> None:
    policies = network_policies(planned_record("kueue-p5"))
    for team in ("llm", "vision"):
        for destination in (ETCD, COREDNS, PROMETHEUS, Pod("default")):
            assert flow(policies, Pod(team), destination).allowed


# The evaluator's own reading of the Kubernetes docs ("Network Policies", "Behavior of to and from selectors").
def _policy(spec: dict[str, Any], namespace: str = "llm") -> dict[str, Any]:
    return {"kind": "NetworkPolicy", "metadata": {"name": "p", "namespace": namespace}, "spec": spec}


def test_a_peer_with_both_selectors_needs_both_and_two_peers_need_either() -> None:
    both = _policy({"podSelector": {}, "ingress": [{"from": [
        {"namespaceSelector": {"matchLabels": {"team": "ops"}}, "podSelector": {"matchLabels": {"role": "probe"}}}]}]})
    either = _policy({"podSelector": {}, "ingress": [{"from": [
        {"namespaceSelector": {"matchLabels": {"team": "ops"}}},
        {"podSelector": {"matchLabels": {"role": "probe"}}}]}]})
    ops = {"ops": {"team": "ops"}}
    probe_in_ops, other_in_ops = Pod("ops", {"role": "probe"}), Pod("ops", {"role": "web"})
    probe_in_llm = Pod("llm", {"role": "probe"})
    assert [flow([both], p, Pod("llm"), ops).allowed for p in (probe_in_ops, other_in_ops, probe_in_llm)] == [
        True, False, False]
    assert [flow([either], p, Pod("llm"), ops).allowed for p in (probe_in_ops, other_in_ops, probe_in_llm)] == [
        True, True, True]


def test_egress_rules_without_policy_types_isolate_egress_too() -> None:
    egress_only_to_dns = _policy({"podSelector": {}, "egress": [{"to": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}]}]})
    assert flow([egress_only_to_dns], Pod("llm"), COREDNS).allowed
    verdict = flow([egress_only_to_dns], Pod("llm"), ETCD)
    assert not verdict.allowed and verdict.why.startswith("egress of llm is isolated by llm/p")
    # It also isolates ingress (Ingress is always among the default policyTypes), with no ingress rule.
    assert not flow([egress_only_to_dns], Pod("llm"), Pod("llm")).allowed


def test_a_policy_selecting_other_pods_leaves_the_rest_open() -> None:
    only_workers = _policy({"podSelector": {"matchExpressions": [{"key": "role", "operator": "In",
                                                                  "values": ["worker"]}]}, "ingress": []})
    assert not flow([only_workers], Pod("vision"), Pod("llm", {"role": "worker"})).allowed
    assert flow([only_workers], Pod("vision"), Pod("llm", {"role": "launcher"})).allowed


@pytest.mark.parametrize("rule, refused", [
    ({"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}, "ipBlock"),
    ({"from": [{"podSelector": {}}], "ports": [{"port": 22}]}, "ports"),
])
def test_what_the_evaluator_does_not_model_is_refused_not_guessed(rule: dict[str, Any], refused: str) -> None:
    with pytest.raises(UnmodelledPolicy, match=refused):
        flow([_policy({"podSelector": {}, "ingress": [rule]})], Pod("vision"), Pod("llm"))
