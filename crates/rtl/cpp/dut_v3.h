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
    // The registers only, into their places in the state words (a RAM's words are left as
    // they are).
    virtual void read_regs(uint32_t* state) const = 0;
    // Overwrite every register and RAM word (the layout of `read_state`): a snapshot restored.
    virtual void write_state(const uint32_t* state) = 0;
    // The cycle count that names the waveform's times (cycle c at 2c and 2c+1).
    virtual uint64_t cycle() const = 0;
    virtual void set_cycle(uint64_t c) = 0;
    // `step`, also giving every RAM's write port (we, wa, wd) as the edge of this cycle sees it.
    virtual void step_writes(const uint32_t* in, uint32_t* out, uint32_t* writes) = 0;
    virtual size_t write_words() const = 0;
    // The benchmark's baseline: the same work as `step` per cycle, in a C++ loop.
    virtual uint64_t run_loop(const uint32_t* stim, size_t words_per_cycle, size_t cycles,
                              uint32_t* out) = 0;
    virtual size_t input_words() const = 0;
    virtual size_t output_words() const = 0;
    virtual size_t state_words() const = 0;
    // One line a variable, in packing order: "i NAME WIDTH", "o NAME WIDTH",
    // "s NAME WIDTH [DIM ...]" (NAME dotted from the block's instance, DIM an unpacked
    // dimension's size, outermost first), or "w NAME WIDTH" (a RAM's write port).
    virtual const char* layout() const = 0;
    // Start writing a VCD of every cycle from now on.
    virtual bool open_trace(const std::string& path) = 0;
    virtual void close_trace() = 0;
};

}  // namespace capfc
