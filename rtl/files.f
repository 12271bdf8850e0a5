rtl/capfc_cfg.sv
rtl/capfc_ingress.sv
rtl/capfc_egress.sv
rtl/capfc_argmax.sv
rtl/capfc_sort.sv
rtl/capfc_pfc_gen.sv
rtl/capfc_top.sv
