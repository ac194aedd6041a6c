"""The launchers' page says what catalog.fabric_env sets: every variable the code gives a rank on some EFA type
of the catalog is named there with its value, and nothing the page calls "not set" is set on any of them. The
full table is the generated reference page (docs/reference/fabric-env.md, kept current by tests/test_docs.py)."""

import re
from pathlib import Path

from trainstack import catalog
from trainstack.catalog.fabric_env import efa_env

LAUNCHERS = Path(__file__).resolve().parent.parent / "docs" / "launchers.md"


def set_on_some_efa_type() -> dict[str, set[str]]:
    """Each variable the code sets for a rank on an EFA type of the catalog, with the values it takes."""
    found: dict[str, set[str]] = {}
    for name in catalog.names():
        instance = catalog.get(name)
        if instance.accelerator is None or not instance.efa.max_interfaces:
            continue
        for host_network in (False, True):
            env = efa_env(instance.accelerator.kind.value, instance.efa.max_interfaces, name,
                          host_network=host_network)
            for variable, value in env.items():
                found.setdefault(variable, set()).add(value)
    return found


def page() -> str:
    return " ".join(LAUNCHERS.read_text(encoding="utf-8").split())


def said_not_set(text: str) -> set[str]:
    """The variables a clause of ``text`` says are not set (``... `A` and `B` are not set ...``)."""
    clauses = re.findall(r"[^.;:(]*\b(?:is|are) not set", text)
    return {name for clause in clauses for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", clause)}


def test_every_variable_the_code_sets_is_on_the_page_with_its_value():
    text = page()
    for variable, values in set_on_some_efa_type().items():
        for value in values:
            assert f"`{variable}={value}`" in text, f"docs/launchers.md does not say {variable}={value} is set"


def test_nothing_the_page_calls_not_set_is_set_for_any_efa_type():
    named = said_not_set(page())
    assert named, "the page names what is not set (NCCL_PROTO)"
    assert not named & set(set_on_some_efa_type()), f"docs/launchers.md says {sorted(named)} are not set"
