"""The all-reduce program's arithmetic and verdict, without a GPU (torch is imported
only when the program runs)."""

import py_compile
from pathlib import Path

import pytest
from trainstack.launch.programs import all_reduce

GIB = 1024 ** 3


def test_the_program_compiles_and_imports_without_torch(tmp_path):
    py_compile.compile(str(Path(all_reduce.__file__)), cfile=str(tmp_path / "x.pyc"), doraise=True)
    assert "torch" not in all_reduce.__dict__


def test_bus_bandwidth_is_nccl_tests_figure_in_gigabits():
    # 1 GiB over 2 ranks in 3.29 ms: each rank sent 1 GiB (2 * 1/2), 2611 Gbit/s.
    assert all_reduce.bus_gbps(GIB, 3.29e-3, 2) == pytest.approx(GIB * 8 / 3.29e-3 / 1e9)
    # Over 8 ranks each sends 2 * 7/8 of the message.
    assert all_reduce.bus_gbps(GIB, 1.0, 8) == pytest.approx(GIB * 1.75 * 8 / 1e9)


@pytest.mark.parametrize("measured, correct, code", [
    (1800.0, True, 0), (2600.0, True, 0), (1799.9, True, 1), (2600.0, False, 2),
])
def test_one_verdict_from_the_measured_figure_the_floor_and_the_sum(measured, correct, code):
    assert all_reduce.verdict(measured, 1800.0, sum_correct=correct) == code


def test_the_report_puts_measured_expected_and_floor_side_by_side():
    line = all_reduce.report(2614.3, 1800, 3600, "NVLink 4 peak, estimate", world=2, nodes=1, code=0,
                             transport="NCCL network Socket, 0 connection(s) over it")
    assert line == ("all-reduce bus bandwidth 2614.3 Gbit/s over 2 GPUs on 1 node(s); expected about "
                    "3600 Gbit/s (NVLink 4 peak, estimate); floor 1800 Gbit/s; NCCL network Socket, 0 connection(s) "
                    "over it: PASS")
    assert all_reduce.report(900, 1800, None, "", 16, 2, 1).endswith("no expected figure; floor 1800 Gbit/s; "
                                                                      "transport not read: FAIL: below the floor")


def test_the_floor_is_a_required_argument():
    with pytest.raises(SystemExit):
        all_reduce.parse_args([])
    assert all_reduce.parse_args(["--floor-gbps", "1800"]).megabytes == 1024
