// The cxx-facing functions over capfc::Dut (see src/dut.rs).
#pragma once
#include "capfc/cpp/dut.h"
#include "rust/cxx.h"

namespace capfc {
std::unique_ptr<Dut> new_dut(rust::Str config);
rust::Vec<rust::String> rtl_configs();
void dut_step(Dut& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out);
void dut_step_writes(Dut& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out,
                     rust::Slice<uint32_t> writes);
void dut_read_state(const Dut& dut, rust::Slice<uint32_t> state);
void dut_read_flops(const Dut& dut, rust::Slice<uint32_t> flops);
void dut_write_state(Dut& dut, rust::Slice<const uint32_t> state);
uint64_t dut_run_loop(Dut& dut, rust::Slice<const uint32_t> stim, size_t words_per_cycle,
                      size_t cycles, rust::Slice<uint32_t> out);
size_t dut_input_words(const Dut& dut);
size_t dut_output_words(const Dut& dut);
size_t dut_state_words(const Dut& dut);
size_t dut_flops_words(const Dut& dut);
size_t dut_writes_words(const Dut& dut);
bool dut_open_trace(Dut& dut, rust::Str path);
void dut_close_trace(Dut& dut);
void dut_set_cycle(Dut& dut, uint64_t cycle);
}  // namespace capfc
