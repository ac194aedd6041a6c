"""The library's version: the installed distribution's, whose one source is pyproject.toml.

A leaf like ``names``: the CLI (``trainstack --version``), the component package's provider
and the SARIF tool record all read it here.
"""

from importlib import metadata

DISTRIBUTION = "trainstack"


def version() -> str:
    """The installed ``trainstack`` distribution's version (``pip install`` wrote it from pyproject.toml)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"
