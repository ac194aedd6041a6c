"""The checks of the S3 datasets (``datasets``, config/datasets.py): the EKS add-on that mounts them, names and
mount paths each once, caches that fit the groups' instance stores, and teams the stack has."""

from __future__ import annotations

from ..base import ConfigValueError
from ..stack import StackConfig


def check_datasets(stack: StackConfig) -> None:
    """Datasets need the EKS cluster; each name and mount path once (FSx's too); a cache within every group's
    NVMe instance store."""
    if stack.datasets and stack.eks is None:
        raise ConfigValueError("datasets are mounted by the Mountpoint for S3 CSI driver, an EKS add-on.",
                               fix="add an eks block, or remove datasets.", path=("datasets",),
                               value=[d.name for d in stack.datasets])
    names: set[str] = set()
    paths = {stack.fsx.mount_path} if stack.fsx else set()
    for index, dataset in enumerate(stack.datasets):
        for key, value, seen in (("name", dataset.name, names), ("mountPath", dataset.mount_path, paths)):
            if value in seen:
                raise ConfigValueError(f"dataset {key} {value} is taken (datasets and fsx mount into one pod).",
                                       fix=f"give each dataset its own {key}.",
                                       path=("datasets", index, key), value=value)
            seen.add(value)
        stores = {g.name: g.instance.nvme_instance_store_gb or 0 for g in stack.node_groups}
        if dataset.cache_gib is not None and stores and min(stores.values()) < dataset.cache_gib * 1.074:
            group = min(stores, key=lambda name: stores[name])
            raise ConfigValueError(
                f"a {dataset.cache_gib} GiB cache does not fit the local NVMe instance store of node group "
                f"'{group}' ({stores[group]} GB; the catalog, from EC2 InstanceStorageInfo).",
                fix="lower cacheGiB, or remove it (no data cache) where a group has no instance store.",
                path=("datasets", index, "cacheGiB"), value=dataset.cache_gib)


def check_dataset_teams(stack: StackConfig) -> None:
    """A dataset given to teams names teams of the stack."""
    teams = [t.name for t in stack.scheduling.teams] if stack.scheduling is not None else []
    for index, dataset in enumerate(stack.datasets):
        for team_index, team in enumerate(dataset.teams or []):
            if team not in teams:
                raise ConfigValueError(
                    f"dataset '{dataset.name}' is given to team '{team}', which is no team of the stack "
                    f"(teams: {', '.join(teams) or 'none: no scheduling block'}).",
                    fix="name a team of scheduling.teams, or remove teams (every team reads it).",
                    path=("datasets", index, "teams", team_index), value=team)
