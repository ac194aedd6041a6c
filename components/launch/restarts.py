"""How a rendered job survives a lost node: restart policy, backoff limit, elastic
minimum, and where it finds its last checkpoint.

When a node dies or node auto repair replaces it, its pods are deleted and the
operator recreates them; they wait (Pending) for a healthy node. The surviving
workers lose their peers, exit, and are restarted in place under the replica's
restart policy; every restart counts against ``runPolicy.backoffLimit``, after which
the job fails. The training script resumes from the checkpoint directory the job's
environment names. These are the Kubeflow training operator's (v1) and MPI
operator's (v2beta1) documented semantics, checked here only as rendered objects.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, get_args

from ..outputs import StackOutputs
from .placement import LaunchError

RestartPolicy = Literal["OnFailure", "ExitCode", "Always", "Never"]
"""The replica restart policies both operators accept (``ExitCode``: restart on exit
codes 128 and above, signals and node loss, not on the script's own failures)."""
RESTART_POLICIES: tuple[str, ...] = get_args(RestartPolicy)
DEFAULT_BACKOFF_LIMIT = 3

CHECKPOINT_DIR_ENV = "TRAINSTACK_CHECKPOINT_DIR"
"""A directory on the shared FSx file system, per namespace and job name."""
CHECKPOINT_URI_ENV = "TRAINSTACK_CHECKPOINT_URI"
"""A prefix in the stack's checkpoint bucket, per stack and job name (under the team's prefix for a team's job)."""


def backoff_limit_for(restart_policy: str, backoff_limit: Optional[int]) -> Optional[int]:
    """The job's backoff limit: ``DEFAULT_BACKOFF_LIMIT`` when unset and pods restart, none for ``Never``."""
    if restart_policy not in RESTART_POLICIES:
        raise LaunchError(f"restart policy '{restart_policy}' is not one the operators know; use one of "
                          f"{', '.join(RESTART_POLICIES)}.")
    if backoff_limit is not None and backoff_limit < 0:
        raise LaunchError(f"backoff limit {backoff_limit} is negative; use 0 (fail on the first error) or more.")
    if restart_policy == "Never":
        if backoff_limit:
            raise LaunchError(f"restart policy Never restarts nothing, so backoff limit {backoff_limit} would never "
                              "apply; use OnFailure or ExitCode, or a backoff limit of 0.")
        return None
    return DEFAULT_BACKOFF_LIMIT if backoff_limit is None else backoff_limit


def run_policy(backoff_limit: Optional[int]) -> dict[str, Any]:
    return {} if backoff_limit is None else {"runPolicy": {"backoffLimit": backoff_limit}}


def checkpoint_env(outputs: StackOutputs, job_metadata: dict[str, Any],
                   bucket_prefix: str = "") -> list[dict[str, Any]]:
    """A Kubernetes job's checkpoint locations (``checkpoint_locations``) as a container's ``env``: on FSx under the
    job's namespace when the job mounts the claim; in the bucket under ``bucket_prefix``, the team's own where the
    job runs as its team (queueing.Admission)."""
    storage = outputs.storage
    scope = job_metadata.get("namespace", "default") if storage is not None and storage.claim_name else None
    return [{"name": name, "value": value}
            for name, value in checkpoint_locations(outputs, job_metadata["name"], scope, bucket_prefix).items()]


def checkpoint_locations(outputs: StackOutputs, job_name: str, scope: Optional[str],
                         bucket_prefix: str = "") -> dict[str, str]:
    """Where the training script saves and finds its checkpoints, from the outputs contract, for every launcher
    alike: ``<fsx mount>/checkpoints/<scope>/<job>`` when the job's nodes see the FSx file system (``scope``: what
    the job's name is unique within; None where they do not), the checkpoint bucket's
    ``<bucket_prefix><stack>/<job>/`` when the stack has one. A team's job runs as its team's role, which may write
    only under the team's prefix (``teams/<team>/``, tenancy/data.py), so its bucket location is there. The same
    job name resubmitted finds the same place."""
    env = {}
    if outputs.storage is not None and scope is not None:
        env[CHECKPOINT_DIR_ENV] = f"{outputs.storage.mount_path}/checkpoints/{scope}/{job_name}"
    if outputs.checkpoint_bucket:
        env[CHECKPOINT_URI_ENV] = f"s3://{outputs.checkpoint_bucket}/{bucket_prefix}{outputs.stack}/{job_name}/"
    return env
