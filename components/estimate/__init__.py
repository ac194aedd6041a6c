"""Estimates over a plan: cost and deploy time."""

from .cost import CostEstimate, PricedResource, estimate_cost, estimate_resources
from .critical_path import CriticalPath, Slot, critical_path, schedule

__all__ = ["CostEstimate", "CriticalPath", "PricedResource", "Slot", "critical_path", "schedule", "estimate_cost",
           "estimate_resources"]
