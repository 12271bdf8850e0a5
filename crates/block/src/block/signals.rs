// The names of capfc_v2_top's ports and of its architectural state, in packing order.
//
// This file has no dependencies on purpose: crates/rtl/build.rs includes it to generate the C++ side of the
// Verilator bridge, so the Rust packer and the C++ unpacker share one list and cannot drift apart.
// Widths are computed by `crate::block::pack` from the block parameters.

/// Input ports of `capfc_v2_top`, in packing order (clk is driven separately).
pub const INPUT_PORTS: &[&str] = &[
    "rst",
    "cfg_we",
    "cfg_addr",
    "cfg_wdata",
    "arr_valid",
    "arr_prio",
    "arr_size",
    "dep_valid",
    "dep_port",
    "dep_prio",
    "dep_size",
    "enq_valid",
    "enq_oport",
    "enq_prio",
    "enq_iport",
    "enq_size",
    "deq_valid",
    "deq_prio",
    "deq_size",
    "pfc_ready",
];

/// Output ports of `capfc_v2_top`, in packing order.
pub const OUTPUT_PORTS: &[&str] = &[
    "arr_accept",
    "enq_accept",
    "pfc_valid",
    "pfc_cev",
    "pfc_xoff",
    "pfc_quanta",
    "d_state",
];

/// Architectural state read back for the lockstep check: (instance, register), in packing order.
/// A register containing `{o}` exists once per output port (a RAM instance in `gen_port[o]`) and is
/// expanded for o = 0..NP-1, in order, where it stands.
pub const STATE_SIGNALS: &[(&str, &str)] = &[
    ("u_cfg", "ing_max_q"),
    ("u_cfg", "ing_xoff_q"),
    ("u_cfg", "ing_xon_q"),
    ("u_cfg", "eg_max_q"),
    ("u_cfg", "eg_xoff_q"),
    ("u_cfg", "eg_xon_q"),
    ("u_cfg", "eg_warn_q"),
    ("u_cfg", "lossless_q"),
    ("u_cfg", "mode_q"),
    ("u_cfg", "cut_q"),
    ("u_cfg", "quanta_q"),
    ("u_cfg", "refresh_q"),
    ("u_ingress", "xoff_q"),
    ("u_ingress", "sel_q"),
    ("u_ingress", "vq_q"),
    ("u_ingress", "gen_port[{o}].u_arr.mem"),
    ("u_ingress", "gen_port[{o}].u_dep.mem"),
    ("u_egress", "sel_q"),
    ("u_egress", "vq_q"),
    ("u_egress", "gen_port[{o}].u_deq.mem"),
    ("u_egress", "gen_port[{o}].u_enq.mem"),
    ("u_egress", "vld_q"),
    ("u_egress", "e_q"),
    ("u_egress", "inc_v_q"),
    ("u_egress", "inc_o_q"),
    ("u_egress", "inc_l_q"),
    ("u_egress", "inc_i_q"),
    ("u_egress", "wr_v_q"),
    ("u_egress", "wr_o_q"),
    ("u_egress", "wr_l_q"),
    ("u_egress", "wr_i_q"),
    ("u_egress", "wr_cnt_q"),
    ("u_egress", "gen_port[{o}].u_cnt.mem"),
    ("u_egress", "gen_port[{o}].u_cnt.rd_q"),
    ("u_sort", "pend_q"),
    ("u_sort", "rr_q"),
    ("u_sort", "busy_q"),
    ("u_sort", "cal_q"),
    ("u_sort", "ph_q"),
    ("u_sort", "row_q"),
    ("u_sort", "k_q"),
    ("u_sort", "bit_q"),
    ("u_sort", "v_q"),
    ("u_sort", "ix_q"),
    ("u_sort", "acc_q"),
    ("u_sort", "tgt_q"),
    ("u_sort", "gen_port[{o}].u_snap.mem"),
    ("u_sort", "gen_port[{o}].u_snap.rd_q"),
    ("u_pfc", "sent_q"),
    ("u_pfc", "timer_q"),
];

/// A state register's name for output port `o` (`{o}` replaced), and its C++ member name in the
/// Verilated model's root (`.` becomes `__DOT__`, `[`/`]` become `__BRA__`/`__KET__`).
pub fn expand_port(reg: &str, o: usize) -> String {
    reg.replace("{o}", &o.to_string())
}

/// The Verilated C++ member of `capfc_v2_top.INST.REG` (REG already expanded).
pub fn verilated_member(inst: &str, reg: &str) -> String {
    format!("capfc_v2_top__DOT__{inst}__DOT__{reg}")
        .replace('.', "__DOT__")
        .replace('[', "__BRA__")
        .replace(']', "__KET__")
}
