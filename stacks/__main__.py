"""The trainstack program: one TrainingStack per Pulumi stack, configured by
``stacks/Pulumi.<stack>.yaml`` (``trainstack:`` keys, validated before anything is created)."""

import pulumi
from trainstack import TrainingStack, load_stack_config

stack = TrainingStack(pulumi.get_stack(), load_stack_config())
stack.export_outputs()
