// The cxx-facing functions over capfc::DutV3 (see src/dut_v3.rs).
#pragma once
#include "capfc/cpp/dut_v3.h"
#include "rust/cxx.h"

namespace capfc {
std::unique_ptr<DutV3> new_dut_v3(rust::Str config);
rust::Vec<rust::String> v3_rtl_configs();
void dut_v3_step(DutV3& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out);
void dut_v3_read_state(const DutV3& dut, rust::Slice<uint32_t> state);
void dut_v3_read_regs(const DutV3& dut, rust::Slice<uint32_t> state);
void dut_v3_write_state(DutV3& dut, rust::Slice<const uint32_t> state);
void dut_v3_set_cycle(DutV3& dut, uint64_t cycle);
void dut_v3_step_writes(DutV3& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out,
                        rust::Slice<uint32_t> writes);
size_t dut_v3_write_words(const DutV3& dut);
uint64_t dut_v3_run_loop(DutV3& dut, rust::Slice<const uint32_t> stim, size_t words_per_cycle,
                         size_t cycles, rust::Slice<uint32_t> out);
size_t dut_v3_input_words(const DutV3& dut);
size_t dut_v3_output_words(const DutV3& dut);
size_t dut_v3_state_words(const DutV3& dut);
rust::String dut_v3_layout(const DutV3& dut);
bool dut_v3_open_trace(DutV3& dut, rust::Str path);
void dut_v3_close_trace(DutV3& dut);
}  // namespace capfc
