"""Estimates over a plan: cost and deploy time."""

from .cost import CostEstimate, estimate_cost
from .critical_path import CriticalPath, critical_path

__all__ = ["CostEstimate", "CriticalPath", "critical_path", "estimate_cost"]
