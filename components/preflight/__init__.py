"""Preflight checks against the AWS account (boto3, read only)."""

from .checks import VCPU_QUOTAS, Check, Clients, render, run_preflight, verdict

__all__ = ["Check", "Clients", "VCPU_QUOTAS", "render", "run_preflight", "verdict"]
