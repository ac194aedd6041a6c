"""Every file a command reads or writes is checked at the boundary: a file that cannot be
used exits 2 with one line on standard error naming the file and what is wrong, never a
traceback, never a flood. One table per kind of file, run through every command and
argument that takes that kind:

  stack file (Pulumi.<stack>.yaml)  plan, preflight, diff (planning the head), report (planning)
  project file (Pulumi.yaml)        the same four
  plan record                       diff BASE, diff HEAD, report RECORD, report --base
  stack outputs or a plan record    launch --outputs (every launcher reads them alike)
  policy configuration              plan, diff (planning, and with both records), report (record)
  output (-o)                       diff, report
"""

import json
from pathlib import Path

import pytest
from trainstack import cli
from trainstack.analysis import plan_stack, render_json
from trainstack.cli.launch import KINDS
from trainstack.plan import find_project

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = REPO / "tests" / "data" / "outputs" / "fsdp-p5.json"
LINE_MAX = 600


@pytest.fixture(scope="module")
def dev_record(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "dev.json"
    path.write_text(render_json(plan_stack("dev", find_project(REPO))))
    return path


def refused_in_one_line(capsys, argv: list[str]) -> str:
    """Run the command; it must exit 2 with exactly one bounded line on stderr and print nothing else."""
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert out == "", out[:300]
    assert err.startswith("error: ") and err.count("\n") == 1 and len(err) < LINE_MAX, err[:2000]
    assert "Traceback" not in err
    return err


def project(tmp_path: Path, stack_text: bytes | str, project_text: str | None = None) -> Path:
    """A project running the real stack program, with ``stack_text`` as Pulumi.bad.yaml."""
    default = f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n"
    (tmp_path / "Pulumi.yaml").write_text(project_text or default)
    stack_file = tmp_path / "Pulumi.bad.yaml"
    if isinstance(stack_text, bytes):
        stack_file.write_bytes(stack_text)
    else:
        stack_file.write_text(stack_text)
    return tmp_path


def laughs(levels: int, width: int) -> str:
    lines = ["config:", "  trainstack:region: us-east-1", "  trainstack:tags:",
             "    l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"    l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * width) + "]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


BAD_STACK_FILES = {
    "a YAML list": ("- trainstack:region: us-east-1\n", "holds a YAML list at the top; it must be a mapping"),
    "not UTF-8": (b"config:\n  trainstack:region: us-east-1\n  trainstack:tags: {team: \xe9quipe}\n",
                  "is not UTF-8 text"),
    "an alias bomb in tags": (laughs(9, 9), "more than 64 YAML aliases"),
    "aliases that expand past the bound": (laughs(7, 9), "expands to more than 100000 values"),
    "config that is a list": ("config:\n  - trainstack:region\n", "'config' is ['trainstack:region']; it must be"),
    "a config key YAML reads as a number": ("config:\n  1: x\n", "config key 1 is not a name"),
    "a date the engine cannot pass on": ("config:\n  trainstack:capacityEnd:\n    at: 2026-12-01\n",
                                         "line 3: 2026-12-01 is read as a timestamp by the Pulumi engine"),
    "broken YAML": ("config:\n  trainstack:region: [us-east-1\n", "is not valid YAML at line 3"),
    "a key given twice": ("config:\n  trainstack:region: us-east-1\n  trainstack:region: us-west-2\n",
                          "key 'trainstack:region' is given twice in one mapping (lines 2 and 3)"),
    "a misspelled top-level key": ("configs:\n  trainstack:region: us-east-1\n",
                                   "unknown top-level key 'configs'; did you mean 'config'?"),
}


def stack_commands(cwd: Path, record: Path) -> dict[str, list[str]]:
    return {"plan": ["plan", "--cwd", str(cwd), "--stack", "bad"],
            "preflight": ["preflight", "--cwd", str(cwd), "--stack", "bad"],
            "diff": ["diff", str(record), "--cwd", str(cwd), "--stack", "bad"],
            "report": ["report", "--cwd", str(cwd), "--stack", "bad"]}


@pytest.mark.parametrize("command", ["plan", "preflight", "diff", "report"])
@pytest.mark.parametrize("case", BAD_STACK_FILES)
def test_a_bad_stack_file_is_refused_in_one_line_by_every_command_that_reads_one(tmp_path, capsys, dev_record,
                                                                                  command, case):
    text, says = BAD_STACK_FILES[case]
    cwd = project(tmp_path, text)
    err = refused_in_one_line(capsys, stack_commands(cwd, dev_record)[command])
    assert str(cwd / "Pulumi.bad.yaml") in err and says in err


@pytest.mark.parametrize("command", ["plan", "preflight", "diff", "report"])
@pytest.mark.parametrize("text, says", [
    ("- name: trainstack\n", "holds a YAML list at the top"),
    ("name: 7\nruntime: python\n", "'name' is 7; it must be a non-empty string"),
])
def test_a_bad_project_file_is_refused_in_one_line_by_every_command_that_reads_one(tmp_path, capsys, dev_record,
                                                                                    command, text, says):
    cwd = project(tmp_path, "config: {}\n", project_text=text)
    err = refused_in_one_line(capsys, stack_commands(cwd, dev_record)[command])
    assert str(cwd / "Pulumi.yaml") in err and says in err


def mutated(record: Path, change) -> dict:
    document = json.loads(record.read_text())
    change(document)
    return document


BAD_RECORDS = {
    "not JSON": ("{formatVersion: 2", "is not JSON at line 1, column 2"),
    "a JSON list": ("[]", "holds a JSON list, not an object"),
    "policies that are not objects": (lambda d: d.update(policies=["mandatory"]),
                                      "policies is ['mandatory']; a record holds an object there"),
    "a policy rule that is not an object": (lambda d: d["policies"]["rules"].__setitem__(0, "x" * 500),
                                            "policies.rules[0] is '" + "x" * 79 + "... (422 more characters); a "
                                            "record holds an object there"),
    "a resource that is not an object": (lambda d: d["resources"].__setitem__(0, 5), "resources[0] is 5, not an"),
    "a resource field no record holds": (lambda d: d["resources"][0].update(colour="red"),
                                         "resources[0] has fields no record holds: colour"),
    "options that are not an object": (lambda d: d["resources"][1].update(options=[]),
                                       "resources[1].options is []; a record holds an object there"),
    "a version that is a string": (lambda d: d.update(formatVersion="2"), "formatVersion '2' is not one"),
    "a cost that is not a number": (lambda d: d["cost"]["hourlyUsd"].update(max="a lot"),
                                    "cost.hourlyUsd.max is 'a lot'; a record holds a number there"),
}


@pytest.mark.parametrize("argument", ["diff BASE", "diff HEAD", "report RECORD", "report --base"])
@pytest.mark.parametrize("case", BAD_RECORDS)
def test_a_bad_record_is_refused_in_one_line_wherever_a_record_is_read(tmp_path, capsys, dev_record, argument,
                                                                       case):
    content, says = BAD_RECORDS[case]
    bad = tmp_path / "bad.json"
    bad.write_text(content if isinstance(content, str) else json.dumps(mutated(dev_record, content)))
    argv = {"diff BASE": ["diff", str(bad), str(dev_record)], "diff HEAD": ["diff", str(dev_record), str(bad)],
            "report RECORD": ["report", str(bad)], "report --base": ["report", str(dev_record), "--base", str(bad)]}
    err = refused_in_one_line(capsys, [*argv[argument], "--cwd", str(tmp_path)])
    assert str(bad) in err and says in err


BAD_OUTPUTS = {
    "not JSON": ("pulumi says hello", "outputs {path} is not JSON at line 1, column 1"),
    "a JSON list": ("[1]", "outputs {path} holds a JSON list, not an object"),
    "not UTF-8": (b'{"trainstack": "\xff"}', "outputs {path} is not UTF-8 text"),
    "a version that is not a number": (json.dumps({"trainstack": {"contractVersion": "v" * 400}}),
                                       "contractVersion is " + "v" * 80 + "... (320 more characters)"),
    "neither outputs nor a record": ('{"kubeconfig": "x"}', "outputs {path} holds neither shape a launcher reads "
                                     "(keys: kubeconfig); give a plan record (`trainstack plan --json > plan.json`"),
    "a record of another format": (json.dumps({"formatVersion": 9, "resources": []}),
                                   "outputs {path}: formatVersion 9 is not one this trainstack reads"),
    "a record whose plan failed": (json.dumps({"error": {"kind": "config", "issues": []}}),
                                   "outputs {path}: the plan that wrote it failed"),
    "a record of another program": (json.dumps({"formatVersion": 2, "project": "web", "stack": "dev",
                                                "resources": [], "outputs": {"url": "x"}}),
                                    "outputs {path}: the plan record has no 'trainstack' output"),
}


@pytest.mark.parametrize("kind", [kind.name for kind in KINDS])
@pytest.mark.parametrize("case", BAD_OUTPUTS)
def test_bad_stack_outputs_are_refused_in_one_line_by_every_launcher(tmp_path, capsys, kind, case):
    content, says = BAD_OUTPUTS[case]
    path = tmp_path / "outputs.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    argv = ["launch", kind, "--outputs", str(path), "--group", "p5", "--nodes", "1"]
    err = refused_in_one_line(capsys, argv + ([] if kind == "sbatch" else ["--image", "img:1"]))
    assert err.startswith(f"error: outputs {path}") and says.format(path=path) in err


def test_outputs_that_are_a_directory_or_missing_are_refused_in_one_line(tmp_path, capsys):
    for path, says in ((tmp_path, "is a directory"), (tmp_path / "absent.json", "cannot be read")):
        err = refused_in_one_line(capsys, ["launch", "device-check", "--outputs", str(path), "--group", "p5",
                                           "--nodes", "1", "--image", "img:1"])
        assert says in err


BAD_POLICY_CONFIGS = {
    "not JSON": ("{all: advisory}", "is not JSON at line 1, column 2"),
    "a JSON list": ('["hourly-cost-ceiling"]', "holds a JSON list, not an object"),
    "an unknown enforcement level": ('{"all": "loud"}', "all: 'loud' is not an enforcement level"),
    "a rule's unknown level": ('{"hourly-cost-ceiling": {"enforcementLevel": "strict"}}',
                               "hourly-cost-ceiling: 'strict' is not an enforcement level"),
    "a key no rule reads": ('{"' + "k" * 300 + '": 1}', "no rule has this id"),
}


@pytest.mark.parametrize("command", ["plan", "diff planning the head", "diff with both records", "report RECORD"])
@pytest.mark.parametrize("case", BAD_POLICY_CONFIGS)
def test_a_bad_policy_config_is_refused_in_one_line_by_every_command_that_takes_one(tmp_path, capsys, dev_record,
                                                                                    command, case):
    text, says = BAD_POLICY_CONFIGS[case]
    config = tmp_path / "policy.json"
    config.write_text(text)
    argv = {"plan": ["plan", "--cwd", str(REPO)], "diff planning the head": ["diff", str(dev_record)],
            "diff with both records": ["diff", str(dev_record), str(dev_record)],
            "report RECORD": ["report", str(dev_record)]}[command]
    err = refused_in_one_line(capsys, [*argv, "--cwd", str(REPO), "--policy-config", str(config)])
    assert f"policy config {config}" in err and says in err


@pytest.mark.parametrize("command", ["diff", "report"])
def test_an_output_into_a_missing_directory_or_onto_a_directory_is_refused_before_any_work(tmp_path, capsys,
                                                                                          dev_record, command):
    argv = ["diff", str(dev_record), str(dev_record)] if command == "diff" else ["report", str(dev_record)]
    err = refused_in_one_line(capsys, [*argv, "-o", str(tmp_path / "missing" / "out.txt")])
    assert f"output {tmp_path / 'missing' / 'out.txt'}: the directory {tmp_path / 'missing'} does not exist" in err
    err = refused_in_one_line(capsys, [*argv, "-o", str(tmp_path)])
    assert f"output {tmp_path} is a directory; give a file name in it" in err
    assert list(tmp_path.iterdir()) == []


def test_diff_writes_its_report_to_the_output_file(tmp_path, capsys, dev_record):
    assert cli.main(["diff", str(dev_record), str(dev_record), "-o", str(tmp_path / "diff.txt")]) == 0
    assert capsys.readouterr().out == ""
    assert (tmp_path / "diff.txt").read_text().rstrip().endswith("Gate: passed")


def dev_with_ceiling(tmp_path: Path, usd: float) -> Path:
    import yaml

    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["trainstack:cost"] = {"maxHourlyUsd": usd}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    return tmp_path


def test_diff_of_two_records_judges_both_again_under_the_policy_config(tmp_path, capsys, dev_record):
    # The head lowers the cost ceiling below the stack's cost: a new mandatory failure closes the gate...
    (tmp_path / "head").mkdir()
    head_project = dev_with_ceiling(tmp_path / "head", 1)
    head = tmp_path / "head.json"
    head.write_text(render_json(plan_stack("dev", find_project(head_project))))
    argv = ["diff", str(dev_record), str(head), "--cwd", str(head_project), "--format", "json"]
    assert cli.main(argv) == 1
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)["deltas"]["policies"]["newFailures"]] == [
        "hourly-cost-ceiling"]
    # ...and a policy config that makes the rule advisory is applied to the saved records, not ignored.
    config = tmp_path / "policy.json"
    config.write_text('{"hourly-cost-ceiling": "advisory"}')
    assert cli.main([*argv, "--policy-config", str(config)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["gate"]["passed"] is True
    assert [(f["rule"], f["enforcement"]) for f in report["deltas"]["policies"]["newFailures"]] == [
        ("hourly-cost-ceiling", "advisory")]


def test_report_of_a_saved_record_judges_it_again_under_the_policy_config(tmp_path, capsys, dev_record):
    config = tmp_path / "policy.json"
    config.write_text('{"hourly-cost-ceiling": {"maxHourlyUsd": 1}}')
    assert cli.main(["report", str(dev_record), "--policy-config", str(config)]) == 0
    page = capsys.readouterr().out
    assert "<strong>hourly-cost-ceiling</strong> (mandatory)" in page and "1 mandatory failure" in page


def test_a_record_made_before_policies_kept_their_config_still_compares(tmp_path, capsys, dev_record):
    older = mutated(dev_record, lambda d: d["policies"].pop("config"))
    (tmp_path / "older.json").write_text(json.dumps(older))
    assert cli.main(["diff", str(tmp_path / "older.json"), str(dev_record)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("Gate: passed")


def test_outputs_on_standard_input_pass_the_same_boundary(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("[1, 2]"))
    err = refused_in_one_line(capsys, ["launch", "device-check", "--group", "p5", "--nodes", "1", "--image", "i"])
    assert err == ("error: outputs <stdin> holds a JSON list, not an object; write it with `trainstack plan --json > "
                   "plan.json` (offline) or `pulumi stack output --json > outputs.json` (a deployed stack)\n")


def test_a_config_key_set_to_null_is_refused_naming_the_key_since_the_engine_passes_it_as_empty_text(tmp_path,
                                                                                                     capsys):
    cwd = project(tmp_path, "config:\n  trainstack:profile: null\n  trainstack:region: us-east-1\n")
    assert cli.main(["plan", "--cwd", str(cwd), "--stack", "bad"]) == 2
    err = capsys.readouterr().err
    assert "trainstack:profile has no value (null); the Pulumi engine passes it as an empty string" in err
    assert "Traceback" not in err and "ConfigMissingError" not in err


def test_a_long_config_value_is_cut_in_the_error(tmp_path, capsys):
    cwd = project(tmp_path, "config:\n  trainstack:profile: dev\n  trainstack:region: " + "x" * 5000 + "\n")
    assert cli.main(["plan", "--cwd", str(cwd), "--stack", "bad"]) == 2
    err = capsys.readouterr().err
    assert "trainstack:region = 'xxxx" in err and "(4922 more characters)" in err and len(err) < 2000


@pytest.mark.parametrize("text, says", [
    ('{"no-public-ingress": {"allowedPublicPorts": ["443"]}}',
     "no-public-ingress.allowedPublicPorts: '443' is not an integer"),
    ('{"profile": "staging"}', "profile: 'staging' is not one of ['dev', 'production']"),
    ('{"maxHourlyUsd": "ten"}', "maxHourlyUsd: 'ten' is not a number"),
    ('{"maxHourlyUsd": NaN}', "is not JSON"),
])
def test_a_policy_setting_of_the_wrong_type_is_refused_with_the_rules_own_schema(tmp_path, capsys, text, says):
    config = tmp_path / "policy.json"
    config.write_text(text)
    err = refused_in_one_line(capsys, ["plan", "--cwd", str(REPO), "--policy-config", str(config)])
    assert says in err


def test_outputs_on_standard_input_that_are_not_utf8_are_refused_in_one_line(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"trainstack": "\xff"}')))
    err = refused_in_one_line(capsys, ["launch", "device-check", "--group", "p5", "--nodes", "1", "--image", "i"])
    assert err == "error: outputs <stdin> is not UTF-8 text (byte 16: b'\\xff'); save it as UTF-8\n"


def test_outputs_from_a_file_that_never_ends_are_refused_by_size_before_parsing(capsys):
    """``--outputs /dev/zero`` once read until memory ran out."""
    err = refused_in_one_line(capsys, ["launch", "device-check", "--outputs", "/dev/zero", "--group", "p5",
                                       "--nodes", "1", "--image", "img:1"])
    assert err.startswith("error: outputs /dev/zero is more than 67,108,864 bytes; trainstack reads at most")


def test_a_record_or_policy_config_that_never_ends_is_refused_by_size(tmp_path, capsys, dev_record):
    err = refused_in_one_line(capsys, ["report", "/dev/zero", "--cwd", str(tmp_path)])
    assert "record /dev/zero is more than 67,108,864 bytes" in err
    err = refused_in_one_line(capsys, ["report", str(dev_record), "--policy-config", "/dev/zero",
                                       "--cwd", str(tmp_path)])
    assert "policy config /dev/zero is more than 262,144 bytes" in err


def test_outputs_on_standard_input_that_never_end_are_refused_by_size(monkeypatch, capsys):
    import io

    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
            buffer[:] = b" " * len(buffer)
            return len(buffer)

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    err = refused_in_one_line(capsys, ["launch", "device-check", "--group", "p5", "--nodes", "1", "--image", "i"])
    assert err.startswith("error: outputs <stdin> is more than 67,108,864 bytes")
