#!/bin/bash
# trainstack issue 57: the all-reduce validation job's one-node floor on a multi-GPU host, healthy and broken.
#
# Runs components/launch/programs/all_reduce.py as the validation job runs it (torchrun, one process per GPU,
# --megabytes 1024 --iterations 20, the floor and peak launch/floors.py gives the node's GPU model for one node),
# on 2 and 4 GPUs of the host (and 8 where the host has them), in three cases:
#   healthy    NCCL as it comes (NVLink peer-to-peer)
#   no-p2p     NCCL_P2P_DISABLE=1: no peer-to-peer, every message staged through host shared memory
#   sockets    NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket: TCP sockets over loopback
# NVLink multicast stays off (the device machines' rule). Each case's NCCL log is kept and its transports counted.
#
# Usage (from the repository root, on the GPU host): bash docs/validation/all-reduce-floor.sh FLOOR_GBPS PEAK_GBPS
set -u
FLOOR=${1:?floor in Gbit/s (launch/floors.py default_floor for one node)}
PEAK=${2:?peak in Gbit/s}
LOGS=${LOGS:-/tmp/all-reduce-floor}
PROGRAM=components/launch/programs/all_reduce.py
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
echo "== device"
nvidia-smi -L
nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
nvidia-smi topo -m
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "gpus", torch.cuda.device_count())'
GPUS=$(python3 -c 'import torch; print(torch.cuda.device_count())')
ARGS=(--floor-gbps "$FLOOR" --expected-gbps "$PEAK" --basis one-node-default --megabytes 1024 --iterations 20)
run_case() {  # gpus case VAR=value...
  local gpus=$1 case=$2; shift 2
  local dir="$LOGS/$gpus-$case"; mkdir -p "$dir"
  echo "== $gpus GPUs, $case: $*"
  env "$@" CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((gpus - 1))) NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET \
    TMPDIR="$dir" torchrun --standalone --nproc-per-node "$gpus" "$PROGRAM" "${ARGS[@]}" 2>&1 \
    | grep -v -E "^W[0-9]{4}|OMP_NUM_THREADS|^\*+$" | grep -E "all-reduce|FAIL|Error|error" | head -5
  echo "exit code: ${PIPESTATUS[0]}"
  echo "NCCL transports (rank logs, channel lines): $(cat "$dir"/* 2>/dev/null | grep -o -E 'via (P2P/[A-Za-z]+|SHM|NET/[A-Za-z]+)' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
}
for gpus in 2 4 8; do
  [ "$gpus" -le "$GPUS" ] || { echo "== $gpus GPUs: not run, the host has $GPUS"; continue; }
  run_case "$gpus" healthy NCCL_NVLS_ENABLE=0
  run_case "$gpus" no-p2p NCCL_P2P_DISABLE=1
  run_case "$gpus" sockets NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket
done
