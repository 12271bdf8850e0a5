//! capfc-net: a network of capfc switches ([`capfc_switch`]) and hosts ([`net`]): topologies
//! (the paper's fat tree among them), routing, links, TCP and open-loop senders, QCN reaction
//! points with CN-snooping adaptive routing, FECN sources, and the flows' completion times.

pub use capfc_block::block;
pub use capfc_switch::{headroom, switch};

pub mod net;
