#!/usr/bin/env bash
# What the tests need from the system, installed where missing: Graphviz's `dot` (the plan
# report lays its graphs out with it) and a headless Chromium (the report's in-browser tests).
# Debian and Ubuntu through apt-get, macOS through Homebrew; anything else is told what to
# install. Says what it found and what it did; installs nothing when both are present.
# README's command 2 runs it first, and .ci/run runs that command (tests/test_readme.py).
set -euo pipefail
cd "$(dirname "$0")/.."

have_dot() { command -v dot >/dev/null; }
have_chromium() { python3 tests/support/browser.py >/dev/null; }  # where the tests look for it

if have_dot && have_chromium; then
  echo "setup-system: graphviz ($(command -v dot)) and chromium ($(python3 tests/support/browser.py)) present"
  exit 0
fi

missing=()
have_dot || missing+=(graphviz)
have_chromium || missing+=(chromium)
echo "setup-system: missing ${missing[*]}"

if [[ "$(uname -s)" == Darwin ]]; then
  command -v brew >/dev/null || { echo "setup-system: install Homebrew (https://brew.sh) first" >&2; exit 1; }
  have_dot || brew install graphviz
  # The chromium cask links `chromium` onto the PATH; where Homebrew refuses it (it is unsigned),
  # Google Chrome serves the same tests.
  have_chromium || brew install --cask chromium || brew install --cask google-chrome
elif command -v apt-get >/dev/null; then
  sudo=()
  [[ "$(id -u)" == 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update
  packages=()
  have_dot || packages+=(graphviz)
  # Debian ships `chromium`; Ubuntu's archive has `chromium-browser` instead.
  if ! have_chromium; then
    if apt-cache show chromium >/dev/null 2>&1; then packages+=(chromium); else packages+=(chromium-browser); fi
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
else
  echo "setup-system: install Graphviz and Chromium with your system's package manager" >&2
  exit 1
fi

have_dot && have_chromium || { echo "setup-system: still missing after installing: ${missing[*]}" >&2; exit 1; }
echo "setup-system: installed ${missing[*]}"
