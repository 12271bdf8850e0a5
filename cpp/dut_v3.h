// The Verilated v3 block (capfc_top_oc, rtl/v3/files.f) behind one small interface, one
// VerilatedContext per instance. Inputs, outputs and state travel as packed 32-bit words in the
// order of `layout()`, which build.rs generates per configuration from the Verilated headers: every
// port but clk, and every register (a name ending in _q) and RAM word (mem) of the block, so that
// src/dut_v3.rs can compare them with the v3 model's registers by name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace capfc {

class DutV3 {
public:
    virtual ~DutV3() = default;
    // One clock cycle: apply inputs, settle, sample outputs, rising edge.
    virtual void step(const uint32_t* in, uint32_t* out) = 0;
    // Every register and RAM word, as of now (after the last edge).
    virtual void read_state(uint32_t* state) const = 0;
    // The benchmark's baseline: the same work as `step` per cycle, in a C++ loop.
    virtual uint64_t run_loop(const uint32_t* stim, size_t words_per_cycle, size_t cycles,
                              uint32_t* out) = 0;
    virtual size_t input_words() const = 0;
    virtual size_t output_words() const = 0;
    virtual size_t state_words() const = 0;
    // One line a variable, in packing order: "i NAME WIDTH", "o NAME WIDTH", or
    // "s NAME WIDTH [DIM ...]" (NAME dotted from the block's instance, DIM an unpacked
    // dimension's size, outermost first).
    virtual const char* layout() const = 0;
    // Start writing a VCD of every cycle from now on.
    virtual bool open_trace(const std::string& path) = 0;
    virtual void close_trace() = 0;
};

}  // namespace capfc
