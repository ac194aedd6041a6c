"""The Lustre client over EFA: what a node needs to reach an EFA-enabled FSx for Lustre file
system through its EFA devices instead of TCP.

The steps are the EKS User Guide's, "Optimize Amazon FSx for Lustre performance on nodes
(EFA)" (awsdocs/amazon-eks-user-guide latest/ug/storage/fsx-csi-tuning-efa.adoc): load LNet
with the EFA network driver (kefalnd) and the TCP one, keep TCP on the primary interface, add
EFA devices to an ``efa`` network (every fourth of a p5's 32, one per PCI bus; the first and
the last elsewhere), turn discovery on and prefer EFA (a UDSP rule), then load Lustre. They
run at boot, before the kubelet starts and the FSx CSI driver mounts anything.

The guide also installs the EFA driver and the Lustre client where missing; the EKS-optimized
accelerated AMIs ship the EFA driver. The script runs only where the stack asked for Lustre over
EFA (``fsx.efa`` and an EFA group), so a node whose AMI lacks the EFA Lustre network driver fails
the script, with the reason on stderr and in the kernel log: quietly staying on TCP would give a
fraction of the throughput the stack was sized and estimated for. A failed boot script is what
cloud-init reports for an EKS node and what fails a HyperPod lifecycle script, so it is seen.
"""

from __future__ import annotations

from .. import catalog

# The guide spreads a p5's LNet over 8 of its 32 EFA devices (one per PCI bus).
EVERY_FOURTH_FAMILIES = ("p5", "p5e")


def lustre_efa_client_script(instance: catalog.InstanceType) -> str:
    """A boot script that puts LNet on the instance's EFA devices."""
    if instance.family in EVERY_FOURTH_FAMILIES:
        devices = "$(ls -1 /sys/class/infiniband | awk 'NR % 4 == 1')"
    else:
        devices = "$(ls -1 /sys/class/infiniband | sed -n '1p;$p' | sort -u)"
    return "\n".join([
        "#!/bin/bash",
        "# trainstack: LNet over EFA for an EFA-enabled FSx for Lustre file system (EKS User Guide,",
        "# fsx-csi-tuning-efa).",
        "eth_intf=\"$(/sbin/ip -br -4 a sh | grep \"$(hostname -i)/\" | awk '{print $1}')\"",
        "if ! /sbin/modprobe lnet || ! /sbin/modprobe kefalnd ipif_name=\"$eth_intf\" || ! /sbin/modprobe ksocklnd; "
        "then",
        "  reason='trainstack: FSx for Lustre over EFA was asked for (fsx.efa) but this AMI has no EFA Lustre "
        "network driver (kefalnd): use an AMI whose Lustre client has it, or set fsx.efa: false'",
        "  echo \"$reason\" >&2",
        "  echo \"$reason\" > /dev/kmsg 2> /dev/null",
        "  exit 1",
        "fi",
        "lnetctl lnet configure",
        "lnetctl net del --net tcp 2> /dev/null",
        "lnetctl net add --net tcp --if \"$eth_intf\"",
        f"for intf in {devices}; do",
        "  lnetctl net add --net efa --if \"$intf\" --peer-credits 32",
        "done",
        "lnetctl set discovery 1",
        "lnetctl udsp add --src efa --priority 0",
        "/sbin/modprobe lustre",
        "",
    ])
