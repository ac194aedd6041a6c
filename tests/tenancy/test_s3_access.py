"""Each team's S3 access, as a real IAM evaluator answers it: moto's server with IAM authorization enforced.

The roles and inline policies are the ones the plan of kueue-p5 records (with two datasets: ``corpus`` given to
llm only, ``images`` to every team), found as a pod finds them: the outputs contract names each team's namespace
and service account, its Pod Identity association names the role, the role's RolePolicy is its policy. The test
assumes each role through moto's STS and tries S3 calls with the session's credentials.

What is played: EKS Pod Identity itself. Its trust policy names ``pods.eks.amazonaws.com``, a service principal a
test cannot be, so each role trusts the test's IAM user instead; the permissions policy is the recorded one,
byte for byte.

What moto does not evaluate (moto 5.2.5): the ``Condition`` element of an S3 request's policies. Its S3 requests
carry no condition context (moto/iam/access_control.py, ``check_action_permitted`` passes none; iam/utils.py
formats ``sts:ExternalId`` only), and a condition with no value to compare passes (iam/policy_conditions.py,
``verify_condition``). Tried once: llm's session listed ``teams/vision/`` and moto allowed it, where AWS refuses
it by the ``s3:prefix`` condition (S3 User Guide, example-policies-s3.html,
"Allowing each IAM user access to a folder in a bucket"). So the list cells are left out;
the Resource element and the actions are evaluated, and every cell below turns on them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
import requests
from botocore.config import Config
from botocore.exceptions import ClientError
from moto.server import ThreadedMotoServer
from support import plan_records
from trainstack.outputs import StackOutputs, parse_outputs
from trainstack.plan import Plan, run_program
from trainstack.training_stack import TrainingStack

STACK = "kueue-p5"
REGION = "us-east-1"
CORPUS = {"name": "corpus", "bucket": "llm-corpus", "prefix": "c4/en/", "mountPath": "/datasets/c4", "teams": ["llm"]}
IMAGES = {"name": "images", "bucket": "shared-images", "mountPath": "/datasets/images"}
OBJECT = b"0123456789"
ALLOWED, REFUSED = "allowed", "refused"


def kueue_p5_with_datasets() -> dict[str, Any]:
    config = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config(STACK).items()}
    config["datasets"] = [CORPUS, IMAGES]
    return config


@dataclass(frozen=True)
class Team:
    name: str
    role: str
    """The role's name, as its Pod Identity association names it."""
    policy: str
    """The role's inline policy document, as recorded."""
    prefix: str
    """Its checkpoint prefix, from the outputs contract."""


def team_roles(plan: Plan, outputs: StackOutputs) -> list[Team]:
    """Each team's role and policy, reached as a pod of the team reaches them."""
    assert outputs.scheduling is not None
    associations = {(r.inputs["namespace"], r.inputs["serviceAccount"]): r.inputs["roleArn"]
                    for r in plan.resources if r.type == "aws:eks/podIdentityAssociation:PodIdentityAssociation"}
    policies = {r.inputs["role"]: r.inputs["policy"] for r in plan.resources
                if r.type == "aws:iam/rolePolicy:RolePolicy"}
    teams = []
    for name, queue in sorted(outputs.scheduling.queues.items()):
        assert queue.service_account is not None and queue.checkpoint_prefix is not None
        role = associations[(queue.namespace, queue.service_account)].rsplit("/", 1)[1]
        teams.append(Team(name, role, policies[role], queue.checkpoint_prefix))
    return teams


@pytest.fixture(scope="module")
def planned() -> tuple[list[Team], StackOutputs]:
    plan = run_program(lambda: TrainingStack(STACK, kueue_p5_with_datasets()), project="trainstack", stack=STACK)
    outputs = parse_outputs(plan.get("trainstack:index:TrainingStack", STACK).outputs["trainstack"])
    return team_roles(plan, outputs), outputs


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        yield endpoint
    finally:
        # moto's backends and its INITIAL_NO_AUTH_ACTION_COUNT live in this process: leave neither behind.
        requests.post(f"{endpoint}/moto-api/reset-auth", data=b"inf", timeout=10)
        requests.post(f"{endpoint}/moto-api/reset", timeout=10)
        server.stop()


@pytest.fixture(scope="module")
def user(planned, moto) -> dict[str, str]:
    teams, outputs = planned
    return seed(moto, teams, outputs)


def client(endpoint: str, service: str, **credentials: str) -> Any:
    return boto3.client(service, endpoint_url=endpoint, region_name=REGION,
                        config=Config(s3={"addressing_style": "path"}), **credentials)


def seed(endpoint: str, teams: list[Team], outputs: StackOutputs) -> dict[str, str]:
    """With authorization not yet enforced: the buckets and the objects the cells read, the team roles with
    their recorded policies, and a user that may assume them. Returns that user's credentials."""
    admin = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    s3, iam = client(endpoint, "s3", **admin), client(endpoint, "iam", **admin)
    assert outputs.checkpoint_bucket is not None
    for bucket in (outputs.checkpoint_bucket, CORPUS["bucket"], IMAGES["bucket"]):
        s3.create_bucket(Bucket=bucket)
    for team in teams:
        s3.put_object(Bucket=outputs.checkpoint_bucket, Key=f"{team.prefix}step-100/rank-0.pt", Body=OBJECT)
    s3.put_object(Bucket=CORPUS["bucket"], Key=f"{CORPUS['prefix']}shard-00000.tar", Body=OBJECT)
    s3.put_object(Bucket=IMAGES["bucket"], Key="shard-00000.tar", Body=OBJECT)
    user = iam.create_user(UserName="pod-identity-stand-in")["User"]
    for team in teams:
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": user["Arn"]}, "Action": "sts:AssumeRole"}]}
        iam.create_role(RoleName=team.role, AssumeRolePolicyDocument=json.dumps(trust))
        iam.put_role_policy(RoleName=team.role, PolicyName="team-data", PolicyDocument=team.policy)
    iam.put_user_policy(UserName=user["UserName"], PolicyName="assume-team-roles", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]}))
    key = iam.create_access_key(UserName=user["UserName"])["AccessKey"]
    return {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}


def as_team(endpoint: str, user: dict[str, str], role: str) -> Any:
    """An S3 client with the credentials of ``role``'s session, assumed through moto's STS."""
    arn = f"arn:aws:iam::123456789012:role/{role}"
    credentials = client(endpoint, "sts", **user).assume_role(RoleArn=arn, RoleSessionName="job")["Credentials"]
    return client(endpoint, "s3", aws_access_key_id=credentials["AccessKeyId"],
                  aws_secret_access_key=credentials["SecretAccessKey"],
                  aws_session_token=credentials["SessionToken"])


def answer(call: Callable[[], Any]) -> str:
    """What the evaluator said: allowed, or refused (AccessDenied). Any other error fails the test."""
    try:
        call()
    except ClientError as error:
        if error.response["Error"]["Code"] == "AccessDenied":
            return REFUSED
        raise
    return ALLOWED


def cells(s3: Any, team: Team, other: Team, bucket: str) -> dict[str, Callable[[], Any]]:
    """One team's actions, by what each does."""
    return {
        "write own checkpoint": lambda: s3.put_object(Bucket=bucket, Key=f"{team.prefix}step-200/rank-0.pt",
                                                      Body=OBJECT),
        "read own checkpoint": lambda: s3.get_object(Bucket=bucket, Key=f"{team.prefix}step-100/rank-0.pt"),
        "write other team's checkpoint": lambda: s3.put_object(Bucket=bucket, Key=f"{other.prefix}step-200/x.pt",
                                                               Body=OBJECT),
        "read other team's checkpoint": lambda: s3.get_object(Bucket=bucket, Key=f"{other.prefix}step-100/rank-0.pt"),
        "read corpus (llm only)": lambda: s3.get_object(Bucket=CORPUS["bucket"],
                                                        Key=f"{CORPUS['prefix']}shard-00000.tar"),
        "read images (every team)": lambda: s3.get_object(Bucket=IMAGES["bucket"], Key="shard-00000.tar"),
        "delete a dataset object": lambda: s3.delete_object(Bucket=IMAGES["bucket"], Key="shard-00000.tar"),
        "write into a read-only dataset": lambda: s3.put_object(Bucket=IMAGES["bucket"], Key="new.tar",
                                                                Body=OBJECT),
    }


EXPECTED = {
    "llm": {"write own checkpoint": ALLOWED, "read own checkpoint": ALLOWED,
            "write other team's checkpoint": REFUSED, "read other team's checkpoint": REFUSED,
            "read corpus (llm only)": ALLOWED, "read images (every team)": ALLOWED,
            "delete a dataset object": REFUSED, "write into a read-only dataset": REFUSED},
    "vision": {"write own checkpoint": ALLOWED, "read own checkpoint": ALLOWED,
               "write other team's checkpoint": REFUSED, "read other team's checkpoint": REFUSED,
               "read corpus (llm only)": REFUSED, "read images (every team)": ALLOWED,
               "delete a dataset object": REFUSED, "write into a read-only dataset": REFUSED},
}


def render(matrix: dict[str, dict[str, str]]) -> str:
    actions = list(next(iter(matrix.values())))
    width = max(map(len, actions))
    lines = [f"{'action':<{width}}  " + "  ".join(f"{team:<8}" for team in matrix)]
    lines += [f"{action:<{width}}  " + "  ".join(f"{matrix[team][action]:<8}" for team in matrix)
              for action in actions]
    return "\n".join(lines)


def test_each_team_reaches_its_own_checkpoints_and_the_datasets_it_was_given_and_nothing_else(planned, moto, user):
    teams, outputs = planned
    assert [t.name for t in teams] == ["llm", "vision"]
    # From here on every request is signed and judged against the caller's policies.
    requests.post(f"{moto}/moto-api/reset-auth", data=b"0", timeout=10).raise_for_status()
    assert outputs.checkpoint_bucket is not None
    matrix = {}
    for team, other in zip(teams, reversed(teams), strict=True):
        s3 = as_team(moto, user, team.role)
        matrix[team.name] = {action: answer(call)
                             for action, call in cells(s3, team, other, outputs.checkpoint_bucket).items()}
    print(f"\nS3 access as moto {moto} answered it (team x action), kueue-p5 with datasets corpus and images:\n"
          + render(matrix))
    wrong = [f"{team} / {action}: expected {EXPECTED[team][action]}, moto answered {said}"
             for team, row in matrix.items() for action, said in row.items() if said != EXPECTED[team][action]]
    assert not wrong, "cells that differ:\n" + "\n".join(wrong)


def test_without_authorization_enforced_every_call_is_allowed_so_the_refusals_are_the_policies(planned, moto, user):
    """The refusals above come from the evaluator judging the policies, not from moto refusing a session: the
    same calls, with authorization off again, are all allowed."""
    teams, outputs = planned
    assert outputs.checkpoint_bucket is not None
    requests.post(f"{moto}/moto-api/reset-auth", data=b"inf", timeout=10).raise_for_status()
    s3 = client(moto, "s3", aws_access_key_id="testing", aws_secret_access_key="testing")
    said = {action: answer(call) for action, call in cells(s3, teams[1], teams[0], outputs.checkpoint_bucket).items()}
    assert set(said.values()) == {ALLOWED}, said
