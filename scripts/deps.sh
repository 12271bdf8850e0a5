#!/usr/bin/env bash
# Installs what the RTL side needs, from Debian's packages, only what is missing: Verilator
# (co-simulation), Icarus Verilog (replay, compile check), Yosys (synthesis) and g++; the tools
# named as arguments instead when given (make test adds tshark, Wireshark's analysis of our pcap
# files in crates/cli/tests/pcap.rs). Each tool is its own Debian package of the same name.
#   scripts/deps.sh [TOOL ...]
set -euo pipefail
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(verilator iverilog yosys g++)
missing=()
for t in "${tools[@]}"; do
  command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: missing ${missing[*]}; installing them from Debian" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "deps: not root and no sudo: install ${missing[*]} yourself" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for t in "${missing[@]}"; do
  command -v "$t" >/dev/null 2>&1 || { echo "deps: $t still missing after apt-get" >&2; exit 1; }
done
