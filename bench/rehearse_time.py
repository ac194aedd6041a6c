"""How long `trainstack rehearse` takes, and how much memory the engines it starts hold at their peak.

Rehearses the checkout's fsdp-p5 stack (its p5 group grows from 2 to 16 nodes on the autoscaler
model) and the same stack with the group's maximum raised to 64, each as a new process
(`trainstack rehearse --json`), with the engines already built (engines/build.sh caches them;
the first run builds them and is not what this measures). Prints each phase's seconds from the
rehearsal's record, the whole command's wall time, and the peak resident memory of the command and every process it
starts (sampled each second from /proc), in all and per program.

    .venv/bin/python bench/rehearse_time.py [--nodes 16 64]
    .venv/bin/python bench/rehearse_time.py --quick     # fsdp-p5 at 16 nodes, its validation job only
    .venv/bin/python bench/rehearse_time.py --frontier 2048   # frontier-p5 at 2,048 nodes, as users rehearse it
    .venv/bin/python bench/rehearse_time.py --frontier 2048 --only trainjob   # its TrainJobs only

``--frontier N`` rehearses the shipped frontier-p5 stack with its pool of four reservations scaled to N nodes
(N/4 each; 2,048 is the stack as shipped): every node registered by kwok, the TrainJob on the whole pool admitted
by the real Kueue through topology-aware scheduling across the pool's managed node groups, every pod bound by the
real scheduler and Running; with ``--faults``, a node lost under it and every team at once. It prints the seconds
to all pods Running, the nodes per network block and the peak memory (the goals: under 10 minutes and 8 GiB on a
2-core machine; measured figures in docs/guides/frontier-p5.md). It runs `trainstack rehearse` with its default
waits, as users do (rehearsal/waits.py), never a longer ``--job-timeout``: a default too short for the stack fails
here first.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAINSTACK = Path(sys.executable).parent / "trainstack"


def project_with(directory: Path, nodes: int) -> Path:
    """The checkout's program as stack ``fsdp-p5`` with the p5 group's maximum at ``nodes`` (JSON is YAML)."""
    import yaml  # the virtualenv's: this script runs with trainstack installed

    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.fsdp-p5.yaml").read_text())
    config["config"]["trainstack:nodeGroups"][0]["maxSize"] = nodes
    (directory / "Pulumi.yaml").write_text(json.dumps({"name": "trainstack", "runtime": "python",
                                                       "main": str(ROOT / "stacks")}))
    (directory / "Pulumi.fsdp-p5.yaml").write_text(json.dumps(config))
    return directory


def frontier_with(directory: Path, nodes: int) -> Path:
    """The checkout's program as stack ``frontier-p5`` with its pool at ``nodes``, over its four reservations."""
    import yaml

    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.frontier-p5.yaml").read_text())
    pool = config["config"]["trainstack:nodeGroups"][0]
    pool.update(minSize=nodes, desiredSize=nodes, maxSize=nodes)
    for reservation in pool["capacity"]["reservations"]:
        reservation["instanceCount"] = -(-nodes // 4)
    scale = nodes / 2048  # the teams' guarantees shrink with the pool
    for team in config["config"]["trainstack:scheduling"]["teams"]:
        team["guaranteedNodes"] = {"p5": int(team["guaranteedNodes"]["p5"] * scale)}
    (directory / "Pulumi.yaml").write_text(json.dumps({"name": "trainstack", "runtime": "python",
                                                       "main": str(ROOT / "stacks")}))
    (directory / "Pulumi.frontier-p5.yaml").write_text(json.dumps(config))
    return directory


class MemorySampler(threading.Thread):
    """The resident memory of a process and every process under it, read from /proc each second: the sum at its
    peak, and each program's own peak (getrusage's children figure is the largest one child, not the sum)."""

    def __init__(self, root: int):
        super().__init__(daemon=True)
        self.root, self.stopped = root, threading.Event()
        self.peak_total_kib, self.peak_by_program = 0, dict[str, int]()

    def run(self) -> None:
        while not self.stopped.wait(1.0):
            sizes = _tree_rss(self.root)
            self.peak_total_kib = max(self.peak_total_kib, sum(sizes.values()))
            for (_, program), kib in sizes.items():
                self.peak_by_program[program] = max(self.peak_by_program.get(program, 0), kib)


def _tree_rss(root: int) -> dict[tuple[int, str], int]:
    """(pid, program) -> resident KiB of ``root`` and its descendants."""
    parents, found = {}, {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:  # gone while read
            continue
        pid = int(status.parent.name)
        parents[pid] = int(fields["PPid"])
        found[pid] = (fields["Name"].strip(), int(fields.get("VmRSS", "0 kB").split()[0]))
    tree, grew = {root}, True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree, grew = tree | children, bool(children)
    return {(pid, found[pid][0]): found[pid][1] for pid in tree if pid in found}


def measure(nodes: int, quick: bool, frontier: bool = False, faults: bool = False, only: tuple[str, ...] = ()) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        stack = "frontier-p5" if frontier else "fsdp-p5"
        project = (frontier_with if frontier else project_with)(Path(directory), nodes)
        command = [str(TRAINSTACK), "rehearse", "--stack", stack, "--cwd", str(project), "--json", "--quiet"]
        if quick:
            command += ["--only", "device-check"]
        for launcher in only:
            command += ["--only", launcher]
        if faults:
            command += ["--faults"]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sampler = MemorySampler(process.pid)
        sampler.start()
        out, err = process.communicate()
        sampler.stopped.set()
        wall = time.perf_counter() - started
        if process.returncode != 0:
            sys.exit(f"{' '.join(command)} exited {process.returncode}:\n{err[-3000:]}")
        record = json.loads(out)
        return {"wall": wall, "peakTreeMiB": sampler.peak_total_kib // 1024,
                "peakByProgramMiB": {name: kib // 1024 for name, kib in sorted(
                    sampler.peak_by_program.items(), key=lambda item: -item[1])}, **record}


def _memory_lines(result: dict) -> list[str]:
    programs = ", ".join(f"{name} {mib}" for name, mib in result["peakByProgramMiB"].items() if mib >= 50)
    return [f"  whole command {result['wall']:.1f} s; peak memory of the rehearsal and every process it started "
            f"{result['peakTreeMiB']} MiB (sampled each second)",
            f"  each program's own peak (MiB, 50 and over): {programs}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--quick", action="store_true", help="16 nodes, the validation job only: what CI runs")
    parser.add_argument("--frontier", type=int, metavar="NODES",
                        help="rehearse frontier-p5's pool at NODES nodes (2048 as shipped) instead")
    parser.add_argument("--faults", action="store_true",
                        help="with --frontier: a node lost under the whole-pool job, and two teams at once")
    parser.add_argument("--only", action="append", default=[],
                        help="with --frontier: rehearse only this launcher's jobs (trainstack rehearse --only)")
    args = parser.parse_args()
    if args.frontier:
        result = measure(args.frontier, quick=False, frontier=True, faults=args.faults, only=tuple(args.only))
        phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result["seconds"].items())
        print(f"frontier-p5 at {args.frontier} nodes: {len(result['jobs'])} jobs, ok={result['ok']}")
        for job in result["jobs"]:
            steps = ", ".join(f"{step} {seconds:.1f} s" for step, seconds in job["seconds"].items())
            print(f"  {job['id']}: {job.get('problem') or 'ran'} ({steps}; its default wait "
                  f"{job['wait']['seconds']:.0f} s: {job['wait']['why']})")
            if job.get("nodesPerBlock"):
                print("    nodes per network block: " + ", ".join(
                    f"{block.rsplit('=', 1)[1]} {count}" for block, count in job["nodesPerBlock"].items()))
        for fault in result["faults"]:
            print(f"  fault {fault['fault']}: {fault['outcome']}")
        print(f"  phases: {phases}")
        print("\n".join(_memory_lines(result)))
        return
    for nodes in [16] if args.quick else args.nodes:
        result = measure(nodes, args.quick)
        phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result["seconds"].items())
        print(f"fsdp-p5 at {nodes} nodes: {len(result['jobs'])} jobs, ok={result['ok']}")
        print(f"  phases: {phases}")
        print("\n".join(_memory_lines(result)))


if __name__ == "__main__":
    main()
