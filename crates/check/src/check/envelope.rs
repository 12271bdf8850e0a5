//! The timing envelope: what an implementation declares about its own timing, so that the reference
//! checker judges the rules of `shared/domain.md` section 3 and leaves it the freedom the paper leaves.
//!
//! Every latency is in clock cycles from the cycle of the event that causes a change to the first
//! cycle in which the implementation's output shows it. The file format (TOML, every key required
//! unless marked optional):
//!
//! ```toml
//! accept_latency = 0          # the accept answer of a lane valid in cycle t is read in t + this
//! accept_sees_removals = false # optional: the accept counts a departure or dequeue of the same
//!                              # queue in the same cycle (false: it compares the occupancy the
//!                              # cycle started with)
//! order = "removals_first"     # optional: within one cycle, a queue's departures or dequeues
//!                              # update its state before its arrivals or enqueues
//!                              # ("additions_first": the other way round)
//! snapshot_stride = 1         # 0: a sort reads the counters of one cycle; k: input j at x0 + j*k
//! ingress = { min = 1, max = 1 }   # D after I changes (an arrival above XOFF, a departure to XON)
//! e_clear = { min = 1, max = 1 }   # D after E is cleared (a dequeue to XON_e)
//! stop_max = { min = 11, max = 31 }    # D after a crossing of XOFF_e, Stop-Max, arbitration included
//! stop_cal = { min = 167, max = 499 }  # the same, Stop-Calibrate
//! frame = { min = 0, max = 0 } # a frame carries D of this many cycles before it, counted in
//!                              # cycles its MAC is ready; a change of D reaches a frame by max
//! refresh = { min = 1, max = 1 }  # a refresh is taken this many cycles after `refresh` (the
//!                              # configured period) counted from the previous frame, when ready
//! reset = 1                   # D is 0 this many cycles after a reset
//! link_bits_per_cycle = 8     # to check that a refresh comes before the pause runs out (optional)
//! ```

use serde::{Deserialize, Serialize};

/// A field of the checker's parameters or envelope out of its range: the field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
pub struct FieldError {
    pub field: &'static str,
    pub why: String,
}

fn field(field: &'static str, why: impl Into<String>) -> FieldError {
    FieldError {
        field,
        why: why.into(),
    }
}

/// An envelope file that cannot be used: the file, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("{path}: {source}")]
    Toml {
        path: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{path}: {source}")]
    Field {
        path: String,
        #[source]
        source: FieldError,
    },
}

/// For the layers that still report errors as text.
impl From<EnvelopeError> for String {
    fn from(e: EnvelopeError) -> String {
        e.to_string()
    }
}

/// A closed interval of cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub min: u64,
    pub max: u64,
}

impl Window {
    pub fn exact(n: u64) -> Self {
        Window { min: n, max: n }
    }
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}..={}", self.min, self.max)
        }
    }
}

/// The order in which one cycle's events of one queue update its state (occupancy, I, counters,
/// E): section 3 states the rules one event at a time and leaves the order of simultaneous events
/// to the design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Departures and dequeues first, then arrivals and enqueues (each in lane order).
    #[default]
    RemovalsFirst,
    /// Arrivals and enqueues first, then departures and dequeues.
    AdditionsFirst,
}

impl Order {
    pub fn name(self) -> &'static str {
        match self {
            Order::RemovalsFirst => "removals_first",
            Order::AdditionsFirst => "additions_first",
        }
    }
}

/// What an implementation declares about its timing. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub accept_latency: u64,
    #[serde(default)]
    pub accept_sees_removals: bool,
    #[serde(default)]
    pub order: Order,
    pub snapshot_stride: u64,
    pub ingress: Window,
    pub e_clear: Window,
    pub stop_max: Window,
    pub stop_cal: Window,
    pub frame: Window,
    pub refresh: Window,
    pub reset: u64,
    #[serde(default = "byte_clock")]
    pub link_bits_per_cycle: u32,
}

fn byte_clock() -> u32 {
    8
}

impl Envelope {
    /// Parse an envelope file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Self, EnvelopeError> {
        let e: Envelope = toml::from_str(text).map_err(|source| EnvelopeError::Toml {
            path: path.to_string(),
            source,
        })?;
        e.validate().map_err(|source| EnvelopeError::Field {
            path: path.to_string(),
            source,
        })?;
        Ok(e)
    }

    /// Every window is ordered; latencies the checker can hold in memory.
    pub fn validate(&self) -> Result<(), FieldError> {
        let w = [
            ("ingress", self.ingress),
            ("e_clear", self.e_clear),
            ("stop_max", self.stop_max),
            ("stop_cal", self.stop_cal),
            ("frame", self.frame),
            ("refresh", self.refresh),
        ];
        for (name, w) in w {
            if w.min == 0 && name != "frame" && name != "refresh" {
                return Err(field(
                    name,
                    "min 0: D of a cycle may show only lanes of earlier cycles (a register between them)",
                ));
            }
            if w.min > w.max {
                return Err(field(name, format!("min {} is above max {}", w.min, w.max)));
            }
            if w.max > MAX_LATENCY {
                return Err(field(
                    name,
                    format!("max {} is above {MAX_LATENCY} cycles", w.max),
                ));
            }
        }
        if self.reset == 0 {
            return Err(field(
                "reset",
                "0: D may clear at the earliest in the cycle after the reset",
            ));
        }
        for (name, v) in [
            ("accept_latency", self.accept_latency),
            ("snapshot_stride", self.snapshot_stride),
            ("reset", self.reset),
        ] {
            if v > MAX_LATENCY {
                return Err(field(name, format!("{v} is above {MAX_LATENCY} cycles")));
            }
        }
        if self.link_bits_per_cycle == 0 {
            return Err(field("link_bits_per_cycle", "must be at least 1"));
        }
        Ok(())
    }

    /// The envelope as TOML text (the format `parse` reads).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("an envelope serialises")
    }

    /// The selection window of an algorithm.
    pub fn selection(&self, mode: crate::block::Mode) -> Window {
        match mode {
            crate::block::Mode::StopCal => self.stop_cal,
            _ => self.stop_max,
        }
    }
}

/// The longest latency an envelope may declare (the checker keeps that much history).
pub const MAX_LATENCY: u64 = 1 << 24;
