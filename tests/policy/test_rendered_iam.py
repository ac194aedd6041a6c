"""Every IAM policy document trainstack renders, in every shipped stack and in the variants
that render other IAM (HyperPod on EKS, every add-on with a Pod Identity role), conforms to
IAM's Service Authorization Reference; every grant on '*' is named, with its reason, next to
the code that renders it."""

import pytest
from support.conformance import UNSCOPED_ACTIONS as UNSCOPED
from support.conformance import policy_documents as documents
from support.conformance import star_grants
from trainstack.names import IAM_ROLE
from trainstack.plan import run_program
from trainstack.policy import Stack, stack_from_plan
from trainstack.policy.iam_conformance import IDENTITY_POLICIES, document_findings
from trainstack.policy.service_authorization import action
from trainstack.training_stack import TrainingStack

VARIANTS = {
    "hyperpod-on-eks": {
        "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
        "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "hyperpod": {"orchestrator": "eks", "clusterName": "ml",
                     "workers": [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2}]}},
    "every-add-on": {
        "profile": "dev", "region": "eu-west-1", "network": {"zones": ["eu-west-1a", "eu-west-1b"]},
        "eks": {"publicAccessCidrs": ["203.0.113.0/24"], "version": "1.34"},
        "observability": {"containerInsights": True, "prometheus": True},
        "operators": {"etcd": True, "mpiOperator": True, "kueue": True}},
}


@pytest.fixture(scope="module")
def rendered(baselines) -> dict[str, Stack]:
    stacks = dict(baselines)
    for name, config in VARIANTS.items():
        plan = run_program(lambda config=config: TrainingStack("v", config), project="demo", stack=name)
        stacks[name] = stack_from_plan(plan)
    return stacks


def test_the_variants_render_the_iam_the_shipped_stacks_do_not(rendered):
    roles = {r.name for r in rendered["every-add-on"].of_type(IAM_ROLE)}
    assert any(r.endswith("-cloudwatch") for r in roles) and any(r.endswith("-ebs-csi") for r in roles), roles
    assert any(r.name.endswith("-network") for r in rendered["hyperpod-on-eks"].of_type(IDENTITY_POLICIES[1]))


@pytest.mark.parametrize("stack", ["dev", "nemo-p4de", "fsdp-p5", "trn1", "hyperpod", "hyperpod-eks", "kueue-p5",
                                   *VARIANTS])
def test_every_rendered_policy_conforms_to_the_service_authorization_reference(rendered, stack):
    found = [(where, document_findings(doc, trust=trust)) for where, doc, trust in documents(rendered[stack])]
    assert found and not any(findings for _, findings in found), [f for f in found if f[1]]


def test_every_grant_on_star_is_named_with_its_reason_and_none_is_stale(rendered):
    granted = {a for stack in rendered.values() for _, doc, trust in documents(stack) if not trust
               for a in star_grants(doc)}
    assert granted <= set(UNSCOPED), sorted(granted - set(UNSCOPED))
    assert set(UNSCOPED) <= granted, sorted(set(UNSCOPED) - granted)
    assert all(reason.strip() for reason in UNSCOPED.values())


def test_a_reason_that_says_no_resource_types_is_true_in_the_reference():
    for name, reason in UNSCOPED.items():
        assert ("lists no resource types" in reason) == (action(name).resource_types == ()), name
