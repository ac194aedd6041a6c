"""The loopback ports the rehearsal hands its engines: picked some seconds before the engine binds
them, so they must be ports nothing else on the machine is handed in the meantime."""

import socket

import pytest
from trainstack.rehearsal import control_plane
from trainstack.rehearsal.control_plane import free_port


def test_ports_come_from_below_the_kernels_ephemeral_range_where_no_port_0_bind_lands() -> None:
    ephemeral = control_plane._ephemeral_ports()
    ports = [free_port() for _ in range(50)]
    assert all(control_plane.LOWEST_PORT <= port < ephemeral.start for port in ports), ports


def test_a_port_is_never_handed_out_twice_in_one_process() -> None:
    ports = [free_port() for _ in range(500)]
    assert len(set(ports)) == len(ports)


def test_a_port_something_listens_on_is_never_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", free_port()))
        listener.listen()
        taken = listener.getsockname()[1]
        control_plane._handed_out.discard(taken)  # as if another process had picked it
        picks, choose = iter([taken, taken]), control_plane.random.choice
        monkeypatch.setattr(control_plane.random, "choice", lambda ports: next(picks, None) or choose(ports))
        assert free_port() != taken
        assert next(picks, None) is None  # both picks of the taken port were tried and passed over


def test_rehearsals_side_by_side_each_pick_from_the_range_they_are_given(monkeypatch: pytest.MonkeyPatch) -> None:
    # Below the rehearsal's own range (from LOWEST_PORT), where no engine of a parallel test worker listens.
    monkeypatch.setenv(control_plane.PORTS_VARIABLE, "9900-9904")
    picked: set[int] = set()
    with pytest.raises(RuntimeError, match="no free loopback port in 9900-9904"):
        for _ in range(6):
            picked.add(free_port())
    assert picked and picked <= set(range(9900, 9905))
