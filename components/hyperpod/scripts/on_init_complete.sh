#!/usr/bin/env bash
# trainstack lifecycle script for SageMaker HyperPod (Slurm), run at OnInitComplete:
# after HyperPod's own node setup, which already configures Slurm (node types and
# partitions) and mounts FSx for Lustre from the cluster API. This script does only
# what that API does not:
#   1. wait until the FSx mount is there and writable (mounts can lag on large clusters);
#   2. for an EFA-enabled file system, on nodes with EFA: move Lustre onto the EFA devices
#      (lustre-efa-client-<instance type>.sh, the EKS node groups' boot script) and remount;
#   3. create the configured users, with the same uid on every node and homes on FSx;
#   4. install an SSH public key for the default user, for access through a bastion.
# Settings come from trainstack-params.env next to this script (written by trainstack).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null
source "${here}/trainstack-params.env"

log() { echo "[trainstack] $*"; }

wait_for_fsx() {
  local path="$1" attempts="${2:-30}" delay="${3:-10}"
  for ((attempt = 1; attempt <= attempts; attempt++)); do
    if mountpoint -q "${path}" && touch "${path}/.trainstack-write-check" 2>/dev/null; then
      rm -f "${path}/.trainstack-write-check"
      log "FSx at ${path} is mounted and writable (attempt ${attempt})"
      return 0
    fi
    log "FSx at ${path} not ready (attempt ${attempt}/${attempts}); retrying in ${delay}s"
    sleep "${delay}"
  done
  log "FSx at ${path} never became writable" >&2
  return 1
}

instance_type() {
  # IMDSv2; HyperPod reports the ml.-prefixed name where EC2 reports the plain one, so strip it.
  local token type
  token="$(curl -sf -X PUT http://169.254.169.254/latest/api/token \
    -H 'X-aws-ec2-metadata-token-ttl-seconds: 60')" || return 1
  type="$(curl -sf -H "X-aws-ec2-metadata-token: ${token}" \
    http://169.254.169.254/latest/meta-data/instance-type)" || return 1
  echo "${type#ml.}"
}

lustre_over_efa() {
  # HyperPod mounted the file system over TCP before this script runs; LNet's networks can only be
  # rebuilt with Lustre unloaded, so: unmount, unload, put LNet on EFA (the client script loads
  # Lustre again), mount the same source with the same options.
  local path="$1" type script device options
  type="$(instance_type)" || { log "instance type unknown; Lustre stays on TCP"; return 0; }
  script="${here}/lustre-efa-client-${type}.sh"
  if [[ ! -f "${script}" ]]; then
    log "${type} has no EFA; Lustre stays on TCP"
    return 0
  fi
  device="$(findmnt -n -o SOURCE "${path}")"
  options="$(findmnt -n -o OPTIONS "${path}")"
  umount "${path}"
  lustre_rmmod
  bash "${script}"
  mount -t lustre -o "${options}" "${device}" "${path}"
  log "FSx at ${path} remounted with LNet on EFA ($(lnetctl net show --net efa | grep -c 'nid:') EFA NIDs)"
}

create_users() {
  local home_root="$1" entry name uid
  for entry in ${TRAINSTACK_USERS}; do
    name="${entry%%:*}"
    uid="${entry##*:}"
    if id -u "${name}" >/dev/null 2>&1; then
      log "user ${name} exists"
      continue
    fi
    mkdir -p "${home_root}"
    useradd --create-home --home-dir "${home_root}/${name}" --uid "${uid}" --shell /bin/bash "${name}"
    log "created user ${name} (uid ${uid})"
  done
}

install_ssh_key() {
  local user="$1" key="$2" home
  home="$(getent passwd "${user}" | cut -d: -f6)"
  install -d -m 700 -o "${user}" -g "${user}" "${home}/.ssh"
  touch "${home}/.ssh/authorized_keys"
  if ! grep -qxF "${key}" "${home}/.ssh/authorized_keys"; then
    echo "${key}" >> "${home}/.ssh/authorized_keys"
  fi
  chown "${user}:${user}" "${home}/.ssh/authorized_keys"
  chmod 600 "${home}/.ssh/authorized_keys"
  log "installed the SSH public key for ${user}"
}

home_root="/home"
if [[ -n "${TRAINSTACK_FSX_MOUNT_PATH}" ]]; then
  wait_for_fsx "${TRAINSTACK_FSX_MOUNT_PATH}"
  if [[ -n "${TRAINSTACK_LUSTRE_EFA}" ]]; then
    lustre_over_efa "${TRAINSTACK_FSX_MOUNT_PATH}"
    wait_for_fsx "${TRAINSTACK_FSX_MOUNT_PATH}"
  fi
  home_root="${TRAINSTACK_FSX_MOUNT_PATH}/home"
fi
if [[ -n "${TRAINSTACK_USERS}" ]]; then
  create_users "${home_root}"
fi
if [[ -n "${TRAINSTACK_SSH_PUBLIC_KEY}" ]]; then
  install_ssh_key "${TRAINSTACK_DEFAULT_USER}" "${TRAINSTACK_SSH_PUBLIC_KEY}"
fi
log "done"
