"""The all-reduce program reads the transport from NCCL's own log and fails a job on an
EFA type whose NCCL runs over TCP sockets.

The log lines are real: the Socket run is this project's own (two NCCL hosts forced onto
sockets on an H200, NCCL 2.28.9, docs/validation/nccl-transport-h200.txt); the aws-ofi-nccl
lines are quoted from users' logs on p5en (NVIDIA/nccl issue 1597, NCCL 2.2x with
aws-ofi-nccl 1.1x: "Using network Libfabric"), p4d (NVIDIA/nccl issue 527, aws-ofi-nccl
1.4.0: "Using network AWS Libfabric") and an older NCCL that printed "Ring" lines
(NVIDIA/nccl issue 229). The formats are NCCL's src/init.cc and src/transport/net.cc at
v2.28.9-1 and aws-ofi-nccl's src/nccl_ofi_net.cpp at v1.19.2.
"""

import os
from pathlib import Path

import pytest
from trainstack.launch.programs import all_reduce
from trainstack.launch.programs.all_reduce import Transport, nccl_transport, transport_problem

SOCKET_RUN = (Path(__file__).resolve().parents[2] / "data" / "nccl" / "socket-two-hosts-h200.log").read_text()
P5EN_OFI = """\
8h200-2:6831:6840 [0] NCCL INFO NET/OFI Support for DMA-BUF registrations: false
8h200-2:6831:6840 [0] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.
8h200-2:6831:6840 [0] NCCL INFO Using network Libfabric
8h200-2:6831:6840 [0] NCCL INFO NET/OFI Selected Provider is efa (found 16 nics)
"""
P4D_OFI = """\
ip-10-216-179-87:417138:417176 [7] NCCL INFO NET/OFI Selected Provider is efa
ip-10-216-179-87:417138:417176 [7] NCCL INFO Using network AWS Libfabric
"""
OLD_RING = """\
ip-192-168-29-243:26465:26533 [0] NCCL INFO Ring 00 : 7 -> 8 [receive] via NET/AWS Libfabric/0
ip-192-168-29-243:26465:26533 [0] NCCL INFO Ring 00 : 8[0] -> 9[1] via P2P/IPC
"""
# aws-ofi-nccl loaded but libfabric offered only its TCP provider (no EFA device in the pod):
# the line format of src/nccl_ofi_net.cpp at v1.19.2.
OFI_ON_TCP = ("ip-10-0-1-5:71:80 [0] NCCL INFO NET/OFI Selected provider is tcp, fabric is 10.0.0.0/16 "
              "(found 1 nics)\n"
              "ip-10-0-1-5:71:80 [0] NCCL INFO Using network Libfabric\n")


def test_nccl_on_sockets_is_read_as_the_socket_network_with_every_connection_over_it():
    transport = nccl_transport(SOCKET_RUN.splitlines())
    assert transport == Transport(network="Socket", via_network=4, provider=None)
    assert transport.describe() == "NCCL network Socket, 4 connection(s) over it"


@pytest.mark.parametrize("log, network", [(P5EN_OFI, "Libfabric"), (P4D_OFI, "AWS Libfabric")])
def test_aws_ofi_nccl_is_read_under_both_names_it_registers_with_its_efa_provider(log, network):
    assert nccl_transport(log.splitlines()) == Transport(network=network, via_network=0, provider="efa")


def test_connections_over_the_network_are_counted_and_nvlink_ones_are_not():
    assert nccl_transport(OLD_RING.splitlines()) == Transport(network="AWS Libfabric", via_network=1, provider=None)


def test_an_efa_job_across_nodes_on_sockets_fails_with_the_reason():
    problem = transport_problem(nccl_transport(SOCKET_RUN.splitlines()), "efa", nodes=2)
    assert problem is not None and "NCCL used its Socket network, not aws-ofi-nccl over EFA" in problem


def test_sockets_between_processes_of_one_node_fail_too_once_nccl_routes_them_over_its_network():
    # NCCL_P2P_DISABLE/NCCL_SHM_DISABLE on one node: the connections go "via NET/Socket".
    assert transport_problem(nccl_transport(SOCKET_RUN.splitlines()), "efa", nodes=1) is not None


def test_aws_ofi_nccl_over_efa_passes_across_nodes():
    assert transport_problem(nccl_transport(P5EN_OFI.splitlines()), "efa", nodes=2) is None
    assert transport_problem(nccl_transport(P4D_OFI.splitlines()), "efa", nodes=4) is None


def test_aws_ofi_nccl_on_libfabrics_tcp_provider_is_not_efa():
    problem = transport_problem(nccl_transport(OFI_ON_TCP.splitlines()), "efa", nodes=2)
    assert problem is not None and "provider tcp, not efa" in problem


def test_no_network_reported_across_nodes_is_a_failure_not_a_guess():
    assert "NCCL reported no network" in transport_problem(Transport(None, 0, None), "efa", nodes=2)


def test_without_an_efa_expectation_or_any_network_traffic_the_transport_is_not_judged():
    sockets = nccl_transport(SOCKET_RUN.splitlines())
    assert transport_problem(sockets, "any", nodes=2) is None
    # One node, every connection over NVLink: NCCL's choice of network carried nothing.
    assert transport_problem(Transport("Socket", 0, None), "efa", nodes=1) is None


def test_the_wrong_transport_is_its_own_exit_code_and_outranks_a_missed_floor():
    assert all_reduce.verdict(14.8, 1.0, sum_correct=True, transport_ok=False) == all_reduce.WRONG_TRANSPORT == 3
    assert all_reduce.verdict(0.1, 1.0, sum_correct=True, transport_ok=False) == 3
    assert all_reduce.verdict(0.1, 1.0, sum_correct=False, transport_ok=False) == all_reduce.WRONG_SUM
    line = all_reduce.report(14.8, 1, None, "", 2, 2, 3, "NCCL network Socket, 4 connection(s) over it", "why")
    assert line.endswith("floor 1 Gbit/s; NCCL network Socket, 4 connection(s) over it: FAIL: wrong transport: why")


def test_each_rank_has_nccl_log_to_its_own_file_which_the_program_then_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for name in ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE"):
        monkeypatch.delenv(name, raising=False)
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    path = all_reduce.log_nccl_to_file("3")
    assert (os.environ["NCCL_DEBUG"], os.environ["NCCL_DEBUG_SUBSYS"]) == ("INFO", "INIT,NET")
    assert os.environ["NCCL_DEBUG_FILE"] == path and Path(path).parent == tmp_path and ".3." in Path(path).name
    assert all_reduce.read_transport(path) == Transport(None, 0, None)  # NCCL wrote nothing yet
    Path(path).write_text(P5EN_OFI)
    assert all_reduce.read_transport(path).provider == "efa"


def test_the_network_expectation_is_an_argument_defaulting_to_any():
    assert all_reduce.parse_args(["--floor-gbps", "1"]).network == "any"
    assert all_reduce.parse_args(["--floor-gbps", "1", "--network", "efa"]).network == "efa"
    with pytest.raises(SystemExit):
        all_reduce.parse_args(["--floor-gbps", "1", "--network", "ib"])


# The channel lines in the format of NCCL's src/transport/net.cc (v2.28.9-1, sendSetup and recvSetup):
# "/GDRDMA" when the NIC reads and writes GPU memory itself; users' p5 logs on EKS show the same.
OFI_WITH_GDR = P5EN_OFI + (
    "8h200-2:6831:6840 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Libfabric/0/GDRDMA\n"
    "8h200-2:6831:6840 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA\n"
    "8h200-2:6831:6840 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/Libfabric/1(3)/GDRDMA\n")
OFI_STAGED = P5EN_OFI + (
    "8h200-2:6831:6840 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Libfabric/0\n"
    "8h200-2:6831:6840 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA\n")


def test_connections_with_gpudirect_rdma_are_counted():
    assert nccl_transport(OFI_WITH_GDR.splitlines()) == Transport("Libfabric", 3, "efa", via_gdr=3)
    assert nccl_transport(OFI_STAGED.splitlines()).via_gdr == 1


def test_on_a_type_with_gpudirect_rdma_efa_without_it_fails_with_the_reason():
    assert transport_problem(nccl_transport(OFI_WITH_GDR.splitlines()), "efa", nodes=2, rdma=True) is None
    problem = transport_problem(nccl_transport(OFI_STAGED.splitlines()), "efa", nodes=2, rdma=True)
    assert problem is not None and problem.startswith("1 of 2 connection(s) over EFA without GPUDirect RDMA")


def test_on_a_type_without_gpudirect_rdma_efa_alone_passes():
    assert transport_problem(nccl_transport(OFI_STAGED.splitlines()), "efa", nodes=2, rdma=False) is None
