//! The v3 block's fault catalogue: one deliberate bug per rule of the contract
//! (`docs/microarchitecture.md`) and per mechanism of the block, each in one unit of the model.
//!
//! A fault is injected into the model only ([`super::top::Top::set_fault`]); the RTL stays right.
//! `capfc faults` (`crate::faults`) shows which lockstep run (the faulty model beside the
//! Verilated RTL, `crate::cosim_v3`) and which golden set (its expected outputs written by the
//! faulty model, replayed on the unchanged RTL by the plain Verilog testbench) catches each one.
//!
//! The units test the fault in force through [`pick`] and the comparators [`le`], [`ge`], [`gt`]:
//! the right value unless the fault named is in force, and then the wrong one. Each counts, per
//! thread, the times the wrong value differed from the right one ([`fired`]): a run that catches
//! a fault shows that the fault's case happened in it.

use std::cell::Cell;

crate::fault_catalogue! {
    #[doc = "A deliberate bug in one rule of the v3 model."]
    // the ingress (docs/microarchitecture.md, "Rules: Compares", "Engine stages")
    IngMaxStrict = "ing_max_strict", "u_ingress",
        "arr_accept: occ + s <= MAX, accept at MAX (fault: occ + s < MAX)";
    IngMaxLoose = "ing_max_loose", "u_ingress",
        "arr_accept: occ + s <= MAX (fault: occ + s <= MAX + 1)";
    IngXoffGe = "ing_xoff_ge", "u_ingress",
        "I set when occ > XOFF after the arrival (fault: occ >= XOFF)";
    IngXonLt = "ing_xon_lt", "u_ingress",
        "I cleared when occ <= XON after the departure (fault: occ < XON)";
    IngLossyPause = "ing_lossy_pause", "u_ingress",
        "I set for lossless priorities only (fault: for every priority)";
    IngArrivalFirst = "ing_arrival_before_departure", "u_ingress",
        "a slot's departure and arrival of one queue: the departure first, the arrival compared after it (fault: compared before it)";
    ResetKeepsI = "reset_keeps_i", "u_ingress",
        "reset: every register 0, I (xoff_q) too (fault: I kept through the reset)";
    ThrRefreshShifted = "thr_refresh_shifted", "u_ingress.u_thr",
        "the thresholds' copies: the refresh writes priority rf's words at rf (fault: at rf + 1)";
    IngAcceptLate = "arr_accept_late", "u_ingress",
        "an arrival taken in cycle t is answered by arr_accept in t + 4 (fault: t + 5)";
    // the egress (docs/microarchitecture.md, "Rules", "Egress", "Counters", "E")
    EgMaxStrict = "eg_max_strict", "u_egress",
        "enq_accept: occ + s <= MAX_e (fault: occ + s < MAX_e)";
    EgMaxLoose = "eg_max_loose", "u_egress",
        "enq_accept: occ + s <= MAX_e (fault: occ + s <= MAX_e + 1)";
    XoffEGe = "xoff_e_ge", "u_egress",
        "sort request when occ > XOFF_e after an accepted enqueue (fault: occ >= XOFF_e)";
    WarnOffByOne = "warn_off_by_one", "u_egress",
        "a counter counts an enqueue when occ >= WARN after it (fault: occ > WARN)";
    ClearBelowWarn = "clear_below_warn", "u_egress",
        "the counters cleared when occ <= WARN after a dequeue (fault: occ < WARN)";
    XonOffByOne = "xon_off_by_one", "u_egress",
        "E cleared when occ <= XON_e after a dequeue (fault: occ < XON_e)";
    EgEnqueueFirst = "eg_enqueue_before_dequeue", "u_egress",
        "a slot's dequeue and enqueue of one queue: the dequeue first, the enqueue compared after it (fault: compared before it)";
    IncUncounted = "inc_uncounted", "u_egress",
        "only counted classes have counters (fault: an enqueue of any priority counts)";
    EgAcceptLate = "enq_accept_late", "u_egress",
        "an enqueue taken in cycle t is answered by enq_accept in t + 4 (fault: t + 5)";
    CounterWraps = "counter_wraps", "u_egress",
        "saturation: a counter stops at 2^CW - 1 (fault: it wraps to 0)";
    GenNotAdvanced = "gen_not_advanced", "u_egress",
        "a row clear advances the row's generation: every word of the row reads 0 (fault: the generation stays)";
    GenNoWrap = "gen_no_wrap", "u_egress",
        "the generation counts modulo 2^TW (fault: at 2^TW - 1 it stays, and the row's clears no longer clear it)";
    IncTagIgnored = "inc_tag_ignored", "u_egress",
        "an increment counts a word only if its tag is its row's generation, else from 0 (fault: whatever its tag)";
    SvalTagIgnored = "sval_tag_ignored", "u_egress",
        "the sort engines' read port: a word counts only if its tag is the row's generation (fault: whatever its tag)";
    ScrubOff = "scrub_off", "u_egress",
        "the scrub rewrites a stale word {generation, 0} in its frame (fault: it never rewrites)";
    SvalNotForwarded = "sval_not_forwarded", "u_egress",
        "a sort's read in the cycle of an increment's write gets it forwarded (fault: the RAM's old word)";
    EWriteNotCancelled = "e_write_not_cancelled", "u_egress",
        "an engine's E write arriving in its row's clear cycle is cancelled (fault: it reaches E)";
    EWriteNotCancelledLate = "e_write_not_cancelled_late", "u_egress",
        "an engine's E write arriving the cycle after its row's clear is cancelled (fault: it reaches E)";
    EClearLoses = "e_clear_loses", "u_egress",
        "in E, a clear wins over an engine's write of the same cycle (fault: the write wins)";
    EOwnPort = "e_own_port", "u_egress",
        "E of an input's own port never counts in D (fault: it counts)";
    EOtherBeforeReady = "e_other_before_ready", "u_egress",
        "reset: e_other is 0 until the egress's lanes are ready (fault: E from before the reset reaches D)";
    // the sort engines (docs/microarchitecture.md, "Stop-Max", "Stop-Calibrate", "Sort engines")
    MaxTieLast = "max_tie_last", "u_sort",
        "Stop-Max: the strictly largest counter, ties to the lowest index (fault: ties to the highest)";
    SrchMetStrict = "srch_met_strict", "u_sort",
        "the CUT compare in the search: a candidate meets the target when S * 2^CUT_F >= cut * T (fault: >)";
    CntMetStrict = "cnt_met_strict", "u_sort",
        "the CUT compare in CNT: need is the first j with (G + j * theta) * 2^CUT_F >= target (fault: >)";
    SrchDigit1Gt = "srch_digit1_gt", "u_sort",
        "radix-4 search: the sum of the inputs >= candidate 01 (fault: > candidate 01)";
    SrchDigit2Gt = "srch_digit2_gt", "u_sort",
        "radix-4 search: the sum of the inputs >= candidate 10 (fault: > candidate 10)";
    SrchDigit3Gt = "srch_digit3_gt", "u_sort",
        "radix-4 search: the sum of the inputs >= candidate 11 (fault: > candidate 11)";
    SrchLowerDigit = "srch_prefers_lower_digit", "u_sort",
        "radix-4 search: the highest candidate whose sum meets the target (fault: 10 before 11)";
    SrchLastDigitSkipped = "srch_last_digit_skipped", "u_sort",
        "radix-4 search: a pass for every two bits of theta, down to bit 0 (fault: the last pass skipped, theta's low digit 0)";
    GtIncludesTheta = "gt_includes_theta", "u_sort",
        "Stop-Calibrate: G sums the inputs with C > theta (fault: C >= theta)";
    CntNeedPlusOne = "cnt_need_plus_one", "u_sort",
        "Stop-Calibrate: SEL takes need = the first j that meets the target of the inputs equal to theta (fault: j + 1)";
    SelTakesEveryTie = "sel_takes_every_tie", "u_sort",
        "Stop-Calibrate: the inputs equal to theta taken while fewer than need are (fault: every one)";
    SelTieLast = "sel_tie_last", "u_sort",
        "Stop-Calibrate: ties taken lowest index first (fault: highest index first)";
    RrFixed = "rr_fixed", "u_sort",
        "an engine grants its rows in round robin (fault: the lowest pending row always)";
    SortNotAborted = "sort_not_aborted", "u_sort",
        "a row clear aborts the row's running sort (fault: the sort finishes and writes E)";
    PendingKeptOnClear = "pending_kept_on_clear", "u_sort",
        "a row clear drops the row's pending request (fault: it stays pending)";
    // D and the PFC generator (docs/microarchitecture.md, "D", "PFC frames", "Reset")
    DInReset = "d_in_reset", "u_top",
        "reset: d_q is 0 in a reset cycle (fault: I | e_other)";
    ReadyIgnored = "ready_ignored", "u_pfc",
        "the handshake: a frame is taken only in a cycle with pfc_ready high (fault: whenever valid)";
    XonNotSent = "xon_not_sent", "u_pfc",
        "pfc_cev = D | sent: classes resumed since the last frame are sent (fault: pfc_cev = D)";
    RefreshLate = "refresh_late", "u_pfc",
        "the pause refresh is pending refresh + 1 cycles after a frame taken (fault: refresh + 2)";
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

thread_local! {
    static FIRED: Cell<u64> = const { Cell::new(0) };
}

/// The times, on this thread, that a fault in force gave a value other than the right one.
pub fn fired() -> u64 {
    FIRED.with(Cell::get)
}

/// [`fired`] back to 0.
pub fn reset_fired() {
    FIRED.with(|c| c.set(0));
}

/// `right`, or `wrong` when fault `x` is in force (counted in [`fired`] when they differ).
#[inline(always)]
pub fn pick<T: PartialEq>(f: Option<Fault>, x: Fault, right: T, wrong: T) -> T {
    if f == Some(x) && right != wrong {
        FIRED.with(|c| c.set(c.get() + 1));
        wrong
    } else {
        right
    }
}

/// `right`, or `wrong()` when fault `x` is in force (for a wrong value that costs to compute).
#[inline(always)]
pub fn pick_with<T: PartialEq>(
    f: Option<Fault>,
    x: Fault,
    right: T,
    wrong: impl FnOnce() -> T,
) -> T {
    if f == Some(x) {
        pick(f, x, right, wrong())
    } else {
        right
    }
}

/// `a <= b`; under fault `x`, `a < b`.
#[inline(always)]
pub fn le<T: PartialOrd>(f: Option<Fault>, x: Fault, a: T, b: T) -> bool {
    pick(f, x, a <= b, a < b)
}

/// `a >= b`; under fault `x`, `a > b`.
#[inline(always)]
pub fn ge<T: PartialOrd>(f: Option<Fault>, x: Fault, a: T, b: T) -> bool {
    pick(f, x, a >= b, a > b)
}

/// `a > b`; under fault `x`, `a >= b`.
#[inline(always)]
pub fn gt<T: PartialOrd>(f: Option<Fault>, x: Fault, a: T, b: T) -> bool {
    pick(f, x, a > b, a >= b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for &f in Fault::ALL {
            assert!(seen.insert(f.name()), "{} twice", f.name());
            assert_eq!(f.name().parse::<Fault>(), Ok(f));
            assert!(f.rule().contains("(fault: "), "{}: {}", f.name(), f.rule());
        }
        assert!(Fault::ALL.len() >= 30);
        assert!("no_such_fault".parse::<Fault>().is_err());
    }

    #[test]
    fn a_fault_fires_only_when_it_changes_a_value() {
        reset_fired();
        let f = Some(Fault::IngMaxStrict);
        assert!(le(None, Fault::IngMaxStrict, 3, 3));
        assert!(le(f, Fault::IngXoffGe, 3, 3));
        assert_eq!(fired(), 0);
        assert!(le(f, Fault::IngMaxStrict, 2, 3));
        assert_eq!(fired(), 0);
        assert!(!le(f, Fault::IngMaxStrict, 3, 3));
        assert_eq!(fired(), 1);
    }
}
