#!/usr/bin/env bash
# v3_faults.sh: the named faults of the assembled v3 block that `make v3-check` must catch. Each is
# a one-line mutation of rtl/v3 (a perl substitution on a copy); the copy is built and run like
# make v3-check and judged by capfc check. A fault is caught when the check fails (a violation,
# or a required corner of the testbench missing). A fault of the egress or the sort engines that
# the whole block's check misses is run through that unit's testbench of make v3-spike (with
# its own reference); the script fails if a fault is missed by both, or a substitution no longer
# applies.
#   scripts/v3_faults.sh [NP] [SEED] [FAULT...]      (from the repository root; default 4 1, all)
#
# V3_WRAP_STAGES=n (n > 0; make check-matrix-v3-faults): the same through check/wrap's
# capfc_v3_wrap with STAGES = n (the testbench built with +define+TB_WRAP_STAGES=n, the map
# unchanged), judged under the envelope the wrapper declares (tests/check_matrix.rs, envelope():
# the v3 envelope with the ingress, e_clear, stop_max and stop_cal windows n cycles later and
# frame.max 2n ready cycles more; written below from `capfc check --envelope`). The clean wrapped
# block must check clean first (exit 0: no violation, no weak verdict, every corner). A fault is
# caught through the wrapper when the testbench misses a required corner or the checker reports
# a violation (exit 1; any other exit is an error). A fault the wrapped check misses is run on the
# bare block: if the bare block's check catches it, the wrapper lost it (MISSED, the script
# fails); if not, it goes to its unit's testbench as above. Work in build/v3/wrap_s<n>/.
set -uo pipefail
np=${1:-4}; seed=${2:-1}; shift 2 2>/dev/null || true
root=$(pwd)
. scripts/v3_fault_table.sh
faults=${*:-$ALL}
top=$(grep -v '^#' rtl/v3/files.f)
stages=${V3_WRAP_STAGES:-0}
missed=0

# build_tb DIR RTL STAGES: the block's testbench on the RTL tree RTL (rtl/ or a faulty copy's),
# through the wrapper when STAGES > 0, into DIR/obj
build_tb() {
  local d=$1 r=$2 st=$3 wrap=""
  if [ "$st" -gt 0 ]; then
    wrap="-DTB_WRAP_STAGES=$st check/wrap/capfc_wrap_delay.sv check/wrap/capfc_wrap_skid.sv check/wrap/capfc_v3_wrap.sv"
  fi
  verilator --binary -j 2 --timing --trace --trace-depth 2 -Wno-fatal -Wno-lint -Wno-style -DTB_NP=$np \
    -DTB_CYCLES=${V3_CHECK_CYCLES:-20000} --top-module capfc_top_v3_tb -Mdir $d/obj \
    $(for x in $top; do echo $r/$x; done) $wrap testbench/v3/capfc_top_v3_tb.sv > $d/build.log 2>&1
}

# run_tb DIR: the testbench's run (its exit status); its log in DIR/tb.log, the waveform DIR/w.vcd
# (each run in a shell of its own, whose stderr drops the "Aborted" of a $fatal)
run_tb() {
  bash -c '"$0" +SEED="$1" +DUMP="$2" > "$3" 2>&1' $1/obj/Vcapfc_top_v3_tb $seed $1/w.vcd $1/tb.log 2>/dev/null
}

# check_tb DIR TIMING: capfc check on the run's waveform (its exit status), its report in
# DIR/check.log
check_tb() {
  target/release/capfc check --wave $1/w.vcd --map $1/map.toml --timing $2 > $1/check.log 2>&1
}

if [ "$stages" -gt 0 ]; then
  w=build/v3/wrap_s$stages; mkdir -p $w
  # the envelopes: the bare block's (as make v3-check writes it), and the wrapper's: the same with
  # every window from a lane to D (ingress, e_clear, stop_max, stop_cal) $stages cycles later and
  # frame's max 2 * $stages more (a section's min and max lines follow its header)
  bare_timing=$w/bare_np$np.timing.toml; timing=$w/top_np$np.timing.toml
  target/release/capfc check --envelope v3_np4 --ports $np > $bare_timing \
    || { echo "v3 faults through $stages stages: capfc check --envelope v3_np4 --ports $np failed"; exit 1; }
  awk -v s=$stages '
    /^\[/ { sec = $0 }
    (sec == "[ingress]" || sec == "[e_clear]" || sec == "[stop_max]" || sec == "[stop_cal]") && /^(min|max) = [0-9]+$/ { $3 += s }
    sec == "[frame]" && /^max = [0-9]+$/ { $3 += 2 * s }
    { print }' $bare_timing > $timing
  # (the windows changed: exactly the 9 lines above, or the envelope's format moved)
  if [ "$(diff $bare_timing $timing | grep -c '^>')" != 9 ]; then
    echo "v3 faults through $stages stages: the wrapper's envelope does not differ from the block's in the 9 lines of ingress, e_clear, stop_max, stop_cal and frame.max (the format of capfc check --envelope changed?):"
    diff $bare_timing $timing; exit 1
  fi
  win() { awk -v s="[$2]" '/^\[/ { x = $0 } x == s && /^min/ { a = $3 } x == s && /^max/ { b = $3 } END { print a ".." b }' $1; }
  echo "v3 faults through $stages stages: the wrapper's envelope $timing, the block's windows moved:$(for s in ingress e_clear stop_max stop_cal frame; do echo -n " $s $(win $bare_timing $s) -> $(win $timing $s);"; done)"
  # the clean wrapped block: every corner, no violation, no weak verdict
  d=$w/clean; rm -rf $d; mkdir -p $d
  sed "s/^np = .*/np = $np/" check/v3/capfc_top_v3.map.toml > $d/map.toml
  build_tb $d . $stages || { echo "v3 faults through $stages stages: the clean block does not build ($d/build.log)"; exit 1; }
  run_tb $d; rc_tb=$?
  check_tb $d $timing; rc=$?
  if [ $rc_tb -ne 0 ] || [ $rc -ne 0 ]; then
    echo "v3 faults through $stages stages: the clean block fails (the testbench exits $rc_tb: $(grep -o 'a required corner.*' $d/tb.log | head -1); capfc check exits $rc: $(tail -1 $d/check.log)) (replay: make check-matrix-v3-faults V3_SEED=$seed)"
    exit 1
  fi
  echo "v3 faults through $stages stages: the clean block checks clean ($(grep -o 'takes:.*' $d/tb.log | cut -c1-160)...; $(tail -1 $d/check.log))"
  rm -f $d/w.vcd
fi

for f in $faults; do
  if [ "$stages" -gt 0 ]; then
    d=$w/fault_$f; tag="v3 fault $f through $stages stages"
    replay="make check-matrix-v3-faults V3_SEED=$seed V3_FAULTS=$f"
  else
    d=build/v3/fault_$f; tag="v3 fault $f"
  fi
  rm -rf $d; mkdir -p $d
  cp -r rtl $d/rtl
  if ! perl -0pi -e "${SUB[$f]} or die" $d/${FILE[$f]} 2>/dev/null || cmp -s rtl/${FILE[$f]#rtl/} $d/${FILE[$f]}; then
    echo "$tag: the substitution no longer applies to ${FILE[$f]}"; missed=1; continue
  fi
  build_tb $d $d $stages || { echo "$tag: does not build"; missed=1; continue; }
  sed "s/^np = .*/np = $np/" check/v3/capfc_top_v3.map.toml > $d/map.toml
  if [ "$stages" -gt 0 ]; then
    run_tb $d; rc_tb=$?
    check_tb $d $timing; rc=$?
    corner=$(grep -o 'a required corner.*' $d/tb.log | head -1)
    first=$(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $d/check.log)
    if [ $rc_tb -ne 0 ] && [ -z "$corner" ]; then
      echo "$tag: the testbench fails otherwise than by a corner ($(tail -1 $d/tb.log)) (replay: $replay)"; missed=1; continue
    fi
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
      echo "$tag: capfc check could not judge it (exit $rc: $(tail -1 $d/check.log)) (replay: $replay)"; missed=1; continue
    fi
    if [ $rc_tb -ne 0 ] || [ $rc -eq 1 ]; then
      echo "$tag: caught (the testbench's corners: ${corner:-all}; the checker: ${first:-no violation}, $(grep -o '[0-9]* violations' $d/check.log | tail -1))"
      rm -f $d/w.vcd; continue
    fi
    rm -f $d/w.vcd
    # missed through the wrapper: does the bare block's check catch it?
    b=$d/bare; mkdir -p $b; cp $d/map.toml $b/
    build_tb $b $d 0 || { echo "$tag: the bare block does not build"; missed=1; continue; }
    run_tb $b; rc_tb=$?
    check_tb $b $bare_timing; rc=$?
    rm -f $b/w.vcd
    if [ $rc_tb -ne 0 ] || [ $rc -ne 0 ]; then
      echo "$tag: MISSED through the wrapper, caught on the bare block (the testbench exits $rc_tb, capfc check $rc: $(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $b/check.log)) (replay: $replay)"
      missed=1; continue
    fi
    # (missed by the bare block's check too: its unit's testbench, below)
  else
    if ! run_tb $d; then
      # (the waveform is complete when a corner is missing: the checker's verdict beside it)
      check_tb $d build/v3/top_np$np.timing.toml
      echo "v3 fault $f: caught (the testbench's corners: $(grep -o 'a required corner.*' $d/tb.log | head -1); the checker: $(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $d/check.log); $(grep -o '[0-9]* violations' $d/check.log | tail -1))"; continue
    fi
    if ! check_tb $d build/v3/top_np$np.timing.toml; then
      echo "v3 fault $f: caught ($(grep -m1 -o '^cycle [0-9]*: [a-z ]*' $d/check.log); $(grep -o '[0-9]* violations' $d/check.log | tail -1))"
      continue
    fi
  fi
  unit=""; ufiles=""
  case ${FILE[$f]} in
    rtl/v3/capfc_egress.sv) unit=capfc_egress_v3_tb; ufiles=$(grep '^V3_EGRESS' mk/v3.mk | sed 's/.*:= //');;
    rtl/v3/capfc_sort.sv)   unit=capfc_sort_v3_tb;   ufiles=$(grep '^V3_SORT' mk/v3.mk | sed 's/.*:= //');;
  esac
  if [ -n "$unit" ]; then
    verilator --binary -j 2 --timing -Wno-fatal -Wno-lint -Wno-style -DTB_NP=$np -DTB_CYCLES=20000 \
      --top-module $unit -Mdir $d/uobj $(for x in $ufiles; do echo $d/$x; done) testbench/v3/$unit.sv \
      > $d/ubuild.log 2>&1 || { echo "$tag: the unit testbench does not build"; missed=1; continue; }
    if ! bash -c '"$0" +SEED="$1" > "$2" 2>&1' $d/uobj/V$unit $seed $d/unit.log 2>/dev/null || ! grep -q ' 0 failed' $d/unit.log; then
      echo "$tag: missed by the whole block's check, caught by $unit ($(grep -m1 -o 'cycle [0-9]*: .*expected [^ ]*' $d/unit.log))"
      continue
    fi
  fi
  echo "$tag: MISSED at NP=$np seed $seed ($(tail -1 $d/check.log))${replay:+ (replay: $replay)}"; missed=1
done
exit $missed
