"""One TrainingStack per Pulumi stack, configured by ``Pulumi.<stack>.yaml`` (its ``trainstack:`` keys).

The configuration is validated before anything is created; ``export_outputs`` publishes the
outputs contract (``trainstack``) and the kubeconfig that ``trainstack launch`` reads.
"""

import pulumi
from trainstack import TrainingStack, load_stack_config

stack = TrainingStack(pulumi.get_stack(), load_stack_config())
stack.export_outputs()
