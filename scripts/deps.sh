#!/usr/bin/env bash
# Installs what the RTL side needs, from Debian's packages, only when something is missing:
# Verilator (co-simulation), Icarus Verilog (replay, compile check), Yosys (synthesis), g++.
set -euo pipefail
missing=()
for t in verilator iverilog yosys g++; do
  command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: missing ${missing[*]}; installing verilator iverilog yosys g++ from Debian" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "deps: not root and no sudo: install verilator iverilog yosys g++ yourself" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends verilator iverilog yosys g++ >/dev/null
for t in verilator iverilog yosys g++; do
  command -v "$t" >/dev/null 2>&1 || { echo "deps: $t still missing after apt-get" >&2; exit 1; }
done
