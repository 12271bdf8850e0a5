# The assembled v3 block (capfc_top_oc) in compile order: its configuration registers (the
# thresholds in LUT RAM), the PFC generator, the ingress, egress and sort engines. Read by mk/v3.mk (V3_TOP) and crates/rtl/build.rs (the
# in-process Verilated v3 block, crates/rtl/src/dut_v3.rs).
rtl/capfc_pkg.sv
rtl/capfc_ram.sv
rtl/capfc_lutram.sv
rtl/v3/capfc_cfg.sv
rtl/v3/capfc_thr_copies.sv
rtl/v3/capfc_ingress.sv
rtl/v3/capfc_egress.sv
rtl/v3/capfc_sort.sv
rtl/capfc_pfc_gen.sv
rtl/v3/capfc_top_oc.sv
