import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


@pytest.fixture(scope="session")
def instance_facts() -> dict:
    return json.loads((DATA / "instance_facts.json").read_text())
