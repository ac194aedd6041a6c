"""Names, for every stack and project name (Hypothesis, conftest's profile): a stack whose names trainstack
accepts plans only names their owners take (Helm, IAM, EKS, S3, KMS, ECR, SQS, EventBridge, EC2, Kubernetes:
support/name_oracle.py, written from the owners' sources), none shared and none lost to a cut; a name some owner
refuses is refused before any resource is registered, naming the rule; and a cut name fits and stays apart."""

import string
from collections import Counter
from functools import cache
from pathlib import Path

import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.name_oracle import EKS_NODEGROUP, HELM_RELEASE, ecr_repository, eks_cluster, name_problems
from trainstack import ConfigError
from trainstack.config import StackConfig, validate_stack_config
from trainstack.config.resource_names import fit
from trainstack.plan import Plan, run_program
from trainstack.training_stack import TrainingStack

REPO = Path(__file__).resolve().parent.parent
STACKS = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                for path in (REPO / "stacks").glob("Pulumi.*.yaml"))
PLANS = max(8, settings.default.max_examples // 3)
"""A plan takes about a second: the plan-heavy property draws a third of the profile's examples."""


@cache
def shipped_config(stack: str) -> StackConfig:
    document = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return validate_stack_config({key.removeprefix("trainstack:"): value for key, value in document.items()
                                  if key.startswith("trainstack:")})


def plan(config: StackConfig, project: str, stack: str) -> Plan:
    """The shipped program (stacks/__main__.py) for ``config``, under ``project`` and ``stack``."""
    return run_program(lambda: TrainingStack(stack, config).export_outputs(), project=project, stack=stack,
                       program_dir=REPO / "stacks")


@cache
def shape(shipped: str) -> Counter:
    """What a shipped stack makes under its own short names: each resource type, with each Helm chart."""
    return shape_of(plan(shipped_config(shipped), "trainstack", "dev"))


def shape_of(recorded: Plan) -> Counter:
    return Counter((r.type, r.inputs.get("chart") if r.type == "kubernetes:helm.sh/v3:Release" else None)
                   for r in recorded.resources)


def names(max_size: int, alphabet: str, inside: str) -> st.SearchStrategy[str]:
    """Names of ``alphabet`` with ``inside`` between, never at an end; long ones often (the cuts happen there)."""
    @st.composite
    def draw(data: st.DrawFn) -> str:
        size = data(st.one_of(st.just(max_size), st.integers(max_size - 12, max_size), st.integers(1, max_size)))
        middle = data(st.text(alphabet + inside, min_size=max(size - 2, 0), max_size=max(size - 2, 0)))
        ends = data(st.text(alphabet, min_size=min(size, 2), max_size=min(size, 2)))
        return (ends[0] + middle + ends[1:])[:size]
    return draw()


STACK_NAMES = names(63, string.ascii_lowercase + string.digits, "-")
"""What a stack may be called: a DNS-1123 label (docs/stack-files.md)."""
PROJECT_NAMES = names(100, string.ascii_letters + string.digits, "-_").filter(
    lambda name: "__" not in name and "_-" not in name and "-_" not in name)
"""What a project may be called: letters, digits, '-' and single '_' between them, up to Pulumi's 100."""


@settings(max_examples=PLANS)
@given(shipped=st.sampled_from(STACKS), stack=STACK_NAMES, project=PROJECT_NAMES)
def test_an_accepted_stack_name_plans_only_names_their_owners_take_none_shared_none_lost(shipped, stack, project):
    recorded = plan(shipped_config(shipped), project, stack)
    assert name_problems(recorded) == []
    # Renaming the stack renames what it makes; it never drops a resource nor adds one (a cut that made two
    # Helm releases one lost the NVIDIA device plugin and the DCGM exporter).
    assert shape_of(recorded) == shape(shipped)


def owners_refuse(stack: str, project: str) -> bool:
    """Some owner would refuse, whatever its length, a name built from these: the stack's begins Helm release
    names and EKS node group names (``<stack>-...``); ``<project>-<stack>`` names the EKS cluster and, lower cased,
    the ECR repository."""
    built, cluster = f"{stack}-x", f"{project}-a"
    return any(problem is not None for problem in (
        HELM_RELEASE.character_problem(built), EKS_NODEGROUP.character_problem(built),
        eks_cluster().character_problem(cluster), ecr_repository().character_problem(f"{cluster}/training".lower())))


ANY_NAME = st.one_of(st.text(max_size=70), st.text(string.ascii_letters + string.digits + "_.- ", max_size=70),
                     STACK_NAMES, st.sampled_from(["My_Stack", "prod env", "dév", "Prod", "a.b", "-a", "a_"]))


@given(stack=ANY_NAME, project=st.one_of(st.just("trainstack"), ANY_NAME.filter(bool)))
def test_a_name_an_owner_refuses_is_refused_before_any_resource_naming_the_rule(stack, project):
    assume(owners_refuse(stack, project))
    refused: list[ConfigError] = []

    def program() -> None:
        try:
            TrainingStack(stack, shipped_config("dev"))
        except ConfigError as error:
            refused.append(error)

    recorded = run_program(program, project=project, stack="s", program_dir=REPO / "stacks")
    assert refused, f"stack {stack!r} of project {project!r} was planned"
    issues = {issue.path: issue for issue in refused[0].issues}
    assert set(issues) <= {"stack name", "project name"} and issues
    for path, issue in issues.items():
        assert issue.value == (stack if path == "stack name" else project)
        assert issue.message and issue.fix
    assert [r.type for r in recorded.resources] == ["pulumi:pulumi:Stack"]



SUFFIXES = st.sampled_from(["-eks-nvidia-device-plugin", "-eks-nvidia-dra-driver", "-addons-dcgm-exporter",
                            "-addons-prometheus", ""])


@given(first=STACK_NAMES, second=STACK_NAMES, first_suffix=SUFFIXES, second_suffix=SUFFIXES,
       limit=st.integers(20, 100))
def test_a_cut_name_fits_its_limit_keeps_its_beginning_and_two_names_never_become_one(
        first, second, first_suffix, second_suffix, limit):
    one, other = first + first_suffix, second + second_suffix
    cut = fit(one, limit)
    assert len(cut) <= limit
    assert cut == one if len(one) <= limit else cut.startswith(one[:limit - 9].rstrip("-") + "-")
    assert HELM_RELEASE.character_problem(cut) is None
    assert (cut == fit(other, limit)) == (one == other)
