"""The recorder keeps what the engine would receive: inputs, parents, dependencies, options, outputs."""

import json

import pulumi
import pulumi_aws as aws
import pytest
from trainstack.plan import PLAN_FORMAT_VERSION, SECRET_MARK, run_program


def _program():
    key = aws.kms.Key("key", description="checkpoints", enable_key_rotation=True)
    bucket = aws.s3.Bucket("data", opts=pulumi.ResourceOptions(protect=True, retain_on_delete=True))
    aws.s3.BucketServerSideEncryptionConfiguration(
        "data-sse", bucket=bucket.id,
        rules=[{"apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms",
                                                            "kms_master_key_id": key.arn}}],
        opts=pulumi.ResourceOptions(depends_on=[key], ignore_changes=["rules"],
                                    custom_timeouts=pulumi.CustomTimeouts(create="30m", delete="1h")))
    pulumi.export("bucket", bucket.bucket)
    pulumi.export("token", pulumi.Output.secret("s3cr3t"))


@pytest.fixture(scope="module")
def plan():
    return run_program(_program, project="demo", stack="test", config={"aws:region": "eu-west-1"})


def test_inputs_are_recorded_with_the_engines_camel_case_keys(plan):
    key = plan.get("aws:kms/key:Key", "key")
    assert key.inputs == {"description": "checkpoints", "enableKeyRotation": True}


def test_options_protect_and_retain_on_delete_are_recorded(plan):
    bucket = plan.get("aws:s3/bucket:Bucket", "data")
    assert bucket.options.protect and bucket.options.retain_on_delete
    assert not plan.get("aws:kms/key:Key", "key").options.protect


def test_property_dependencies_say_which_input_came_from_which_resource(plan):
    sse = plan.get("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                   "data-sse")
    bucket, key = plan.get("aws:s3/bucket:Bucket", "data"), plan.get("aws:kms/key:Key", "key")
    assert sse.property_dependencies["bucket"] == [bucket.urn]
    assert sse.property_dependencies["rules"] == [key.urn]
    assert set(sse.dependencies) == {bucket.urn, key.urn}


def test_ignore_changes_custom_timeouts_and_depends_on_are_recorded(plan):
    sse = plan.get("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                   "data-sse")
    assert sse.options.ignore_changes == ["rules"]
    assert sse.options.custom_timeouts == {"create": "30m", "delete": "1h"}


def test_outputs_come_from_the_fixtures_with_the_configured_region(plan):
    bucket = plan.get("aws:s3/bucket:Bucket", "data")
    assert bucket.outputs["bucket"].startswith("data-")
    assert bucket.outputs["arn"] == f"arn:aws:s3:::{bucket.outputs['bucket']}"
    assert bucket.outputs["region"] == "eu-west-1"
    key = plan.get("aws:kms/key:Key", "key")
    assert key.outputs["arn"].startswith("arn:aws:kms:eu-west-1:123456789012:key/")


def test_stack_outputs_are_resolved_and_secrets_stay_hidden(plan):
    assert plan.outputs["bucket"] == plan.get("aws:s3/bucket:Bucket", "data").outputs["bucket"]
    assert plan.outputs["token"] == SECRET_MARK


def test_every_resource_hangs_off_the_stack(plan):
    stack = plan.by_type("pulumi:pulumi:Stack")[0]
    assert stack.parent is None
    assert {r.parent for r in plan.resources if r is not stack} == {stack.urn}


def test_the_plan_is_one_versioned_json_document(plan):
    document = json.loads(json.dumps(plan.to_dict()))
    assert document["formatVersion"] == PLAN_FORMAT_VERSION == 2
    resource = next(r for r in document["resources"] if r["name"] == "data")
    assert resource["options"]["protect"] is True and "retainOnDelete" in resource["options"]


def test_components_record_their_children_and_registered_outputs():
    class Pair(pulumi.ComponentResource):
        def __init__(self, name):
            super().__init__("demo:index:Pair", name)
            role = aws.iam.Role(f"{name}-role", assume_role_policy="{}", opts=pulumi.ResourceOptions(parent=self))
            self.register_outputs({"roleArn": role.arn})

    plan = run_program(lambda: Pair("p"), project="demo", stack="test")
    component = plan.get("demo:index:Pair", "p")
    role = plan.get("aws:iam/role:Role", "p-role")
    assert role.parent == component.urn
    assert component.outputs == {"roleArn": role.outputs["arn"]}
    assert role.outputs["arn"].startswith("arn:aws:iam::123456789012:role/p-role-")


def test_policy_documents_are_rendered_as_the_provider_renders_them():
    def program():
        document = aws.iam.get_policy_document_output(statements=[{
            "actions": ["s3:GetObject"], "resources": ["arn:aws:s3:::b/*"],
            "principals": [{"type": "Service", "identifiers": ["eks.amazonaws.com"]}]}])
        pulumi.export("policy", document.json)

    plan = run_program(program, project="demo", stack="test")
    assert json.loads(plan.outputs["policy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*",
        "Principal": {"Service": "eks.amazonaws.com"}}]}
    assert plan.invokes[0]["token"] == "aws:iam/getPolicyDocument:getPolicyDocument"


def test_a_provider_function_without_a_fixture_is_an_error_not_an_empty_answer():
    def program():
        aws.ec2.get_vpc(default=True)

    with pytest.raises(Exception, match="no fixture for provider function aws:ec2/getVpc:getVpc"):
        run_program(program, project="demo", stack="test")


def test_runs_in_one_process_do_not_share_resources_or_config():
    def program():
        pulumi.export("who", pulumi.Config("demo").get("who"))
        aws.s3.Bucket("only")

    first = run_program(program, project="demo", stack="a", config={"demo:who": "first"})
    second = run_program(program, project="demo", stack="b", config={})
    assert first.outputs["who"] == "first" and second.outputs["who"] is None
    assert len(second.by_type("aws:s3/bucket:Bucket")) == 1
    assert second.by_type("aws:s3/bucket:Bucket")[0].urn.startswith("urn:pulumi:b::demo::")


def test_a_program_that_fails_inside_an_apply_leaves_nothing_for_the_next_run_in_the_process():
    """The HyperPod chart check stops a program from inside an apply; the next program in the same process (a test
    suite, the benchmark) must not await what the failed one left pending."""
    def failing() -> None:
        bucket = aws.s3.Bucket("data")
        stop = bucket.id.apply(lambda _: (_ for _ in ()).throw(pulumi.RunError("stopped on purpose")))
        aws.s3.Bucket("after", bucket=stop)
        aws.s3.Bucket("beside", bucket=bucket.id.apply(lambda name: f"{name}-beside"))

    with pytest.raises(pulumi.RunError, match="stopped on purpose"):
        run_program(failing, project="demo", stack="first")
    after = run_program(lambda: aws.s3.Bucket("alone"), project="demo", stack="second")
    assert [r.name for r in after.resources if r.custom] == ["alone"]
