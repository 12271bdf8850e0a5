// The names of capfc_top's ports and of its architectural state, in packing order.
//
// This file has no dependencies on purpose: build.rs includes it to generate the C++ side of the
// Verilator bridge, so the Rust packer and the C++ unpacker share one list and cannot drift apart.
// Widths are computed by `crate::block::pack` from the block parameters.

/// Input ports of `capfc_top`, in packing order (clk is driven separately).
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
];

/// Output ports of `capfc_top`, in packing order.
pub const OUTPUT_PORTS: &[&str] = &[
    "arr_accept",
    "enq_accept",
    "pfc_valid",
    "pfc_cev",
    "pfc_quanta",
    "d_state",
];

/// Architectural state read back for the lockstep check: (instance, register), in packing order.
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
    ("u_ingress", "occ_q"),
    ("u_ingress", "xoff_q"),
    ("u_egress", "occ_q"),
    ("u_egress", "cnt_q"),
    ("u_egress", "cnt_vld_q"),
    ("u_egress", "e_q"),
    ("u_sort", "pend_q"),
    ("u_sort", "rr_q"),
    ("u_sort", "busy_q"),
    ("u_sort", "qidx_q"),
    ("u_sort", "iter_q"),
    ("u_sort", "cancel_q"),
    ("u_sort", "cal_q"),
    ("u_sort", "vals_q"),
    ("u_sort", "taken_q"),
    ("u_sort", "sum_q"),
    ("u_sort", "total_q"),
    ("u_pfc", "prev_q"),
    ("u_pfc", "timer_q"),
];
