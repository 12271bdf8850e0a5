//! `capfc._native`: the block's cycle model and the reference checker on the port
//! concatenations of the block's top, `capfc_top_oc` (`block="v3"`, the default), or of the
//! test subject `capfc_v2_top` (`block="v2"`) (`capfc_check::ports`), for the Python package
//! `capfc` (python/python/capfc) and its cocotb scoreboard. A concatenation crosses as
//! little-endian bytes; the package turns them into ints.

use capfc_block::block::{BlockKind, BlockParams};
use capfc_check::check::Envelope;
use capfc_check::ports::{CheckerPorts, Field, ModelPorts};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

fn params(
    np: usize,
    sw: u32,
    ow: u32,
    cw: u32,
    cell_log2: u32,
    cut_f: u32,
    nl: usize,
) -> BlockParams {
    BlockParams {
        np,
        sw,
        ow,
        cw,
        cell_log2,
        cut_f,
        nl,
    }
}

/// The block's micro-architecture by name ("v3": capfc_top_oc's ports, "v2": capfc_v2_top's).
fn block_of(name: &str) -> PyResult<BlockKind> {
    BlockKind::parse(name)
        .ok_or_else(|| PyValueError::new_err(format!("block {name:?}: expected \"v2\" or \"v3\"")))
}

fn to_words(b: &[u8], bits: usize) -> PyResult<Vec<u32>> {
    let n = bits.div_ceil(32);
    if b.len() > n * 4 {
        return Err(PyValueError::new_err(format!(
            "{} bytes for a {bits}-bit concatenation",
            b.len()
        )));
    }
    let mut w = vec![0u32; n];
    for (k, &x) in b.iter().enumerate() {
        w[k / 4] |= u32::from(x) << (8 * (k % 4));
    }
    if !bits.is_multiple_of(32) && w[n - 1] >> (bits % 32) != 0 {
        return Err(PyValueError::new_err(format!(
            "a value wider than the {bits}-bit concatenation"
        )));
    }
    Ok(w)
}

fn to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn field_tuples(f: Vec<Field>) -> Vec<(String, usize, usize)> {
    f.into_iter().map(|f| (f.name, f.lsb, f.width)).collect()
}

/// The cycle model of the block, capfc_top_oc ("v3"), or of capfc_v2_top ("v2").
#[pyclass(module = "capfc._native", unsendable)]
struct Model {
    m: ModelPorts,
    out: Vec<u32>,
}

#[pymethods]
impl Model {
    #[new]
    #[pyo3(signature = (np, sw, ow, cw, cell_log2, cut_f, nl, block="v3"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        np: usize,
        sw: u32,
        ow: u32,
        cw: u32,
        cell_log2: u32,
        cut_f: u32,
        nl: usize,
        block: &str,
    ) -> PyResult<Self> {
        let m = ModelPorts::with_block(
            &params(np, sw, ow, cw, cell_log2, cut_f, nl),
            block_of(block)?,
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let out = vec![0; m.out_bits().div_ceil(32)];
        Ok(Model { m, out })
    }

    #[getter]
    fn in_bits(&self) -> usize {
        self.m.in_bits()
    }

    #[getter]
    fn out_bits(&self) -> usize {
        self.m.out_bits()
    }

    /// (name, lsb, width) of every input port, first port highest.
    fn in_fields(&self) -> Vec<(String, usize, usize)> {
        field_tuples(self.m.in_fields())
    }

    /// (name, lsb, width) of every output port.
    fn out_fields(&self) -> Vec<(String, usize, usize)> {
        field_tuples(self.m.out_fields())
    }

    /// One cycle: the inputs' concatenation (little-endian bytes) in, the outputs' out.
    fn step(&mut self, inputs: &[u8]) -> PyResult<Vec<u8>> {
        let w = to_words(inputs, self.m.in_bits())?;
        self.m
            .step(&w, &mut self.out)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(to_bytes(&self.out))
    }
}

/// The reference checker on capfc_v2_top's ports (or a block's, adapted to them).
#[pyclass(module = "capfc._native", unsendable)]
struct Checker {
    c: CheckerPorts,
}

#[pymethods]
impl Checker {
    /// `envelope`: the block's timing envelope as TOML text (None: the block's own); `block`:
    /// "v3" (the block, capfc_top_oc's ports) or "v2" (capfc_v2_top's).
    #[new]
    #[pyo3(signature = (np, sw, ow, cw, cell_log2, cut_f, nl, envelope=None, block="v3"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        np: usize,
        sw: u32,
        ow: u32,
        cw: u32,
        cell_log2: u32,
        cut_f: u32,
        nl: usize,
        envelope: Option<&str>,
        block: &str,
    ) -> PyResult<Self> {
        let env = envelope
            .map(|t| Envelope::parse(t, "envelope"))
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let c = CheckerPorts::with_block(
            &params(np, sw, ow, cw, cell_log2, cut_f, nl),
            env,
            block_of(block)?,
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Checker { c })
    }

    #[getter]
    fn in_bits(&self) -> usize {
        self.c.in_bits()
    }

    #[getter]
    fn out_bits(&self) -> usize {
        self.c.out_bits()
    }

    /// One cycle: what the block was given and what it answered (little-endian bytes of the two
    /// concatenations). Returns the reports of the violations it shows.
    fn step(&mut self, inputs: &[u8], outputs: &[u8]) -> PyResult<Vec<String>> {
        let i = to_words(inputs, self.c.in_bits())?;
        let o = to_words(outputs, self.c.out_bits())?;
        let v = self
            .c
            .step(&i, &o)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(v.iter().map(ToString::to_string).collect())
    }

    /// The end of the run: the reports of what waited for it.
    fn finish(&mut self) -> Vec<String> {
        self.c.finish().iter().map(ToString::to_string).collect()
    }

    #[getter]
    fn violations(&self) -> u64 {
        self.c.summary().violations
    }

    #[getter]
    fn cycles(&self) -> u64 {
        self.c.summary().cycles
    }

    #[getter]
    fn lanes(&self) -> u64 {
        self.c.summary().lanes
    }

    /// One line of what was checked.
    fn summary(&self) -> String {
        self.c.summary_line()
    }
}

/// The values [NP, SW, OW, CW, CELL_LOG2, CUT_F, NL] of a built-in parameter set (`np4`, `np8`, ...).
#[pyfunction]
fn params_of(name: &str) -> PyResult<(usize, u32, u32, u32, u32, u32, usize)> {
    let p = capfc_block::block::BlockParams::of_rtl_config(name)
        .ok_or_else(|| PyValueError::new_err(format!("no parameter set '{name}'")))?;
    Ok((p.np, p.sw, p.ow, p.cw, p.cell_log2, p.cut_f, p.nl))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_class::<Checker>()?;
    m.add_function(wrap_pyfunction!(params_of, m)?)?;
    Ok(())
}
