"""A stack whose accelerated groups are all on DRA cannot have the training operator as its one job operator: its
PyTorchJob cannot carry a device claim (config/checks/job_operators.py), so no training job could run. Refused before
any resource exists, with the key, the value and the operator that does claim the devices."""

import pytest
from trainstack.config import ConfigError, validate_stack_config

B200_DRA = {"name": "b200", "instanceType": "p6-b200.48xlarge", "minSize": 1, "desiredSize": 1, "maxSize": 2,
            "zone": "us-east-1a", "deviceAllocation": "dra"}
TRN1_DRA = {**B200_DRA, "name": "trn1", "instanceType": "trn1.32xlarge"}
P5 = {"name": "p5", "instanceType": "p5.48xlarge", "minSize": 0, "desiredSize": 0, "maxSize": 2, "zone": "us-east-1a"}


def stack(valid_config, *groups, **operators):
    return {**valid_config, "nodeGroups": list(groups), **({"operators": operators} if operators else {})}


def refusal(config):
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(config)
    (issue,) = raised.value.issues
    return issue


def test_the_training_operator_alone_on_dra_gpu_groups_is_refused_naming_trainer(valid_config):
    # trainingOperator is on by default: a stack file that names no operator gets it.
    issue = refusal(stack(valid_config, B200_DRA))
    assert (issue.path, issue.value) == ("trainstack:operators.trainingOperator", True)
    assert "resourceClaims[].resourceClaimTemplateName" in issue.message
    assert issue.fix.startswith("set operators.trainingOperator: false and operators.trainer: true")
    assert "mpiOperator" not in issue.fix


def test_on_dra_trainium_groups_the_fix_is_the_mpi_operator(valid_config):
    issue = refusal(stack(valid_config, TRN1_DRA, trainingOperator=True))
    assert issue.path == "trainstack:operators.trainingOperator"
    assert "operators.mpiOperator: true" in issue.fix and "operators.trainer" not in issue.fix


def test_the_mpi_operator_beside_it_does_not_help_a_dra_gpu_group(valid_config):
    # MPIJobs are trainstack's Neuron jobs: a GPU group still has no job that can claim its devices.
    assert refusal(stack(valid_config, B200_DRA, mpiOperator=True)).path == "trainstack:operators.trainingOperator"


@pytest.mark.parametrize("groups, operators", [
    ((B200_DRA,), {"trainer": True, "trainingOperator": False}),  # the shipped b200-dra: TrainJobs claim
    ((B200_DRA,), {"trainingOperator": False}),  # no job operator: only the device check, as asked
    ((B200_DRA, P5), {}),  # PyTorchJobs run on the device-plugin group
    ((TRN1_DRA,), {"trainingOperator": True, "mpiOperator": True}),  # MPIJobs claim the Neuron devices
], ids=["trainer", "no-operator", "beside-a-device-plugin-group", "trainium-with-mpi"])
def test_a_stack_some_job_can_claim_on_or_that_asks_for_no_operator_is_accepted(valid_config, groups, operators):
    assert validate_stack_config(stack(valid_config, *groups, **operators)).node_groups


def test_hyperpod_workers_in_the_cluster_keep_the_training_operator(valid_config):
    hyperpod = {"orchestrator": "eks", "clusterName": "ml-cluster",
                "workers": [{"name": "h100", "instanceType": "ml.p5.48xlarge", "count": 2}]}
    assert validate_stack_config({**stack(valid_config, B200_DRA), "hyperpod": hyperpod}).operators.training_operator
