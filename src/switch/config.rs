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
