"""The provider that serves the components, its schema, and the plugin's entry point.

The package's name is ``trainstack`` (so the type tokens are ``trainstack:index:<Class>``,
the tokens the components register) and its version is the installed Python
distribution's, so a git tag of the library is the same version of the package.
"""

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from pulumi import Inputs
from pulumi.provider import main as serve
from pulumi.provider.experimental.analyzer import PropertyDefinition
from pulumi.provider.experimental.component import ComponentProvider

from ..version import version
from . import config_types
from .components import COMPONENTS

PACKAGE = "trainstack"
SCHEMA_FILE = Path(__file__).with_name("schema.json")
"""The committed schema, shipped in the package: what the provider serves at this version."""


class TrainstackProvider(ComponentProvider):
    """Pulumi's component provider, leaving the configuration's checks to the config models.

    The SDK's input mapping refuses a missing required key with its own message and drops
    a key the schema does not know. Within the configuration (the ``config_types``
    blocks, and ``TrainingStack``'s inputs, which are a whole stack) both are the models'
    to refuse, with the message a stack file gets ("required", "unknown key ... did you
    mean"): so there a missing key is left missing and an unknown one is passed on. A
    typed SDK cannot send either; Pulumi YAML or a hand-made request can.
    """

    def __init__(self) -> None:
        super().__init__(COMPONENTS, PACKAGE, version=version())
        self._configuration = [t.properties for t in self._type_defs.values()
                               if t.module == config_types.__name__]
        self._configuration.append(self._component_defs["TrainingStack"].inputs)

    def map_input_properties(self, inputs: Inputs, properties: dict[str, PropertyDefinition],
                             mapping: dict[str, str], component_name: str, property_path: str) -> Inputs:
        if not any(properties is block for block in self._configuration):
            return super().map_input_properties(inputs, properties, mapping, component_name, property_path)
        optional = {name: dataclasses.replace(prop, optional=True) for name, prop in properties.items()}
        mapped = dict(super().map_input_properties(inputs, optional, mapping, component_name, property_path))
        if isinstance(inputs, dict):
            mapped.update({key: value for key, value in inputs.items() if key not in properties})
        return mapped


def provider() -> TrainstackProvider:
    """The component provider, its schema inferred from the served classes."""
    return TrainstackProvider()


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
