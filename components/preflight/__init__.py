"""Preflight checks against the AWS account (boto3, read only)."""

from .check import Check
from .checks import VCPU_QUOTAS, Clients, render, run_preflight, verdict

__all__ = ["Check", "Clients", "VCPU_QUOTAS", "render", "run_preflight", "verdict"]
