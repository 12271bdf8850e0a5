// The template behind every configuration's Dut: V is the Verilated class, P the generated port
// mapping (set_inputs / get_outputs / read_state and the word counts).
#pragma once
#include <cstring>
#include <type_traits>
#include <utility>
#include "dut.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

namespace capfc {

// Words <-> Verilator's port and variable types: one word up to 32 bits, two for QData, N for
// VlWide<N>; an unpacked array element by element.
inline void unpack(const uint32_t*& w, CData& v) { v = static_cast<CData>(*w++); }
inline void unpack(const uint32_t*& w, SData& v) { v = static_cast<SData>(*w++); }
inline void unpack(const uint32_t*& w, IData& v) { v = *w++; }
inline void unpack(const uint32_t*& w, QData& v) {
    v = static_cast<QData>(w[0]) | (static_cast<QData>(w[1]) << 32);
    w += 2;
}
template <std::size_t N>
inline void unpack(const uint32_t*& w, VlWide<N>& v) {
    for (std::size_t i = 0; i < N; ++i) v[i] = *w++;
}
inline void pack(uint32_t*& w, CData v) { *w++ = v; }
inline void pack(uint32_t*& w, SData v) { *w++ = v; }
inline void pack(uint32_t*& w, IData v) { *w++ = v; }
inline void pack(uint32_t*& w, QData v) {
    *w++ = static_cast<uint32_t>(v);
    *w++ = static_cast<uint32_t>(v >> 32);
}
template <std::size_t N>
inline void pack(uint32_t*& w, const VlWide<N>& v) {
    for (std::size_t i = 0; i < N; ++i) *w++ = v[i];
}
template <typename T, std::size_t N>
inline void unpack(const uint32_t*& w, VlUnpacked<T, N>& v) {
    for (std::size_t i = 0; i < N; ++i) unpack(w, v[i]);
}
template <typename T, std::size_t N>
inline void pack(uint32_t*& w, const VlUnpacked<T, N>& v) {
    for (std::size_t i = 0; i < N; ++i) pack(w, v[i]);
}

// Tracing's "this changed" flags, all set: one flag, or an array of them.
inline void mark_active(CData& v) { v = 1; }
template <std::size_t N>
inline void mark_active(VlUnpacked<CData, N>& v) {
    for (std::size_t i = 0; i < N; ++i) v[i] = 1;
}

// How many words a Verilator type takes in the packed layout.
template <typename T> struct Words;
template <> struct Words<CData> { static constexpr std::size_t n = 1; };
template <> struct Words<SData> { static constexpr std::size_t n = 1; };
template <> struct Words<IData> { static constexpr std::size_t n = 1; };
template <> struct Words<QData> { static constexpr std::size_t n = 2; };
template <std::size_t N> struct Words<VlWide<N>> { static constexpr std::size_t n = N; };
template <typename T, std::size_t N> struct Words<VlUnpacked<T, N>> {
    static constexpr std::size_t n = N * Words<T>::n;
};
template <typename T> constexpr std::size_t words_of() { return Words<std::remove_cv_t<T>>::n; }

// One clock cycle of a Verilated block (V) through its generated mapping (P), shared by the v2
// and v3 wrappers: apply the inputs, settle, sample the outputs (and, given `writes`, every RAM's
// write port as it stands before the edge), rising edge. Cycle c is dumped at times 2c and 2c+1.
template <class P, class V>
inline void clock_cycle(V* top, VerilatedVcdC* trace, uint64_t& cycle, const uint32_t* in,
                        uint32_t* out, uint32_t* writes) {
    P::set_inputs(top, in);
    top->clk = 0;
    top->eval();
    P::get_outputs(top, out);
    if (writes) P::read_writes(top, writes);
    if (trace) trace->dump(2 * cycle);
    top->clk = 1;
    top->eval();
    if (trace) trace->dump(2 * cycle + 1);
    ++cycle;
}

// Overwrite every architectural register of a Verilated block, then have the next eval settle
// the whole model again (as at time 0): Verilator only re-evaluates logic whose triggers fired,
// and writing a register from outside fires none. The combinational logic is a function of these
// registers and the inputs alone, so this restores the state exactly. Tracing dumps every signal
// at the next step.
template <class P, class V>
inline void restore_state(V* top, const uint32_t* state) {
    P::write_state(top, state);
    top->rootp->vlSymsp->__Vm_didInit = false;
    top->eval();
    mark_active(top->rootp->__Vm_traceActivity);
}

template <class V, class P>
class DutImpl final : public Dut {
public:
    // Verilator 5.006 registers and erases scopes through the calling thread's current context
    // (Verilated::threadContextp), not the model's own: with several instances on one thread, each
    // must make its own context current before it is built or destroyed, or the erase locks the
    // mutex of a context that is gone.
    DutImpl() : ctx_(new VerilatedContext) {
        Verilated::threadContextp(ctx_.get());
        top_.reset(new V(ctx_.get(), "capfc_v2_top"));
        ctx_->traceEverOn(true);
        top_->clk = 0;
        top_->eval();
    }
    ~DutImpl() override {
        Verilated::threadContextp(ctx_.get());
        close_trace();
        top_->final();
        top_.reset();
        Verilated::threadContextp(nullptr);
    }

    void step(const uint32_t* in, uint32_t* out) override { cycle_step(in, out, nullptr); }

    void step_writes(const uint32_t* in, uint32_t* out, uint32_t* writes) override {
        cycle_step(in, out, writes);
    }

    void read_state(uint32_t* state) const override { P::read_state(top_.get(), state); }
    void read_flops(uint32_t* flops) const override { P::read_flops(top_.get(), flops); }

    void write_state(const uint32_t* state) override { restore_state<P>(top_.get(), state); }

    uint64_t run_loop(const uint32_t* stim, size_t wpc, size_t cycles, uint32_t* out) override {
        uint64_t acc = 0;
        for (size_t c = 0; c < cycles; ++c) {
            P::set_inputs(top_.get(), stim + c * wpc);
            top_->clk = 0;
            top_->eval();
            P::get_outputs(top_.get(), out);
            acc += out[0];
            top_->clk = 1;
            top_->eval();
        }
        cycle_ += cycles;
        return acc;
    }

    size_t input_words() const override { return P::input_words(); }
    size_t output_words() const override { return P::output_words(); }
    size_t state_words() const override { return P::state_words(); }
    size_t flops_words() const override { return P::flops_words(); }
    size_t writes_words() const override { return P::writes_words(); }
    uint64_t cycle() const override { return cycle_; }
    void set_cycle(uint64_t c) override { cycle_ = c; }

    bool open_trace(const std::string& path) override {
        close_trace();
        trace_.reset(new VerilatedVcdC);
        top_->trace(trace_.get(), 99);
        trace_->open(path.c_str());
        return trace_->isOpen();
    }
    void close_trace() override {
        if (trace_) {
            trace_->close();
            trace_.reset();
        }
    }

private:
    void cycle_step(const uint32_t* in, uint32_t* out, uint32_t* writes) {
        clock_cycle<P>(top_.get(), trace_.get(), cycle_, in, out, writes);
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> top_;
    std::unique_ptr<VerilatedVcdC> trace_;
    uint64_t cycle_ = 0;
};

}  // namespace capfc
