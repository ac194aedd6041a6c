"""The checkpoint bucket: versioned, KMS-encrypted, private, and protected by default."""

import pulumi
import pytest
from trainstack import ConfigError
from trainstack.plan import run_program
from trainstack.storage.checkpoint_bucket import CheckpointBucket

S3 = "aws:s3/"


def _plan(settings=None):
    args = {} if settings is None else {"settings": settings}
    return run_program(lambda: CheckpointBucket("ckpt", args), project="demo", stack="test")


@pytest.fixture(scope="module")
def default_plan():
    return _plan()


def test_the_bucket_is_protected_by_default(default_plan):
    assert default_plan.get(S3 + "bucket:Bucket", "ckpt").options.protect is True


def test_unprotecting_is_an_explicit_setting():
    assert _plan({"protect": False}).get(S3 + "bucket:Bucket", "ckpt").options.protect is False


def test_the_bucket_refuses_force_destroy(default_plan):
    assert default_plan.get(S3 + "bucket:Bucket", "ckpt").inputs["forceDestroy"] is False


def test_versioning_is_enabled(default_plan):
    versioning = default_plan.get(S3 + "bucketVersioning:BucketVersioning", "ckpt-versioning")
    assert versioning.inputs["versioningConfiguration"] == {"status": "Enabled"}


def test_objects_are_encrypted_with_kms_and_a_bucket_key(default_plan):
    sse = default_plan.get(S3 + "bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
                           "ckpt-encryption")
    rule = sse.inputs["rules"][0]
    assert rule["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms"
    assert rule["bucketKeyEnabled"] is True


def test_a_customer_key_is_used_when_given():
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    sse = _plan({"kmsKeyArn": key}).get(
        S3 + "bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration", "ckpt-encryption")
    assert sse.inputs["rules"][0]["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"] == key


def test_public_access_is_blocked_four_ways_and_acls_are_off(default_plan):
    block = default_plan.get(S3 + "bucketPublicAccessBlock:BucketPublicAccessBlock", "ckpt-public-access")
    assert all(block.inputs[k] is True for k in
               ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))
    ownership = default_plan.get(S3 + "bucketOwnershipControls:BucketOwnershipControls", "ckpt-ownership")
    assert ownership.inputs["rule"] == {"objectOwnership": "BucketOwnerEnforced"}


def test_old_versions_expire_only_after_versioning_exists(default_plan):
    lifecycle = default_plan.get(S3 + "bucketLifecycleConfiguration:BucketLifecycleConfiguration", "ckpt-lifecycle")
    versioning = default_plan.get(S3 + "bucketVersioning:BucketVersioning", "ckpt-versioning")
    assert lifecycle.options.depends_on == [versioning.urn]
    assert lifecycle.inputs["rules"][0]["noncurrentVersionExpiration"] == {"noncurrentDays": 30}


def test_every_child_belongs_to_the_component(default_plan):
    component = default_plan.get("trainstack:index:CheckpointBucket", "ckpt")
    assert {r.name for r in default_plan.children(component.urn)} == {
        "ckpt", "ckpt-ownership", "ckpt-public-access", "ckpt-encryption", "ckpt-versioning", "ckpt-lifecycle"}


def test_bad_settings_are_refused_before_any_resource_is_registered():
    registered = []

    def program():
        try:
            CheckpointBucket("ckpt", {"settings": {"noncurrentVersionDays": 0}})
        except ConfigError as error:
            registered.append(error)

    plan = run_program(program, project="demo", stack="test")
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack"]
    assert registered[0].issues[0].path == "CheckpointBucket(ckpt):settings.noncurrentVersionDays"


class _Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        outputs = dict(args.inputs)
        if args.typ == "aws:s3/bucket:Bucket":
            outputs["bucket"] = args.inputs["bucketPrefix"] + "abc123"
        return args.name + "_id", outputs

    def call(self, args):
        return {}


@pulumi.runtime.test
def test_library_callers_get_the_bucket_name_as_an_output():
    pulumi.runtime.set_mocks(_Mocks(), preview=False)
    bucket = CheckpointBucket("team-ckpt", {})

    def check(name):
        assert name == "team-ckpt-abc123"

    return bucket.bucket_name.apply(check)
