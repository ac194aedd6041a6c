"""The checks of scheduling (``scheduling``, config/scheduling.py): teams, priorities and access entries each once;
Kueue and the accelerated groups it shares; guarantees the groups hold; the file system's paths inside the teams'
directories."""

from __future__ import annotations

from ..base import ConfigValueError
from ..principals import admin_listings, refuse_repeats, team_listings
from ..scheduling import SchedulingConfig, cohort_of_groups
from ..stack import StackConfig


def check_teams_once(scheduling: SchedulingConfig) -> None:
    """Each team's name and namespace, each principal and each priority class once."""
    for key in ("name", "namespace"):
        seen: set[str] = set()
        for index, team in enumerate(scheduling.teams):
            value = getattr(team, key)
            if value in seen:
                raise ConfigValueError(f"two teams have {key} '{value}'; each team has its own queue and "
                                       "namespace.", fix=f"give each team its own {key}.",
                                       path=("teams", index, key), value=value)
            seen.add(value)
    # One access entry per principal (config/principals.py): a member of two teams would carry both teams'
    # groups in it, and the wall between them would be this principal.
    refuse_repeats(team_listings([(t.name, t.members) for t in scheduling.teams], scheduling.viewers),
                   within=("scheduling",))
    names = [p.name for p in scheduling.priorities]
    for index, name in enumerate(names):
        if names.index(name) != index:
            raise ConfigValueError(f"priority class '{name}' is declared twice.", fix="remove one of them.",
                                   path=("priorities", index, "name"), value=name)


def check_scheduling_in_stack(stack: StackConfig) -> None:
    """Kueue installed, accelerated groups to share, guarantees the groups own (config/scheduling.py
    ``cohort_of_groups``), and one access entry per principal across the admins and the teams."""
    if stack.scheduling is None:
        return
    if not stack.operators.kueue:
        raise ConfigValueError("scheduling makes Kueue's queues and quotas; Kueue is not installed.",
                               fix="set operators.kueue: true.", path=("operators", "kueue"), value=False)
    if not stack.node_groups:
        raise ConfigValueError("scheduling shares the accelerated node groups; this stack has none.",
                               fix="add nodeGroups, or remove scheduling.", path=("scheduling",), value=None)
    try:
        cohort_of_groups(stack.scheduling, {g.name: g.owned_nodes for g in stack.node_groups})
    except ConfigValueError as error:
        error.path = ("scheduling", *error.path)
        raise
    # One access entry per principal and cluster, across the admins, the members and the viewers (principals.py).
    admins = stack.eks.admin_principals if stack.eks is not None else []
    refuse_repeats(admin_listings(admins) + team_listings(
        [(t.name, t.members) for t in stack.scheduling.teams], stack.scheduling.viewers))


def check_team_paths(stack: StackConfig) -> None:
    """With teams, each team's FSx claim mounts only ``/teams/<team>`` (storage/lustre_directories.py): a path the
    stack links or exports elsewhere on the file system would be out of every team's reach."""
    if stack.scheduling is None or stack.fsx is None:
        return
    homes = [f"/teams/{team.name}/" for team in stack.scheduling.teams]
    paths: list[tuple[tuple[str | int, ...], str, str]] = []
    if stack.fsx.data_repository is not None:
        paths.append((("fsx", "dataRepository", "fileSystemPath"), stack.fsx.data_repository.file_system_path,
                      "the S3 data repository"))
    if stack.fsx.checkpoints is not None and stack.fsx.checkpoints.export_to_bucket:
        paths.append((("fsx", "checkpoints", "path"), stack.fsx.checkpoints.path, "the checkpoint export"))
    for path, value, what in paths:
        if not any(f"{value.rstrip('/')}/".startswith(home) for home in homes):
            raise ConfigValueError(
                f"{what} is at {value}, outside every team's directory: on a stack with teams, each team's FSx "
                "claim mounts only /teams/<team>, so no team's pods would see it.",
                fix=f"put it inside the directory of the team that uses it ({homes[0]}...).", path=path,
                value=value)
