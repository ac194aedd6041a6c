"""The names trainstack derives from a stack's own names, and the rules of the services that own them.

A stack's resources are named from the Pulumi stack's name (``TrainingStack``'s name: stacks/__main__.py passes
``pulumi.get_stack()``) and the project's: ``<stack>-eks-autoscaler`` is a Helm release, ``<stack>-eks-nodes-<7>``
an IAM role Pulumi names, ``<project>-<stack>`` the EKS cluster. Two guarantees keep every such name one its owner
accepts:

* the stack's and project's names are checked before any resource is registered (:func:`check_stack_names`):
  characters no derived name may hold are refused, with the rule;
* a derived name longer than its owner's limit is cut by :func:`fit`, which ends it with a hash of the whole name,
  so two long names never become one. A name that fits is left as it is: a stack that deployed keeps its names.

The owners' limits, each from its own source:

* Helm release names: at most 53 characters, a DNS-1123 subdomain (helm/helm pkg/chartutil/validate_name.go
  @ 05b356ac, ``ValidateReleaseName``).
* IAM role names: at most 64 characters of ``[\\w+=,.@-]`` (IAM API Reference, CreateRole, RoleName:
  https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html).
* EKS cluster names: at most 100 characters matching ``^[0-9A-Za-z][A-Za-z0-9\\-_]*`` (EKS API Reference,
  CreateCluster: https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html).
* EKS managed node group names: at most 63 characters, a letter or digit first, then letters, digits, '-' and
  '_' (EKS User Guide, create-managed-node-group; pulumi-aws's ``aws.eks.NodeGroup.node_group_name`` says the same).
* EventBridge rule names: at most 64 characters of ``[\\.\\-_A-Za-z0-9]`` (EventBridge API Reference, PutRule:
  https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html).
* SQS queue names: 1 to 80 letters, digits, '-' and '_' (SQS API Reference, CreateQueue:
  https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_CreateQueue.html).
* S3 bucket prefixes: at most 37 characters, the provider appending 26 to a bucket name of at most 63
  (S3 User Guide, bucketnamingrules: https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html;
  pulumi-aws's ``s3.Bucket.bucket_prefix``).
* KMS aliases ``alias/`` then ``[a-zA-Z0-9/_-]``, at most 256 (KMS API Reference, CreateAlias:
  https://docs.aws.amazon.com/kms/latest/APIReference/API_CreateAlias.html) and ECR repositories (at most 256,
  lower case, ``.``, ``_``, ``__`` or ``-`` between letters and digits; ECR API Reference, CreateRepository) hold
  ``<project>-<stack>`` whole: the rules below keep both within them.

Pulumi names a resource it is given no name for ``<logical name>-<7 random characters>``
(pulumi/pulumi-terraform-bridge ``AutoName``; pulumi/pulumi-aws provider/resources.go @ 00ba5ea5 gives
``aws_iam_role`` and ``aws_cloudwatch_event_rule`` ``AutoName("name", 64, "-")``, ``aws_eks_node_group`` 255 though
EKS takes 63) and fails, or the service refuses, when that passes the limit: :func:`autonamed` fits the logical
name so the name Pulumi makes fits.
"""

from __future__ import annotations

import hashlib
import re
import string
from typing import Optional

from .errors import ConfigError, ConfigIssue

HELM_RELEASE_MAX = 53
IAM_ROLE_MAX = 64
EKS_CLUSTER_MAX = 100
EKS_NODEGROUP_MAX = 63
EVENT_RULE_MAX = 64
SQS_QUEUE_MAX = 80
S3_BUCKET_PREFIX_MAX = 37

AUTONAME_SUFFIX = 8
"""'-' and the 7 random characters Pulumi appends to a logical name it names a resource by."""
PULUMI_EKS_SERVICE_ROLE = "-eksRole-role"
"""pulumi-eks names the cluster's service role ``<pulumi_eks.Cluster's logical name>-eksRole-role`` and lets Pulumi name
it (pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts and nodejs/eks/servicerole.ts @ 7bf0c1b1)."""
HASH_LENGTH = 8
"""Hex characters of SHA-256 that end a cut name: 4 billion values, so two cut names of one stack do not meet."""

STACK_NAME_MAX = 63
"""A stack's name is a DNS-1123 label: at most 63 characters (Pulumi itself takes 100)."""
PROJECT_NAME_MAX = 100
"""Pulumi's own limit on a project's name (pulumi/pulumi pkg/backend/diy/store.go: 'project names must be less
than 100 characters')."""
STACK_CHARACTERS = string.ascii_lowercase + string.digits + "-"
PROJECT_CHARACTERS = string.ascii_letters + string.digits + "-_"
STACK_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
"""DNS-1123 label: what Helm release names and Kubernetes names are made of, and a subset of what IAM, EKS, S3,
KMS, SQS, EventBridge and EC2 take; so each name built from it needs at most its length cut."""
PROJECT_NAME = re.compile(r"[A-Za-z0-9]+((-+|_)[A-Za-z0-9]+)*")
"""Letters, digits, '-' and single '_' between them: ``<project>-<stack>`` is then an EKS cluster name, and lower
cased an ECR repository name (which takes '-+', '_' or '__' between letters and digits, never '_-')."""

STACK_FIX = (f"name the stack with lower-case letters, digits and '-', beginning and ending with a letter or digit, "
             f"at most {STACK_NAME_MAX} characters (pulumi stack rename <new name>), e.g. 'ml-prod'.")
PROJECT_FIX = (f"name the project (Pulumi.yaml 'name:') with letters, digits, '-' and '_', beginning and ending with "
               f"a letter or digit, no '_' beside another '_' or '-', at most {PROJECT_NAME_MAX} characters.")


def fit(name: str, limit: int) -> str:
    """``name`` when it is at most ``limit`` characters; else its beginning, '-' and 8 hex characters of the whole
    name's SHA-256, ``limit`` characters in all: stable from run to run, and two names cut to one beginning keep
    apart. The beginning loses a trailing '-', '_' or '.', which no owner takes at the end of a name."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:HASH_LENGTH]
    head = name[:limit - HASH_LENGTH - 1].rstrip("-_.")
    return f"{head}-{digest}" if head else digest


def autonamed(logical: str, limit: int) -> str:
    """The logical name to give a resource that Pulumi names ``<logical>-<7 random characters>``, so that the name
    is at most ``limit`` characters (the owner's)."""
    return fit(logical, limit - AUTONAME_SUFFIX)


def stack_name_problem(stack: str) -> Optional[str]:
    """Which rule ``stack`` breaks as the name trainstack derives names from, or ``None``."""
    if len(stack) > STACK_NAME_MAX:
        return (f"a stack's name is at most {STACK_NAME_MAX} characters (a DNS-1123 label, as Helm release and "
                f"Kubernetes names are); this one has {len(stack)}")
    if not STACK_NAME.fullmatch(stack):
        return ("a stack's name begins Helm release names (helm/helm pkg/chartutil/validate_name.go: lower-case "
                "letters, digits and '-', beginning and ending with a letter or digit) and S3 bucket names (lower "
                f"case); this one {_what_breaks(stack, STACK_CHARACTERS, STACK_PLACES)}")
    return None


def project_name_problem(project: str) -> Optional[str]:
    """Which rule ``project`` breaks as the first part of the EKS cluster's and ECR repository's names, or ``None``."""
    if len(project) > PROJECT_NAME_MAX:
        return f"a project's name is at most {PROJECT_NAME_MAX} characters; this one has {len(project)}"
    if not PROJECT_NAME.fullmatch(project):
        return ("'<project>-<stack>' names the EKS cluster (EKS CreateCluster: '^[0-9A-Za-z][A-Za-z0-9\\-_]*') and, "
                "lower cased, the ECR repository (ECR CreateRepository: '.', '_', '__' or '-' between letters and "
                f"digits); this one {_what_breaks(project, PROJECT_CHARACTERS, PROJECT_PLACES)}")
    return None


STACK_PLACES = "begins or ends with '-'"
PROJECT_PLACES = "begins or ends with '-' or '_', or has '_' beside '-' or '_'"


def _what_breaks(name: str, allowed: str, otherwise: str) -> str:
    """The characters of ``name`` outside ``allowed``; ``otherwise`` when they are all allowed (where they stand
    breaks the rule)."""
    if not name:
        return "is empty"
    outside = sorted({character for character in name if character not in allowed})
    if outside:
        return "holds " + ", ".join(repr(character) for character in outside[:8])
    return otherwise


def check_stack_names(project: str, stack: str) -> None:
    """Refuse a stack or project name some derived name's owner would refuse, before any resource is registered."""
    issues = []
    problem = stack_name_problem(stack)
    if problem is not None:
        issues.append(ConfigIssue("stack name", stack, problem + ".", STACK_FIX))
    problem = project_name_problem(project)
    if problem is not None:
        issues.append(ConfigIssue("project name", project, problem + ".", PROJECT_FIX))
    if issues:
        raise ConfigError(issues, "the stack's naming")


def cluster_name(project: str, stack: str) -> str:
    """The EKS cluster's name, ``<project>-<stack>``, cut to EKS's 100 characters with a hash where longer."""
    return fit(f"{project}-{stack}", EKS_CLUSTER_MAX)


def pulumi_eks_cluster_logical(name: str) -> str:
    """The logical name to give pulumi-eks's ``Cluster`` so the service role it names from it fits IAM's limit."""
    return autonamed(name, IAM_ROLE_MAX - len(PULUMI_EKS_SERVICE_ROLE))
