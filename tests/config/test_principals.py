"""One principal, one access entry: every IAM principal a stack gives cluster access (the admins, each team's members,
the queue viewers) is listed once across all of them, two ARNs being one principal when IAM would take them for
one: the same partition, account and kind, the same name whatever its case, whatever the path. The refusal names
both keys, the principal and the fix."""

import copy
from typing import Any

import pytest
from support import plan_records
from trainstack.config import ConfigError, ConfigIssue, validate_stack_config
from trainstack.config.principals import principal

ADMIN = "arn:aws:iam::123456789012:role/ml-platform-admin"
VIEWER = "arn:aws:iam::123456789012:role/ml-platform-oncall"
LLM = "arn:aws:iam::123456789012:role/llm-researchers"
KUEUE_P5 = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config("kueue-p5").items()}


def kueue_p5(*, admins: tuple[str, ...] = (), viewers: tuple[str, ...] = (), llm: tuple[str, ...] = (),
             vision: tuple[str, ...] = ()) -> dict[str, Any]:
    """kueue-p5's configuration (admin ml-platform-admin, viewer ml-platform-oncall, one role per team) with the
    given ARNs added to each list."""
    config = copy.deepcopy(KUEUE_P5)
    assert config["eks"]["adminPrincipals"] == [ADMIN] and config["scheduling"]["viewers"] == [VIEWER]
    config["eks"]["adminPrincipals"] += admins
    config["scheduling"]["viewers"] += viewers
    llm_team, vision_team = config["scheduling"]["teams"]
    assert llm_team["members"] == [LLM]
    llm_team["members"] += llm
    vision_team["members"] += vision
    return config


def refusal(config: dict[str, Any]) -> ConfigIssue:
    with pytest.raises(ConfigError) as error:
        validate_stack_config(config)
    [issue] = error.value.issues
    return issue


def test_an_admin_who_is_also_a_viewer_is_refused_naming_both_keys_the_principal_and_the_fix():
    issue = refusal(kueue_p5(viewers=(ADMIN,)))
    assert issue.path == "trainstack:scheduling.viewers[1]" and issue.value == ADMIN
    assert issue.message.startswith(f"{ADMIN} is a cluster admin (eks.adminPrincipals[0]) and a queue viewer "
                                    "(scheduling.viewers[1]); EKS gives a principal one access entry per cluster")
    assert issue.fix == ("remove it from scheduling.viewers[1]: a cluster admin reaches every namespace and queue "
                         "already.")


def test_two_arns_differing_only_by_the_case_of_the_name_are_one_principal():
    shouted = VIEWER.replace("ml-platform-oncall", "ML-Platform-OnCall")
    issue = refusal(kueue_p5(viewers=(shouted,)))
    assert issue.path == "trainstack:scheduling.viewers[1]"
    assert issue.message.startswith(
        f"{shouted} (scheduling.viewers[1], a queue viewer) and {VIEWER} (scheduling.viewers[0], a queue viewer) "
        "name one IAM role: IAM names ignore case;")
    assert issue.fix == "remove one of them (keep scheduling.viewers[0])."
    # Across lists too: a member spelled in capitals is still the admin.
    issue = refusal(kueue_p5(llm=(ADMIN.replace("ml-platform-admin", "ML-PLATFORM-ADMIN"),)))
    assert issue.path == "trainstack:scheduling.teams[0].members[1]" and "a cluster admin" in issue.message
    assert issue.fix == ("remove it from scheduling.teams[0].members[1]: a cluster admin reaches every namespace "
                         "and queue already.")


def test_a_path_does_not_tell_two_roles_apart():
    # IAM: a role's name is unique in its account whatever its path, so role/ops/x and role/x are one role or a
    # typo; either way the second entry would fail.
    pathed = ADMIN.replace("role/", "role/platform/ops/")
    issue = refusal(kueue_p5(admins=(pathed,)))
    assert issue.path == "trainstack:eks.adminPrincipals[1]"
    assert "name one IAM role: a path is not part of the name;" in issue.message


@pytest.mark.parametrize(("lists", "path", "says", "fix"), [
    ({"viewers": (LLM,)}, "scheduling.viewers[1]",
     f"{LLM} is a member of team 'llm' (scheduling.teams[0].members[0]) and a queue viewer (scheduling.viewers[1])",
     "keep it in one of the two"),
    ({"vision": (LLM,)}, "scheduling.teams[1].members[1]",
     f"{LLM} is a member of team 'llm' (scheduling.teams[0].members[0]) and a member of team 'vision' "
     "(scheduling.teams[1].members[1])", "use one role per team"),
    ({"admins": (ADMIN,)}, "eks.adminPrincipals[1]",
     f"{ADMIN} is listed twice as a cluster admin (eks.adminPrincipals[0] and eks.adminPrincipals[1])",
     "remove one of them"),
    ({"viewers": (VIEWER,)}, "scheduling.viewers[1]", f"{VIEWER} is listed twice as a queue viewer",
     "remove one of them"),
    ({"llm": (LLM,)}, "scheduling.teams[0].members[1]", f"{LLM} is listed twice as a member of team 'llm'",
     "remove one of them"),
])
def test_each_principal_plays_one_part_in_one_place(lists, path, says, fix):
    issue = refusal(kueue_p5(**lists))
    assert issue.path == f"trainstack:{path}" and issue.message.startswith(says) and issue.fix.startswith(fix)


def test_another_account_partition_or_kind_is_another_principal():
    other_account = ADMIN.replace("123456789012", "210987654321")
    a_user = ADMIN.replace(":role/", ":user/")
    config = validate_stack_config(kueue_p5(viewers=(other_account,), llm=(a_user,)))
    assert config.scheduling.viewers == [VIEWER, other_account]
    assert len({principal(arn) for arn in (ADMIN, ADMIN.replace("arn:aws:", "arn:aws-cn:"), other_account,
                                            a_user)}) == 4
    assert principal("arn:aws:iam::123456789012:role/a/b/Trainer") == ("aws", "123456789012", "role", "trainer")


def test_an_assumed_role_session_is_no_admin_an_access_entry_can_name():
    issue = refusal(kueue_p5(admins=("arn:aws:sts::123456789012:assumed-role/ml-platform-admin/alice",)))
    assert issue.path == "trainstack:eks.adminPrincipals[1]"
    assert "not an IAM role or user ARN" in issue.message and issue.fix.startswith("use arn:aws:iam::")
