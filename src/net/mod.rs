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
