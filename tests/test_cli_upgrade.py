"""`trainstack upgrade` writes a stack's upgrade three minors ahead as ten stack files, one pull request each, and the
gate passes every one: the autoscaler held one minor behind is a warning until the charts step moves it, and the node
groups, held on the first minor (three behind at the end, as the version-skew policy allows), roll once, in the last
step. Each file is the one before it with the step's lines alone changed, its comments and `$schema` line kept."""

import difflib
import itertools
import json
from pathlib import Path

import pytest
import yaml
from support.cli_run import run_cli
from support.plan_records import stack_config, write_project
from trainstack.config import validate_stack_config

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dev_on_1_33(tmp_path_factory):
    """The shipped dev stack as its author wrote it (comments, `$schema` line), with its cluster on 1.33."""
    directory = write_project(tmp_path_factory.mktemp("project"), "dev", stack_config("dev"))
    shipped = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
    (directory / "Pulumi.dev.yaml").write_text(shipped.replace("  trainstack:eks:\n",
                                                                '  trainstack:eks:\n    version: "1.33"\n'))
    return directory


@pytest.fixture(scope="module")
def upgraded(dev_on_1_33):
    code, out, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.36", "--cwd", str(dev_on_1_33), "--json",
                              "--write", str(dev_on_1_33 / "steps")])
    return code, json.loads(out), err


def test_every_step_passes_the_gate_in_order(upgraded):
    code, document, err = upgraded
    assert code == 0, err
    assert [(step["part"], step["minor"]) for step in document["steps"]] == [
        (part, minor) for minor in ("1.34", "1.35", "1.36") for part in ("control plane", "add-ons", "charts")
    ] + [("node groups", "1.36")]
    assert all(step["gate"]["passed"] for step in document["steps"])


def rolls(step) -> list[str]:
    return [warning for warning in step["gate"]["warnings"] if "rolled, jobs on them are killed" in warning]


def test_only_the_last_step_rolls_nodes_and_it_says_which_and_for_how_long(upgraded):
    _, document, _ = upgraded
    assert [bool(rolls(step)) for step in document["steps"]] == [False] * 9 + [True]
    [system, gpu] = rolls(document["steps"][-1])
    assert system.startswith("dev-eks-system: 2 nodes rolled") and gpu.startswith("dev-eks-gpu: 1 node rolled")
    assert all("Estimated" in warning for warning in (system, gpu))


def test_each_written_stack_file_is_a_valid_stack_and_the_last_is_on_the_target(upgraded):
    _, document, _ = upgraded
    configs = [yaml.safe_load(open(path))["config"] for path in document["written"]]
    assert len(configs) == 10
    eks = [validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()}).eks
           for config in configs]
    assert [each.nodes_version for each in eks] == ["1.33"] * 9 + ["1.36"]
    assert configs[-1]["trainstack:eks"]["version"] == "1.36" and "upgrade" not in configs[-1]["trainstack:eks"]


def test_each_written_stack_file_is_the_one_before_it_with_only_the_steps_lines_changed(upgraded, dev_on_1_33):
    """The version (2 lines) and the upgrade block (3) of the first control plane step; the add-on versions block (3)
    then one version (2), or none where the guide has no row for the minor (1.36); the held list (2); the next
    control plane steps' version, fromVersion and held (6), with nodesVersion added once (1); the upgrade block's
    removal (4); comments and the `$schema` line kept."""
    _, document, _ = upgraded
    texts = [path.read_text() for path in (dev_on_1_33 / "Pulumi.dev.yaml", *map(Path, document["written"]))]
    changed = [sum(line[:1] in "+-" and not line.startswith(("+++", "---"))
                   for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
               for before, after in itertools.pairwise(texts)]
    assert changed == [5, 3, 2, 7, 2, 2, 6, 0, 2, 4]
    comments = [[line for line in text.splitlines() if line.lstrip().startswith("#")] for text in texts]
    assert comments[0][0].startswith("# yaml-language-server: $schema=") and all(each == comments[0]
                                                                                 for each in comments)


def test_an_upgrade_to_a_minor_without_pins_is_refused_with_what_is_missing(dev_on_1_33, monkeypatch):
    from trainstack.catalog import addons

    monkeypatch.delitem(addons.CLUSTER_AUTOSCALER, "1.36")  # every minor of the window has its pins today
    code, _, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.36", "--cwd", str(dev_on_1_33)])
    assert code == 2
    assert "no Cluster Autoscaler chart runs the autoscaler of Kubernetes 1.36" in err


@pytest.fixture
def no_ambient_aws(monkeypatch, tmp_path):
    """No credentials or region from this machine: only what a test sets."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION",
                 "AWS_DEFAULT_REGION", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                 "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def test_aws_asks_eks_in_the_stacks_own_region_not_the_environments(dev_on_1_33, no_ambient_aws, monkeypatch):
    from trainstack.catalog import eks_addon_versions

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    asked: set[str] = set()

    def from_eks(client, addon: str, minor: str) -> None:
        asked.add(client.meta.region_name)  # DescribeAddonVersions itself is botocore's Stubber's (tests/catalog)

    monkeypatch.setattr(eks_addon_versions, "from_eks", from_eks)
    code, _, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.34", "--aws", "--cwd", str(dev_on_1_33)])
    assert (code, asked) == (0, {"us-east-1"}), err


def test_aws_without_credentials_is_one_line_and_exit_2(dev_on_1_33, no_ambient_aws):
    code, out, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.34", "--aws", "--cwd", str(dev_on_1_33)])
    assert (code, out) == (2, "") and err.startswith("error: no AWS credentials found"), err
    assert len(err.strip().splitlines()) == 1
