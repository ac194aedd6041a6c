"""`trainstack upgrade --api-server` dry-runs every object the upgraded stack renders on the target minor's own
kube-apiserver, with the CRDs it is given installed first: kueue-p5 moved to 1.35 renders nothing v1.35.4 refuses."""

import json
from pathlib import Path

import pytest
from support.cli_run import run_cli
from support.plan_records import stack_config, write_project
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)
CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"


def test_every_object_kueue_p5_renders_on_1_35_is_accepted_by_kube_apiserver_1_35(tmp_path):
    config = stack_config("kueue-p5")
    config["trainstack:eks"]["version"] = "1.34"
    project = write_project(tmp_path, "kueue-p5", config)
    code, out, err = run_cli(["upgrade", "--stack", "kueue-p5", "--to", "1.35", "--cwd", str(project), "--json",
                              "--api-server", "--crds", str(CRDS)])
    assert code == 0, err
    served = json.loads(out)["apiServer"]
    assert served["server"] == "v1.35.4" and served["crds"] > 0
    assert served["objects"] > 30 and served["findings"] == {}

