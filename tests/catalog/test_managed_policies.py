"""Every AWS managed policy a shipped stack (or generated variant) attaches is one AWS recommends for
the role it is on (catalog.managed_policies, each with its page), none is one AWS has superseded:
node roles, Karpenter's included, pull images with AmazonEC2ContainerRegistryPullOnly."""

import pytest
from support.rendered_jobs import SHIPPED_STACKS, VARIANTS, planned_record, variant_record
from trainstack.catalog.managed_policies import ECR_PULL_ONLY, RECOMMENDED, SUPERSEDED

ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"


def attachments(record):
    return {r["name"]: r["inputs"]["policyArn"] for r in record["resources"] if r["type"] == ATTACHMENT}


@pytest.mark.parametrize("stack", [*SHIPPED_STACKS, *sorted(VARIANTS)])
def test_every_managed_policy_attached_is_recommended_for_its_role_and_none_is_superseded(stack):
    record = variant_record(stack) if stack in VARIANTS else planned_record(stack)
    attached = attachments(record)
    superseded = {name: f"{arn} (AWS now recommends {SUPERSEDED[arn]})" for name, arn in attached.items()
                  if arn in SUPERSEDED}
    assert not superseded
    assert not {name: arn for name, arn in attached.items() if arn not in RECOMMENDED}


def test_karpenters_node_role_pulls_images_with_the_pull_only_policy():
    attached = attachments(planned_record("kueue-p5"))  # its dev pool scales with Karpenter
    karpenter = {arn for name, arn in attached.items() if "karpenter-nodes" in name}
    assert ECR_PULL_ONLY in karpenter
    assert not karpenter & set(SUPERSEDED)
