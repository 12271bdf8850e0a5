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
declare -A FILE SUB
FILE[rtrig_at_t4]=rtl/v3/capfc_egress.sv;     SUB[rtrig_at_t4]='s/rtrig_t = rtrig6_q;/rtrig_t = rtrig4_q;/'
FILE[e_write_not_cancelled]=rtl/v3/capfc_egress.sv; SUB[e_write_not_cancelled]='s/\n *!rclr_t\[\{PW.\(\$unsigned\(o\)\), ew_l_d\[o\]\}\] && / /'
FILE[e_write_not_cancelled_late]=rtl/v3/capfc_egress.sv; SUB[e_write_not_cancelled_late]='s/ && !rclr5_q\[\{PW.\(\$unsigned\(o\)\), ew_l_d\[o\]\}\]//'
FILE[sort_not_aborted]=rtl/v3/capfc_sort.sv;  SUB[sort_not_aborted]='s/abort = busy_q\[o\] && rowclr/abort = 1'"'"'b0 \&\& rowclr/'
FILE[sel_takes_every_tie]=rtl/v3/capfc_sort.sv; SUB[sel_takes_every_tie]='s/t_q\[o\] < need_q\[o\]\)/t_q[o] <= need_q[o])/'
FILE[max_keeps_last_tie]=rtl/v3/capfc_sort.sv; SUB[max_keeps_last_tie]='s/if \(yv && y_q\[o\] > v_q\[o\]\)/if (yv \&\& y_q[o] >= v_q[o])/'
FILE[ing_accept_strict]=rtl/v3/capfc_ingress.sv; SUB[ing_accept_strict]='s/\$signed\(\{2.b0, occa3_q\[g\]\}\) <= \$signed\(racc3_q\[g\]\)/\$signed({2'"'"'b0, occa3_q[g]}) < \$signed(racc3_q[g])/'
FILE[eg_inc_strict]=rtl/v3/capfc_egress.sv;   SUB[eg_inc_strict]='s/\$signed\(\{2.b0, occa2_q\[g\]\}\) >= \$signed\(rinc2_q\[g\]\)/\$signed({2'"'"'b0, occa2_q[g]}) > \$signed(rinc2_q[g])/'
FILE[d_without_e]=rtl/v3/capfc_top_oc.sv;     SUB[d_without_e]='s/\(i_state \| e_other\)/(i_state)/'
FILE[pfc_xon_lost_while_busy]=rtl/capfc_pfc_gen.sv; SUB[pfc_xon_lost_while_busy]='s/sent_d\[k_c\*8 \+: 8\]   = take \? d : s;/sent_d[k_c*8 +: 8]   = (take || d != s) ? d : s;/'
FILE[cfg_unwritten_reads_stale]=rtl/v3/capfc_cfg.sv; SUB[cfg_unwritten_reads_stale]='s/thr_o\[k\] = thr_v_q\[k\]\[k < 3 \? ing_ra : eg_ra\] \? thr_rd\[k\*OW \+: OW\] : .0;/thr_o[k] = thr_rd[k*OW +: OW];/'
FILE[e_write_during_init]=rtl/v3/capfc_egress.sv; SUB[e_write_during_init]='s/if \(cin_q\[o \/ 8\]\) begin/if (1'"'"'b0) begin/'
ALL="rtrig_at_t4 e_write_not_cancelled e_write_not_cancelled_late sort_not_aborted sel_takes_every_tie max_keeps_last_tie ing_accept_strict eg_inc_strict d_without_e pfc_xon_lost_while_busy cfg_unwritten_reads_stale e_write_during_init"
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
