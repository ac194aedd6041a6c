"""The plan record and the text report are the same bytes for the same program and config,
whatever the hash seed: two processes with different PYTHONHASHSEED plan every shipped stack."""

import json
import os
import subprocess
import sys
from pathlib import Path

from trainstack.plan import find_project
from trainstack.plan.record import ResourceOptions, ResourceRecord, dependency_order

REPO = Path(__file__).resolve().parents[2]

# Runs the CLI itself (`trainstack plan` and `trainstack plan --json`) for each stack in one process.
PLAN_ALL = """
import contextlib, hashlib, io, json, sys
from trainstack import cli
digests = {}
for stack in sys.argv[2:]:
    for flags in ([], ["--json"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli.main(["plan", "--stack", stack, "--cwd", sys.argv[1], *flags])
        digests[stack + " ".join(flags)] = hashlib.sha256(out.getvalue().encode()).hexdigest()
print(json.dumps(digests))
"""


def plan_digests(seed: str, stacks: list[str]) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = subprocess.run([sys.executable, "-c", PLAN_ALL, str(REPO), *stacks], env=env, check=True,
                            capture_output=True, text=True, timeout=600)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_shipped_stack_plans_to_the_same_bytes_under_different_hash_seeds():
    stacks = find_project(REPO).stacks()
    assert len(stacks) >= 5
    first, second = plan_digests("1", stacks), plan_digests("2", stacks)
    assert len(first) == 2 * len(stacks)
    assert first == second


def _record(urn: str, parent=None, dependencies=(), provider=None) -> ResourceRecord:
    return ResourceRecord(urn=urn, type="t", name=urn, parent=parent, custom=True, remote=False, inputs={},
                          dependencies=list(dependencies), options=ResourceOptions(provider=provider))


def test_resources_come_after_what_they_wait_for_with_the_urn_breaking_ties():
    resources = [_record("e", dependencies=["d"]), _record("d", parent="a"), _record("c", provider="b::id"),
                 _record("b"), _record("a")]
    assert [r.urn for r in dependency_order(resources)] == ["a", "b", "c", "d", "e"]
    assert [r.urn for r in dependency_order(list(reversed(resources)))] == ["a", "b", "c", "d", "e"]
