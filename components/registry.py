"""The ECR repository for the stack's training images.

Tags are immutable (a tag names one image forever, so a job's image cannot
change under it), images are scanned on push, and untagged layers left by
rebuilds expire.
"""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws

UNTAGGED_DAYS = 14


def image_repository(name: str, repository_name: str, opts: pulumi.ResourceOptions) -> aws.ecr.Repository:
    repository = aws.ecr.Repository(
        name, name=repository_name, image_tag_mutability="IMMUTABLE",
        image_scanning_configuration={"scan_on_push": True},
        encryption_configurations=[{"encryption_type": "KMS"}], force_delete=False, opts=opts)
    aws.ecr.LifecyclePolicy(name, repository=repository.name, policy=json.dumps({"rules": [{
        "rulePriority": 1, "description": f"expire untagged images after {UNTAGGED_DAYS} days",
        "selection": {"tagStatus": "untagged", "countType": "sinceImagePushed", "countUnit": "days",
                      "countNumber": UNTAGGED_DAYS},
        "action": {"type": "expire"}}]}), opts=opts)
    return repository
