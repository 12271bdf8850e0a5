//! `capfc_v2_ram`: a synchronous RAM with one write port and one or two read ports.
//!
//! Contract (docs/microarchitecture-v2.md, "RAM"): each cycle, an enabled read port loads its read-data
//! register `rd_q[k]` with the word at its address as it was before this cycle's write (read-first),
//! and a write stores its word. No reset; contents start at 0 (Verilator's `--x-initial fast`).
//! Users never rely on a read of the word written in the same cycle (they forward), so a block RAM
//! or SRAM macro whose same-address collision is undefined implements this.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ram<T> {
    /// `mem`: the words.
    pub mem: Vec<T>,
    /// `rd_q`: the read-data register of each read port.
    pub rd_q: Vec<T>,
    /// The write port in the last cycle (`we`, and `wa`, `wd` when set): not state, a record for
    /// the lockstep, which compares writes instead of every word (docs/microarchitecture-v2.md,
    /// "Lockstep"), which clears it before each cycle
    /// ([`CapfcTop::clear_write_records`](super::CapfcTop::clear_write_records)).
    #[serde(skip)]
    pub wr: Option<(usize, T)>,
}

/// Equal registers and words; the write record is not state.
impl<T: PartialEq> PartialEq for Ram<T> {
    fn eq(&self, o: &Self) -> bool {
        self.mem == o.mem && self.rd_q == o.rd_q
    }
}
impl<T: Eq> Eq for Ram<T> {}

impl<T: Copy + Default> Ram<T> {
    pub fn new(words: usize, read_ports: usize) -> Self {
        Ram {
            mem: vec![T::default(); words],
            rd_q: vec![T::default(); read_ports],
            wr: None,
        }
    }

    /// Read port `k` reads `addr` this cycle. Call every read of a cycle before its write.
    #[inline]
    pub fn read(&mut self, k: usize, addr: usize) {
        self.rd_q[k] = self.mem[addr];
    }

    /// The write of this cycle (after this cycle's reads).
    #[inline]
    pub fn write(&mut self, addr: usize, v: T) {
        self.mem[addr] = v;
        self.wr = Some((addr, v));
    }
}

/// `capfc_v2_lutram`: a small RAM with one write port and asynchronous reads (no read register).
///
/// Contract (docs/microarchitecture-v2.md, "LUT RAM"): a read returns the word as it is before this
/// cycle's write; a write shows from the next cycle. No reset: its user keeps a valid bit per word.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LutRam<T> {
    /// `mem`: the words.
    pub mem: Vec<T>,
    /// The write port in the last cycle, as [`Ram::wr`].
    #[serde(skip)]
    pub wr: Option<(usize, T)>,
}

/// Equal words; the write record is not state.
impl<T: PartialEq> PartialEq for LutRam<T> {
    fn eq(&self, o: &Self) -> bool {
        self.mem == o.mem
    }
}
impl<T: Eq> Eq for LutRam<T> {}

impl<T: Copy + Default> LutRam<T> {
    pub fn new(words: usize) -> Self {
        LutRam {
            mem: vec![T::default(); words],
            wr: None,
        }
    }

    /// The write of this cycle: word `addr` holds `v` from the next cycle on.
    #[inline]
    pub fn write(&mut self, addr: usize, v: T) {
        self.mem[addr] = v;
        self.wr = Some((addr, v));
    }
}

/// Word `p` of a port's two occupancy banks (`capfc_v2_ingress`, `capfc_v2_egress`): the bank that bit
/// p of `sel` names (set: `global`, the bank of the single departure or enqueue lane; clear: `own`,
/// the port's own lane), 0 while bit p of `vq` (written since reset) is clear.
#[inline]
pub fn live_read(vq: u8, sel: u8, own: &LutRam<u32>, global: &LutRam<u32>, p: usize) -> u32 {
    if vq >> p & 1 == 0 {
        0
    } else if sel >> p & 1 == 1 {
        global.mem[p]
    } else {
        own.mem[p]
    }
}

/// A write of word `p` into one of a port's two occupancy banks (`global`: the single lane's), with
/// its live-value bits: `sel` names the bank written, `vq` records the write.
#[inline]
pub fn live_write(
    vq: &mut u8,
    sel: &mut u8,
    bank: &mut LutRam<u32>,
    global: bool,
    p: usize,
    v: u32,
) {
    bank.write(p, v);
    if global {
        *sel |= 1 << p;
    } else {
        *sel &= !(1 << p);
    }
    *vq |= 1 << p;
}
