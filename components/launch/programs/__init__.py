"""Programs the validation jobs run inside their pods, kept as real files.

The launchers read them as package data and put their text, unchanged, into the
rendered job (``trainstack.launch.validation``); the tests import, compile and lint
them. ``all_reduce`` imports torch only when it runs, so it imports without it.
"""

from __future__ import annotations

from importlib import resources


def program_text(name: str) -> str:
    """The text of the program file ``name`` in this package."""
    return resources.files(__name__).joinpath(name).read_text()
