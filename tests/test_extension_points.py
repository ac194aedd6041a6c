"""The common extensions, each made for real in a copy of the package: CONTRIBUTING's table ("Extend trainstack")
says which files each touches, and these worked examples hold it to that.

Each example copies components/ (the ``trainstack`` package), makes the change there, counts the files of the
package that differ from the original, and then runs a probe in a fresh interpreter that imports the copy: every
place that must see the change (the stack file's validation, the plan, the CLI, the policy pack, the generated
reference pages) sees it with no other file touched. A second place that needed an edit would fail the probe;
an edit the table does not name would fail the count."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "components"


def package_copy(tmp_path: Path) -> Path:
    """A copy of the package as ``<tmp>/trainstack``, ahead of the installed one on the probe's path."""
    copy = tmp_path / "trainstack"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def files_changed(copy: Path) -> list[str]:
    """The package's files that the copy changed or added, relative to the package."""
    changed: list[str] = []

    def walk(compared: filecmp.dircmp[str], prefix: str) -> None:
        changed.extend(prefix + name for name in compared.diff_files + compared.right_only
                       if name != "__pycache__")
        for name, sub in compared.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(PACKAGE, copy, ignore=["__pycache__"]), "")
    return sorted(changed)


def probe(copy: Path, code: str) -> str:
    """Run ``code`` in a fresh interpreter that imports ``trainstack`` from ``copy``; its standard output."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy.parent), str(ROOT / "docs")]),
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path.name}: the example's anchor {old!r} is not there once"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_chart_pin_is_one_row_the_plan_the_versions_model_and_the_reference_page_all_read(tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    edit(copy / "catalog" / "addons.py", '"oci://registry.k8s.io/kueue/charts/kueue", "0.19.2"',
         '"oci://registry.k8s.io/kueue/charts/kueue", "0.19.3"')
    assert files_changed(copy) == ["catalog/addons.py"]
    seen = json.loads(probe(copy, """
        import json
        from trainstack.analysis import failed, plan_stack
        from pathlib import Path
        from trainstack.plan import find_project
        from generate_code_pages import pins_page
        planned = plan_stack("kueue-p5", find_project(Path(".")))
        kueue = [r.inputs for r in planned.resources if r.type == "kubernetes:helm.sh/v3:Release"
                 and r.inputs.get("chart", "").endswith("/kueue")]
        print(json.dumps({"versions": [k["version"] for k in kueue], "failed": failed(planned),
                          "page": "| `oci://registry.k8s.io/kueue/charts/kueue` | 0.19.3 |" in pins_page()}))
    """))
    assert seen == {"versions": ["0.19.3"], "failed": False, "page": True}


def test_a_policy_rule_is_one_row_of_its_area_that_the_plan_the_crossguard_pack_and_the_reference_read(
        tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    training = copy / "policy" / "training.py"
    training.write_text(training.read_text(encoding="utf-8") + textwrap.dedent('''

        def groups_named_lowercase(stack: Stack, config: dict) -> Iterator[Violation]:
            for group in stack.of_type(NODE_GROUP):
                if group.name != group.name.lower():
                    yield Violation(group.urn, f"node group {group.name} has capitals; name it in lowercase.")


        RULES.append(Rule("node-groups-lowercase", "Node group names are lowercase.", "advisory",
                          groups_named_lowercase, area="training", source="the worked example's own stance"))
    '''), encoding="utf-8")
    assert files_changed(copy) == ["policy/training.py"]
    seen = json.loads(probe(copy, """
        import json
        from trainstack.policy import RULES
        from trainstack.policy.crossguard import policies
        from trainstack.analysis import plan_stack
        from pathlib import Path
        from trainstack.plan import find_project
        from generate_code_pages import policy_page
        planned = plan_stack("dev", find_project(Path(".")))
        judged = [r["id"] for r in planned.sections.policies.as_dict()["rules"]]
        print(json.dumps({"rules": "node-groups-lowercase" in [r.id for r in RULES],
                          "pack": "node-groups-lowercase" in [p.name for p in policies()],
                          "plan": "node-groups-lowercase" in judged,
                          "page": "`node-groups-lowercase`" in policy_page()}))
    """))
    assert seen == {"rules": True, "pack": True, "plan": True, "page": True}


def test_a_launcher_is_its_module_and_one_row_of_the_launch_kinds(tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    (copy / "launch" / "sleep_job.py").write_text(textwrap.dedent('''
        """A Job that sleeps on every node of a group: the worked example's launcher."""

        from typing import Any

        from ..outputs import StackOutputs
        from .placement import check_nodes, group, pod_placement


        def render_sleep_job(outputs: StackOutputs, *, name: str, group_name: str, nodes: int,
                             gpus_per_node: int | None = None, image: str) -> dict[str, Any]:
            target = group(outputs, group_name)
            check_nodes(target, group_name, nodes)
            pod = {**pod_placement(target), "restartPolicy": "Never",
                   "containers": [{"name": "sleep", "image": image, "command": ["sleep", "60"]}]}
            return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
                    "spec": {"parallelism": nodes, "completions": nodes, "template": {"spec": pod}}}
    '''), encoding="utf-8")
    edit(copy / "cli" / "launch.py", "KINDS = (\n", "from ..launch.sleep_job import render_sleep_job\n\nKINDS = (\n"
         '    LaunchKind("sleep-job", "a Job that sleeps on each node", render_sleep_job, "gpus_per_node", '
         'queued=False),\n')
    assert files_changed(copy) == ["cli/launch.py", "launch/sleep_job.py"]
    seen = json.loads(probe(copy, """
        import contextlib, io, json, tempfile
        from trainstack.cli import main
        from trainstack.analysis import plan_stack, render_json
        from pathlib import Path
        from trainstack.plan import find_project
        record = Path(tempfile.mkdtemp()) / "dev.json"
        record.write_text(render_json(plan_stack("dev", find_project(Path(".")))))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["launch", "sleep-job", "--outputs", str(record), "--group", "gpu", "--nodes", "2",
                         "--image", "busybox:1.37"])
        from generate import cli_page
        print(json.dumps({"code": code, "job": "kind: Job" in printed.getvalue() or '"kind": "Job"' in
                          printed.getvalue(), "page": "trainstack launch sleep-job" in cli_page()}))
    """))
    assert seen == {"code": 0, "job": True, "page": True}


def test_a_stack_key_is_one_field_of_its_schema_module_that_validation_the_json_schema_and_reference_read(
        tmp_path: Path) -> None:
    copy = package_copy(tmp_path)
    edit(copy / "config" / "addons.py", "class ObservabilityConfig(ConfigModel):\n",
         "class ObservabilityConfig(ConfigModel):\n    trace_sampling: float = 0.0\n"
         '    """Share of requests traced, 0 to 1: the worked example\'s key."""\n')
    assert files_changed(copy) == ["config/addons.py"]
    seen = json.loads(probe(copy, """
        import json
        from trainstack.config import ConfigError, validate_stack_config
        from trainstack.config.schema import stack_file_schema
        from generate import pages
        base = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]}}
        taken = validate_stack_config({**base, "observability": {"traceSampling": 0.5}}).observability.trace_sampling
        try:
            validate_stack_config({**base, "observability": {"traceSamplin": 0.5}})
            refused = False
        except ConfigError as error:
            refused = "traceSamplin" in str(error)
        schema = json.dumps(stack_file_schema())
        reference = "".join(text for path, text in pages().items() if path.name == "observability.md")
        print(json.dumps({"taken": taken, "refused": refused, "schema": "traceSampling" in schema,
                          "reference": "traceSampling" in reference}))
    """))
    assert seen == {"taken": 0.5, "refused": True, "schema": True, "reference": True}


def test_an_instance_type_is_one_row_of_the_generated_catalog(tmp_path: Path) -> None:
    """The catalog without p5e.48xlarge refuses a group of it; its row, back in the generated table and nowhere
    else, makes the stack valid, with its EFA layout and GPUs from that row."""
    copy = package_copy(tmp_path)
    table = copy / "catalog" / "ec2_instance_types.json"
    generated = json.loads(table.read_text(encoding="utf-8"))
    row = generated["instance_types"].pop("p5e.48xlarge")
    table.write_text(json.dumps(generated, indent=1), encoding="utf-8")
    check = """
        import json
        from trainstack.config import ConfigError, validate_stack_config
        group = {"name": "p5e", "instanceType": "p5e.48xlarge", "zone": "us-west-2a", "desiredSize": 2,
                 "maxSize": 2}
        try:
            config = validate_stack_config({"profile": "dev", "region": "us-west-2",
                                            "network": {"zones": ["us-west-2a", "us-west-2b"]},
                                            "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "nodeGroups": [group]})
            shown = {"gpus": config.node_groups[0].instance.accelerator.count,
                     "efa": config.node_groups[0].instance.efa.max_interfaces}
        except ConfigError as error:
            shown = {"refused": "p5e.48xlarge" in str(error)}
        print(json.dumps(shown))
    """
    assert json.loads(probe(copy, check)) == {"refused": True}
    generated["instance_types"]["p5e.48xlarge"] = row
    table.write_text(json.dumps(generated, indent=1), encoding="utf-8")
    assert files_changed(copy) == ["catalog/ec2_instance_types.json"]
    assert json.loads(probe(copy, check)) == {"gpus": 8, "efa": 32}


@pytest.mark.parametrize("section", ["Extend trainstack"])
def test_contributing_names_every_extension_these_examples_make(section: str) -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"## {section}" in text
    table = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    for extension in ("an instance type", "a chart pin", "a policy rule", "a launcher", "a stack key"):
        assert f"| {extension} |" in table, extension
