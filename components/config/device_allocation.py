"""A node group's device-allocation profile (``deviceAllocation``): device plugins or DRA.

The facts (which families need DRA, the least Kubernetes version, the device classes) live in
``catalog/device_allocation.py``; where a group's profile is checked against them: config/checks/device_allocation.py.
"""

from __future__ import annotations

from typing import Literal

DeviceAllocation = Literal["device-plugins", "dra"]
