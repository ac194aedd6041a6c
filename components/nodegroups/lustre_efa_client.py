"""The Lustre client over EFA: what a node needs to reach an EFA-enabled FSx for Lustre file
system through its EFA devices instead of TCP.

The steps are the EKS User Guide's, "Optimize Amazon FSx for Lustre performance on nodes
(EFA)" (awsdocs/amazon-eks-user-guide latest/ug/storage/fsx-csi-tuning-efa.adoc): load LNet
with the EFA network driver (kefalnd) and the TCP one, keep TCP on the primary interface, add
EFA devices to an ``efa`` network (every fourth of a p5's 32, one per PCI bus; the first and
the last elsewhere), turn discovery on and prefer EFA (a UDSP rule), then load Lustre. They
run at boot, before the kubelet starts and the FSx CSI driver mounts anything.

Which devices are EFA devices: the guide counts every entry of ``/sys/class/infiniband``, but
that directory lists every RDMA device of the host, and on the Blackwell types NVIDIA's own
(mlx5, NVLink) sit beside the EFA ones, so its first entry need not be EFA at all. The script
takes the entries whose PCI device is bound to the ``efa`` driver
(``/sys/class/infiniband/<dev>/device/driver``), as the FSx for Lustre guide selects them
(https://docs.aws.amazon.com/fsx/latest/LustreGuide/configure-efa-clients.html); the driver
registers under that name (amzn/amzn-drivers kernel/linux/efa/src/efa.h@0041d2d0,
``DRV_MODULE_NAME "efa"``, the ``efa_pci_driver`` of efa_main.c@6fc63641). The positions the
guide picks (every fourth, first and last) are then taken among the EFA devices alone.

The guide also installs the EFA driver and the Lustre client where missing; the EKS-optimized
accelerated AMIs ship the EFA driver. The script runs only where the stack asked for Lustre over
EFA (``fsx.efa`` and an EFA group), so anything that keeps LNet off EFA fails it, with the reason
on stderr and in the kernel log: a missing EFA Lustre network driver, no EFA device, an interface
that holds no address, and every ``lnetctl`` step that exits non-zero (the guide checks none of
them, so LNet could come up on the wrong devices or none). Quietly staying on TCP would give a
fraction of the throughput the stack was sized and estimated for. A failed boot script is what
cloud-init reports for an EKS node and what fails a HyperPod lifecycle script, so it is seen.
"""

from __future__ import annotations

from .. import catalog

# The guide spreads a p5's LNet over 8 of its 32 EFA devices (one per PCI bus).
EVERY_FOURTH_FAMILIES = ("p5", "p5e")
INFINIBAND = "/sys/class/infiniband"
"""Where the kernel lists the host's RDMA devices, EFA and any other."""

_PREAMBLE = """#!/bin/bash
# trainstack: LNet over EFA for an EFA-enabled FSx for Lustre file system (EKS User Guide,
# fsx-csi-tuning-efa; EFA devices picked by their driver, as the FSx for Lustre guide does).
fail() {
  echo "trainstack: $1" >&2
  echo "trainstack: $1" > /dev/kmsg 2> /dev/null
  exit 1
}
lnetctl_or_fail() {
  lnetctl "$@" || fail "lnetctl $* failed (exit $?): LNet is not on EFA and FSx for Lustre would run over TCP; \
see lnetctl's message above and the kernel log (dmesg), or set fsx.efa: false"
}
"""

_MODULES = """eth_intf="$(/sbin/ip -br -4 a sh | grep "$(hostname -i)/" | awk '{print $1}')"
[[ -n "$eth_intf" ]] || fail "no interface holds this host's address ($(hostname -i)) for LNet's TCP network"
if ! /sbin/modprobe lnet || ! /sbin/modprobe kefalnd ipif_name="$eth_intf" || ! /sbin/modprobe ksocklnd; then
  fail "FSx for Lustre over EFA was asked for (fsx.efa) but this AMI has no EFA Lustre network driver (kefalnd): \
use an AMI whose Lustre client has it, or set fsx.efa: false"
fi
"""

# Every RDMA device whose PCI function the efa driver holds, in the directory's (sorted) order.
_EFA_DEVICES = f"""shopt -s nullglob
efa_devices=()
for device in {INFINIBAND}/*; do
  driver="$(readlink -f "$device/device/driver")"
  [[ "${{driver##*/}}" == efa ]] && efa_devices+=("${{device##*/}}")
done
(( ${{#efa_devices[@]}} )) || fail "no EFA device under {INFINIBAND} (none bound to the efa driver): \
check the node's EFA interfaces and driver, or set fsx.efa: false"
"""

_EVERY_FOURTH = """lnet_devices=()
for i in "${!efa_devices[@]}"; do
  (( i % 4 == 0 )) && lnet_devices+=("${efa_devices[i]}")
done
"""

_FIRST_AND_LAST = """lnet_devices=("${efa_devices[0]}")
(( ${#efa_devices[@]} > 1 )) && lnet_devices+=("${efa_devices[-1]}")
"""

_LNET = """lnetctl_or_fail lnet configure
# The guide's reset: fails harmlessly where no tcp network was configured yet.
lnetctl net del --net tcp 2> /dev/null
lnetctl_or_fail net add --net tcp --if "$eth_intf"
for intf in "${lnet_devices[@]}"; do
  lnetctl_or_fail net add --net efa --if "$intf" --peer-credits 32
done
lnetctl_or_fail set discovery 1
lnetctl_or_fail udsp add --src efa --priority 0
/sbin/modprobe lustre || fail "modprobe lustre failed: the Lustre client module did not load"
"""


def lustre_efa_client_script(instance: catalog.InstanceType) -> str:
    """A boot script that puts LNet on the instance's EFA devices, or fails saying why it cannot."""
    pick = _EVERY_FOURTH if instance.family in EVERY_FOURTH_FAMILIES else _FIRST_AND_LAST
    return _PREAMBLE + _MODULES + _EFA_DEVICES + pick + _LNET
