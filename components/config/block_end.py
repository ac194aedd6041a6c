"""When trainstack winds a Capacity Block down before AWS ends it: the lead time's default and its bounds.

AWS warns 40 minutes before a block's end (the EventBridge event ``Capacity Block Reservation Expiration
Warning``) and terminates its instances from 30 minutes before; Karpenter deletes a block's nodes at the
warning and EKS scales a managed group to zero then (``catalog.karpenter_capacity``). trainstack's own
moment must come before all of them, or a job's checkpoint races the drain.

Where a stack's lead time is checked against these: config/checks/block_end.py.
"""

from __future__ import annotations

from ..catalog.karpenter_capacity import EC2_BLOCK_WARNING_MINUTES

CHECKPOINT_MINUTES = 20
"""Minutes the default leaves between trainstack's signal and EC2's warning, for a job to checkpoint."""
DEFAULT_END_LEAD_MINUTES = EC2_BLOCK_WARNING_MINUTES + CHECKPOINT_MINUTES
"""trainstack's default lead: EC2's warning plus time to checkpoint (60 minutes)."""
MAX_END_LEAD_MINUTES = 24 * 60
"""A day: a longer lead gives away a day of a block paid in full."""
