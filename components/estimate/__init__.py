"""Estimates over a plan: cost and deploy time."""

from .cost import CostEstimate, estimate_cost
from .critical_path import CriticalPath, Slot, critical_path, schedule

__all__ = ["CostEstimate", "CriticalPath", "Slot", "critical_path", "schedule", "estimate_cost"]
