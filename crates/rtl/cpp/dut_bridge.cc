// Thin shims from cxx's slices to the Dut interface; the factory is generated (dut_factory.h).
#include "capfc/cpp/dut_bridge.h"
#include <stdexcept>
#include "dut_factory.h"

namespace capfc {

std::unique_ptr<Dut> new_dut(rust::Str config) {
    std::string name(config);
    std::unique_ptr<Dut> d = make_dut(name);
    if (!d) throw std::runtime_error("no Verilated configuration named '" + name + "'");
    return d;
}

rust::Vec<rust::String> rtl_configs() {
    rust::Vec<rust::String> v;
    for (const char* n : kConfigNames) v.push_back(rust::String(n));
    return v;
}

void dut_step(Dut& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out) {
    dut.step(in.data(), out.data());
}
void dut_step_writes(Dut& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out,
                     rust::Slice<uint32_t> writes) {
    dut.step_writes(in.data(), out.data(), writes.data());
}
void dut_read_state(const Dut& dut, rust::Slice<uint32_t> state) { dut.read_state(state.data()); }
void dut_read_flops(const Dut& dut, rust::Slice<uint32_t> flops) { dut.read_flops(flops.data()); }
void dut_write_state(Dut& dut, rust::Slice<const uint32_t> state) {
    dut.write_state(state.data());
}
uint64_t dut_run_loop(Dut& dut, rust::Slice<const uint32_t> stim, size_t wpc, size_t cycles,
                      rust::Slice<uint32_t> out) {
    return dut.run_loop(stim.data(), wpc, cycles, out.data());
}
size_t dut_input_words(const Dut& dut) { return dut.input_words(); }
size_t dut_output_words(const Dut& dut) { return dut.output_words(); }
size_t dut_state_words(const Dut& dut) { return dut.state_words(); }
size_t dut_flops_words(const Dut& dut) { return dut.flops_words(); }
size_t dut_writes_words(const Dut& dut) { return dut.writes_words(); }
bool dut_open_trace(Dut& dut, rust::Str path) { return dut.open_trace(std::string(path)); }
void dut_close_trace(Dut& dut) { dut.close_trace(); }
void dut_set_cycle(Dut& dut, uint64_t cycle) { dut.set_cycle(cycle); }

}  // namespace capfc
