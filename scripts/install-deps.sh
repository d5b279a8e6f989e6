#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, only when something is missing.
# Safe to run repeatedly; does nothing on a machine that already has everything.
set -euo pipefail
# clang + libclang-rt-14-dev: libFuzzer targets (agent/fuzz); libasan and libtsan come with g++.
# wrk: the HTTP load generator of the server bench (bench/server).
pkgs=(g++ make cmake ninja-build libgtest-dev googletest maven openjdk-17-jdk-headless python3 chromium clang libclang-rt-14-dev wrk)
missing=()
# `go tool pprof` reads the pprof reports in the tests; use the machine's Go if it has one.
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || pkgs+=(golang-go)
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "candor: installing missing packages: ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
