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
