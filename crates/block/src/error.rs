//! What the models refuse, as typed errors whose messages start with `[where]` and name the
//! field, port or register that is wrong.

/// A state from outside the model (a snapshot, say) that the model could not be in: a table of
/// the wrong size, a register wider than its RTL width, an index out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[snapshot] {at}: {why}")]
pub struct SnapshotError {
    /// The register or table, by its path in the state (`block.u_egress.gen_q[3]`).
    pub at: String,
    /// What is wrong with it.
    pub why: String,
}

impl SnapshotError {
    pub fn new(at: impl Into<String>, why: impl Into<String>) -> Self {
        SnapshotError {
            at: at.into(),
            why: why.into(),
        }
    }
}

/// A lane event the block would never take ([`crate::v3::lanes::Lanes::offer`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaneError {
    /// A port outside the block (`what`: "arrival at", "enqueue from", ...).
    #[error("[lane] {what} port {port} (the block has {np} ports)")]
    Port {
        what: &'static str,
        port: usize,
        np: usize,
    },
    /// A priority above 7.
    #[error("[lane] priority {0} (0 to 7)")]
    Priority(usize),
}

/// A fault's name that is not in the catalogue, or a fault the model at hand does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultError {
    #[error("[fault] unknown fault '{name}' (one of: {known})")]
    Unknown { name: String, known: String },
    /// A fault of v2's catalogue for a switch whose block is v3 (whose faults are its own
    /// catalogue's, `crate::v3::fault`).
    #[error("[fault] {name}: a fault of v2's model, and the block is v3 (its faults: `capfc faults --list`)")]
    V2FaultForV3 { name: &'static str },
}

/// Parameters outside the ranges the v3 RTL accepts (its units' `gen_param_check`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[params] illegal parameters {0}")]
pub struct ParamsError(pub String);
