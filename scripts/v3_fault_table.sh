# v3_fault_table.sh: the named faults of the v3 block, each a one-line mutation of a file under
# rtl/ (a perl substitution, applied with -0 to a copy), sourced by scripts/v3_faults.sh (the
# faults the whole block's check must catch) and scripts/v3_golden_faults.sh (the faults a golden
# set named after a corner must catch). ALL: every fault, in order.
declare -A FILE SUB
FILE[rtrig_at_t4]=rtl/v3/capfc_egress.sv;     SUB[rtrig_at_t4]='s/rtrig_t = rtrig6_q;/rtrig_t = rtrig4_q;/'
FILE[e_write_not_cancelled]=rtl/v3/capfc_egress.sv; SUB[e_write_not_cancelled]='s/\n *!rclr_t\[\{PW.\(\$unsigned\(o\)\), ew_l_t\}\] && / /'
FILE[e_write_not_cancelled_late]=rtl/v3/capfc_egress.sv; SUB[e_write_not_cancelled_late]='s/ && !rclr5_q\[\{PW.\(\$unsigned\(o\)\), ew_l_t\}\]//'
FILE[sort_not_aborted]=rtl/v3/capfc_sort.sv;  SUB[sort_not_aborted]='s/abort = busy_q\[o\] && rowclr/abort = 1'"'"'b0 \&\& rowclr/'
FILE[sel_takes_every_tie]=rtl/v3/capfc_sort.sv; SUB[sel_takes_every_tie]='s/t_q\[o\] < need_q\[o\]\)/t_q[o] <= need_q[o])/'
FILE[max_keeps_last_tie]=rtl/v3/capfc_sort.sv; SUB[max_keeps_last_tie]='s/gty_d\[o\] = xr_q\[o\] > y_q\[o\];/gty_d[o] = xr_q[o] >= y_q[o];/ and s/\(ldm_q\[o\] \? gty_q\[o\] : gt_q\[o\]\)/(ldm_q[o] ? gty_q[o] : (gt_q[o] || eq_q[o]))/'
FILE[ing_accept_strict]=rtl/v3/capfc_ingress.sv; SUB[ing_accept_strict]='s/\$signed\(\{2.b0, occa3_q\[g\]\}\) <= \$signed\(racc3_q\[g\]\)/\$signed({2'"'"'b0, occa3_q[g]}) < \$signed(racc3_q[g])/'
FILE[eg_inc_strict]=rtl/v3/capfc_egress.sv;   SUB[eg_inc_strict]='s/\$signed\(\{2.b0, occa2_q\[g\]\}\) >= \$signed\(rinc2_q\[g\]\)/\$signed({2'"'"'b0, occa2_q[g]}) > \$signed(rinc2_q[g])/'
FILE[d_without_e]=rtl/v3/capfc_top_oc.sv;     SUB[d_without_e]='s/\(i_state \| e_other\)/(i_state)/'
FILE[pfc_xon_lost_while_busy]=rtl/capfc_pfc_gen.sv; SUB[pfc_xon_lost_while_busy]='s/sent_d\[k_c\*8 \+: 8\]   = take \? d : s;/sent_d[k_c*8 +: 8]   = (take || d != s) ? d : s;/'
FILE[cfg_unwritten_reads_stale]=rtl/v3/capfc_cfg.sv; SUB[cfg_unwritten_reads_stale]='s/thr_o\[k\] = thr_v_q\[k\]\[k < 3 \? ing_ra : eg_ra\] \? thr_rd\[k\*OW \+: OW\] : .0;/thr_o[k] = thr_rd[k*OW +: OW];/'
FILE[e_write_during_init]=rtl/v3/capfc_egress.sv; SUB[e_write_during_init]='s/if \(cin_q\[o \/ 8\]\) begin/if (1'"'"'b0) begin/'
FILE[e_other_before_ready]=rtl/v3/capfc_egress.sv; SUB[e_other_before_ready]='s/eo_t\[i\*8 \+ p\] = rdy_q\[i \/ 8\] && /eo_t[i*8 + p] = /'
FILE[pending_kept_on_clear]=rtl/v3/capfc_sort.sv; SUB[pending_kept_on_clear]='s/\(pend_q\[o\]\[j\] && !rowclr\[j\] && /(pend_q[o][j] \&\& /'
ALL="rtrig_at_t4 e_write_not_cancelled e_write_not_cancelled_late sort_not_aborted sel_takes_every_tie max_keeps_last_tie ing_accept_strict eg_inc_strict d_without_e pfc_xon_lost_while_busy cfg_unwritten_reads_stale e_write_during_init e_other_before_ready pending_kept_on_clear"
