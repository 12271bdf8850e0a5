//! The network around many switches: topologies and their files.
//! [`topology`] reads HPCC's ns-3 `topology.txt` and `flow.txt` as they are, writes topologies
//! back, and generates fat trees and leaf-spine fabrics; [`traffic`] reads flow-size CDF files and
//! draws seeded Poisson traffic as `flow.txt`.

pub mod fecn;
pub mod nic;
pub mod qcn;
pub mod sim;
pub mod stragglers;
pub mod topology;
pub mod traffic;
pub mod transport;

/// Line (from 1) of byte offset `at` in `text`.
pub(crate) fn line_at(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Where a scenario file's TOML error is: its line, the field (the key set on that line, for a
/// value of the wrong type or an unknown key; else the field serde names in its message, for a
/// missing one; "-" if neither), and the message.
pub(crate) fn toml_error_place(text: &str, e: &toml::de::Error) -> (usize, String, String) {
    let msg = e.message().to_string();
    let line = e.span().map_or(1, |sp| line_at(text, sp.start));
    let named = msg.split('`').nth(1).map(str::to_string);
    let on_line = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.split_once('='))
        .map(|(k, _)| k.trim().to_string());
    let field = if msg.starts_with("missing field") {
        named
    } else {
        on_line.or(named)
    }
    .filter(|s| !s.is_empty())
    .unwrap_or_else(|| "-".into());
    (line, field, msg)
}

/// A scenario file of the event-driven networks ([`fecn`], [`qcn`]) that is not valid: where
/// (file, line, field), and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: field {field}: {why}")]
pub struct ScenarioFileError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub why: String,
}

impl ScenarioFileError {
    /// A field's rule broken: at the line `line_of` finds for it.
    pub(crate) fn field(file: &str, line: usize, field: &str, why: String) -> Self {
        ScenarioFileError {
            file: file.into(),
            line,
            field: field.into(),
            why,
        }
    }
}

/// The text of scenario file `path`, or the error naming it.
pub(crate) fn read_scenario(path: &str) -> Result<String, ScenarioFileError> {
    std::fs::read_to_string(path).map_err(|e| ScenarioFileError::field(path, 0, "-", e.to_string()))
}

/// `text` (read from `file`) as the scenario file type `T`, or the error at the line and field
/// TOML reports.
pub(crate) fn parse_scenario<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, ScenarioFileError> {
    toml::from_str(text).map_err(|e| {
        let (line, field, msg) = toml_error_place(text, &e);
        ScenarioFileError {
            file: file.into(),
            line,
            field,
            why: msg,
        }
    })
}

/// The event queue of the event-driven networks ([`fecn`], [`qcn`]): events pop in time order,
/// and events at the same time in the order they were scheduled (so a run is deterministic).
#[derive(Debug)]
pub(crate) struct Events<E> {
    heap: std::collections::BinaryHeap<Timed<E>>,
    seq: u64,
}

#[derive(Debug)]
struct Timed<E> {
    t: u64,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Timed<E> {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl<E> Eq for Timed<E> {}
impl<E> PartialOrd for Timed<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Timed<E> {
    /// Reversed: the max-heap pops the earliest time, then the first scheduled.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

impl<E> Default for Events<E> {
    fn default() -> Self {
        Events {
            heap: std::collections::BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl<E> Events<E> {
    /// Schedule `ev` at time `t`.
    pub(crate) fn at(&mut self, t: u64, ev: E) {
        self.seq += 1;
        self.heap.push(Timed {
            t,
            seq: self.seq,
            ev,
        });
    }

    /// The earliest event and its time.
    pub(crate) fn pop(&mut self) -> Option<(u64, E)> {
        self.heap.pop().map(|x| (x.t, x.ev))
    }
}

#[cfg(test)]
mod events_tests {
    use super::Events;

    #[test]
    fn events_pop_by_time_then_by_schedule_order() {
        let mut q = Events::default();
        for (t, e) in [(5, 'a'), (3, 'b'), (5, 'c'), (3, 'd'), (0, 'e')] {
            q.at(t, e);
        }
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, [(0, 'e'), (3, 'b'), (3, 'd'), (5, 'a'), (5, 'c')]);
    }
}
