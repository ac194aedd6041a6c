"""The pull request workflow: valid for GitHub (its workflow schema, as check-jsonschema ships it),
its shell steps clean under shellcheck, the cloud preview job off by default with OIDC only there."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def test_there_is_a_pull_request_workflow():
    assert [p.name for p in WORKFLOWS] == ["pull-request.yml"]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_each_workflow_validates_against_githubs_workflow_schema(workflow):
    result = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                             str(workflow)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _steps(job: dict) -> list[dict]:
    return job["steps"]


def test_the_shell_steps_pass_shellcheck(tmp_path):
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")  # dev extra
    workflow = yaml.safe_load((REPO / ".github/workflows/pull-request.yml").read_text())
    for job_name, job in workflow["jobs"].items():
        for index, step in enumerate(_steps(job)):
            if "run" not in step:
                continue
            # Expressions are substituted by GitHub before the shell sees the script.
            script = re.sub(r"\$\{\{[^}]*\}\}", "EXPRESSION", step["run"])
            path = tmp_path / f"{job_name}-{index}.sh"
            path.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + script)
            result = subprocess.run([shellcheck, "--severity=warning", str(path)], capture_output=True, text=True)
            assert result.returncode == 0, f"{job_name} step {index}:\n{result.stdout}"


def test_the_offline_job_plans_diffs_reports_and_gates_without_cloud_credentials():
    workflow = yaml.safe_load((REPO / ".github/workflows/pull-request.yml").read_text())
    assert "pull_request" in workflow[True]  # PyYAML reads the `on:` key as True
    job = workflow["jobs"]["plan-diff"]
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    scripts = "\n".join(step.get("run", "") for step in _steps(job))
    for command in ("trainstack\" plan --stack \"$stack\" --json", "--format markdown", "--format sarif",
                    "GITHUB_STEP_SUMMARY", "exit \"$status\"", "--approve-replace",
                    "trainstack\" report \"records/$stack.head.json\"", "--base \"records/$stack.base.json\"",
                    "apt-get install -y --no-install-recommends graphviz"):
        assert command in scripts
    uses = [step.get("uses", "") for step in _steps(job)]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    assert "aws-actions" not in str(job)


def test_the_cloud_preview_job_is_off_by_default_and_alone_gets_an_oidc_token():
    workflow = yaml.safe_load((REPO / ".github/workflows/pull-request.yml").read_text())
    job = workflow["jobs"]["cloud-preview"]
    assert job["if"] == "vars.TRAINSTACK_CLOUD_PREVIEW == 'true'"
    assert job["permissions"]["id-token"] == "write"
    assert workflow["permissions"] == {"contents": "read"}
    assert "--policy-pack policies" in _steps(job)[-1]["run"]
    assert any(s.get("uses", "").startswith("aws-actions/configure-aws-credentials@") for s in _steps(job))
