"""The one-node default floor sits between what a healthy multi-GPU node and a broken one measured on real H100s
(docs/validation/all-reduce-floor-h100x4.txt, issue 57): every healthy run clears it, every run without peer-to-peer
or over sockets falls below it. Read from the transcript itself, so a floor moved past a measured figure fails."""

import re
from pathlib import Path

from trainstack.launch.floors import default_floor

TRANSCRIPT = Path(__file__).resolve().parents[2] / "docs" / "validation" / "all-reduce-floor-h100x4.txt"
CASE = re.compile(r"^== (\d) GPUs, (healthy|no-p2p|sockets):")
MEASURED = re.compile(r"^all-reduce bus bandwidth ([0-9.]+) Gbit/s over (\d) GPUs")


def measured_runs() -> list[tuple[str, int, float]]:
    runs, case = [], None
    for line in TRANSCRIPT.read_text().splitlines():
        if found := CASE.match(line):
            case = found.group(2)
        elif (found := MEASURED.match(line)) and case is not None:
            runs.append((case, int(found.group(2)), float(found.group(1))))
    return runs


def test_the_transcript_holds_two_runs_of_each_case_on_2_and_4_gpus():
    runs = measured_runs()
    assert sorted({(case, gpus) for case, gpus, _ in runs}) == sorted(
        (case, gpus) for case in ("healthy", "no-p2p", "sockets") for gpus in (2, 4))
    assert len(runs) == 12


def test_every_healthy_run_clears_the_p5_floor_and_every_broken_one_falls_below_it():
    for case, gpus, gbps in measured_runs():
        floor = default_floor("p5.48xlarge", nodes=1, gpus_per_node=gpus)
        if case == "healthy":
            assert gbps > floor.gbps * 1.4, (case, gpus, gbps, floor)
        else:
            assert gbps < floor.gbps / 5, (case, gpus, gbps, floor)
