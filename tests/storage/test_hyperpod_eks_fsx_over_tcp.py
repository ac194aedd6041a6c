"""HyperPod on EKS beside an EFA-enabled FSx: its nodes get no LNet-over-EFA setup from trainstack (EKS
node groups get it in user data, Slurm instance groups in lifecycle scripts), so the plan says in one
line that they mount over TCP, and the checkpoint estimate counts their writes at TCP's rate."""

import copy

from support.plan_records import stack_config
from support.scratch import plan_config
from trainstack.config import validate_stack_config


def hyperpod_eks_with_efa_fsx():
    config = {key.split(":", 1)[1]: value for key, value in copy.deepcopy(stack_config("hyperpod-eks")).items()}
    config["fsx"].update(efa=True, storageCapacityGiB=4800, perUnitStorageThroughput=1000)
    config["fsx"]["checkpoints"] = {"sizeGB": 500, "intervalMinutes": 60}
    return config


def test_the_plan_says_hyperpods_eks_nodes_mount_the_efa_file_system_over_tcp(tmp_path):
    plan = plan_config(tmp_path, "hp", hyperpod_eks_with_efa_fsx())
    said = [d["message"] for d in plan.diagnostics if "mount this file system over TCP" in d["message"]]
    assert len(said) == 1 and said[0].count("\n") == 0


def test_their_checkpoint_writes_are_estimated_over_tcp():
    config = validate_stack_config(hyperpod_eks_with_efa_fsx())
    assert config.hyperpod_fsx_over_tcp
    assert config.checkpoint_writers == {"instance_type": "ml.p5.48xlarge", "count": 2, "efa": False}
