// Thin shims from cxx's slices to the DutV3 interface; the factory is generated
// (dut_v3_factory.h, build.rs).
#include "capfc/cpp/dut_v3_bridge.h"
#include <stdexcept>
#include "dut_v3_factory.h"

namespace capfc {

std::unique_ptr<DutV3> new_dut_v3(rust::Str config) {
    std::string name(config);
    std::unique_ptr<DutV3> d = make_dut_v3(name);
    if (!d) throw std::runtime_error("no Verilated v3 configuration named '" + name + "'");
    return d;
}

rust::Vec<rust::String> v3_rtl_configs() {
    rust::Vec<rust::String> v;
    for (const char* n : kV3ConfigNames)
        if (n) v.push_back(rust::String(n));
    return v;
}

void dut_v3_step(DutV3& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out) {
    dut.step(in.data(), out.data());
}
void dut_v3_read_state(const DutV3& dut, rust::Slice<uint32_t> state) {
    dut.read_state(state.data());
}
void dut_v3_read_regs(const DutV3& dut, rust::Slice<uint32_t> state) {
    dut.read_regs(state.data());
}
void dut_v3_write_state(DutV3& dut, rust::Slice<const uint32_t> state) {
    dut.write_state(state.data());
}
void dut_v3_set_cycle(DutV3& dut, uint64_t cycle) { dut.set_cycle(cycle); }
void dut_v3_step_writes(DutV3& dut, rust::Slice<const uint32_t> in, rust::Slice<uint32_t> out,
                        rust::Slice<uint32_t> writes) {
    dut.step_writes(in.data(), out.data(), writes.data());
}
size_t dut_v3_write_words(const DutV3& dut) { return dut.write_words(); }
uint64_t dut_v3_run_loop(DutV3& dut, rust::Slice<const uint32_t> stim, size_t wpc, size_t cycles,
                         rust::Slice<uint32_t> out) {
    return dut.run_loop(stim.data(), wpc, cycles, out.data());
}
size_t dut_v3_input_words(const DutV3& dut) { return dut.input_words(); }
size_t dut_v3_output_words(const DutV3& dut) { return dut.output_words(); }
size_t dut_v3_state_words(const DutV3& dut) { return dut.state_words(); }
rust::String dut_v3_layout(const DutV3& dut) { return rust::String(dut.layout()); }
bool dut_v3_open_trace(DutV3& dut, rust::Str path) { return dut.open_trace(std::string(path)); }
void dut_v3_close_trace(DutV3& dut) { dut.close_trace(); }

}  // namespace capfc
