//! What the switch refuses or reports as typed errors: its block could not be had or went wrong
//! in a cycle ([`DutError`]), a snapshot it cannot go back to ([`RestoreError`]), a waveform it
//! cannot write ([`TraceError`]), a poke of the REPL it cannot take ([`PokeError`]).

use crate::block::{BlockParams, ConfigError};
pub use capfc_block::error::SnapshotError;

/// Why a switch cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Dut(#[from] DutError),
}

/// The block behind the switch could not be had, or could not go on from a cycle.
#[derive(Debug, thiserror::Error)]
pub enum DutError {
    #[error("[rtl] built without the `rtl` feature: only --dut model")]
    NoRtl,
    #[error("[switch] no block attached")]
    Detached,
    #[cfg(feature = "rtl")]
    #[error(transparent)]
    Rtl(#[from] crate::dut::RtlError),
    #[cfg(feature = "rtl")]
    #[error(transparent)]
    RtlV3(#[from] crate::dut_v3::RtlV3Error),
    /// The v3 model and RTL could not be run side by side (`--dut both`), or the RTL alone not
    /// be driven.
    #[cfg(feature = "rtl")]
    #[error(transparent)]
    Lockstep(#[from] crate::cosim_v3::LockstepError),
    /// The v2 block's model and RTL differ (`--dut both`): the first difference.
    #[cfg(feature = "rtl")]
    #[error("{0}")]
    Mismatch(Box<crate::cosim::Mismatch>),
    /// The v3 block's model and RTL differ (`--dut both`): the first difference.
    #[error("MISMATCH at block cycle {cycle} (v3 block, {total} differences in that cycle's comparison): {name}: RTL {rtl}, model {model}")]
    MismatchV3 {
        cycle: u64,
        total: u64,
        name: String,
        rtl: String,
        model: String,
    },
    /// The audit of the v3 block's idle skip failed (`BlockV3::audit_idle_skip`).
    #[error("v3 idle skip: the state at block cycle {cycle} was taken as periodic without the anchor's comparison, and 8 idle cycles later it is not")]
    IdleSkip { cycle: u64 },
}

/// Why a snapshot cannot be restored into this switch (nothing is changed then).
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The switch's part of the snapshot is not a switch's state.
    #[error("the snapshot's switch state: {0}")]
    Json(#[source] serde_json::Error),
    /// The switch's part names a table of the wrong size, or a port, flow or priority that does
    /// not exist.
    #[error("the snapshot's switch state: {0}")]
    Switch(#[source] SnapshotError),
    /// The scenario saved with the switch is not valid.
    #[error("the snapshot's switch state: scenario: {0}")]
    Scenario(#[source] ConfigError),
    /// The block's part: a state the block could not be in.
    #[error("the snapshot's block state: {0}")]
    Block(#[source] SnapshotError),
    #[error("the snapshot says cycle {cycle} and block cycle {block_cycle}, its switch state {now} and {switch_block_cycle}")]
    Cycles {
        cycle: u64,
        block_cycle: u64,
        now: u64,
        switch_block_cycle: u64,
    },
    #[error("the snapshot's v3 block is at cycle {v3}, its switch says block cycle {switch}")]
    V3Cycle { v3: u64, switch: u64 },
    #[error("the snapshot is of a {snapshot}-port switch, this one has {this} ports")]
    Ports { snapshot: usize, this: usize },
    /// The block's parameters (`v3`: the v3 block's).
    #[error("the snapshot's {}block has {snapshot:?}, this one {this:?}", if *v3 { "v3 " } else { "" })]
    Params {
        v3: bool,
        snapshot: Box<BlockParams>,
        this: Box<BlockParams>,
    },
    /// A snapshot of the other micro-architecture (`block`: the snapshot's, "v2" or "v3").
    #[error("the snapshot is of a {block} block; load it with --block {block}")]
    BlockKind { block: &'static str },
    /// The RTL's registers, which only the RTL alone takes (`only`: the snapshot has nothing
    /// else).
    #[error("the snapshot holds {}the RTL's registers (taken with --dut rtl); load it with --dut rtl", if *only { "only " } else { "" })]
    RtlRegisters { only: bool },
    /// The RTL's state words of another count than this block's.
    #[error("the snapshot's {}block state has {got} words, this block's {want}", if *v3 { "v3 " } else { "" })]
    StateWords { v3: bool, got: usize, want: usize },
    /// The waveform being written could not be finished first.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The RTL could not be put where the model is.
    #[error(transparent)]
    Dut(#[from] DutError),
}

/// A waveform of the block that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The model's waveform file (`path`) could not be created or started.
    #[error("{path}: {source}")]
    Create {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("writing the waveform: {0}")]
    Write(#[source] std::io::Error),
    #[error("the block's model skips idle cycles here, so its waveform would miss them: write it from a switch that clocks every cycle (capfc step, capfc run --dut both)")]
    SkippedCycles,
    #[error(transparent)]
    Dut(#[from] DutError),
}

/// A poke (a flow or a pause made up at the REPL) that the switch cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PokeError {
    #[error("port {port} does not exist (the switch has ports 0..={})", ports - 1)]
    Port { port: usize, ports: usize },
    #[error("priority {0} does not exist (0..=7)")]
    Prio(u8),
    #[error("a flow needs at least one byte")]
    NoBytes,
    #[error("{cycles} cycles is more than the limit of {limit}")]
    Cycles { cycles: u64, limit: u64 },
}

/// The state of a unit from a snapshot, refused at `at` (a table's or field's path) with a
/// reason from below: the reason's own place is kept in its text.
pub(crate) fn under(at: impl std::fmt::Display, e: SnapshotError) -> SnapshotError {
    SnapshotError::new(at.to_string(), format!("{}: {}", e.at, e.why))
}
