"""The checks of the job's checkpoints (``fsx.checkpoints``, config/checkpoints.py)."""

from __future__ import annotations

from ..base import ConfigValueError
from ..checkpoints import CheckpointConfig


def check_one_size(checkpoints: CheckpointConfig) -> None:
    """A checkpoint's size is given or derived from the model: exactly one of the two keys."""
    given = [key for key, value in (("sizeGB", checkpoints.size_gb),
                                    ("parametersBillions", checkpoints.parameters_billions)) if value is not None]
    if len(given) != 1:
        raise ConfigValueError(
            "a checkpoint needs exactly one of sizeGB and parametersBillions" + (f"; got {given}." if given
                                                                                   else "."),
            fix="give sizeGB (one checkpoint, all ranks) or parametersBillions (sized as parameters x "
                "(bytesPerParameter + optimizerBytesPerParameter)).",
            path=(given[-1] if given else "sizeGB",),
            value=checkpoints.parameters_billions if "parametersBillions" in given else checkpoints.size_gb)
