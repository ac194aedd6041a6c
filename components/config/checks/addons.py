"""The checks of the job operators' switches (``operators``, config/addons.py)."""

from __future__ import annotations

from ..addons import OperatorsConfig
from ..base import ConfigValueError


def check_one_generation(operators: OperatorsConfig) -> None:
    """Kubeflow Trainer v2 and the training operator v1 both run PyTorch training: a cluster takes one of them."""
    if operators.trainer and operators.training_operator:
        raise ConfigValueError(
            "trainer (Kubeflow Trainer v2) and trainingOperator (v1) would both run PyTorch training; a cluster "
            "takes one generation, so each job's kind says which controller owns it.",
            fix="set trainingOperator: false to use TrainJobs, or trainer: false to keep PyTorchJobs.",
            path=("trainer",), value=True)
