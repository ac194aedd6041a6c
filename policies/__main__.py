"""The trainstack CrossGuard pack: ``pulumi preview --policy-pack policies``.

It registers the library's rules (``trainstack.policy``) and its controller models
(``trainstack.controllers``, served by ``trainstack.analysis.crossguard``); ``trainstack plan``
runs the same functions offline. The stack's own ``trainstack:profile`` and
``trainstack:cost.maxHourlyUsd`` apply as they do offline. Tune a rule with its block of a
policy config file (``--policy-pack-config``; the engine accepts only enforcement levels
and per-policy objects at the top level), e.g.
``{"hourly-cost-ceiling": {"maxHourlyUsd": 200}, "imdsv2-required": "advisory"}``.
"""

from pulumi_policy import PolicyPack
from trainstack.analysis import crossguard as controller_models
from trainstack.policy.crossguard import policies

PolicyPack(name="trainstack", policies=[*policies(), *controller_models.policies()])
