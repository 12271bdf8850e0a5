#!/usr/bin/env bash
# v3_faults.sh: the named faults of the assembled v3 block that `make v3-check` must catch. Each is
# a one-line mutation of rtl/v3 (a perl substitution on a copy); the copy is built and run like
# make v3-check and judged by capfc check. A fault is caught when the check fails (a violation,
# or a required corner of the testbench missing). A fault of the egress or the sort engines that
# the whole block's check misses is run through that unit's testbench of make v3-spike (with
# its own reference); the script fails if a fault is missed by both, or a substitution no longer
# applies.
#   scripts/v3_faults.sh [NP] [SEED] [FAULT...]      (from the repository root; default 4 1, all)
set -uo pipefail
np=${1:-4}; seed=${2:-1}; shift 2 2>/dev/null || true
root=$(pwd)
. scripts/v3_fault_table.sh
faults=${*:-$ALL}
top=$(grep -v '^#' rtl/v3/files.f)
missed=0
for f in $faults; do
  d=build/v3/fault_$f; rm -rf $d; mkdir -p $d
  cp -r rtl $d/rtl
  if ! perl -0pi -e "${SUB[$f]} or die" $d/${FILE[$f]} 2>/dev/null || cmp -s rtl/${FILE[$f]#rtl/} $d/${FILE[$f]}; then
    echo "v3 fault $f: the substitution no longer applies to ${FILE[$f]}"; missed=1; continue
  fi
  files=$(for x in $top; do echo $d/$x; done)
  verilator --binary -j 2 --timing --trace --trace-depth 2 -Wno-fatal -Wno-lint -Wno-style -DTB_NP=$np \
    -DTB_CYCLES=${V3_CHECK_CYCLES:-20000} --top-module capfc_top_v3_tb -Mdir $d/obj $files \
    testbench/v3/capfc_top_v3_tb.sv > $d/build.log 2>&1 || { echo "v3 fault $f: does not build"; missed=1; continue; }
  # (each run in a shell of its own, whose stderr drops the "Aborted" of a $fatal)
  sed "s/^np = .*/np = $np/" check/v3/capfc_top_v3.map.toml > $d/map.toml
  if ! bash -c '"$0" +SEED="$1" +DUMP="$2" > "$3" 2>&1' $d/obj/Vcapfc_top_v3_tb $seed $d/w.vcd $d/tb.log 2>/dev/null; then
    # (the waveform is complete when a corner is missing: the checker's verdict beside it)
    target/release/capfc check --wave $d/w.vcd --map $d/map.toml --timing build/v3/top_np$np.timing.toml > $d/check.log 2>&1
    echo "v3 fault $f: caught (the testbench's corners: $(grep -o 'a required corner.*' $d/tb.log | head -1); the checker: $(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $d/check.log); $(tail -1 $d/check.log | grep -o '[0-9]* violations'))"; continue
  fi
  if target/release/capfc check --wave $d/w.vcd --map $d/map.toml --timing build/v3/top_np$np.timing.toml > $d/check.log 2>&1; then
    unit=""; ufiles=""
    case ${FILE[$f]} in
      rtl/v3/capfc_egress.sv) unit=capfc_egress_v3_tb; ufiles=$(grep '^V3_EGRESS' mk/v3.mk | sed 's/.*:= //');;
      rtl/v3/capfc_sort.sv)   unit=capfc_sort_v3_tb;   ufiles=$(grep '^V3_SORT' mk/v3.mk | sed 's/.*:= //');;
    esac
    if [ -n "$unit" ]; then
      verilator --binary -j 2 --timing -Wno-fatal -Wno-lint -Wno-style -DTB_NP=$np -DTB_CYCLES=20000 \
        --top-module $unit -Mdir $d/uobj $(for x in $ufiles; do echo $d/$x; done) testbench/v3/$unit.sv \
        > $d/ubuild.log 2>&1 || { echo "v3 fault $f: the unit testbench does not build"; missed=1; continue; }
      if ! bash -c '"$0" +SEED="$1" > "$2" 2>&1' $d/uobj/V$unit $seed $d/unit.log 2>/dev/null || ! grep -q ' 0 failed' $d/unit.log; then
        echo "v3 fault $f: missed by the whole block's check, caught by $unit ($(grep -m1 -o 'cycle [0-9]*: .*expected [^ ]*' $d/unit.log))"
        continue
      fi
    fi
    echo "v3 fault $f: MISSED at NP=$np seed $seed ($(tail -1 $d/check.log))"; missed=1
  else
    echo "v3 fault $f: caught ($(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $d/check.log); $(tail -1 $d/check.log | grep -o '[0-9]* violations'))"
  fi
done
exit $missed
