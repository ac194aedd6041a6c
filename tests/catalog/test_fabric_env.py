"""The EFA environment per accelerator and instance family: aws-ofi-nccl's settings for GPUs, with
FI_EFA_USE_DEVICE_RDMA=1 exactly on the families with GPUDirect RDMA (p4d, p4de, p5, p5e, p5en,
p6), never on EFA GPU types without it (g5, g6, g6e), where the EFA provider would refuse to open;
Neuron's sample settings on Trainium; nothing without EFA."""

import pytest
from trainstack import catalog
from trainstack.catalog.fabric_env import NCCL_EFA_ENV, NEURON_EFA_ENV, efa_env, gpudirect_rdma

RDMA = ("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge")
NO_RDMA = ("g5.48xlarge", "g6.48xlarge", "g6e.48xlarge", "g4dn.metal")


@pytest.mark.parametrize("name", RDMA)
def test_gpu_types_with_gpudirect_rdma_get_fi_efa_use_device_rdma(name):
    interfaces = catalog.get(name).efa.max_interfaces
    assert interfaces, f"{name} has EFA"
    assert efa_env("nvidia-gpu", interfaces, name) == {**NCCL_EFA_ENV, "FI_EFA_USE_DEVICE_RDMA": "1",
                                                        "NCCL_DEBUG": "INFO"}
    assert efa_env("nvidia-gpu", interfaces, name)["FI_PROVIDER"] == "efa"


@pytest.mark.parametrize("name", NO_RDMA)
def test_efa_gpu_types_without_gpudirect_rdma_never_get_it(name):
    interfaces = catalog.get(name).efa.max_interfaces
    assert interfaces, f"{name} has EFA"
    assert "FI_EFA_USE_DEVICE_RDMA" not in efa_env("nvidia-gpu", interfaces, name)
    assert efa_env("nvidia-gpu", interfaces, name) == {**NCCL_EFA_ENV, "NCCL_DEBUG": "INFO"}


def test_hyperpod_names_are_judged_by_their_ec2_type():
    assert gpudirect_rdma("ml.p5.48xlarge") and not gpudirect_rdma("ml.g5.48xlarge")


def test_trainium_keeps_neurons_settings_and_no_efa_means_no_settings():
    assert efa_env("neuron", 8, "trn1.32xlarge") == NEURON_EFA_ENV
    assert efa_env("nvidia-gpu", 0, "p5.48xlarge") == {}


def test_a_rank_on_the_hosts_network_gets_the_same_settings_less_the_pods_interface_name():
    assert efa_env("neuron", 8, "trn1.32xlarge", host_network=True) == {
        "FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_EFA_FORK_SAFE": "1"}
    assert efa_env("nvidia-gpu", 32, "p5.48xlarge", host_network=True) == efa_env("nvidia-gpu", 32, "p5.48xlarge")
