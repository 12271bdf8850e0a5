//! The block's inputs of one cycle read by port name ([`top_in`]): how a waveform, a Verilated
//! block's packed input words or a testbench's ports become the model's [`TopIn`], with the port
//! widths of the block's contract (docs/microarchitecture.md).

use super::top::TopIn;
use crate::block::BlockParams;

/// An input of one cycle that a reader (the `f` of [`top_in`]) cannot give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// No signal of that name in a waveform.
    #[error("no signal {name}")]
    NoSignal { name: String },
    /// No input port of that name in `within` (a Verilated block, a stimulus file's fields).
    #[error("{within}: no input port {name}")]
    NoPort { within: String, name: String },
    /// A bit of a waveform's value that is x or z.
    #[error("{name}[{bit}] = {value} at time index {t}: not 0 or 1")]
    NotBinary {
        name: String,
        bit: usize,
        value: char,
        t: u64,
    },
}

/// The block's inputs of one cycle, read with `f(name, lo, width)`: the input port `name`'s
/// `width` bits from bit `lo` on (a waveform's signal, a Verilated block's packed input words, a
/// testbench's port).
pub fn top_in(
    p: &BlockParams,
    f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
) -> Result<TopIn, InputError> {
    let mut inp = TopIn::default();
    top_in_into(p, f, &mut inp)?;
    Ok(inp)
}

/// [`top_in`] into `inp` (its vectors reused).
pub fn top_in_into(
    p: &BlockParams,
    f: &dyn Fn(&str, usize, u32) -> Result<u64, InputError>,
    inp: &mut TopIn,
) -> Result<(), InputError> {
    let (np, sw) = (p.np, p.sw);
    let pw = super::port_width(np);
    inp.rst = f("rst", 0, 1)? == 1;
    inp.cfg_we = f("cfg_we", 0, 1)? == 1;
    inp.cfg_addr = f("cfg_addr", 0, 8)? as u8;
    inp.cfg_wdata = f("cfg_wdata", 0, 32)? as u32;
    inp.dep_valid = f("dep_valid", 0, 1)? == 1;
    inp.dep_port = f("dep_port", 0, pw)?;
    inp.dep_prio = f("dep_prio", 0, 3)? as u8;
    inp.dep_size = f("dep_size", 0, sw)?;
    inp.enq_valid = f("enq_valid", 0, 1)? == 1;
    inp.enq_oport = f("enq_oport", 0, pw)?;
    inp.enq_prio = f("enq_prio", 0, 3)? as u8;
    inp.enq_iport = f("enq_iport", 0, pw)?;
    inp.enq_size = f("enq_size", 0, sw)?;
    for v in [&mut inp.arr_valid, &mut inp.deq_valid, &mut inp.pfc_ready] {
        v.clear();
    }
    for v in [&mut inp.arr_prio, &mut inp.deq_prio] {
        v.clear();
    }
    for v in [&mut inp.arr_size, &mut inp.deq_size] {
        v.clear();
    }
    for i in 0..np {
        inp.arr_valid.push(f("arr_valid", i, 1)? == 1);
        inp.arr_prio.push(f("arr_prio", 3 * i, 3)? as u8);
        inp.arr_size.push(f("arr_size", sw as usize * i, sw)?);
        inp.deq_valid.push(f("deq_valid", i, 1)? == 1);
        inp.deq_prio.push(f("deq_prio", 3 * i, 3)? as u8);
        inp.deq_size.push(f("deq_size", sw as usize * i, sw)?);
        inp.pfc_ready.push(f("pfc_ready", i, 1)? == 1);
    }
    Ok(())
}
