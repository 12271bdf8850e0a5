//! The transmit scheduler of one port (802.1Qaz ETS): strict-priority (SP) classes first, highest
//! priority first, then weighted deficit round robin (WDRR) among the WDRR classes. The switch's
//! egress ports ([`super::tm`]) and the upstream senders ([`super::sender`]) both use it, with the
//! scenario's `[scheduler]` table.
//!
//! WDRR (Shreedhar and Varghese's DRR with per-class quanta): the WDRR classes are visited in the
//! order they are listed. A class gets its quantum, `weight × MTU` bytes, when its turn comes and it
//! has a frame ready; it sends while its head frame fits its deficit, then the turn passes on. A
//! class found empty loses its deficit. One MTU per unit of weight means a backlogged class always
//! sends at least one frame a turn, so a decision never needs more than one round. Deficits count
//! frame bytes (the packet's size, not preamble and gap), like the block's occupancies.
//!
//! A class paused by PFC keeps its deficit and loses its turn; SP and WDRR alike, a paused class is
//! never picked. A frame started is never pre-empted: the caller asks only when its link is free.

use crate::block::{ConfigError, NPRIO};
use serde::{Deserialize, Serialize};

/// One WDRR class of `[scheduler]`: `{ prio = 1, weight = 3 }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WdrrClass {
    pub prio: u8,
    pub weight: u32,
}

/// The scenario's `[scheduler]` table. Absent, every priority is strict (the behaviour before WDRR
/// existed). `sp` lists the strict priorities; left out, every priority not in `wdrr` is strict.
/// When `sp` is given, a flow on a priority in neither list is an error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedConfig {
    #[serde(default)]
    pub sp: Option<Vec<u8>>,
    #[serde(default)]
    pub wdrr: Vec<WdrrClass>,
}

impl SchedConfig {
    /// Reject lists the scheduler cannot follow, naming the field (`scheduler.wdrr[1].weight`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |f: String, w: String| Err(ConfigError::new(f, w));
        let mut seen: [Option<String>; NPRIO] = Default::default();
        for (k, &p) in self.sp.iter().flatten().enumerate() {
            let f = format!("scheduler.sp[{k}]");
            if usize::from(p) >= NPRIO {
                return bad(f, format!("{p} is not a priority (0..=7)"));
            }
            if let Some(prev) = &seen[usize::from(p)] {
                return bad(f, format!("priority {p} is already listed in {prev}"));
            }
            seen[usize::from(p)] = Some(f);
        }
        for (k, c) in self.wdrr.iter().enumerate() {
            let f = format!("scheduler.wdrr[{k}]");
            if usize::from(c.prio) >= NPRIO {
                return bad(
                    format!("{f}.prio"),
                    format!("{} is not a priority (0..=7)", c.prio),
                );
            }
            if c.weight == 0 {
                return bad(
                    format!("{f}.weight"),
                    "a WDRR weight must be at least 1 (a class of weight 0 would never send)"
                        .into(),
                );
            }
            // Large enough for any sensible ratio; keeps weight × MTU far from overflow.
            if c.weight > 1_000_000 {
                return bad(
                    format!("{f}.weight"),
                    format!("{} is above the limit of 1000000", c.weight),
                );
            }
            if let Some(prev) = &seen[usize::from(c.prio)] {
                let both = if prev.starts_with("scheduler.sp") {
                    " (a priority is either strict or WDRR, not both)"
                } else {
                    ""
                };
                return bad(
                    format!("{f}.prio"),
                    format!("priority {} is already listed in {prev}{both}", c.prio),
                );
            }
            seen[usize::from(c.prio)] = Some(f);
        }
        Ok(())
    }

    /// Whether priority `p` has a class: always when `sp` is left out.
    pub fn covers(&self, p: u8) -> bool {
        match &self.sp {
            None => true,
            Some(sp) => sp.contains(&p) || self.wdrr.iter().any(|c| c.prio == p),
        }
    }

    /// The compiled form for a link whose largest frame is `mtu` bytes.
    pub fn ets(&self, mtu: u16) -> Ets {
        let mut quantum = [0u64; NPRIO];
        for c in &self.wdrr {
            quantum[usize::from(c.prio)] = u64::from(c.weight) * u64::from(mtu);
        }
        Ets {
            quantum,
            order: self.wdrr.iter().map(|c| c.prio).collect(),
        }
    }
}

/// A scheduler's configuration, compiled: per priority its WDRR quantum (0: strict priority) and the
/// WDRR classes in visiting order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ets {
    pub quantum: [u64; NPRIO],
    pub order: Vec<u8>,
}

/// What a class has to send, as the scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// Nothing queued.
    Empty,
    /// Something queued, but the class may not send now (paused by PFC).
    Blocked,
    /// The next frame has this many bytes.
    Ready(u32),
}

/// The scheduler's registers of one port: the WDRR deficits and whose turn it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtsState {
    pub deficit: [u64; NPRIO],
    /// Index into [`Ets::order`] of the class whose turn it is.
    turn: usize,
    /// The class whose turn it is has had its quantum for this turn.
    credited: bool,
}

impl EtsState {
    /// The class to send from now, charging its deficit for the frame, or None. `head(p)` tells what
    /// class p has. The caller sends that class's head frame and then calls [`EtsState::sent`].
    pub fn select(&mut self, ets: &Ets, head: impl Fn(usize) -> Head) -> Option<usize> {
        for p in (0..NPRIO).rev() {
            if ets.quantum[p] == 0 && matches!(head(p), Head::Ready(_)) {
                return Some(p);
            }
        }
        let n = ets.order.len();
        if n == 0 {
            return None;
        }
        // One round finds a class when any is ready: the class whose turn it is may lack the deficit
        // (it was credited already), every later ready class gets a quantum of at least one MTU.
        // With a quantum below the frame size (an MTU changed under a running scheduler) the
        // deficit grows a quantum per round and the link idles meanwhile, as DRR does.
        for _ in 0..=n {
            let p = usize::from(ets.order[self.turn]);
            match head(p) {
                Head::Ready(size) => {
                    if !self.credited {
                        self.deficit[p] += ets.quantum[p];
                        self.credited = true;
                    }
                    if u64::from(size) <= self.deficit[p] {
                        self.deficit[p] -= u64::from(size);
                        return Some(p);
                    }
                }
                Head::Empty => self.deficit[p] = 0,
                Head::Blocked => {}
            }
            self.next_turn(n);
        }
        None
    }

    /// Class p sent a frame and has `empty` left: an emptied WDRR class loses its deficit and its
    /// turn (DRR).
    /// `k` calls of [`EtsState::select`] that found no class ready, skipped: each would have gone
    /// round the WDRR classes once and one step further (n + 1 turns), zeroing the deficit of the
    /// empty classes (which the call before them did already). So the turn moves on k places and
    /// its credit is spent. Lets a transmitter with nothing to send skip cycles exactly.
    pub fn skip_blocked(&mut self, ets: &Ets, k: u64) {
        let n = ets.order.len() as u64;
        if n == 0 || k == 0 {
            return;
        }
        self.turn = ((self.turn as u64 + k) % n) as usize;
        self.credited = false;
    }

    /// Check registers that came from a snapshot against the configuration.
    pub fn check_restored(&self, ets: &Ets) -> Result<(), super::error::SnapshotError> {
        use super::error::SnapshotError;
        if !ets.order.is_empty() && self.turn >= ets.order.len() {
            return Err(SnapshotError::new(
                "turn",
                format!("WDRR turn {} of {} classes", self.turn, ets.order.len()),
            ));
        }
        if ets.order.iter().any(|&p| usize::from(p) >= NPRIO) {
            return Err(SnapshotError::new(
                "order",
                "a WDRR class is not a priority",
            ));
        }
        Ok(())
    }

    pub fn sent(&mut self, ets: &Ets, p: usize, empty: bool) {
        if ets.quantum[p] != 0 && empty {
            self.deficit[p] = 0;
            self.next_turn(ets.order.len());
        }
    }

    fn next_turn(&mut self, n: usize) {
        self.turn = (self.turn + 1) % n;
        self.credited = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A port with always-backlogged queues of `size`-byte frames: bytes sent per priority after
    /// `frames` frames.
    fn serve(cfg: &SchedConfig, backlogged: &[(usize, u32)], frames: usize) -> [u64; NPRIO] {
        let ets = cfg.ets(1500);
        let mut st = EtsState::default();
        let mut sent = [0u64; NPRIO];
        let size: Vec<Option<u32>> = (0..NPRIO)
            .map(|p| backlogged.iter().find(|b| b.0 == p).map(|b| b.1))
            .collect();
        for _ in 0..frames {
            let p = st
                .select(&ets, |p| size[p].map_or(Head::Empty, Head::Ready))
                .expect("backlogged classes always have something to send");
            sent[p] += u64::from(size[p].unwrap());
            st.sent(&ets, p, false);
        }
        sent
    }

    fn wdrr(classes: &[(u8, u32)]) -> SchedConfig {
        SchedConfig {
            sp: None,
            wdrr: classes
                .iter()
                .map(|&(prio, weight)| WdrrClass { prio, weight })
                .collect(),
        }
    }

    #[test]
    fn weights_one_to_three_share_bytes_one_to_three() {
        // Different frame sizes on the two classes: the shares are of bytes, not of frames.
        let sent = serve(&wdrr(&[(1, 1), (2, 3)]), &[(1, 1500), (2, 400)], 20_000);
        let ratio = sent[2] as f64 / sent[1] as f64;
        assert!((ratio - 3.0).abs() < 0.03 * 3.0, "byte ratio {ratio}");
        // Listed the other way round, the same shares.
        let sent = serve(&wdrr(&[(2, 3), (1, 1)]), &[(1, 64), (2, 1500)], 20_000);
        let ratio = sent[2] as f64 / sent[1] as f64;
        assert!((ratio - 3.0).abs() < 0.03 * 3.0, "byte ratio {ratio}");
    }

    #[test]
    fn strict_priority_starves_wdrr_while_backlogged() {
        let cfg = wdrr(&[(5, 1), (6, 8)]); // 0..=4 and 7 strict
        let sent = serve(&cfg, &[(0, 1500), (5, 1500), (6, 1500)], 1000);
        assert_eq!(
            sent[0],
            1000 * 1500,
            "a strict class goes first, whatever its number"
        );
        assert_eq!(sent[5] + sent[6], 0);
        // Of two strict classes the higher priority goes first.
        let sent = serve(&cfg, &[(0, 1500), (3, 100)], 10);
        assert_eq!((sent[0], sent[3]), (0, 1000));
    }

    #[test]
    fn paused_and_empty_classes_pass_their_turn() {
        let cfg = wdrr(&[(1, 1), (2, 1)]);
        let ets = cfg.ets(1500);
        let mut st = EtsState::default();
        // Class 1 paused: class 2 sends every frame; class 1 keeps no credit it was not given.
        for _ in 0..5 {
            let p = st.select(&ets, |p| match p {
                1 => Head::Blocked,
                2 => Head::Ready(1500),
                _ => Head::Empty,
            });
            assert_eq!(p, Some(2));
            st.sent(&ets, 2, false);
        }
        assert_eq!(st.deficit[1], 0);
        // Nothing ready at all.
        assert_eq!(st.select(&ets, |_| Head::Empty), None);
        assert_eq!(st.deficit, [0; NPRIO]);
        // A class that empties loses its deficit: 1 sends one 100-byte frame and is empty.
        let mut q: [VecDeque<u32>; NPRIO] = Default::default();
        q[1].push_back(100);
        let p = st.select(&ets, |p| {
            q[p].front().map_or(Head::Empty, |&s| Head::Ready(s))
        });
        assert_eq!(p, Some(1));
        q[1].pop_front();
        st.sent(&ets, 1, q[1].is_empty());
        assert_eq!(st.deficit[1], 0);
    }

    #[test]
    fn bad_tables_name_the_field() {
        let e = |c: SchedConfig| c.validate().unwrap_err().to_string();
        let both = SchedConfig {
            sp: Some(vec![5, 3]),
            wdrr: vec![WdrrClass { prio: 3, weight: 1 }],
        };
        let m = e(both);
        assert!(
            m.contains("scheduler.wdrr[0].prio") && m.contains("scheduler.sp[1]"),
            "{m}"
        );
        let m = e(wdrr(&[(1, 0)]));
        assert!(
            m.contains("scheduler.wdrr[0].weight") && m.contains("at least 1"),
            "{m}"
        );
        let m = e(wdrr(&[(1, 1), (8, 1)]));
        assert!(
            m.contains("scheduler.wdrr[1].prio") && m.contains("not a priority"),
            "{m}"
        );
        let m = e(SchedConfig {
            sp: Some(vec![9]),
            wdrr: vec![],
        });
        assert!(m.contains("scheduler.sp[0]"), "{m}");
        let m = e(wdrr(&[(2, 1), (2, 2)]));
        assert!(
            m.contains("scheduler.wdrr[1].prio") && m.contains("already"),
            "{m}"
        );
        assert!(wdrr(&[(1, 1), (2, 3)]).validate().is_ok());
    }
}
