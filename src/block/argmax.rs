//! `capfc_argmax`: the argmax tree of the contributor sort unit.
//!
//! Contract: over NP candidates `(valid_i, val_i)` with `valid_i = !taken[i] && val[i] != 0`,
//! returns whether any is valid, the largest value and its index; ties go to the lowest index.
//! The RTL is a tree of depth clog2(NP); this is the same function written as a scan.

/// Result of one argmax: `None` when no candidate is valid.
pub fn argmax(vals: &[u16], taken: u128) -> Option<(u16, usize)> {
    let mut best: Option<(u16, usize)> = None;
    for (i, &v) in vals.iter().enumerate() {
        if v == 0 || taken >> i & 1 == 1 {
            continue;
        }
        match best {
            Some((b, _)) if v <= b => {}
            _ => best = Some((v, i)),
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::argmax;

    #[test]
    fn ties_go_to_the_lowest_index() {
        assert_eq!(argmax(&[3, 7, 7, 1], 0), Some((7, 1)));
        assert_eq!(argmax(&[7, 7, 7, 7], 0b0001), Some((7, 1)));
    }

    #[test]
    fn zero_counters_and_taken_inputs_are_never_candidates() {
        assert_eq!(argmax(&[0, 0, 0], 0), None);
        assert_eq!(argmax(&[5, 0, 2], 0b001), Some((2, 2)));
        assert_eq!(argmax(&[5, 0, 2], 0b101), None);
    }
}
