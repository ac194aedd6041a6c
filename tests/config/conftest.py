"""A scratch project whose program is the real stacks/__main__.py, so a stack file
written by a test is planned exactly as ``trainstack plan`` plans a shipped one."""

import copy
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]

VALID = {
    "profile": "dev",
    "region": "us-east-1",
    "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "gpu", "instanceType": "p5.48xlarge", "minSize": 0, "desiredSize": 0,
                    "maxSize": 2, "zone": "us-east-1a"}],
}


@pytest.fixture
def valid_config() -> dict:
    return copy.deepcopy(VALID)


@pytest.fixture
def scratch_project(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump(
        {"name": "trainstack", "runtime": "python", "main": str(REPO / "stacks"), "stackConfigDir": "."}))

    def write_stack(stack: str, config: dict) -> str:
        document = {"config": {f"trainstack:{key}": value for key, value in config.items()}}
        (tmp_path / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
        return str(tmp_path)

    return write_stack
