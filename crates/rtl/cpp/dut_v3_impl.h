// The template behind every v3 configuration's DutV3: V is the Verilated class, P the generated
// mapping (set_inputs / get_outputs / read_state, the word counts and the layout).
#pragma once
#include "dut_impl.h"
#include "dut_v3.h"

namespace capfc {

template <class V, class P>
class DutV3Impl final : public DutV3 {
public:
    // (each instance makes its own context current while it is built and destroyed: see DutImpl)
    DutV3Impl() : ctx_(new VerilatedContext) {
        Verilated::threadContextp(ctx_.get());
        top_.reset(new V(ctx_.get(), "capfc_top_oc"));
        ctx_->traceEverOn(true);
        top_->clk = 0;
        top_->eval();
    }
    ~DutV3Impl() override {
        Verilated::threadContextp(ctx_.get());
        close_trace();
        top_->final();
        top_.reset();
        Verilated::threadContextp(nullptr);
    }

    void step(const uint32_t* in, uint32_t* out) override { cycle(in, out, nullptr); }

    void read_state(uint32_t* state) const override { P::read_state(top_.get(), state); }
    void read_regs(uint32_t* state) const override { P::read_regs(top_.get(), state); }
    void write_state(const uint32_t* state) override { restore_state<P>(top_.get(), state); }
    uint64_t cycle() const override { return cycle_; }
    void set_cycle(uint64_t c) override { cycle_ = c; }

    void step_writes(const uint32_t* in, uint32_t* out, uint32_t* writes) override {
        cycle(in, out, writes);
    }
    size_t write_words() const override { return P::write_words(); }

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
    const char* layout() const override { return P::layout(); }

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
    void cycle(const uint32_t* in, uint32_t* out, uint32_t* writes) {
        clock_cycle<P>(top_.get(), trace_.get(), cycle_, in, out, writes);
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> top_;
    std::unique_ptr<VerilatedVcdC> trace_;
    uint64_t cycle_ = 0;
};

}  // namespace capfc
