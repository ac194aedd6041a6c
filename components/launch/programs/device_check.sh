#!/bin/sh
# Does this pod see the accelerators and EFA devices its node group advertises?
# Usage: device_check.sh KIND ACCELERATORS EFA_DEVICES [fabric] [import:MODULE:FIX ...]
#   KIND is nvidia-gpu or neuron; the counts are what the pod asked for.
#   fabric: also check each GPU's NVLink fabric registration (NVSwitch types, Hopper and later).
#   import:MODULE:FIX: the image's Python must import MODULE (what the job's rendezvous needs beyond
#     torch); FIX is what the failure line tells the user to do.
#   EFA_DEVICE_DIR (default /dev/infiniband) is where the EFA devices appear.
#   MEMINFO (default /proc/meminfo) gives the node's memory, the locked-memory limit's threshold.
# Prints one line per check; exits 0 only when every check passes.
set -u

kind=$1
expected_accelerators=$2
expected_efa=$3
shift 3
fabric=""
for option in "$@"; do
    [ "$option" = "fabric" ] && fabric=fabric
done
efa_dir=${EFA_DEVICE_DIR:-/dev/infiniband}
status=0

if [ "$kind" = "nvidia-gpu" ]; then
    # One line per GPU. `nvidia-smi -L` would also list each MIG device under its GPU.
    found=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
else
    found=$(find /dev -maxdepth 1 -name 'neuron[0-9]*' | wc -l)
fi
echo "accelerators ($kind): $found of $expected_accelerators"
[ "$found" -eq "$expected_accelerators" ] || status=1

# The EFA device plugin hands a pod the devices it requested (vpc.amazonaws.com/efa)
# as /dev/infiniband/uverbsN; /sys/class/infiniband lists every device of the host
# (and on p6-b200 NVLink's ibp devices too), so it is not what the pod was given.
efa=$(find "$efa_dir" -maxdepth 1 -name 'uverbs*' 2>/dev/null | wc -l)
if [ "$expected_efa" -eq 0 ]; then
    echo "EFA devices: none expected ($efa in $efa_dir)"
elif [ "$efa" -eq 0 ]; then
    echo "EFA devices: 0 of $expected_efa: EFA ABSENT, no $efa_dir/uverbs* in this pod" \
        "(no vpc.amazonaws.com/efa devices were given to it: is the EFA device plugin running on an EFA node?)"
    status=1
else
    echo "EFA devices: $efa of $expected_efa ($efa_dir/uverbs*)"
    [ "$efa" -eq "$expected_efa" ] || status=1
    if command -v fi_info >/dev/null 2>&1; then
        # libfabric's view: one RDM domain per EFA device it can open.
        usable=$(fi_info -p efa -t FI_EP_RDM 2>/dev/null | awk '$1 == "domain:" {print $2}' | sort -u | wc -l)
        echo "libfabric EFA domains: $usable of $efa"
        [ "$usable" -eq "$efa" ] || status=1
    else
        echo "libfabric EFA domains: not checked (no fi_info in the image)"
    fi
fi

# Locked memory: libfabric's EFA provider registers (pins) its buffers and the job's, and the kernel refuses a
# registration past RLIMIT_MEMLOCK (a pod cannot add IPC_LOCK under Baseline Pod Security). containerd's
# default is 8 MiB. Bottlerocket sets unlimited when EFA is attached (bottlerocket-core-kit v3.1.0,
# sources/api/schnauzer/src/helpers/mod.rs); a limit of at least the node's memory is the same, since a pod cannot
# pin more than the node has. trainstack's EFA nodes set 8 PiB (catalog/efa_node.py). So: unlimited, or at least
# MemTotal, passes; below it fails when the pod expects EFA devices.
# ulimit -l is outside POSIX, but dash, bash and busybox ash, the shells of training images, all have it.
# shellcheck disable=SC3045
locked=$(ulimit -l 2>/dev/null)
if [ "$locked" = "unlimited" ]; then
    echo "locked memory (ulimit -l): unlimited"
elif ! [ "$locked" -ge 0 ] 2>/dev/null; then
    echo "locked memory (ulimit -l): unknown, this shell printed '$locked'"
    [ "$expected_efa" -eq 0 ] || status=1
else
    node_kib=$(awk '$1 == "MemTotal:" {print $2}' "${MEMINFO:-/proc/meminfo}" 2>/dev/null)
    if [ -z "$node_kib" ]; then
        echo "locked memory (ulimit -l): $locked KiB (node memory unknown: no MemTotal in ${MEMINFO:-/proc/meminfo})"
        [ "$expected_efa" -eq 0 ] || status=1
    elif [ "$locked" -ge "$node_kib" ]; then
        echo "locked memory (ulimit -l): $locked KiB, at least the node's $node_kib KiB"
    elif [ "$expected_efa" -eq 0 ]; then
        echo "locked memory (ulimit -l): $locked KiB, below the node's $node_kib KiB (no EFA expected)"
    else
        echo "locked memory (ulimit -l): $locked KiB: TOO LOW FOR EFA, below the node's $node_kib KiB" \
            "(EFA memory registration fails past it: raise RLIMIT_MEMLOCK node-side, in containerd's base runtime" \
            "spec, nodeadm NodeConfig spec.containerd.baseRuntimeSpec, as trainstack's EFA node groups do)"
        status=1
    fi
fi

if [ "$fabric" = "fabric" ]; then
    # On NVSwitch systems Fabric Manager registers each GPU in the NVLink fabric; until it has, CUDA does not start
    # there. nvidia-smi reports the registration per GPU: fabric.state ("Current state of GPU fabric registration
    # process") and fabric.status ("Error status, valid only if gpu fabric registration state is completed"), in
    # `nvidia-smi --help-query-gpu` of driver 580.159.04; a healthy H200 host prints "Completed, Success" for each.
    if states=$(nvidia-smi --query-gpu=index,fabric.state,fabric.status --format=csv,noheader 2>&1); then
        unready=$(echo "$states" | awk -F', *' '$2 != "Completed" || $3 != "Success"')
        if [ -z "$unready" ]; then
            echo "fabric manager: every GPU's NVLink fabric registration Completed, Success"
        else
            echo "fabric manager: FABRIC NOT READY, GPU index, state, status: $(echo "$unready" | tr '\n' ';')" \
                "(is nvidia-fabricmanager running on the node?)"
            status=1
        fi
    else
        echo "fabric manager: not checked (nvidia-smi reports no fabric.state: $states)"
    fi
fi

# The job's own image, as its workers will run it: a module its rendezvous imports and the image lacks
# fails every worker at rendezvous, so it fails here first.
python=$(command -v python3 || command -v python || true)
for option in "$@"; do
    case $option in
        import:*) ;;
        *) continue ;;
    esac
    wanted=${option#import:}
    module=${wanted%%:*}
    fix=${wanted#*:}
    if [ -z "$python" ]; then
        echo "python module $module: IMPORT FAILED, no python3 or python in this image: $fix"
        status=1
    elif error=$("$python" -c "import $module" 2>&1); then
        echo "python module $module: imports ($python)"
    else
        echo "python module $module: IMPORT FAILED ($(echo "$error" | tail -n 1)): $fix"
        status=1
    fi
done

if [ "$status" -eq 0 ]; then echo "device check: PASS"; else echo "device check: FAIL"; fi
exit "$status"
