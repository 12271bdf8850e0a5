#!/usr/bin/env bash
# v3_golden_faults.sh: each v3 golden set named after a corner must fail its replay when the rule
# it covers is broken. For every (set, fault) pair below, the fault (scripts/v3_fault_table.sh) is
# applied to a copy of rtl/ and the set is replayed (make replay in the copy's tree) on each of
# V3_GOLDEN_FAULT_SIMS (default icarus; "icarus verilator" for both): the replay must FAIL, and the
# same set must PASS on the unmutated RTL.
#   [V3_GOLDEN_FAULT_SIMS="icarus verilator"] scripts/v3_golden_faults.sh [SET:FAULT ...]
#   (from the repository root; default: the table below)
set -uo pipefail
. scripts/v3_fault_table.sh
# the corner sets and the fault of the rule each covers
PAIRS=${*:-"mac_busy_max_np4:pfc_xon_lost_while_busy mac_busy_cal_np4:pfc_xon_lost_while_busy
  reset_with_e_max_np4:e_other_before_ready reset_with_e_cal_np4:e_other_before_ready
  argmax_tie_max_np4:max_keeps_last_tie argmax_tie_cal_np4:sel_takes_every_tie
  sort_aborted_by_clear_max_np4:sort_not_aborted thresholds_exact_max_np4:ing_accept_strict
  two_lanes_one_slot_max_np4:ing_accept_strict clear_at_warn_max_np4:d_without_e
  sort_aborted_by_clear_cal_np4:sort_not_aborted xon_during_sort_max_np4:sort_not_aborted
  xon_during_sort_cal_np4:sort_not_aborted pending_cleared_max_np4:pending_kept_on_clear
  pending_cleared_cal_np4:pending_kept_on_clear
  e_write_meets_clear_max_np4:e_write_not_cancelled e_write_meets_clear_cal_np4:e_write_not_cancelled
  e_write_after_clear_max_np4:e_write_not_cancelled_late
  e_write_after_clear_cal_np4:e_write_not_cancelled_late"}
# the simulators (Icarus by default: a second each; Verilator builds a testbench per fault)
SIMS=${V3_GOLDEN_FAULT_SIMS:-icarus}
missed=0
for pair in $PAIRS; do
  set_=${pair%%:*}; f=${pair#*:}
  if [ -z "${SUB[$f]:-}" ]; then echo "v3 golden fault $f: no such fault"; missed=1; continue; fi
  d=build/v3/golden_fault_$f; rm -rf $d; mkdir -p $d/build
  cp -r rtl testbench mk $d/ && mkdir -p $d/golden/v3 && cp -r golden/v3/$set_ $d/golden/v3/
  if ! perl -0pi -e "${SUB[$f]} or die" $d/${FILE[$f]} 2>/dev/null || cmp -s ${FILE[$f]} $d/${FILE[$f]}; then
    echo "v3 golden fault $f: the substitution no longer applies to ${FILE[$f]}"; missed=1; continue
  fi
  for sim in $SIMS; do
    if ! make --no-print-directory -f mk/replay.mk replay SIM=$sim GOLDEN=golden/v3/$set_ > $d/clean.log 2>&1; then
      echo "v3 golden set $set_: fails on $sim on the RTL as it is ($(tail -1 $d/clean.log))"; missed=1; continue
    fi
    if (cd $d && make --no-print-directory -f mk/replay.mk replay SIM=$sim GOLDEN=golden/v3/$set_) > $d/replay.log 2>&1; then
      echo "v3 golden fault $f: MISSED by golden/v3/$set_ on $sim (replay: V3_GOLDEN_FAULT_SIMS=$sim scripts/v3_golden_faults.sh $pair)"; missed=1
    else
      echo "v3 golden fault $f: caught by golden/v3/$set_ on $sim ($(grep -m1 '^cycle [0-9]*:' $d/replay.log); $(grep -m1 -o '[0-9]* passed, [0-9]* failed' $d/replay.log))"
    fi
  done
done
exit $missed
