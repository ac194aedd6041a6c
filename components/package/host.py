"""The provider that serves the components, its schema, and the plugin's entry point.

The package's name is ``trainstack`` (so the type tokens are ``trainstack:index:<Class>``,
the tokens the components register) and its version is the installed Python
distribution's, so a git tag of the library is the same version of the package.
"""

import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pulumi.provider import main as serve
from pulumi.provider.experimental.component import ComponentProvider

from .components import COMPONENTS

PACKAGE = "trainstack"
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.json"
"""The committed schema, at the repository root beside ``PulumiPlugin.yaml``."""


def version() -> str:
    """The version of the installed ``trainstack`` distribution (pyproject.toml's)."""
    return metadata.version(PACKAGE)


def provider() -> ComponentProvider:
    """The component provider, its schema inferred from the served classes."""
    return ComponentProvider(COMPONENTS, PACKAGE, version=version())


def schema() -> dict[str, Any]:
    """The package schema the provider serves to ``pulumi package add``."""
    inferred: dict[str, Any] = json.loads(provider().schema or "{}")
    return inferred


def schema_text() -> str:
    """The schema as committed: sorted keys, two-space indent, a final newline."""
    return json.dumps(schema(), indent=2, sort_keys=True) + "\n"


def main() -> None:
    """Serve the components; the Pulumi CLI starts the plugin with the engine's address."""
    serve(provider(), sys.argv[1:])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write-schema"]:
        SCHEMA_FILE.write_text(schema_text())
        print(f"wrote {SCHEMA_FILE}")
    else:
        main()
