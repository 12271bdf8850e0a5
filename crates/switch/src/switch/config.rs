//! The scenario's configuration types that other units read: a leaf module (it imports no other
//! unit of the switch), so that `scenario` (which holds them), `mix` (which makes flows) and `tm`
//! (which enforces the shared pool) depend on it and not on each other.

use serde::{Deserialize, Serialize};

/// One flow: `bytes` from input `src` to output `dst` on priority `prio`, starting at `start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: usize,
    pub dst: usize,
    pub prio: u8,
    pub bytes: u64,
    #[serde(default)]
    pub start: u64,
    /// Traffic class for the statistics ("incast", "victim", ...).
    #[serde(default = "default_class")]
    pub class: String,
}

fn default_class() -> String {
    "flow".into()
}

/// The scenario's `[shared_memory]` table, bytes. The paper's run: 8 KB dedicated per priority
/// queue, a 350 KB pool, at most 80 KB of it per queue and 100 KB per port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedMemory {
    /// Bytes each (port, priority) queue owns.
    pub dedicated: u32,
    /// The shared pool, all ports together.
    pub pool: u32,
    /// Shared bytes one queue may hold (enforced by the block's egress MAX, `dedicated + per_queue`).
    pub per_queue: u32,
    /// Shared bytes one output port may hold, all its priorities together.
    pub per_port: u32,
}

impl SharedMemory {
    /// The shared bytes a queue of `occ` bytes holds: what it has above its dedicated memory.
    pub fn shared_of(&self, occ: u64) -> u64 {
        occ.saturating_sub(u64::from(self.dedicated))
    }
}

/// A link's speed against the clock: one cycle is one byte time of the fastest link of the
/// network (the clock), and a byte on this link takes `num / den` cycles. `1/1` is a link at the
/// clock's rate (every link of a single switch); the paper's fat tree, clocked at 1 Gb/s, has
/// `2/1` for its 500 Mb/s links and `4/1` for its 250 Mb/s ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRate {
    pub num: u64,
    pub den: u64,
}

impl Default for WireRate {
    fn default() -> Self {
        WireRate::CLOCK
    }
}

impl WireRate {
    /// A link at the clock's rate.
    pub const CLOCK: WireRate = WireRate { num: 1, den: 1 };

    /// A link of `rate_bps` on a clock of `clock_bps` (the fastest link), reduced.
    pub fn of(rate_bps: u64, clock_bps: u64) -> WireRate {
        let g = gcd(rate_bps, clock_bps).max(1);
        WireRate {
            num: clock_bps / g,
            den: (rate_bps / g).max(1),
        }
    }

    /// A rate from outside (a snapshot): both terms at least 1 and at most 2^20, so that no wire
    /// time divides by zero or overflows.
    pub fn check(self) -> Result<(), super::error::SnapshotError> {
        let ok = |v: u64| (1..=1 << 20).contains(&v);
        if ok(self.num) && ok(self.den) {
            Ok(())
        } else {
            Err(super::error::SnapshotError::new(
                format!("rate {}/{}", self.num, self.den),
                "each term is 1..=2^20",
            ))
        }
    }

    /// Cycles that `bytes` take on the wire, rounded up.
    #[inline]
    pub fn cycles(self, bytes: u64) -> u64 {
        if self.num == self.den {
            bytes
        } else {
            (bytes * self.num).div_ceil(self.den)
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
