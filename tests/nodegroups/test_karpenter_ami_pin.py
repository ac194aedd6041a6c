"""Karpenter pools in production name their AMI release: Karpenter's nodeclasses.md (v1.14.1) warns
that an ``al2023@latest`` alias drifts and replaces every node whenever AWS publishes an AMI. A
production stack with a Karpenter group that names none (or ``latest``) is refused at the group's
amiVersion; the pool's EC2NodeClass selects the pinned release; a dev stack may follow latest; a
managed node group cannot take the key. Rolling is changing the pin (docs/scheduling.md: Rolling a
Karpenter group's AMI)."""

import copy

import pytest
from support.plan_records import stack_config
from support.rendered_jobs import planned_record
from trainstack.config import ConfigError, validate_stack_config

NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"


def kueue_p5(**dev_group):
    config = {key.split(":", 1)[1]: value for key, value in copy.deepcopy(stack_config("kueue-p5")).items()}
    dev = next(g for g in config["nodeGroups"] if g["name"] == "dev")
    dev.pop("amiVersion")
    dev.update(dev_group)
    return config


def node_classes(record):
    return {r["inputs"]["metadata"]["name"]: r["inputs"]["spec"] for r in record["resources"] if r["type"] == NODECLASS}


def test_the_shipped_production_pool_selects_its_pinned_release():
    assert node_classes(planned_record("kueue-p5"))["dev"]["amiSelectorTerms"] == [{"alias": "al2023@v20260724"}]


@pytest.mark.parametrize("pin", [{}, {"amiVersion": "latest"}])
def test_a_production_karpenter_group_that_follows_latest_is_refused_at_its_ami_version(pin):
    with pytest.raises(ConfigError) as error:
        validate_stack_config(kueue_p5(**pin))
    text = str(error.value)
    assert "trainstack:nodeGroups[1].amiVersion" in text and "al2023@latest" in text and "v20260724" in text


def test_a_dev_stack_may_follow_latest_and_a_managed_group_cannot_take_the_key():
    config = kueue_p5()
    config.update(profile="dev", eks={**config["eks"], "publicAccessCidrs": ["203.0.113.0/24"]})
    assert validate_stack_config(config).node_groups[1].ami_version is None
    config["nodeGroups"][0]["amiVersion"] = "v20260724"
    with pytest.raises(ConfigError, match="amiVersion pins a Karpenter pool's AMI"):
        validate_stack_config(config)
