"""The trainstack command: the offline plan's tree, its JSON record, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

from trainstack import cli

REPO = Path(__file__).resolve().parent.parent


def test_plan_prints_the_resource_tree_of_the_dev_stack(capsys):
    assert cli.main(["plan", "--cwd", str(REPO / "tests")]) == 0
    out = capsys.readouterr().out
    assert "Offline plan of trainstack / dev" in out
    assert "└─ trainstack:index:TrainingStack  dev" in out
    assert "aws:s3/bucket:Bucket  dev-checkpoints  bucketPrefix=\"dev-checkpoints-\"  [protected]" in out
    assert "Resources by type:" in out and "Stack outputs:" in out


def test_plan_json_is_the_versioned_record_with_inputs_dependencies_options_and_outputs(capsys):
    assert cli.main(["plan", "--stack", "nemo-p4de", "--cwd", str(REPO), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["formatVersion"] == 2 and document["stack"] == "nemo-p4de"
    assert document["stackFile"] == "stacks/Pulumi.nemo-p4de.yaml"
    versioning = next(r for r in document["resources"] if r["name"] == "nemo-p4de-checkpoints-versioning")
    bucket = next(r for r in document["resources"] if r["type"] == "aws:s3/bucket:Bucket")
    assert versioning["inputs"]["versioningConfiguration"] == {"status": "Enabled"}
    assert versioning["propertyDependencies"]["bucket"] == [bucket["urn"]]
    assert versioning["options"]["provider"].endswith("nemo-p4de-aws-provider-id")
    assert bucket["options"]["protect"] is True
    assert document["outputs"]["trainstack"]["region"] == "us-east-1"


def test_an_unknown_stack_is_exit_code_2_with_the_known_stacks(capsys):
    assert cli.main(["plan", "--stack", "prod", "--cwd", str(REPO)]) == 2
    err = capsys.readouterr().err
    assert "stack 'prod'" in err
    assert "dev, frontier-p5, fsdp-p5, hyperpod, hyperpod-eks, kueue-p5, nemo-p4de, trn1" in err


def test_a_crashing_program_is_exit_code_3_without_a_traceback(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text("raise RuntimeError('boom')\n")
    assert cli.main(["plan", "--cwd", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "RuntimeError: boom" in err and "Traceback" not in err


def test_catalog_lists_types_with_efa_counts_and_unpublished_prices(capsys):
    assert cli.main(["catalog"]) == 0
    out = capsys.readouterr().out
    p5 = next(line for line in out.splitlines() if line.startswith("p5.48xlarge "))
    assert p5.split()[4:6] == ["32", "100"]
    assert "no published price" in next(line for line in out.splitlines() if line.startswith("p5e.48xlarge"))


def test_catalog_lists_the_prices_of_the_region_asked_for_and_us_east_1_by_default(capsys):
    from trainstack import catalog

    assert cli.main(["catalog", "--region", "us-west-2", "--json"]) == 0
    rows = {row["instanceType"]: row for row in json.loads(capsys.readouterr().out)}
    for entry in catalog.INSTANCE_TYPES:
        price = entry.price("us-west-2")
        assert rows[entry.name]["usdPerHourUsWest2"] == (price.usd_per_hour if price else "no published price")
    assert cli.main(["catalog", "--region", "us-west-2"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("HyperPod  us-west-2 $/h")
    assert cli.main(["catalog", "--json"]) == 0
    assert "usdPerHourUsEast1" in json.loads(capsys.readouterr().out)[0]


def _dev_like(tmp_path, **cost):
    import yaml

    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["trainstack:cost"] = cost
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    return str(tmp_path)


def test_a_mandatory_policy_failure_prints_the_table_and_exits_1(tmp_path, capsys):
    assert cli.main(["plan", "--cwd", _dev_like(tmp_path, maxHourlyUsd=1)]) == 1
    out = capsys.readouterr().out
    assert "  FAIL           mandatory   cost         hourly-cost-ceiling" in out
    assert "above the ceiling of $1.0/h" in out and "1 mandatory policy failed" in out


def test_policy_config_can_make_a_rule_advisory(tmp_path, capsys):
    config = tmp_path / "policy.json"
    config.write_text('{"hourly-cost-ceiling": {"enforcementLevel": "advisory"}}')
    assert cli.main(["plan", "--cwd", _dev_like(tmp_path, maxHourlyUsd=1), "--policy-config", str(config)]) == 0
    assert "  FAIL           advisory    cost         hourly-cost-ceiling" in capsys.readouterr().out


def test_a_policy_config_naming_a_removed_rule_or_a_typo_is_refused_with_where_it_went(tmp_path, capsys):
    config = tmp_path / "policy.json"
    config.write_text('{"fsx-encrypted": {"requireCustomerKey": true}, "kms-customer-keys": {"requireFor": ["s3"]}}')
    assert cli.main(["plan", "--cwd", _dev_like(tmp_path), "--policy-config", str(config)]) == 2
    out = capsys.readouterr()
    message = out.out + out.err
    assert "fsx-encrypted: this rule was removed: FSx for Lustre always encrypts at rest" in message
    assert "requireCustomerKeyFor: [fsx]" in message
    assert "kms-customer-keys: unknown settings ['requireFor']" in message


def test_plan_json_carries_the_policy_results(capsys):
    assert cli.main(["plan", "--cwd", str(REPO), "--json"]) == 0
    policies = json.loads(capsys.readouterr().out)["policies"]
    assert policies["mandatoryFailures"] == 0 and len(policies["rules"]) >= 19


def test_secure_values_of_other_namespaces_become_placeholders_and_the_plan_says_so(tmp_path, capsys):
    import yaml

    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["datadog:apiKey"] = {"secure": "AAABADi8f0p0=="}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    assert cli.main(["plan", "--cwd", str(tmp_path)]) == 0
    assert "Secret config values were replaced by placeholders: datadog:apiKey" in capsys.readouterr().out


def test_a_secure_trainstack_key_is_refused_with_the_reason(tmp_path, capsys):
    import yaml

    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["trainstack:tags"] = {"secure": "AAABADi8f0p0=="}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    assert cli.main(["plan", "--cwd", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "trainstack:tags is secure: the offline plan cannot decrypt it" in err and "Traceback" not in err


def test_launch_all_reduce_without_a_floor_uses_the_types_default(capsys):
    import yaml

    outputs = REPO / "tests" / "data" / "outputs" / "fsdp-p5.json"
    assert cli.main(["launch", "all-reduce", "--outputs", str(outputs), "--group", "p5", "--nodes", "2",
                     "--image", "img:1"]) == 0
    job = yaml.safe_load(capsys.readouterr().out)
    command = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["command"]
    assert command[command.index("--floor-gbps") + 1] == "1600"


def test_launch_all_reduce_on_one_gpu_is_refused_with_exit_code_2(capsys):
    outputs = REPO / "tests" / "data" / "outputs" / "fsdp-p5.json"
    assert cli.main(["launch", "all-reduce", "--outputs", str(outputs), "--group", "p5", "--nodes", "1",
                     "--per-node", "1", "--image", "img:1"]) == 2
    assert "error: launch: all-reduce needs at least two GPUs" in capsys.readouterr().err


def test_a_command_runs_without_the_cycle_collector_and_a_long_lived_caller_gets_it_back(monkeypatch, capsys):
    import gc

    from trainstack.cli import commands

    seen = []
    monkeypatch.setattr(commands, "catalog_listing", lambda args: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert cli.main(["catalog"]) == 0
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        assert cli.main(["catalog"]) == 0
        assert seen == [False, False] and not gc.isenabled(), "a caller that had it off keeps it off"
    finally:
        gc.enable()


def test_catalog_refuses_a_region_aws_does_not_have_in_one_line_with_the_regions_it_has(capsys):
    from trainstack.catalog import regions

    assert cli.main(["catalog", "--region", "us-east-9"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("error: 'us-east-9' is not an AWS region (") and regions.AS_OF.isoformat() in line
    assert line.endswith(f"use one of {', '.join(regions.names())}")
    assert cli.main(["catalog", "--region", "x" * 5000]) == 2
    assert "(4920 more characters)" in capsys.readouterr().err


def test_a_reader_that_stops_early_is_not_an_error():
    """`trainstack plan | head` ends with exit 0 and nothing on standard error: the pipe is closed before the
    command writes, so its first write meets a broken pipe."""
    process = subprocess.Popen([sys.executable, "-m", "trainstack.cli", "plan", "--stack", "dev"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=300) == cli.EXIT_OK
    assert errors == ""
