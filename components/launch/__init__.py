"""Job launchers: Kubernetes jobs and Slurm scripts that match the stack exactly.

They read only the outputs contract (``trainstack.outputs``), from
``pulumi stack output --json`` or a StackReference's outputs, and build no resource.
"""

from .hyperpod_eks import render_hyperpod_pytorchjob
from .mpijob import render_mpijob
from .placement import LaunchError
from .pytorchjob import render_pytorchjob
from .queueing import QueueRequest
from .sbatch import render_sbatch
from .trainjob import render_trainjob
from .validation import render_all_reduce, render_device_check

__all__ = ["LaunchError", "QueueRequest", "render_all_reduce", "render_device_check", "render_hyperpod_pytorchjob",
           "render_mpijob", "render_pytorchjob", "render_sbatch", "render_trainjob"]
