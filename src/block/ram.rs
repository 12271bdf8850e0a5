//! `capfc_ram`: a synchronous RAM with one write port and one or two read ports.
//!
//! Contract (docs/microarchitecture.md, "RAM"): each cycle, an enabled read port loads its read-data
//! register `rd_q[k]` with the word at its address as it was before this cycle's write (read-first),
//! and a write stores its word. No reset; contents start at 0 (Verilator's `--x-initial fast`).
//! Users never rely on a read of the word written in the same cycle (they forward), so a block RAM
//! or SRAM macro whose same-address collision is undefined implements this.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ram<T> {
    /// `mem`: the words.
    pub mem: Vec<T>,
    /// `rd_q`: the read-data register of each read port.
    pub rd_q: Vec<T>,
}

impl<T: Copy + Default> Ram<T> {
    pub fn new(words: usize, read_ports: usize) -> Self {
        Ram {
            mem: vec![T::default(); words],
            rd_q: vec![T::default(); read_ports],
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
    }
}

/// `capfc_lutram`: a small RAM with one write port and asynchronous reads (no read register).
///
/// Contract (docs/microarchitecture.md, "LUT RAM"): a read returns the word as it is before this
/// cycle's write; a write shows from the next cycle. No reset: its user keeps a valid bit per word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LutRam<T> {
    /// `mem`: the words.
    pub mem: Vec<T>,
}

impl<T: Copy + Default> LutRam<T> {
    pub fn new(words: usize) -> Self {
        LutRam {
            mem: vec![T::default(); words],
        }
    }
}
