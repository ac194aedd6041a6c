"""`trainstack preflight nodes` as a command: where it takes the groups and the kubeconfig from, the one-line
errors and exit codes of what it cannot use, and the gate when the cluster is out of reach. Against the real
kube-apiserver: tests/engines/test_node_hugepages.py."""

import json
from pathlib import Path

import pytest
from support.rendered_jobs import planned_record
from trainstack import cli

REPO = Path(__file__).resolve().parents[2]
UNREACHABLE = "https://127.0.0.1:9"  # the discard port: nothing listens


def pulumi_outputs(stack, kubeconfig):
    """What `pulumi stack output --json [--show-secrets]` prints for a deployed ``stack``."""
    return {"trainstack": planned_record(stack)["outputs"]["trainstack"], "kubeconfig": kubeconfig}


def token_kubeconfig(server=UNREACHABLE, user=None):
    return {"apiVersion": "v1", "kind": "Config", "current-context": "aws",
            "clusters": [{"name": "k", "cluster": {"server": server}}],
            "contexts": [{"name": "aws", "context": {"cluster": "k", "user": "u"}}],
            "users": [{"name": "u", "user": user or {"token": "t"}}]}


def run(tmp_path, document, *flags):
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(document))
    return cli.main(["preflight", "nodes", "--outputs", str(outputs), *flags])


def test_a_plan_record_gives_the_groups_but_not_the_kubeconfig(tmp_path, capsys):
    assert run(tmp_path, planned_record("fsdp-p5")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "is a plan record, whose kubeconfig the offline plan made up; give the cluster's with --kubeconfig" in err


def test_a_secret_pulumi_did_not_show_is_refused_with_the_command_that_shows_it(tmp_path, capsys):
    assert run(tmp_path, pulumi_outputs("fsdp-p5", "[secret]")) == 2
    err = capsys.readouterr().err
    assert "the 'kubeconfig' output is [secret]: Pulumi did not show the secret" in err
    assert "pulumi stack output --json --show-secrets" in err


def test_the_stacks_kubeconfig_output_is_read_as_pulumi_eks_writes_it_a_json_string(tmp_path, capsys):
    # A client certificate is refused by field: the output's kubeconfig was read, down to its user.
    kubeconfig = json.dumps(token_kubeconfig(user={"client-certificate-data": "x", "client-key-data": "y"}))
    assert run(tmp_path, pulumi_outputs("fsdp-p5", kubeconfig)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: outputs ")
    assert "the 'kubeconfig' output: user 'u': client-certificate-data is set" in err


def test_kubeconfig_replaces_the_outputs_and_a_bad_one_is_refused_in_one_line(tmp_path, capsys):
    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nkind: Config\ncurrent-context: aws\ncontexts: []\n")
    assert run(tmp_path, pulumi_outputs("fsdp-p5", "[secret]"), "--kubeconfig", str(bad)) == 2
    err = capsys.readouterr().err
    assert err == f"error: kubeconfig {bad}: no context named 'aws' in contexts (none); give --context with one of " \
                  "the contexts\n"


def test_an_api_server_out_of_reach_checks_nothing_and_does_not_pass(tmp_path, capsys):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(token_kubeconfig()))
    for flags in ([], ["--allow-unchecked"]):
        assert run(tmp_path, planned_record("fsdp-p5"), "--kubeconfig", str(kubeconfig), *flags) == 1
        out, err = capsys.readouterr()
        assert "could-not-check  node huge pages              p5 (p5.48xlarge)" in out
        assert "could-not-check  node devices                 p5 (p5.48xlarge)" in out
        # fsdp-p5 runs etcd: its claim's CSI driver is a check of its own.
        assert "could-not-check  volume CSI driver            etcd/data-etcd-0 (StorageClass trainstack-gp3)" in out
        assert out.count(f"{UNREACHABLE} is out of reach") == 3
        assert err.startswith("error: preflight did not pass: nothing was checked against the cluster: all 3 checks "
                              "could not run")


def test_a_stack_without_an_accelerated_group_needs_no_kubeconfig_and_does_not_pass(tmp_path, capsys):
    assert run(tmp_path, planned_record("hyperpod"), "--json") == 1  # Slurm: no EKS group, nothing on a cluster
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err == ("error: preflight did not pass: nothing was checked against the cluster: no group of this stack "
                   "has accelerators or runs pods that request hugepages-2Mi, and it makes no claim a CSI driver must "
                   "provision or team a NetworkPolicy fences\n")


@pytest.mark.parametrize("argv", [["preflight", "--help"], ["preflight", "nodes", "--help"]])
def test_the_account_preflight_and_the_nodes_preflight_each_say_what_they_check(argv, capsys):
    with pytest.raises(SystemExit):
        cli.main(argv)
    out = " ".join(capsys.readouterr().out.split())
    assert ("nodes: the running cluster's accelerated nodes" in out) if argv[1] == "--help" else ("--kubeconfig" in out)


@pytest.mark.parametrize("argv", [["preflight", "--json", "nodes"], ["preflight", "nodes", "--json"]])
def test_json_may_be_given_before_or_after_nodes(tmp_path, capsys, argv):
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(planned_record("hyperpod")))
    assert cli.main([*argv, "--outputs", str(outputs)]) == 1
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("minutes", ["0", "241", "ten", "1.5"])
def test_wait_takes_whole_minutes_from_1_to_240_and_refuses_others_naming_the_value(tmp_path, capsys, minutes):
    with pytest.raises(SystemExit) as exited:
        run(tmp_path, planned_record("fsdp-p5"), "--wait", minutes)
    assert exited.value.code == 2
    assert f"argument --wait: '{minutes}' is not a whole number of minutes from 1 to 240" in capsys.readouterr().err


def test_node_counts_come_from_the_stack_file_and_without_one_are_said_unchecked(tmp_path):
    from trainstack.cli.commands import _node_counts

    assert _node_counts(REPO, "fsdp-p5")[:2] == ({"p5": 2}, "")
    assert _node_counts(REPO, "elsewhere")[1] == "project trainstack has no stack file for stack elsewhere (--cwd)"
    assert _node_counts(tmp_path, "fsdp-p5")[1].startswith("no Pulumi project above ")
