#!/usr/bin/env bash
# Build the real engines the engine tests run, from source through the Go module proxy,
# into a cache directory, and print that directory.
#
#   engines/build.sh kubernetes   etcd, kube-apiserver, kube-scheduler, kube-controller-manager
#   engines/build.sh pulumi       the Pulumi CLI
#   engines/build.sh kwok         kwok (simulated nodes and pods)
#   engines/build.sh kueue        Kueue's controller manager
#   engines/build.sh jobset       JobSet's controller manager
#   engines/build.sh trainer      Kubeflow Trainer v2's controller manager
#   engines/build.sh mpi-operator       the MPI operator
#   engines/build.sh training-operator  the Kubeflow training operator (v1)
#   engines/build.sh karpenter-kwok     Karpenter with its kwok cloud provider (nodes as Node objects)
#   engines/build.sh pulumi-kubernetes  the Pulumi Kubernetes provider (pulumi-resource-kubernetes)
#   engines/build.sh kube-apiserver-newest  the kube-apiserver of the newest EKS minor (v1.36.3), run on
#                                 the kubernetes engine's etcd: the upgrade check (trainstack.upgrade.api_check)
#   engines/build.sh all          every one of them, the rehearsal's first (in the order the engine tests
#                                 need them: tests/conftest.py), then the Pulumi CLI and provider, then
#                                 the newest EKS minor's kube-apiserver
#   engines/build.sh ENGINE --cached   print the engine's directory if its cache is current, else exit 1 (builds
#                                 nothing; trainstack says what a build will take before it starts one)
#   engines/build.sh ENGINE --sources DIR   only the steps that read the module cache (`prepare`
#                                 and `manifests`, below) into DIR, building nothing: the tests run
#                                 them against an empty module cache (tests/engines/test_cold_module_cache.py)
#
# Three optional files beside an engine's go.mod: `ldflags` (linker flags, e.g. the version
# stamps a release build sets: a controller that checks the API server's version refuses
# `v0.0.0-master`), `manifests` (lines `<module> <path>`: files of the upstream module,
# such as CRDs and webhook configurations, copied into <cache>/manifests/<path>, so that the
# rehearsal installs what upstream ships without the module cache), and `prepare` (a script
# that writes files the build needs and upstream generates rather than ships, such as a
# provider's embedded schema: it runs in a scratch copy of the wrapper module, which is then
# built, so that the source tree, installed read-only in a wheel, is never written).
#
# Each engine is a small Go module in this directory that pins the upstream module and,
# where upstream uses `replace` directives to local paths (which a dependent module
# ignores), every module those replaced, at the release's own version. The binaries go to
# ${TRAINSTACK_ENGINES:-$HOME/.cache/trainstack/engines}/<engine>-<key>, where the key is a
# hash of the wrapper's go.mod and go.sum: a build is skipped when that directory is
# complete, and a change of pins builds into a new one. Builds run under `nice` (the
# machines are small and shared).
set -euo pipefail

engine="${1:?usage: engines/build.sh kubernetes|pulumi|kwok|kueue|jobset|trainer|mpi-operator|training-operator|karpenter-kwok|pulumi-kubernetes|kube-apiserver-newest|all}"
here="$(cd "$(dirname "$0")" && pwd)"
if [[ "$engine" == all ]]; then
  # Then a table of what each took to build from cold and its size (kept in its cache directory
  # beside the binaries), so that CI's log shows an engine's growth in the run that caused it.
  targets=()
  started_at="$(date +%s)"
  for each in kubernetes kwok kueue jobset trainer mpi-operator training-operator karpenter-kwok pulumi pulumi-kubernetes kube-apiserver-newest; do
    targets+=("$("$0" "$each")")
  done
  echo "engines/build.sh: engine, cold build (s), size, built in this run or found in the cache" >&2
  for target in "${targets[@]}"; do
    fresh=cached
    [[ "$(cat "$target/.built-at" 2>/dev/null)" -ge "$started_at" ]] && fresh=built
    printf 'engines/build.sh: %-20s %6s s %6s  %s\n' "$(basename "${target%-*}")" "$(cat "$target/.build-seconds")" \
      "$(cat "$target/.size")" "$fresh" >&2
  done
  exit 0
fi
# Under the test suite (tests/conftest.py), each test may start only the engines its
# `pytest.mark.engines(...)` names (TRAINSTACK_ENGINES_ALLOWED, none for an unmarked test): any
# other is refused here, naming the test, rather than built or waited for unseen while the suite
# runs the tests that need no engine.
if [[ -n "${TRAINSTACK_ENGINES_TEST:-}" && " ${TRAINSTACK_ENGINES_ALLOWED:-} " != *" $engine "* ]]; then
  echo "engines/build.sh: $engine refused: $TRAINSTACK_ENGINES_TEST does not name it in its" \
    "pytest.mark.engines(...) (names: ${TRAINSTACK_ENGINES_ALLOWED:-none})" >&2
  exit 3
fi
sources="${3:-}"
cached_only=false
if [[ "${2:-}" == --cached && -z "${3:-}" ]]; then
  cached_only=true
elif [[ -n "${2:-}" && ( "$2" != --sources || -z "$sources" ) ]]; then
  echo "engines/build.sh: usage: engines/build.sh ENGINE [--sources DIR | --cached]" >&2
  exit 2
fi
module="$here/$engine"
[[ -f "$module/go.mod" ]] || { echo "engines/build.sh: no engine '$engine' (no $module/go.mod)" >&2; exit 2; }

inputs=("$module/go.mod" "$module/go.sum")
for optional in ldflags manifests prepare; do [[ -f "$module/$optional" ]] && inputs+=("$module/$optional"); done
key="$(cat "${inputs[@]}" | sha256sum | cut -c1-16)"
ldflags=""
[[ -f "$module/ldflags" ]] && ldflags="$(grep -v '^#' "$module/ldflags" | tr '\n' ' ')"
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

# Static binaries, as upstream's release builds make them (Kubernetes' hack/lib/golang.sh, etcd's
# and Pulumi's release scripts, the controllers' Dockerfiles all set CGO_ENABLED=0): no C compiler
# is called for the packages that have a cgo variant.
export CGO_ENABLED=0

# The steps that read upstream modules from the module cache, into "$1": `prepare` in a scratch
# copy of the wrapper module ($1/src, which the build then uses), the manifests into $1/manifests.
# `go list -m` names a module's directory only once the module is in the cache (on an empty cache
# it prints an empty path), so each module is downloaded first: a no-op where it is there.
module_sources() {
  if [[ -f "$module/prepare" ]]; then
    cp -r "$module" "$1/src" && chmod -R u+w "$1/src"
    module="$1/src"
    (cd "$module" && nice -n 10 bash ./prepare)
  fi
  [[ -f "$module/manifests" ]] || return 0
  while read -r upstream path; do
    [[ -z "$upstream" || "$upstream" == \#* ]] && continue
    source="$(cd "$module" && go mod download "$upstream" && go list -m -f '{{.Dir}}' "$upstream")/$path"
    mkdir -p "$1/manifests/$(dirname "$path")"
    cp -r "$source" "$1/manifests/$path"
  done < "$module/manifests"
  chmod -R u+w "$1/manifests"
  touch "$1/manifests/.complete"
}
if [[ -n "$sources" ]]; then
  mkdir -p "$sources"
  module_sources "$sources"
  echo "$sources"
  exit 0
fi

# One build of an engine at a time: a second caller (CI's background build and a test's
# fixture, two rehearsals) waits here, then finds the cache complete.
is_complete() {
  local name
  for name in "${names[@]}"; do [[ -x "$target/$name" ]] || return 1; done
  [[ ! -f "$module/manifests" || -f "$target/manifests/.complete" ]]
}
# --cached: whether the engine is built, building nothing and waiting on no build (trainstack.rehearsal.engines
# says what a build will take before it starts one). A finished build is moved into place whole, so this is exact.
if $cached_only; then
  is_complete && echo "$target" && exit 0
  exit 1
fi
mkdir -p "$root"
if command -v flock > /dev/null; then
  exec 9> "$root/.lock-$engine"
  flock 9
fi

if is_complete; then
  echo "$target"
  exit 0
fi

staging="$(mktemp -d "$root/.build-$engine-XXXXXX" 2>/dev/null || { mkdir -p "$root" && mktemp -d "$root/.build-$engine-XXXXXX"; })"
trap 'rm -rf "$staging"' EXIT
start=$SECONDS
module_sources "$staging"
for i in "${!tools[@]}"; do
  echo "engines/build.sh: building ${tools[$i]} -> $target/${names[$i]}" >&2
  # -s -w: no symbol table and no DWARF. Nothing here debugs these binaries, and leaving them out
  # shortens every link (the cold build of all engines is on CI's clock).
  (cd "$module" && nice -n 10 go build -trimpath -ldflags "-s -w $ldflags" -o "$staging/${names[$i]}" "${tools[$i]}")
done
rm -rf "$staging/src"
du -sh "$staging" | cut -f1 > "$staging/.size"
echo "$((SECONDS - start))" > "$staging/.build-seconds"
date +%s > "$staging/.built-at"
rm -rf "$target"
mv "$staging" "$target"
trap - EXIT
echo "engines/build.sh: built $engine in $((SECONDS - start)) s" >&2
echo "$target"
