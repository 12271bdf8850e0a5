/* smoke.c: the C ABI from C, on the block's ports (capfc_top_oc). A model at 4 ports runs 2000
 * idle-but-configured cycles and its own outputs are fed to a checker (zero violations); then an
 * arrival is offered and held until the block takes it, and four cycles later, in the cycle of its
 * accept, the checker is told the block refused it and reports it. Exit 0 when both hold.
 *   cc -I capi/include capi/examples/smoke.c target/release/libcapfc_capi.a -lpthread -ldl -lm */
#include "capfc.h"
#include <stdio.h>
#include <string.h>

static const char *PARAMS = "np = 4\nsw = 14\now = 20\ncw = 16\ncell_log2 = 0\ncut_f = 8\nnl = 2\n";

/* Bit `pos` of a LSB-first word buffer. */
static int bit(const uint32_t *w, unsigned pos) { return (w[pos / 32] >> (pos % 32)) & 1; }

/* Set `width` bits of a LSB-first word buffer at bit `pos` to `v`. */
static void put(uint32_t *w, unsigned pos, unsigned width, uint64_t v) {
    for (unsigned k = 0; k < width; k++) {
        unsigned b = pos + k;
        if ((v >> k) & 1) w[b / 32] |= 1u << (b % 32); else w[b / 32] &= ~(1u << (b % 32));
    }
}

int main(void) {
    char err[256];
    CapfcModel *m = capfc_model_new(PARAMS, err, sizeof err);
    CapfcChecker *c = capfc_checker_new(PARAMS, NULL, err, sizeof err);
    if (!m || !c) { fprintf(stderr, "smoke: %s\n", err); return 1; }
    if (capfc_model_new("np = 0", err, sizeof err) != NULL || strstr(err, "params") == NULL) {
        fprintf(stderr, "smoke: bad params not refused (%s)\n", err);
        return 1;
    }
    unsigned in_bits = capfc_model_in_bits(m), out_bits = capfc_model_out_bits(m);
    uint32_t in[64] = {0}, out[64] = {0};
    /* The input concatenation ends {..., deq_size, pfc_ready}: pfc_ready is bits [3:0] (every MAC
     * ready); {rst, cfg_we, cfg_addr, cfg_wdata} are its top 42 bits. Arrivals at port 0: arr_valid
     * sits below arr_prio and arr_size, above the departure lane (docs/golden.md). */
    unsigned top = in_bits;
    for (int cyc = 0; cyc < 2000; cyc++) {
        memset(in, 0, sizeof in);
        put(in, 0, 4, 0xF);
        if (cyc == 0) put(in, top - 1, 1, 1);                      /* rst */
        if (cyc >= 1 && cyc <= 8) {                                /* ING_MAX[p] = 3000, 0x00+p */
            put(in, top - 2, 1, 1);
            put(in, top - 10, 8, (uint64_t)(cyc - 1));
            put(in, top - 42, 32, 3000);
        }
        if (capfc_model_step(m, in, out) != 0) { fprintf(stderr, "smoke: model step\n"); return 1; }
        if (capfc_checker_step(c, in, out) != 0) {
            fprintf(stderr, "smoke: false alarm at cycle %d:\n%s", cyc, capfc_checker_report(c));
            return 1;
        }
    }
    /* A 100-byte arrival at port 3 (arr_valid[3] is bit top-43, arr_size[3] bits top-72 up, under
     * {rst, cfg_we, cfg_addr, cfg_wdata}), held until the block takes it: the cycle its port's
     * slot comes, arr_ready[3] (the outputs' top bit) up. It fits under MAX 3000, so the block
     * accepts it four cycles after the take: arr_accept[3], the outputs' bit out_bits-1-2*NP. */
    int taken = -1;
    for (int cyc = 0; cyc < 8 && taken < 0; cyc++) {
        memset(in, 0, sizeof in);
        put(in, 0, 4, 0xF);
        put(in, top - 43, 1, 1);
        put(in, top - 72, 14, 100);
        capfc_model_step(m, in, out);
        if (capfc_checker_step(c, in, out) != 0) { fprintf(stderr, "smoke: false alarm\n"); return 1; }
        if (bit(out, out_bits - 1)) taken = cyc;
    }
    if (taken < 0) { fprintf(stderr, "smoke: the arrival was not taken in 8 cycles\n"); return 1; }
    for (int k = 1; k <= 3; k++) {
        memset(in, 0, sizeof in);
        put(in, 0, 4, 0xF);
        capfc_model_step(m, in, out);
        if (capfc_checker_step(c, in, out) != 0) { fprintf(stderr, "smoke: false alarm\n"); return 1; }
    }
    memset(in, 0, sizeof in);
    put(in, 0, 4, 0xF);
    capfc_model_step(m, in, out);
    unsigned accept = out_bits - 1 - 2 * 4;
    if (!bit(out, accept)) {
        fprintf(stderr, "smoke: the model did not accept\n");
        return 1;
    }
    put(out, accept, 1, 0);
    int n = capfc_checker_step(c, in, out);
    char sum[512];
    capfc_checker_summary(c, sum, sizeof sum);
    /* (the report is valid until the next call on the handle: taken last) */
    const char *r = capfc_checker_report(c);
    printf("smoke: %d new violation(s): %s\nsmoke: %s\n", n, r, sum);
    /* (the verdict before the checker is freed: the report is the checker's memory) */
    int ok = n >= 1 && strlen(r) > 0;
    capfc_checker_free(c);
    capfc_model_free(m);
    return ok ? 0 : 1;
}
