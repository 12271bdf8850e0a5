rtl/capfc_pkg.sv
rtl/capfc_ram.sv
rtl/capfc_cfg.sv
rtl/capfc_ingress.sv
rtl/capfc_egress.sv
rtl/capfc_sort.sv
rtl/capfc_pfc_gen.sv
rtl/capfc_top.sv
