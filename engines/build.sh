#!/usr/bin/env bash
# Build the real engines the engine tests run, from source through the Go module proxy,
# into a cache directory, and print that directory.
#
#   engines/build.sh kubernetes   etcd, kube-apiserver, kube-scheduler (engines/kubernetes/go.mod)
#   engines/build.sh pulumi       the Pulumi CLI (engines/pulumi/go.mod)
#
# Each engine is a small Go module in this directory that pins the upstream module and,
# where upstream uses `replace` directives to local paths (which a dependent module
# ignores), every module those replaced, at the release's own version. The binaries go to
# ${TRAINSTACK_ENGINES:-$HOME/.cache/trainstack/engines}/<engine>-<key>, where the key is a
# hash of the wrapper's go.mod and go.sum: a build is skipped when that directory is
# complete, and a change of pins builds into a new one. Builds run under `nice` (the
# machines are small and shared).
set -euo pipefail

engine="${1:?usage: engines/build.sh kubernetes|pulumi}"
here="$(cd "$(dirname "$0")" && pwd)"
module="$here/$engine"
[[ -f "$module/go.mod" ]] || { echo "engines/build.sh: no engine '$engine' (no $module/go.mod)" >&2; exit 2; }

key="$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-16)"
root="${TRAINSTACK_ENGINES:-$HOME/.cache/trainstack/engines}"
target="$root/$engine-$key"

# The `tool` directives of the wrapper's go.mod name the programs to build (read from the
# file, so that a current cache needs neither Go nor the module cache).
mapfile -t tools < <(awk '/^tool \($/ {block = 1; next} block && /^\)/ {block = 0} block {print $1}
                          /^tool [^(]/ {print $2}' "$module/go.mod")
names=()
for tool in "${tools[@]}"; do
  name="${tool##*/}"
  [[ "$tool" == go.etcd.io/etcd/server/v3 ]] && name=etcd
  [[ "$tool" == */pulumi/pkg/v3/cmd/pulumi ]] && name=pulumi
  names+=("$name")
done

complete=true
for name in "${names[@]}"; do [[ -x "$target/$name" ]] || complete=false; done
if $complete; then
  echo "$target"
  exit 0
fi

staging="$(mktemp -d "$root/.build-$engine-XXXXXX" 2>/dev/null || { mkdir -p "$root" && mktemp -d "$root/.build-$engine-XXXXXX"; })"
trap 'rm -rf "$staging"' EXIT
start=$SECONDS
for i in "${!tools[@]}"; do
  echo "engines/build.sh: building ${tools[$i]} -> $target/${names[$i]}" >&2
  (cd "$module" && nice -n 10 go build -trimpath -o "$staging/${names[$i]}" "${tools[$i]}")
done
rm -rf "$target"
mv "$staging" "$target"
trap - EXIT
echo "engines/build.sh: built $engine in $((SECONDS - start)) s" >&2
echo "$target"
