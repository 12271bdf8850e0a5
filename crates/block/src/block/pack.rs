//! Packing of `capfc_v2_top`'s ports and architectural state into 32-bit words, and naming of the
//! fields in them.
//!
//! A signal of width w takes `ceil(w/32)` words, least significant first; an unpacked array takes
//! that per element, in index order (docs/microarchitecture-v2.md). The C++ side of the Verilator bridge
//! reads and writes the same layout from the same list of names (`signals.rs`), so a word here is a
//! word there. Bit-level packing goes through `bitvec`.

use super::signals::{INPUT_PORTS, OUTPUT_PORTS, STATE_SIGNALS};
use super::{BlockParams, CapfcTop, Inputs, Outputs, NPRIO};
use bitvec::prelude::*;

/// How a signal's fields are indexed, to name them in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Index {
    /// One field.
    Scalar,
    /// Field (or element) k is port k.
    Port,
    /// Field k is priority k.
    Prio,
    /// Field (or element) k is queue k = port*8 + prio.
    Queue,
    /// Field k is input port k (a bitmap of inputs).
    Input,
    /// Element r is a row {o, l}, bit i of it an input port (`vld_q`, `e_q`).
    RowBits,
    /// Element o is a port, bit l of it a counted class (`pend_q`).
    PortClass,
    /// Element `{l, i}` of a counter RAM of the signal's port.
    CntWord,
    /// Element p of an occupancy RAM of the signal's port: priority p.
    PrioWord,
    /// Field k of a RAM's read-data register is read port k.
    ReadPort,
}

/// One signal of the layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// The RTL name: the port name, or `instance.register` for state.
    pub name: String,
    /// Width of one element in bits.
    pub width: u32,
    /// Elements (1 unless an unpacked array).
    pub elems: usize,
    /// Width of one named field inside an element (the element width for unpacked arrays).
    pub field: u32,
    pub index: Index,
    /// Offset of the first word.
    pub word: usize,
    /// The register as `signals::STATE_SIGNALS` lists it (`{o}` not expanded).
    pub key: &'static str,
    /// The output port of a per-port instance (`gen_port[o]`), else 0.
    pub port: usize,
    /// The instance of a state register (`u_cfg`, `u_ingress`, ...), the part of `name` before
    /// the first dot; empty for a port.
    pub unit: &'static str,
    /// The state register it is (`None` for a port).
    pub reg: Option<Reg>,
}

impl Signal {
    pub fn words_per_elem(&self) -> usize {
        (self.width as usize).div_ceil(32)
    }
    pub fn words(&self) -> usize {
        self.words_per_elem() * self.elems
    }
}

/// The layout of one of the three word buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub signals: Vec<Signal>,
    pub words: usize,
}

/// One signal of a layout before its words are placed: name, width, elements, field width,
/// index kind, (unit, key), port.
type Item = (
    String,
    u32,
    usize,
    u32,
    Index,
    (&'static str, &'static str),
    usize,
);

impl Layout {
    fn build(items: Vec<Item>) -> Layout {
        let mut word = 0;
        let signals = items
            .into_iter()
            .map(|(name, width, elems, field, index, (unit, key), port)| {
                let s = Signal {
                    name,
                    width,
                    elems,
                    field,
                    index,
                    word,
                    key,
                    port,
                    unit,
                    reg: Reg::of(unit, key),
                };
                word += s.words();
                s
            })
            .collect();
        Layout {
            signals,
            words: word,
        }
    }

    pub fn signal(&self, name: &str) -> Option<&Signal> {
        self.signals.iter().find(|s| s.name == name)
    }
}

fn port_shape(p: &BlockParams, name: &str) -> (u32, usize, u32, Index) {
    let (np, pw, sw) = (p.np as u32, p.pw(), p.sw);
    match name {
        "rst" | "cfg_we" | "dep_valid" | "enq_valid" | "enq_accept" => (1, 1, 1, Index::Scalar),
        "cfg_addr" => (8, 1, 8, Index::Scalar),
        "cfg_wdata" => (32, 1, 32, Index::Scalar),
        "arr_valid" | "deq_valid" | "arr_accept" | "pfc_valid" | "pfc_ready" => {
            (np, 1, 1, Index::Port)
        }
        "arr_prio" | "deq_prio" => (np * 3, 1, 3, Index::Port),
        "arr_size" | "deq_size" => (np * sw, 1, sw, Index::Port),
        "dep_port" | "enq_oport" | "enq_iport" => (pw, 1, pw, Index::Scalar),
        "dep_prio" | "enq_prio" => (3, 1, 3, Index::Scalar),
        "dep_size" | "enq_size" => (sw, 1, sw, Index::Scalar),
        "pfc_cev" | "pfc_xoff" => (np * 8, 1, 8, Index::Port),
        "pfc_quanta" => (16, 1, 16, Index::Scalar),
        "d_state" => (np * 8, 1, 1, Index::Queue),
        _ => unreachable!("unknown port {name}: signals.rs and pack.rs disagree"),
    }
}

fn state_shape(p: &BlockParams, reg: &str) -> (u32, usize, u32, Index) {
    let (np, nq, nr, ow, cw) = (p.np, p.nq(), p.nr(), p.ow, p.cw);
    let (pw, lw) = (p.pw(), p.lw());
    match reg {
        "ing_max_q" | "ing_xoff_q" | "ing_xon_q" | "eg_max_q" | "eg_xoff_q" | "eg_xon_q"
        | "eg_warn_q" => (ow, NPRIO, ow, Index::Prio),
        "lossless_q" => (8, 1, 1, Index::Prio),
        "mode_q" => (2, 1, 2, Index::Scalar),
        "cut_q" => (p.cut_f + 1, 1, p.cut_f + 1, Index::Scalar),
        "quanta_q" | "refresh_q" => (16, 1, 16, Index::Scalar),
        "xoff_q" | "sel_q" | "vq_q" | "sent_q" => (nq as u32, 1, 1, Index::Queue),
        "gen_port[{o}].u_arr.mem"
        | "gen_port[{o}].u_dep.mem"
        | "gen_port[{o}].u_deq.mem"
        | "gen_port[{o}].u_enq.mem" => (ow, NPRIO, ow, Index::PrioWord),
        "vld_q" | "e_q" => (np as u32, nr, 1, Index::RowBits),
        "inc_v_q" | "wr_v_q" => (1, 1, 1, Index::Scalar),
        "inc_o_q" | "inc_i_q" | "wr_o_q" | "wr_i_q" => (pw, 1, pw, Index::Scalar),
        "inc_l_q" | "wr_l_q" => (lw, 1, lw, Index::Scalar),
        "wr_cnt_q" => (cw, 1, cw, Index::Scalar),
        "gen_port[{o}].u_cnt.mem" => (cw, p.cnt_words(), cw, Index::CntWord),
        "gen_port[{o}].u_cnt.rd_q" => (2 * cw, 1, cw, Index::ReadPort),
        "gen_port[{o}].u_snap.mem" => (cw, 1 << pw, cw, Index::Input),
        "gen_port[{o}].u_snap.rd_q" => (cw, 1, cw, Index::ReadPort),
        "pend_q" => (p.nl as u32, np, 1, Index::PortClass),
        "rr_q" | "row_q" => (lw, np, lw, Index::Port),
        "busy_q" | "cal_q" => (np as u32, 1, 1, Index::Port),
        "ph_q" => (3, np, 3, Index::Port),
        "k_q" => (pw + 1, np, pw + 1, Index::Port),
        "bit_q" => (p.bw(), np, p.bw(), Index::Port),
        "v_q" => (cw, np, cw, Index::Port),
        "ix_q" => (pw, np, pw, Index::Port),
        "acc_q" => (p.sumw(), np, p.sumw(), Index::Port),
        "tgt_q" => (p.mw(), np, p.mw(), Index::Port),
        "timer_q" => (16, np, 16, Index::Port),
        _ => unreachable!("unknown state register {reg}: signals.rs and pack.rs disagree"),
    }
}

/// The three layouts of one parameter set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layouts {
    pub inputs: Layout,
    pub outputs: Layout,
    pub state: Layout,
    /// `state` but the RAM words (`*.mem`): the registers the lockstep compares every cycle.
    pub flops: Layout,
    /// Each RAM's write port in `state`'s order, three signals a RAM: `we`, `wa`, `wd` (their
    /// `reg` is the RAM's `mem`). The lockstep compares these instead of the words.
    pub writes: Layout,
}

impl Layouts {
    pub fn new(p: &BlockParams) -> Layouts {
        let ports = |names: &[&'static str]| {
            Layout::build(
                names
                    .iter()
                    .map(|n| {
                        let (w, e, f, i) = port_shape(p, n);
                        (n.to_string(), w, e, f, i, ("", *n), 0)
                    })
                    .collect(),
            )
        };
        let mut items = vec![];
        for (inst, reg) in STATE_SIGNALS {
            let (w, e, f, i) = state_shape(p, reg);
            let n = if reg.contains("{o}") { p.np } else { 1 };
            for o in 0..n {
                let name = format!("{inst}.{}", super::signals::expand_port(reg, o));
                items.push((name, w, e, f, i, (*inst, *reg), o));
            }
        }
        let is_mem = |it: &Item| it.0.ends_with(".mem");
        let flops = Layout::build(items.iter().filter(|it| !is_mem(it)).cloned().collect());
        let writes = Layout::build(
            items
                .iter()
                .filter(|it| is_mem(it))
                .flat_map(|it| {
                    let ram = it.0.strip_suffix("mem").unwrap_or(&it.0).to_string();
                    // address width: log2 of the words; data width: the word's
                    let aw = it.2.trailing_zeros();
                    [("we", 1), ("wa", aw), ("wd", it.1)].map(|(port, w)| {
                        (format!("{ram}{port}"), w, 1, w, Index::Scalar, it.5, it.6)
                    })
                })
                .collect(),
        );
        let state = Layout::build(items);
        Layouts {
            inputs: ports(INPUT_PORTS),
            outputs: ports(OUTPUT_PORTS),
            state,
            flops,
            writes,
        }
    }
}

/// Writes fields into a word buffer that starts zeroed (each field is written at most once).
struct Writer<'a> {
    words: &'a mut [u32],
}

impl Writer<'_> {
    #[inline]
    fn put(&mut self, s: &Signal, elem: usize, field: usize, v: u64) {
        let base = (s.word + elem * s.words_per_elem()) * 32 + field * s.field as usize;
        let w = s.field as usize;
        let v = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
        let (k, sh) = (base / 32, base % 32);
        if sh + w <= 32 {
            // within one word (every field of 32 bits or less but the packed bit vectors' own
            // bits, which are 1 bit wide, so this is the common case)
            self.words[k] |= (v as u32) << sh;
        } else {
            self.put_across(base, w, v);
        }
    }

    /// A field that crosses a word boundary (rare: kept out of `put`, so that `put` inlines).
    #[cold]
    #[inline(never)]
    fn put_across(&mut self, base: usize, w: usize, v: u64) {
        self.words.view_bits_mut::<Lsb0>()[base..base + w].store_le(v);
    }
}

/// Pack one cycle's inputs. `buf` must have `layout.words` words; it is zeroed first.
pub fn pack_inputs(p: &BlockParams, l: &Layout, inp: &Inputs, buf: &mut [u32]) {
    buf.fill(0);
    let sig = &l.signals;
    let mut w = Writer { words: buf };
    // The order of `signals::INPUT_PORTS`.
    w.put(&sig[0], 0, 0, u64::from(inp.rst));
    if let Some((a, d)) = inp.cfg {
        w.put(&sig[1], 0, 0, 1);
        w.put(&sig[2], 0, 0, u64::from(a));
        w.put(&sig[3], 0, 0, u64::from(d));
    }
    for (i, a) in inp.arr.iter().enumerate().take(p.np) {
        if let Some(pkt) = a {
            w.put(&sig[4], 0, i, 1);
            w.put(&sig[5], 0, i, u64::from(pkt.prio));
            w.put(&sig[6], 0, i, u64::from(pkt.size));
        }
    }
    if let Some(d) = &inp.dep {
        w.put(&sig[7], 0, 0, 1);
        w.put(&sig[8], 0, 0, u64::from(d.port));
        w.put(&sig[9], 0, 0, u64::from(d.prio));
        w.put(&sig[10], 0, 0, u64::from(d.size));
    }
    if let Some(e) = &inp.enq {
        w.put(&sig[11], 0, 0, 1);
        w.put(&sig[12], 0, 0, u64::from(e.oport));
        w.put(&sig[13], 0, 0, u64::from(e.prio));
        w.put(&sig[14], 0, 0, u64::from(e.iport));
        w.put(&sig[15], 0, 0, u64::from(e.size));
    }
    for (o, d) in inp.deq.iter().enumerate().take(p.np) {
        if let Some(pkt) = d {
            w.put(&sig[16], 0, o, 1);
            w.put(&sig[17], 0, o, u64::from(pkt.prio));
            w.put(&sig[18], 0, o, u64::from(pkt.size));
        }
    }
    put_mask(&mut w, &sig[19], 0, inp.pfc_ready & super::mask128(p.np));
}

/// Read a packed mask of up to 128 bits (one bit per port).
fn get_mask(s: &Signal, buf: &[u32]) -> u128 {
    let w = &buf[s.word..s.word + s.words()];
    w.iter()
        .enumerate()
        .fold(0u128, |m, (k, &x)| m | u128::from(x) << (32 * k))
}

/// Field `field` (at most 32 bits wide) of a packed signal: the hot-path twin of [`get_field`].
#[inline]
fn field32(s: &Signal, buf: &[u32], field: usize) -> u32 {
    read_bits(buf, s.word * 32 + field * s.field as usize, s.field)
}

/// `width` (at most 32) bits of a word buffer from bit `bit` on.
#[inline]
fn read_bits(buf: &[u32], bit: usize, width: u32) -> u32 {
    let (w, b) = (bit / 32, bit % 32);
    let lo = u64::from(buf[w]) >> b;
    let v = if b + width as usize > 32 {
        lo | u64::from(buf[w + 1]) << (32 - b)
    } else {
        lo
    };
    (v & ((1u64 << width) - 1)) as u32
}

/// Decode one cycle's packed inputs (the inverse of [`pack_inputs`]).
pub fn unpack_inputs(p: &BlockParams, l: &Layout, buf: &[u32], inp: &mut Inputs) {
    use super::{Departure, Enqueue, Pkt};
    let sig = &l.signals;
    let f = |k: usize, field: usize| field32(&sig[k], buf, field);
    inp.clear();
    inp.rst = buf[sig[0].word] & 1 == 1;
    if buf[sig[1].word] & 1 == 1 {
        inp.cfg = Some((f(2, 0) as u8, f(3, 0)));
    }
    let mut m = get_mask(&sig[4], buf);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        inp.arr[i] = Some(Pkt {
            prio: f(5, i) as u8,
            size: f(6, i) as u16,
        });
    }
    if buf[sig[7].word] & 1 == 1 {
        inp.dep = Some(Departure {
            port: f(8, 0) as u8,
            prio: f(9, 0) as u8,
            size: f(10, 0) as u16,
        });
    }
    if buf[sig[11].word] & 1 == 1 {
        inp.enq = Some(Enqueue {
            oport: f(12, 0) as u8,
            prio: f(13, 0) as u8,
            iport: f(14, 0) as u8,
            size: f(15, 0) as u16,
        });
    }
    let mut m = get_mask(&sig[16], buf);
    while m != 0 {
        let o = m.trailing_zeros() as usize;
        m &= m - 1;
        if o < p.np {
            inp.deq[o] = Some(Pkt {
                prio: f(17, o) as u8,
                size: f(18, o) as u16,
            });
        }
    }
    inp.pfc_ready = get_mask(&sig[19], buf);
}

/// Decode one cycle's packed outputs (the inverse of [`pack_outputs`]).
pub fn unpack_outputs(l: &Layout, buf: &[u32], out: &mut Outputs) {
    let sig = &l.signals;
    out.arr_accept = get_mask(&sig[0], buf);
    out.enq_accept = buf[sig[1].word] & 1 == 1;
    out.pfc_valid = get_mask(&sig[2], buf);
    for (i, c) in out.pfc_cev.iter_mut().enumerate() {
        *c = field32(&sig[3], buf, i) as u8;
    }
    for (i, x) in out.pfc_xoff.iter_mut().enumerate() {
        *x = field32(&sig[4], buf, i) as u8;
    }
    out.pfc_quanta = field32(&sig[5], buf, 0) as u16;
    for (i, d) in out.d_state.iter_mut().enumerate() {
        *d = read_bits(buf, sig[6].word * 32 + i * 8, 8) as u8;
    }
}

fn put_mask(w: &mut Writer, s: &Signal, elem: usize, mut m: u128) {
    if s.field == 1 {
        // A vector of 1-bit fields starts on a word: whole words at once.
        let base = s.word + elem * s.words_per_elem();
        let n = s.words_per_elem().min(4);
        let m = if s.width >= 128 {
            m
        } else {
            m & ((1u128 << s.width) - 1)
        };
        for k in 0..n {
            w.words[base + k] |= (m >> (32 * k)) as u32;
        }
        return;
    }
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        w.put(s, elem, i, 1);
    }
}

/// An array of bit-vector elements (`vld_q`, `e_q`: a row of input bits each): element r is
/// `rows[r]`, whole words at a time.
#[inline]
fn put_rows<T: Copy + Into<u128>>(w: &mut Writer, s: &Signal, rows: &[T]) {
    debug_assert_eq!(s.field, 1);
    let wpe = s.words_per_elem();
    let dst = &mut w.words[s.word..s.word + wpe * rows.len()];
    if wpe == 1 {
        let mask = if s.width >= 32 {
            u32::MAX
        } else {
            (1u32 << s.width) - 1
        };
        for (d, &r) in dst.iter_mut().zip(rows) {
            *d = r.into() as u32 & mask;
        }
    } else {
        let mask = if s.width >= 128 {
            u128::MAX
        } else {
            (1u128 << s.width) - 1
        };
        for (d, &r) in dst.chunks_exact_mut(wpe).zip(rows) {
            let r = r.into() & mask;
            for (k, x) in d.iter_mut().enumerate().take(4) {
                *x = (r >> (32 * k)) as u32;
            }
        }
    }
}

/// An array of one-field elements (registers of an unpacked array, RAM words): element k is v[k].
#[inline]
fn elems<T: Copy + Into<u64>>(w: &mut Writer, s: &Signal, v: &[T]) {
    if s.words_per_elem() == 1 && s.field == s.width {
        let mask = if s.width >= 32 {
            u32::MAX
        } else {
            (1u32 << s.width) - 1
        };
        for (d, &x) in w.words[s.word..s.word + v.len()].iter_mut().zip(v) {
            *d = (x.into() as u32) & mask;
        }
    } else {
        for (k, &x) in v.iter().enumerate() {
            w.put(s, k, 0, x.into());
        }
    }
}

/// A vector of 1-bit fields, 8 per byte (bit p of byte k is field 8k+p): whole bytes at once.
fn put_bytes_as_bits(w: &mut Writer, s: &Signal, bytes: &[u8]) {
    debug_assert_eq!(s.field, 1);
    for (k, &b) in bytes.iter().enumerate() {
        if b != 0 {
            w.words[s.word + k / 4] |= u32::from(b) << (8 * (k % 4));
        }
    }
}

/// A vector of 8-bit fields (field k is `bytes[k]`), four to a word.
fn put_bytes(w: &mut Writer, s: &Signal, bytes: &[u8]) {
    debug_assert_eq!(s.field, 8);
    for (k, &b) in bytes.iter().enumerate() {
        w.words[s.word + k / 4] |= u32::from(b) << (8 * (k % 4));
    }
}

/// Pack one cycle's outputs.
pub fn pack_outputs(l: &Layout, out: &Outputs, buf: &mut [u32]) {
    buf.fill(0);
    let sig = &l.signals;
    let mut w = Writer { words: buf };
    put_mask(&mut w, &sig[0], 0, out.arr_accept);
    w.put(&sig[1], 0, 0, u64::from(out.enq_accept));
    put_mask(&mut w, &sig[2], 0, out.pfc_valid);
    put_bytes(&mut w, &sig[3], &out.pfc_cev);
    put_bytes(&mut w, &sig[4], &out.pfc_xoff);
    w.put(&sig[5], 0, 0, u64::from(out.pfc_quanta));
    put_bytes_as_bits(&mut w, &sig[6], &out.d_state);
}

/// Pack the model's architectural state in the order of `signals::STATE_SIGNALS`.
/// A state register of `signals::STATE_SIGNALS`, resolved once when the layout is built, so
/// that packing the state every cycle does not compare names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    CfgIngMaxQ,
    CfgIngXoffQ,
    CfgIngXonQ,
    CfgEgMaxQ,
    CfgEgXoffQ,
    CfgEgXonQ,
    CfgEgWarnQ,
    CfgLosslessQ,
    CfgModeQ,
    CfgCutQ,
    CfgQuantaQ,
    CfgRefreshQ,
    IngressXoffQ,
    IngressSelQ,
    IngressVqQ,
    IngressUArrMem,
    IngressUDepMem,
    EgressSelQ,
    EgressVqQ,
    EgressUDeqMem,
    EgressUEnqMem,
    EgressVldQ,
    EgressEQ,
    EgressIncVQ,
    EgressIncOQ,
    EgressIncLQ,
    EgressIncIQ,
    EgressWrVQ,
    EgressWrOQ,
    EgressWrLQ,
    EgressWrIQ,
    EgressWrCntQ,
    EgressUCntMem,
    EgressUCntRdQ,
    SortUSnapMem,
    SortUSnapRdQ,
    SortPendQ,
    SortRrQ,
    SortBusyQ,
    SortCalQ,
    SortPhQ,
    SortRowQ,
    SortKQ,
    SortBitQ,
    SortVQ,
    SortIxQ,
    SortAccQ,
    SortTgtQ,
    PfcSentQ,
    PfcTimerQ,
}

impl Reg {
    /// The register `unit.key` (`key` as `STATE_SIGNALS` spells it).
    pub fn of(unit: &str, key: &str) -> Option<Reg> {
        Some(match (unit, key) {
            ("u_cfg", "ing_max_q") => Reg::CfgIngMaxQ,
            ("u_cfg", "ing_xoff_q") => Reg::CfgIngXoffQ,
            ("u_cfg", "ing_xon_q") => Reg::CfgIngXonQ,
            ("u_cfg", "eg_max_q") => Reg::CfgEgMaxQ,
            ("u_cfg", "eg_xoff_q") => Reg::CfgEgXoffQ,
            ("u_cfg", "eg_xon_q") => Reg::CfgEgXonQ,
            ("u_cfg", "eg_warn_q") => Reg::CfgEgWarnQ,
            ("u_cfg", "lossless_q") => Reg::CfgLosslessQ,
            ("u_cfg", "mode_q") => Reg::CfgModeQ,
            ("u_cfg", "cut_q") => Reg::CfgCutQ,
            ("u_cfg", "quanta_q") => Reg::CfgQuantaQ,
            ("u_cfg", "refresh_q") => Reg::CfgRefreshQ,
            ("u_ingress", "xoff_q") => Reg::IngressXoffQ,
            ("u_ingress", "sel_q") => Reg::IngressSelQ,
            ("u_ingress", "vq_q") => Reg::IngressVqQ,
            ("u_ingress", "gen_port[{o}].u_arr.mem") => Reg::IngressUArrMem,
            ("u_ingress", "gen_port[{o}].u_dep.mem") => Reg::IngressUDepMem,
            ("u_egress", "sel_q") => Reg::EgressSelQ,
            ("u_egress", "vq_q") => Reg::EgressVqQ,
            ("u_egress", "gen_port[{o}].u_deq.mem") => Reg::EgressUDeqMem,
            ("u_egress", "gen_port[{o}].u_enq.mem") => Reg::EgressUEnqMem,
            ("u_egress", "vld_q") => Reg::EgressVldQ,
            ("u_egress", "e_q") => Reg::EgressEQ,
            ("u_egress", "inc_v_q") => Reg::EgressIncVQ,
            ("u_egress", "inc_o_q") => Reg::EgressIncOQ,
            ("u_egress", "inc_l_q") => Reg::EgressIncLQ,
            ("u_egress", "inc_i_q") => Reg::EgressIncIQ,
            ("u_egress", "wr_v_q") => Reg::EgressWrVQ,
            ("u_egress", "wr_o_q") => Reg::EgressWrOQ,
            ("u_egress", "wr_l_q") => Reg::EgressWrLQ,
            ("u_egress", "wr_i_q") => Reg::EgressWrIQ,
            ("u_egress", "wr_cnt_q") => Reg::EgressWrCntQ,
            ("u_egress", "gen_port[{o}].u_cnt.mem") => Reg::EgressUCntMem,
            ("u_egress", "gen_port[{o}].u_cnt.rd_q") => Reg::EgressUCntRdQ,
            ("u_sort", "gen_port[{o}].u_snap.mem") => Reg::SortUSnapMem,
            ("u_sort", "gen_port[{o}].u_snap.rd_q") => Reg::SortUSnapRdQ,
            ("u_sort", "pend_q") => Reg::SortPendQ,
            ("u_sort", "rr_q") => Reg::SortRrQ,
            ("u_sort", "busy_q") => Reg::SortBusyQ,
            ("u_sort", "cal_q") => Reg::SortCalQ,
            ("u_sort", "ph_q") => Reg::SortPhQ,
            ("u_sort", "row_q") => Reg::SortRowQ,
            ("u_sort", "k_q") => Reg::SortKQ,
            ("u_sort", "bit_q") => Reg::SortBitQ,
            ("u_sort", "v_q") => Reg::SortVQ,
            ("u_sort", "ix_q") => Reg::SortIxQ,
            ("u_sort", "acc_q") => Reg::SortAccQ,
            ("u_sort", "tgt_q") => Reg::SortTgtQ,
            ("u_pfc", "sent_q") => Reg::PfcSentQ,
            ("u_pfc", "timer_q") => Reg::PfcTimerQ,
            _ => return None,
        })
    }
}

pub fn pack_state(m: &CapfcTop, l: &Layout, buf: &mut [u32]) {
    buf.fill(0);
    let mut w = Writer { words: buf };
    let c = &m.cfg;
    let (eg, so) = (&m.egress, &m.sort);
    for s in &l.signals {
        let o = s.port;
        let one = |w: &mut Writer, v: u64| w.put(s, 0, 0, v);
        let Some(reg) = s.reg else {
            unreachable!("no model register for {}", s.name)
        };
        match reg {
            Reg::CfgIngMaxQ => elems(&mut w, s, &c.ing_max_q),
            Reg::CfgIngXoffQ => elems(&mut w, s, &c.ing_xoff_q),
            Reg::CfgIngXonQ => elems(&mut w, s, &c.ing_xon_q),
            Reg::CfgEgMaxQ => elems(&mut w, s, &c.eg_max_q),
            Reg::CfgEgXoffQ => elems(&mut w, s, &c.eg_xoff_q),
            Reg::CfgEgXonQ => elems(&mut w, s, &c.eg_xon_q),
            Reg::CfgEgWarnQ => elems(&mut w, s, &c.eg_warn_q),
            Reg::CfgLosslessQ => put_mask(&mut w, s, 0, u128::from(c.lossless_q)),
            Reg::CfgModeQ => one(&mut w, u64::from(c.mode_q.value())),
            Reg::CfgCutQ => one(&mut w, u64::from(c.cut_q)),
            Reg::CfgQuantaQ => one(&mut w, u64::from(c.quanta_q)),
            Reg::CfgRefreshQ => one(&mut w, u64::from(c.refresh_q)),
            Reg::IngressXoffQ => put_bytes_as_bits(&mut w, s, &m.ingress.xoff_q),
            Reg::IngressSelQ => put_bytes_as_bits(&mut w, s, &m.ingress.sel_q),
            Reg::IngressVqQ => put_bytes_as_bits(&mut w, s, &m.ingress.vq_q),
            Reg::IngressUArrMem => elems(&mut w, s, &m.ingress.arr[o].mem),
            Reg::IngressUDepMem => elems(&mut w, s, &m.ingress.dep[o].mem),
            Reg::EgressSelQ => put_bytes_as_bits(&mut w, s, &eg.sel_q),
            Reg::EgressVqQ => put_bytes_as_bits(&mut w, s, &eg.vq_q),
            Reg::EgressUDeqMem => elems(&mut w, s, &eg.deq[o].mem),
            Reg::EgressUEnqMem => elems(&mut w, s, &eg.enq[o].mem),
            Reg::EgressVldQ => put_rows(&mut w, s, &eg.vld_q),
            Reg::EgressEQ => put_rows(&mut w, s, &eg.e_q),
            Reg::EgressIncVQ => one(&mut w, u64::from(eg.inc_v_q)),
            Reg::EgressIncOQ => one(&mut w, u64::from(eg.inc_o_q)),
            Reg::EgressIncLQ => one(&mut w, u64::from(eg.inc_l_q)),
            Reg::EgressIncIQ => one(&mut w, u64::from(eg.inc_i_q)),
            Reg::EgressWrVQ => one(&mut w, u64::from(eg.wr_v_q)),
            Reg::EgressWrOQ => one(&mut w, u64::from(eg.wr_o_q)),
            Reg::EgressWrLQ => one(&mut w, u64::from(eg.wr_l_q)),
            Reg::EgressWrIQ => one(&mut w, u64::from(eg.wr_i_q)),
            Reg::EgressWrCntQ => one(&mut w, u64::from(eg.wr_cnt_q)),
            Reg::EgressUCntMem => elems(&mut w, s, &eg.cnt[o].mem),
            Reg::EgressUCntRdQ => {
                for (k, &x) in eg.cnt[o].rd_q.iter().enumerate() {
                    w.put(s, 0, k, u64::from(x));
                }
            }
            Reg::SortUSnapMem => elems(&mut w, s, &so.snap[o].mem),
            Reg::SortUSnapRdQ => one(&mut w, u64::from(so.snap[o].rd_q[0])),
            Reg::SortPendQ => put_rows(&mut w, s, &so.pend_q),
            Reg::SortRrQ => elems(&mut w, s, &so.rr_q),
            Reg::SortBusyQ => put_mask(&mut w, s, 0, so.busy_q),
            Reg::SortCalQ => put_mask(&mut w, s, 0, so.cal_q),
            Reg::SortPhQ => elems(&mut w, s, &so.ph_q),
            Reg::SortRowQ => elems(&mut w, s, &so.row_q),
            Reg::SortKQ => elems(&mut w, s, &so.k_q),
            Reg::SortBitQ => elems(&mut w, s, &so.bit_q),
            Reg::SortVQ => elems(&mut w, s, &so.v_q),
            Reg::SortIxQ => elems(&mut w, s, &so.ix_q),
            Reg::SortAccQ => elems(&mut w, s, &so.acc_q),
            Reg::SortTgtQ => elems(&mut w, s, &so.tgt_q),
            Reg::PfcSentQ => put_bytes_as_bits(&mut w, s, &m.pfc.sent_q),
            Reg::PfcTimerQ => {
                let mut t = [0u16; 128];
                for (k, x) in t.iter_mut().enumerate().take(m.params.np) {
                    *x = m.pfc.timer(k);
                }
                elems(&mut w, s, &t[..m.params.np]);
            }
        }
    }
}

/// Pack each RAM's write port of the model's last cycle (`Layouts::writes`): `we`, and `wa`, `wd`
/// when `we` is set (0 when not: [`normalize_writes`] gives the RTL's the same form).
pub fn pack_writes(m: &CapfcTop, l: &Layout, buf: &mut [u32]) {
    let np = m.params.np;
    debug_assert_eq!(l.signals.len() % (3 * np), 0);
    fn put<T: Copy + Into<u32>>(buf: &mut [u32], wr: Option<(usize, T)>) {
        let w: [u32; 3] = match wr {
            Some((a, v)) => [1, a as u32, v.into()],
            None => [0, 0, 0],
        };
        buf.copy_from_slice(&w);
    }
    // `state`'s order: one RAM for every port, then the next RAM
    for (g, s) in l.signals.chunks_exact(3 * np).enumerate() {
        let dst = buf[3 * np * g..3 * np * (g + 1)].chunks_exact_mut(3);
        match s[0].reg {
            Some(Reg::IngressUArrMem) => dst.zip(&m.ingress.arr).for_each(|(d, r)| put(d, r.wr)),
            Some(Reg::IngressUDepMem) => dst.zip(&m.ingress.dep).for_each(|(d, r)| put(d, r.wr)),
            Some(Reg::EgressUDeqMem) => dst.zip(&m.egress.deq).for_each(|(d, r)| put(d, r.wr)),
            Some(Reg::EgressUEnqMem) => dst.zip(&m.egress.enq).for_each(|(d, r)| put(d, r.wr)),
            Some(Reg::EgressUCntMem) => dst.zip(&m.egress.cnt).for_each(|(d, r)| put(d, r.wr)),
            Some(Reg::SortUSnapMem) => dst.zip(&m.sort.snap).for_each(|(d, r)| put(d, r.wr)),
            _ => unreachable!("no model RAM for {}", s[0].name),
        }
    }
}

/// Zero the address and data of every RAM whose `we` is clear (the RTL drives them anyway), so
/// that two write-port buffers are equal exactly when the same words are written.
pub fn normalize_writes(buf: &mut [u32]) {
    for w in buf.chunks_exact_mut(3) {
        if w[0] == 0 {
            w[1] = 0;
            w[2] = 0;
        }
    }
}

/// The model state whose packed form is `buf` (the inverse of [`pack_state`]): a block whose
/// registers and RAMs are those words, e.g. the Verilated RTL's, so that the model's views
/// (architectural counters, D) can be computed for either side. D is recomputed from I and E.
pub fn unpack_state(p: &BlockParams, l: &Layout, buf: &[u32]) -> CapfcTop {
    use arbitrary_int::u2;
    let mut m = CapfcTop::new(*p).expect("valid parameters");
    let np = p.np;
    for s in &l.signals {
        let inst = s.name.split('.').next().unwrap_or("");
        let o = s.port;
        let g = |e: usize, f: usize| get_field(s, buf, e, f);
        let elems = |n: usize| (0..n).map(|k| g(k, 0)).collect::<Vec<u64>>();
        let bits = |n: usize| (0..n).fold(0u128, |m, k| m | (u128::from(g(0, k) == 1) << k));
        let bytes = |n: usize| {
            (0..n)
                .map(|i| (0..8).fold(0u8, |b, k| b | ((g(0, i * 8 + k) as u8) << k)))
                .collect::<Vec<u8>>()
        };
        let rowbits = |e: usize| (0..np).fold(0u128, |m, k| m | (u128::from(g(e, k) == 1) << k));
        let u32s = |n: usize| elems(n).into_iter().map(|x| x as u32).collect::<Vec<u32>>();
        let c = &mut m.cfg;
        let arr8 = |v: Vec<u32>| -> [u32; NPRIO] { v.try_into().unwrap() };
        match (inst, s.key) {
            ("u_cfg", "ing_max_q") => c.ing_max_q = arr8(u32s(NPRIO)),
            ("u_cfg", "ing_xoff_q") => c.ing_xoff_q = arr8(u32s(NPRIO)),
            ("u_cfg", "ing_xon_q") => c.ing_xon_q = arr8(u32s(NPRIO)),
            ("u_cfg", "eg_max_q") => c.eg_max_q = arr8(u32s(NPRIO)),
            ("u_cfg", "eg_xoff_q") => c.eg_xoff_q = arr8(u32s(NPRIO)),
            ("u_cfg", "eg_xon_q") => c.eg_xon_q = arr8(u32s(NPRIO)),
            ("u_cfg", "eg_warn_q") => c.eg_warn_q = arr8(u32s(NPRIO)),
            ("u_cfg", "lossless_q") => c.lossless_q = bits(8) as u8,
            ("u_cfg", "mode_q") => c.mode_q = u2::new(g(0, 0) as u8),
            ("u_cfg", "cut_q") => c.cut_q = g(0, 0) as u32,
            ("u_cfg", "quanta_q") => c.quanta_q = g(0, 0) as u16,
            ("u_cfg", "refresh_q") => c.refresh_q = g(0, 0) as u16,
            ("u_ingress", "xoff_q") => m.ingress.xoff_q = bytes(np),
            ("u_ingress", "sel_q") => m.ingress.sel_q = bytes(np),
            ("u_ingress", "vq_q") => m.ingress.vq_q = bytes(np),
            ("u_ingress", "gen_port[{o}].u_arr.mem") => m.ingress.arr[o].mem = u32s(NPRIO),
            ("u_ingress", "gen_port[{o}].u_dep.mem") => m.ingress.dep[o].mem = u32s(NPRIO),
            ("u_egress", "sel_q") => m.egress.sel_q = bytes(np),
            ("u_egress", "vq_q") => m.egress.vq_q = bytes(np),
            ("u_egress", "gen_port[{o}].u_deq.mem") => m.egress.deq[o].mem = u32s(NPRIO),
            ("u_egress", "gen_port[{o}].u_enq.mem") => m.egress.enq[o].mem = u32s(NPRIO),
            ("u_egress", "vld_q") => m.egress.vld_q = (0..p.nr()).map(rowbits).collect(),
            ("u_egress", "e_q") => m.egress.e_q = (0..p.nr()).map(rowbits).collect(),
            ("u_egress", "inc_v_q") => m.egress.inc_v_q = g(0, 0) == 1,
            ("u_egress", "inc_o_q") => m.egress.inc_o_q = g(0, 0) as u32,
            ("u_egress", "inc_l_q") => m.egress.inc_l_q = g(0, 0) as u32,
            ("u_egress", "inc_i_q") => m.egress.inc_i_q = g(0, 0) as u32,
            ("u_egress", "wr_v_q") => m.egress.wr_v_q = g(0, 0) == 1,
            ("u_egress", "wr_o_q") => m.egress.wr_o_q = g(0, 0) as u32,
            ("u_egress", "wr_l_q") => m.egress.wr_l_q = g(0, 0) as u32,
            ("u_egress", "wr_i_q") => m.egress.wr_i_q = g(0, 0) as u32,
            ("u_egress", "wr_cnt_q") => m.egress.wr_cnt_q = g(0, 0) as u16,
            ("u_egress", "gen_port[{o}].u_cnt.mem") => {
                m.egress.cnt[o].mem = elems(p.cnt_words()).into_iter().map(|x| x as u16).collect()
            }
            ("u_egress", "gen_port[{o}].u_cnt.rd_q") => {
                m.egress.cnt[o].rd_q = vec![g(0, 0) as u16, g(0, 1) as u16]
            }
            ("u_sort", "gen_port[{o}].u_snap.mem") => {
                m.sort.snap[o].mem = elems(1 << p.pw()).into_iter().map(|x| x as u16).collect()
            }
            ("u_sort", "gen_port[{o}].u_snap.rd_q") => m.sort.snap[o].rd_q = vec![g(0, 0) as u16],
            ("u_sort", "pend_q") => {
                m.sort.pend_q = (0..np)
                    .map(|k| (0..p.nl).fold(0u8, |b, l| b | ((g(k, l) as u8) << l)))
                    .collect()
            }
            ("u_sort", "rr_q") => m.sort.rr_q = u32s(np),
            ("u_sort", "busy_q") => m.sort.busy_q = bits(np),
            ("u_sort", "cal_q") => m.sort.cal_q = bits(np),
            ("u_sort", "ph_q") => m.sort.ph_q = elems(np).into_iter().map(|x| x as u8).collect(),
            ("u_sort", "row_q") => m.sort.row_q = u32s(np),
            ("u_sort", "k_q") => m.sort.k_q = u32s(np),
            ("u_sort", "bit_q") => m.sort.bit_q = u32s(np),
            ("u_sort", "v_q") => m.sort.v_q = elems(np).into_iter().map(|x| x as u16).collect(),
            ("u_sort", "ix_q") => m.sort.ix_q = u32s(np),
            ("u_sort", "acc_q") => m.sort.acc_q = u32s(np),
            ("u_sort", "tgt_q") => m.sort.tgt_q = elems(np),
            ("u_pfc", "sent_q") => m.pfc.sent_q = bytes(np),
            ("u_pfc", "timer_q") => {
                for k in 0..np {
                    m.pfc.set_timer(k, g(k, 0) as u16);
                }
            }
            _ => unreachable!("no model register for {}", s.name),
        }
    }
    m.sort.resync();
    m.recompute_d_all();
    m
}

/// Read field `field` of element `elem` of signal `s` from a word buffer.
pub fn get_field(s: &Signal, buf: &[u32], elem: usize, field: usize) -> u64 {
    let bits = buf.view_bits::<Lsb0>();
    let base = (s.word + elem * s.words_per_elem()) * 32 + field * s.field as usize;
    bits[base..base + s.field as usize].load_le::<u64>()
}

/// The occupancy (units) of queue `q = port*8 + prio` in a packed state buffer: the word of the
/// occupancy RAM that `sel_q` names (the global lane's bank when set: `u_dep` at ingress, `u_enq`
/// at egress), 0 while `vq_q` is clear.
pub fn occupancy(l: &Layout, buf: &[u32], egress: bool, q: usize) -> u64 {
    let sig = |n: &str| l.signal(n).unwrap_or_else(|| panic!("{n} is state"));
    let (inst, own, global) = if egress {
        ("u_egress", "u_deq", "u_enq")
    } else {
        ("u_ingress", "u_arr", "u_dep")
    };
    if get_field(sig(&format!("{inst}.vq_q")), buf, 0, q) == 0 {
        return 0;
    }
    let (i, pr) = (q / NPRIO, q % NPRIO);
    let bank = if get_field(sig(&format!("{inst}.sel_q")), buf, 0, q) == 1 {
        global
    } else {
        own
    };
    get_field(sig(&format!("{inst}.gen_port[{i}].{bank}.mem")), buf, pr, 0)
}

/// One differing field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldDiff {
    /// Full RTL name with index, e.g. `u_egress.cnt_q[77]`.
    pub signal: String,
    /// What the index means, e.g. `o=1 p=1 i=5`.
    pub at: String,
    pub expected: u64,
    pub actual: u64,
}

fn describe(p: &BlockParams, s: &Signal, elem: usize, field: usize) -> (String, String) {
    let qname = |q: usize| format!("port={} prio={}", q / NPRIO, q % NPRIO);
    let rname = |r: usize| format!("port={} class={}", r >> p.lw(), r & ((1 << p.lw()) - 1));
    let k = if s.elems > 1 { elem } else { field };
    let n = &s.name;
    match s.index {
        Index::Scalar => (n.clone(), String::new()),
        Index::Port => (format!("{n}[{k}]"), format!("port={k}")),
        Index::Prio => (format!("{n}[{k}]"), format!("prio={k}")),
        Index::Queue => (format!("{n}[{k}]"), qname(k)),
        Index::Input => (format!("{n}[{k}]"), format!("input={k}")),
        Index::RowBits => (
            format!("{n}[{elem}][{field}]"),
            format!("{} input={field}", rname(elem)),
        ),
        Index::PortClass => (
            format!("{n}[{elem}][{field}]"),
            format!("port={elem} class={field}"),
        ),
        Index::PrioWord => (
            format!("{n}[{elem}]"),
            format!("port={} prio={elem}", s.port),
        ),
        Index::CntWord => (
            format!("{n}[{elem}]"),
            format!(
                "port={} class={} input={}",
                s.port,
                elem >> p.pw(),
                elem & ((1 << p.pw()) - 1)
            ),
        ),
        Index::ReadPort => (format!("{n}[{field}]"), format!("read port {field}")),
    }
}

/// Every field that differs between two buffers of the same layout, in layout order.
pub fn diff(p: &BlockParams, l: &Layout, expected: &[u32], actual: &[u32]) -> Vec<FieldDiff> {
    let mut out = vec![];
    for s in &l.signals {
        let range = s.word..s.word + s.words();
        if expected[range.clone()] == actual[range] {
            continue;
        }
        let nfields = (s.width / s.field) as usize;
        for elem in 0..s.elems {
            for f in 0..nfields {
                let (e, a) = (
                    get_field(s, expected, elem, f),
                    get_field(s, actual, elem, f),
                );
                if e != a {
                    let (signal, at) = describe(p, s, elem, f);
                    out.push(FieldDiff {
                        signal,
                        at,
                        expected: e,
                        actual: a,
                    });
                }
            }
        }
    }
    out
}

/// Bits of a layout's concatenation `{first signal, ..., last signal}` (no word alignment).
pub fn concat_bits(l: &Layout) -> usize {
    l.signals.iter().map(|s| s.width as usize * s.elems).sum()
}

/// The concatenation of a word buffer's signals as 32-bit words, least significant first: the last
/// signal at bit 0, the way SystemVerilog passes a `bit [N-1:0]` through DPI (`svBitVecVal`).
/// `concat` must have `concat_bits(l).div_ceil(32)` words; bits above the concatenation are 0.
pub fn to_concat(l: &Layout, words: &[u32], concat: &mut [u32]) {
    concat.fill(0);
    let dst = concat.view_bits_mut::<Lsb0>();
    let mut pos = 0;
    for s in l.signals.iter().rev() {
        // unpacked elements start on word boundaries: element k at word k * words_per_elem
        let (ew, wpe) = (s.width as usize, s.words_per_elem() * 32);
        let src = words[s.word..s.word + s.words()].view_bits::<Lsb0>();
        for k in 0..s.elems {
            dst[pos + k * ew..pos + (k + 1) * ew].copy_from_bitslice(&src[k * wpe..k * wpe + ew]);
        }
        pos += ew * s.elems;
    }
}

/// The inverse of [`to_concat`]. Bits above the concatenation are ignored.
pub fn from_concat(l: &Layout, concat: &[u32], words: &mut [u32]) {
    words.fill(0);
    let src = concat.view_bits::<Lsb0>();
    let mut pos = 0;
    for s in l.signals.iter().rev() {
        let w = s.width as usize * s.elems;
        let (ew, wpe) = (s.width as usize, s.words_per_elem() * 32);
        let dst = words[s.word..s.word + s.words()].view_bits_mut::<Lsb0>();
        for k in 0..s.elems {
            dst[k * wpe..k * wpe + ew].copy_from_bitslice(&src[pos + k * ew..pos + (k + 1) * ew]);
        }
        pos += w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_signal_has_a_shape_and_the_model_packs_it() {
        for np in [2, 4, 6, 8, 32, 128] {
            let p = BlockParams::with_ports(np);
            let l = Layouts::new(&p);
            let m = CapfcTop::new(p).unwrap();
            let mut buf = vec![0; l.state.words];
            pack_state(&m, &l.state, &mut buf);
            let words = p.cnt_words();
            assert_eq!(
                l.state
                    .signal(&format!("u_egress.gen_port[{}].u_cnt.mem", np - 1))
                    .unwrap()
                    .words(),
                words
            );
        }
    }
}
