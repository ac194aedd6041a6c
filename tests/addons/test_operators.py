"""The job operators' installs as the engine will apply them."""

import pulumi
from trainstack.addons.operators import webhook_certificate_is_the_operators

CERTIFICATE = "fsdp-p5-addons-training-operator:kubeflow/training-operator-webhook-cert"


def transformed(type_: str, name: str) -> pulumi.ResourceTransformResult | None:
    args = pulumi.ResourceTransformArgs(custom=True, type_=type_, name=name, props={}, opts=pulumi.ResourceOptions())
    return webhook_certificate_is_the_operators(args)


def test_the_training_operators_webhook_certificate_data_is_left_to_the_operator():
    """A second `pulumi up` must not replace the Secret the operator fills (the engine's deploy tests found it)."""
    kept = transformed("kubernetes:core/v1:Secret", CERTIFICATE)
    assert kept is not None and kept.opts.ignore_changes == ["data"]
    assert transformed("kubernetes:core/v1:ConfigMap", "x:kubeflow/training-operator-webhook-cert") is None
    assert transformed("kubernetes:core/v1:Secret", "x:kubeflow/other") is None
