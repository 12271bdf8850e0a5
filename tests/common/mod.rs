//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)] // each test crate compiles this module and uses only part of it

/// The lines of a golden set's `stim.hex` or `expect.hex` text: (cycle, the concatenation as
/// 32-bit words, least significant first).
pub fn hex_lines(text: &str) -> Vec<(u64, Vec<u32>)> {
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| {
            let (c, hex) = l.split_once('_').expect("cycle_hex");
            let hex = hex.trim();
            let words = (0..hex.len().div_ceil(8))
                .map(|k| {
                    let hi = hex.len() - 8 * k;
                    u32::from_str_radix(&hex[hi.saturating_sub(8)..hi], 16).expect("hex")
                })
                .collect();
            (u64::from_str_radix(c, 16).expect("a hex cycle"), words)
        })
        .collect()
}

/// Every cycle's input concatenation of a golden set's stimulus lines over `cycles` cycles (a
/// cycle without a line drives every input 0 but `pfc_ready`, the last field's low `np` bits,
/// held from the last line).
pub fn every_cycle(stim: &[(u64, Vec<u32>)], cycles: u64, np: usize) -> Vec<Vec<u32>> {
    let mut out = vec![];
    let mut k = 0;
    let mut held = vec![0u32; stim.first().map_or(1, |s| s.1.len())];
    for c in 0..cycles {
        if k < stim.len() && stim[k].0 == c {
            held.fill(0);
            held[0] = stim[k].1[0] & ((1u32 << np) - 1);
            out.push(stim[k].1.clone());
            k += 1;
        } else {
            out.push(held.clone());
        }
    }
    out
}

pub mod v1;
