//! The Verilated v3 block (`capfc_top_oc`, `rtl/v3/files.f`), driven from Rust through `cxx`
//! (feature `rtl`).
//!
//! One FFI call a cycle: the inputs go in as packed words and the outputs come back packed in the
//! same call; every register and RAM word of the block is read back on demand. The packing is the
//! configuration's [`Layout`], which crates/rtl/build.rs generates from the Verilated headers (every port but
//! `clk`, every variable whose name ends in `_q` and every RAM's `mem`), so that a register added
//! to the RTL shows up here, under its RTL name, without a list to keep by hand. Which parameter
//! sets are built: `crates/block/src/v3/rtl_configs.rs` (`CAPFC_V3_CONFIGS`).

use std::collections::HashMap;

use crate::block::BlockParams;
use crate::v3::rtl_configs::V3_RTL_CONFIGS;
use crate::v3::view::View;

#[cxx::bridge(namespace = "capfc")]
mod ffi {
    unsafe extern "C++" {
        include!("capfc/cpp/dut_v3_bridge.h");
        type DutV3;
        fn new_dut_v3(config: &str) -> Result<UniquePtr<DutV3>>;
        fn v3_rtl_configs() -> Vec<String>;
        fn dut_v3_step(dut: Pin<&mut DutV3>, inputs: &[u32], outputs: &mut [u32]);
        fn dut_v3_read_state(dut: &DutV3, state: &mut [u32]);
        fn dut_v3_read_regs(dut: &DutV3, state: &mut [u32]);
        fn dut_v3_write_state(dut: Pin<&mut DutV3>, state: &[u32]);
        fn dut_v3_set_cycle(dut: Pin<&mut DutV3>, cycle: u64);
        fn dut_v3_step_writes(
            dut: Pin<&mut DutV3>,
            inputs: &[u32],
            outputs: &mut [u32],
            writes: &mut [u32],
        );
        fn dut_v3_write_words(dut: &DutV3) -> usize;
        fn dut_v3_run_loop(
            dut: Pin<&mut DutV3>,
            stim: &[u32],
            words_per_cycle: usize,
            cycles: usize,
            out: &mut [u32],
        ) -> u64;
        fn dut_v3_input_words(dut: &DutV3) -> usize;
        fn dut_v3_output_words(dut: &DutV3) -> usize;
        fn dut_v3_state_words(dut: &DutV3) -> usize;
        fn dut_v3_layout(dut: &DutV3) -> String;
        fn dut_v3_open_trace(dut: Pin<&mut DutV3>, path: &str) -> bool;
        fn dut_v3_close_trace(dut: Pin<&mut DutV3>);
    }
}

/// One variable of the packed words: a port, or a register (an array of them, `dims` outermost
/// first) of `width` bits a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub width: u32,
    pub dims: Vec<usize>,
    /// its first word
    pub offset: usize,
}

impl Var {
    /// Words a value takes (Verilator's CData/SData/IData: 1, QData: 2, `VlWide<N>`: N).
    pub fn value_words(&self) -> usize {
        (self.width as usize).div_ceil(32)
    }

    pub fn values(&self) -> usize {
        self.dims.iter().product()
    }

    pub fn words(&self) -> usize {
        self.values() * self.value_words()
    }

    /// Value `k`'s name (`name[i][j]` for an array).
    pub fn value_name(&self, k: usize) -> String {
        let mut idx = vec![];
        let mut r = k;
        for d in self.dims.iter().rev() {
            idx.push(r % d);
            r /= d;
        }
        let mut n = self.name.clone();
        for i in idx.iter().rev() {
            n.push_str(&format!("[{i}]"));
        }
        n
    }

    /// Value `k` of the variable as a binary string, most significant bit first.
    pub fn bits(&self, words: &[u32], k: usize) -> String {
        let at = self.offset + k * self.value_words();
        (0..self.width as usize)
            .rev()
            .map(|b| {
                if words[at + b / 32] >> (b % 32) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    }

    /// Bits `lo .. lo + w` (w <= 64) of value 0, zero above the width.
    #[inline]
    pub fn field(&self, words: &[u32], lo: usize, w: u32) -> u64 {
        let width = self.width as usize;
        if lo >= width || w == 0 {
            return 0;
        }
        let n = (w as usize).min(64).min(width - lo);
        // (the value's words from the one holding bit `lo`: at most three hold 64 bits)
        let at = self.offset + lo / 32;
        let end = self.offset + self.value_words();
        let mut x = 0u128;
        for (j, v) in words[at..end].iter().take(3).enumerate() {
            x |= u128::from(*v) << (32 * j);
        }
        let v = (x >> (lo % 32)) as u64;
        if n == 64 {
            v
        } else {
            v & ((1u64 << n) - 1)
        }
    }

    /// Set value 0 from a binary string (most significant bit first; missing high bits are 0).
    pub fn set_bits(&self, words: &mut [u32], bits: &str) -> Result<(), VarError> {
        self.set_value(words, 0, bits)
    }

    /// Set value `k` (of an array, [`Var::value_name`]'s order) from a binary string, as
    /// [`Var::set_bits`].
    pub fn set_value(&self, words: &mut [u32], k: usize, bits: &str) -> Result<(), VarError> {
        let n = bits.len();
        if n > self.width as usize {
            return Err(VarError::Wide {
                name: self.name.clone(),
                bits: n,
                width: self.width,
            });
        }
        let at = self.offset + k * self.value_words();
        for w in &mut words[at..at + self.value_words()] {
            *w = 0;
        }
        for (i, c) in bits.bytes().rev().enumerate() {
            match c {
                b'0' => {}
                b'1' => words[at + i / 32] |= 1 << (i % 32),
                _ => {
                    return Err(VarError::NotBinary {
                        name: self.name.clone(),
                        bit: i,
                        value: c as char,
                    })
                }
            }
        }
        Ok(())
    }
}

/// The packed words of one configuration: inputs, outputs and state, each in the order the
/// generated C++ packs them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    pub inputs: Vec<Var>,
    pub outputs: Vec<Var>,
    pub state: Vec<Var>,
    /// every RAM's write port (`we`, `wa`, `wd`), in the order of the RAMs in `state`
    pub writes: Vec<Var>,
    pub input_words: usize,
    pub output_words: usize,
    pub state_words: usize,
    pub write_words: usize,
}

impl Layout {
    /// The Verilated RTL's registers as a view: the state variables (names relative to the
    /// block's instance) over the state words `state`.
    pub fn view(&self, p: BlockParams, state: &[u32]) -> View {
        View::from_registers(
            p,
            self.state.iter().flat_map(|var| {
                let vw = var.value_words();
                (0..var.values()).map(move |k| {
                    let at = var.offset + k * vw;
                    let words = state[at..at + vw]
                        .chunks(2)
                        .map(|c| u64::from(c[0]) | c.get(1).map_or(0, |&h| u64::from(h) << 32))
                        .collect();
                    (var.value_name(k), var.width, words)
                })
            }),
        )
    }

    /// The RTL's registers now (its state words), into a view made by [`Layout::view`].
    pub fn refresh_view(&self, view: &mut View, state: &[u32]) {
        let mut regs = view.words_mut();
        for var in &self.state {
            let vw = var.value_words();
            for k in 0..var.values() {
                let at = var.offset + k * vw;
                let words = regs.next().expect("the view was made from this layout");
                for (j, w) in words.iter_mut().enumerate() {
                    let lo = state[at + 2 * j];
                    let hi = if 2 * j + 1 < vw {
                        state[at + 2 * j + 1]
                    } else {
                        0
                    };
                    *w = u64::from(lo) | u64::from(hi) << 32;
                }
            }
        }
        debug_assert!(regs.next().is_none());
    }

    /// From the generated layout text (crates/rtl/cpp/dut_v3.h, `layout()`).
    pub fn parse(text: &str) -> Result<Layout, LayoutLineError> {
        let mut l = Layout::default();
        for (k, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            let bad = || LayoutLineError {
                line: k + 1,
                text: line.to_string(),
            };
            if f.len() < 3 {
                return Err(bad());
            }
            let width: u32 = f[2].parse().map_err(|_| bad())?;
            let dims = f[3..]
                .iter()
                .map(|d| d.parse::<usize>().map_err(|_| bad()))
                .collect::<Result<Vec<_>, _>>()?;
            // (Verilator's limits are far below these: a value of 1 to 65,536 bits, at most 2^24
            // values in a variable)
            let values = dims
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d).filter(|&n| n <= 1 << 24));
            if !(1..=65_536).contains(&width) || values.is_none() || dims.contains(&0) {
                return Err(bad());
            }
            let (list, words) = match f[0] {
                "i" => (&mut l.inputs, &mut l.input_words),
                "o" => (&mut l.outputs, &mut l.output_words),
                "s" => (&mut l.state, &mut l.state_words),
                "w" if dims.is_empty() => (&mut l.writes, &mut l.write_words),
                _ => return Err(bad()),
            };
            let v = Var {
                name: f[1].to_string(),
                width,
                dims,
                offset: *words,
            };
            *words += v.words();
            list.push(v);
        }
        Ok(l)
    }

    /// Every register and RAM word of `state` (the layout's state words) under its RTL name.
    pub fn state_regs(&self, state: &[u32]) -> Vec<(String, String)> {
        let mut out = Vec::with_capacity(self.state.len());
        for v in &self.state {
            for k in 0..v.values() {
                out.push((v.value_name(k), v.bits(state, k)));
            }
        }
        out
    }
}

/// A value a variable of the layout cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VarError {
    #[error("{name}: {bits} bits for a variable of {width}")]
    Wide {
        name: String,
        bits: usize,
        width: u32,
    },
    #[error("{name}: bit {bit} is {value:?}, not 0 or 1")]
    NotBinary {
        name: String,
        bit: usize,
        value: char,
    },
}

/// A line of the generated layout text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("layout line {line}: {text:?}")]
pub struct LayoutLineError {
    pub line: usize,
    pub text: String,
}

/// Why the v3 RTL could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RtlV3Error {
    #[error("[rtl] no Verilated v3 model for np={np} (sw, ow, cw, cell_log2, cut_f, nl as given); built: {built} (more with CAPFC_V3_CONFIGS=all cargo build)")]
    NoConfig { np: usize, built: String },
    #[error("[rtl] {0}")]
    Ffi(String),
    #[error("[rtl] v3 layout of {name}: {source}")]
    Layout {
        name: String,
        #[source]
        source: LayoutLineError,
    },
    /// The generated C++ and the layout text disagree on a list's size.
    #[error("[rtl] v3 layout of {name}: {what}: the C++ packs {rtl} words, the layout {rust}")]
    Words {
        name: String,
        what: &'static str,
        rtl: usize,
        rust: usize,
    },
    #[error("[rtl] cannot open the waveform file {0}")]
    Trace(String),
}

/// The v3 parameter sets that have a Verilated model in this build, by name.
pub fn available() -> Vec<(String, BlockParams)> {
    let built = ffi::v3_rtl_configs();
    V3_RTL_CONFIGS
        .iter()
        .filter(|(n, _)| built.iter().any(|b| b == n))
        .map(|(n, v)| (n.to_string(), BlockParams::from_values(v)))
        .collect()
}

/// One instance of the Verilated v3 block (its own `VerilatedContext`).
pub struct RtlTopV3 {
    dut: cxx::UniquePtr<ffi::DutV3>,
    pub name: String,
    pub params: BlockParams,
    pub layout: Layout,
    /// the inputs by name: index into `layout.inputs`
    input_index: HashMap<String, usize>,
}

impl RtlTopV3 {
    /// The Verilated v3 block of exactly these parameters.
    pub fn new(params: &BlockParams) -> Result<Self, RtlV3Error> {
        let all = available();
        let Some((name, _)) = all.iter().find(|(_, p)| p == params) else {
            return Err(RtlV3Error::NoConfig {
                np: params.np,
                built: all
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let dut = ffi::new_dut_v3(name).map_err(|e| RtlV3Error::Ffi(e.to_string()))?;
        let layout =
            Layout::parse(&ffi::dut_v3_layout(&dut)).map_err(|source| RtlV3Error::Layout {
                name: name.clone(),
                source,
            })?;
        for (what, rtl, rust) in [
            ("inputs", ffi::dut_v3_input_words(&dut), layout.input_words),
            (
                "outputs",
                ffi::dut_v3_output_words(&dut),
                layout.output_words,
            ),
            ("state", ffi::dut_v3_state_words(&dut), layout.state_words),
            ("writes", ffi::dut_v3_write_words(&dut), layout.write_words),
        ] {
            if rtl != rust {
                return Err(RtlV3Error::Words {
                    name: name.clone(),
                    what,
                    rtl,
                    rust,
                });
            }
        }
        let input_index = layout
            .inputs
            .iter()
            .enumerate()
            .map(|(k, v)| (v.name.clone(), k))
            .collect();
        Ok(RtlTopV3 {
            dut,
            name: name.clone(),
            params: *params,
            layout,
            input_index,
        })
    }

    /// The input port `name`.
    pub fn input(&self, name: &str) -> Option<&Var> {
        self.input_index.get(name).map(|&k| &self.layout.inputs[k])
    }

    /// One cycle from packed inputs; the packed outputs land in `out`.
    #[inline]
    pub fn step(&mut self, inputs: &[u32], out: &mut [u32]) {
        ffi::dut_v3_step(self.dut.pin_mut(), inputs, out);
    }

    /// Every register and RAM word, packed (the layout's state).
    pub fn read_state(&self, state: &mut [u32]) {
        assert_eq!(state.len(), self.layout.state_words);
        ffi::dut_v3_read_state(&self.dut, state);
    }

    /// The registers only, into their places in the layout's state words; a RAM's words there
    /// are left as they are.
    pub fn read_regs(&self, state: &mut [u32]) {
        assert_eq!(state.len(), self.layout.state_words);
        ffi::dut_v3_read_regs(&self.dut, state);
    }

    /// Overwrite every register and RAM word (the layout's state, as [`RtlTopV3::read_state`]
    /// gives it): the block continues from there exactly as from where it was read.
    pub fn write_state(&mut self, state: &[u32]) {
        assert_eq!(state.len(), self.layout.state_words);
        ffi::dut_v3_write_state(self.dut.pin_mut(), state);
    }

    /// The cycle count that names the waveform's times from now on (cycle c at 2c and 2c + 1).
    pub fn set_cycle(&mut self, cycle: u64) {
        ffi::dut_v3_set_cycle(self.dut.pin_mut(), cycle);
    }

    /// [`RtlTopV3::step`], also giving every RAM's write port as this cycle's edge sees it
    /// (the layout's write words: `we`, `wa`, `wd` a RAM).
    #[inline]
    pub fn step_writes(&mut self, inputs: &[u32], out: &mut [u32], writes: &mut [u32]) {
        assert_eq!(writes.len(), self.layout.write_words);
        ffi::dut_v3_step_writes(self.dut.pin_mut(), inputs, out, writes);
    }

    /// The benchmark's lower bound: `cycles` cycles of pre-packed stimulus in a C++ loop.
    pub fn run_loop(&mut self, stim: &[u32], cycles: usize, out: &mut [u32]) -> u64 {
        let wpc = self.layout.input_words;
        assert!(stim.len() >= wpc * cycles);
        ffi::dut_v3_run_loop(self.dut.pin_mut(), stim, wpc, cycles, out)
    }

    /// Write every following cycle to a VCD file (RTL signal names, two time steps a cycle).
    pub fn open_trace(&mut self, path: &str) -> Result<(), RtlV3Error> {
        if ffi::dut_v3_open_trace(self.dut.pin_mut(), path) {
            Ok(())
        } else {
            Err(RtlV3Error::Trace(path.to_string()))
        }
    }

    pub fn close_trace(&mut self) {
        ffi::dut_v3_close_trace(self.dut.pin_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_layout_packs_its_variables_one_after_another() {
        let l = Layout::parse(
            "i rst 1\ni arr_size 672\no d_state 384\ns u_egress.e_q 48 96\ns x.row2_q 160 6\ns y.mem 24 2 3\n",
        )
        .unwrap();
        assert_eq!((l.input_words, l.output_words), (1 + 21, 12));
        assert_eq!(l.state[1].offset, 96 * 2);
        assert_eq!(l.state[2].offset, 96 * 2 + 6 * 5);
        assert_eq!(l.state_words, 96 * 2 + 6 * 5 + 6);
        assert_eq!(l.state[2].value_name(4), "y.mem[1][1]");
        for bad in [
            "s a 0",
            "s a 8 0",
            "x a 8",
            "s a",
            "i a b",
            "s a 8 65536 65536",
        ] {
            assert!(Layout::parse(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn any_text_is_read_or_refused(t in "[ios0-9a-z_. \\[\\]\n]{0,200}") {
            let _ = Layout::parse(&t);
        }

        #[test]
        fn a_value_written_as_bits_reads_back(width in 1u32..200, seed in any::<u64>()) {
            let v = Var { name: "x".into(), width, dims: vec![], offset: 1 };
            let bits: String = (0..width)
                .map(|b| if (seed.rotate_left(b) ^ u64::from(b)) & 1 == 1 { '1' } else { '0' })
                .collect();
            let mut w = vec![0xffff_ffffu32; 1 + v.words() + 1];
            v.set_bits(&mut w, &bits).unwrap();
            prop_assert_eq!(v.bits(&w, 0), bits.clone());
            let lo = (seed % u64::from(width)) as usize;
            let n = (width as usize - lo).min(64) as u32;
            let want = bits.as_bytes()[bits.len() - lo - n as usize..bits.len() - lo]
                .iter()
                .fold(0u64, |a, c| a << 1 | u64::from(*c == b'1'));
            prop_assert_eq!(v.field(&w, lo, n), want);
            // the words around it untouched
            prop_assert_eq!(w[0], 0xffff_ffff);
            prop_assert_eq!(*w.last().unwrap(), 0xffff_ffff);
        }
    }
}
