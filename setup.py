"""Package discovery: ``components/`` is installed as the ``trainstack`` package.

pyproject.toml maps the package to its directory (``package-dir``), but setuptools' ``find``
does not rename what it finds, so its result is prefixed here. Namespace discovery, so that a
directory of data files (``addons/kustomize/mpi-operator``) is a package whose files the
patterns in pyproject.toml pick up, like any other. Everything else (metadata, dependencies,
data-file patterns) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

found = find_namespace_packages("components", exclude=["*__pycache__"])
# engines/ is mapped to trainstack.engines in pyproject.toml; each engine's directory is a package of data files.
engines = find_namespace_packages("engines")
setup(packages=["trainstack", *(f"trainstack.{package}" for package in found),
                "trainstack.engines", *(f"trainstack.engines.{package}" for package in engines),
                # stacks/ is mapped to trainstack.stacks: the shipped stack files `trainstack init` writes from.
                "trainstack.stacks"])
