"""A job runs as its team: every pod template names the team's ServiceAccount (outputs ``Queue.service_account``),
so that EKS Pod Identity gives its containers the team's role, which holds the team's data (tenancy/data.py).

EKS hands Pod Identity credentials only to the containers of a pod whose service account has an association, by
setting ``AWS_CONTAINER_CREDENTIALS_FULL_URI`` and ``AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`` in them (EKS user guide,
https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html; AWS SDKs and Tools reference guide,
https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html). A pod left on its namespace's
``default`` account gets none of the team's data.

MPI's ranks are the exception a pod's service account does not cover by itself: mpirun starts them over ssh, so they
inherit sshd's environment, not the pod's (catalog/mpi_ssh.py), and would not see those two variables. The launching
pod runs as the team too and forwards them with ``mpirun -x``: the values are the same in every pod (the node's
Pod Identity Agent and the token's mount path), and each rank then reads the token mounted in its own node pod,
which runs as the team. Where a team's account has no association (an existing cluster whose IAM trainstack leaves
alone) the launcher has no such variables; Open MPI then only warns for each name (v4.1.6
``orte/mca/schizo/ompi/schizo_ompi.c``, "could not find environment variable") and starts the ranks.

Outputs written before teams were tenants name no service account: their jobs render as they always did.
"""

from __future__ import annotations

from typing import Any

from .queueing import Admission

POD_IDENTITY_ENV = ("AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
"""What EKS sets in the containers of a pod whose service account has a Pod Identity association."""


def run_as_team(template: dict[str, Any], granted: Admission) -> dict[str, Any]:
    """The team's ServiceAccount on one pod template (or a Trainer runtime patch's pod spec)."""
    if granted.service_account is not None:
        template.setdefault("spec", {})["serviceAccountName"] = granted.service_account
    return template


def forwarded_identity(granted: Admission) -> list[str]:
    """The variables mpirun forwards to ranks for their team's role; none where the job names no account."""
    return list(POD_IDENTITY_ENV) if granted.service_account is not None else []
