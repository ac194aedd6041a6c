"""The benchmark scripts in bench/ run at their small size (``--quick``) and print their figures, so they cannot
rot while the code they time changes; their full sizes are run by hand (CONTRIBUTING: Run the benchmarks)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from trainstack.rehearsal import engines

BENCH = Path(__file__).resolve().parents[1] / "bench"

FIGURES = {
    "cli_time.py": [r"import floor +\d+\.\d+ s .* 1\.0 x floor", r"plan --stack dev +\d+\.\d+ s .* x floor",
                    r"plan --stack frontier-p5 +\d+\.\d+ s .* x floor", r"plan, 2 groups +\d+\.\d+ s .* x floor",
                    r"frontier-p5 / dev: \d+\.\d\d x \(-?\d+\.\d\d x above the floor; goal: at most 1\.5 x\): "
                    r"(met|NOT met)"],
    "deploy_time.py": [r"fsdp-p5-layer: \d+ resources, 1 run\(s\)", r"offline plan +\d+\.\d\d s",
                       r"up +\d+\.\d\d s", r"no-op up +\d+\.\d\d s", r"destroy +\d+\.\d\d s"],
    "diff_time.py": [r"2 groups: \d+ -> \d+ resources", r"compare +\d+\.\d ms", r"sarif report +\d+\.\d ms",
                     r"a new process +\d+\.\d ms"],
    "doctor_time.py": [r"dev: \d+ nodes registered and Ready", r"doctor runs: \d+\.\d\d s, \d+\.\d\d s, \d+\.\d\d s; ",
                       r"slowest \d+\.\d\d s against the goal of under 30 s at 2,048 nodes: (met|NOT met)"],
    "efa_exposure.py": [r"p4d\.24xlarge +4 +4 +100%", r"p5\.48xlarge +32 +32 +100%", r"trn1\.32xlarge +8 +8 +100%"],
    "plan_growth.py": [r"\n +1 +\d+ +\d+\.\d\d +\d+\.\d{3} +\d+", r"\n +2 +\d+ +\d+\.\d\d +\d+\.\d{3} +\d+"],
    "plan_time.py": [r"stack 'dev' \(\d+ resources\), 1 runs", r"cold +\d+\.\d{3}s", r"warm +\d+\.\d{3}s"],
    "rehearse_time.py": [r"fsdp-p5 at 16 nodes: 1 jobs, ok=True", r"phases: engines \d+\.\d s, controlPlane \d+\.\d s",
                         r"whole command \d+\.\d s; peak memory of the rehearsal and every process it started \d+ MiB",
                         r"each program's own peak \(MiB, 50 and over\): kube-apiserver \d+"],
    "report_time.py": [r"2 groups: \d+ resources in the record, \d+ drawn", r"report with a base +median \d+\.\d\d s",
                       r"whole command, new process: \d+\.\d\d s", r"drawn in headless Chromium: median \d+\.\d\d s",
                       r"frontier-p5: \d+ resources, 14 overview boxes, \d+\.\d MB, made in \d+\.\d\d s",
                       r"overview drawn in headless Chromium: median \d+\.\d\d s, .*goal: under 1 s: (met|NOT met)"],
}
"""What each script prints at its small size: every figure it exists for."""


def test_every_benchmark_script_is_run_here() -> None:
    assert sorted(p.name for p in BENCH.glob("*.py")) == sorted(FIGURES), \
        "a script in bench/ needs --quick and its figures in FIGURES"


STARTS_ENGINES = {"deploy_time.py": engines.DEPLOY, "rehearse_time.py": engines.REHEARSAL,
                  "doctor_time.py": engines.REHEARSAL}
"""The scripts that time real engines (the Pulumi CLI, the rehearsal's controllers), and those engines."""


@pytest.mark.parametrize("script", [
    pytest.param(script, marks=[pytest.mark.engines(*STARTS_ENGINES[script])] if script in STARTS_ENGINES else [])
    for script in sorted(FIGURES)])
def test_the_benchmark_runs_at_its_small_size_and_prints_its_figures(script: str) -> None:
    result = subprocess.run([sys.executable, str(BENCH / script), "--quick"], capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, f"bench/{script} --quick exited {result.returncode}:\n{result.stderr}"
    missing = [figure for figure in FIGURES[script] if not re.search(figure, result.stdout)]
    assert not missing, f"bench/{script} --quick printed no {missing}:\n{result.stdout}"
