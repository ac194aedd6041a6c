"""The Lustre-over-EFA boot script runs only where the stack asked for Lustre over EFA, so a node
whose AMI lacks the EFA Lustre network driver (kefalnd) fails it loudly, with the reason, instead of
quietly staying on TCP. Run here with bash, modprobe replaced by one that finds no such module."""

import shutil
import subprocess

import pytest
from trainstack import catalog
from trainstack.nodegroups.lustre_efa_client import lustre_efa_client_script


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_without_the_efa_lustre_driver_the_script_fails_with_the_reason(tmp_path):
    modprobe = tmp_path / "modprobe"
    modprobe.write_text("#!/bin/bash\n[ \"$1\" = kefalnd ] && { echo 'modprobe: FATAL: Module kefalnd not found' >&2;"
                        " exit 1; }\nexit 0\n")
    modprobe.chmod(0o755)
    lnetctl = tmp_path / "called-lnetctl"
    script = lustre_efa_client_script(catalog.get("p5.48xlarge")).replace("/sbin/modprobe", str(modprobe))
    script = script.replace("lnetctl ", f"touch {lnetctl}; true ")
    ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert ran.returncode == 1
    assert "FSx for Lustre over EFA was asked for (fsx.efa) but this AMI has no EFA Lustre network driver" \
        in ran.stderr
    assert not lnetctl.exists()  # nothing configured half-way
