"""The trainstack CrossGuard pack: ``pulumi preview --policy-pack policies``.

It registers the library's rules (``trainstack.policy``); ``trainstack plan`` runs
the same functions offline. Tune them per stack with a policy config file, e.g.
``{"profile": "production", "hourly-cost-ceiling": {"maxHourlyUsd": 200}}``.
"""

from pulumi_policy import PolicyPack
from trainstack.policy.crossguard import policies

PolicyPack(name="trainstack", policies=policies())
