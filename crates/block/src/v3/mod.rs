//! Micro-architecture v3, the block (`docs/microarchitecture.md`): cycle models of its units and
//! of the whole block ([`top`], `capfc_top_oc`), register for register beside `rtl/v3/` (v2, the
//! previous block, is [`crate::block`]).
//!
//! Each unit's model keeps the RTL's registers under their RTL names (`gs_q[g]`, `row2_q[g]`, the
//! LUT RAMs' words) and lists them with [`Regs`], so that a waveform of the RTL can be compared
//! with the model cycle for cycle, every register and output (`capfc::replay`).

/// One-bit registers of each group, port or engine (`$v[k].$f`), each packed into one vector
/// under its field's name (the RTL's `rdy_q`, `busy_q`, ...), into sink `$s`. (A closure a field,
/// each a direct load: a table of function pointers made every element an indirect call, and the
/// visits several times slower.)
macro_rules! cat_flags {
    ($s:expr, $v:expr, $($f:ident),* $(,)?) => {$(
        $s.cat(format_args!(stringify!($f)), $v.len(), 1, |k| $v[k].$f.into());
    )*};
}

pub mod cfg;
pub mod egress;
pub mod fault;
pub mod ingress;
pub mod inputs;
pub mod lanes;
pub mod rtl_configs;
pub mod sort;
pub mod thr_copies;
pub mod top;
pub mod view;

/// A unit's registers and outputs by their RTL names (relative to the unit's instance), each as
/// the binary string a waveform gives (most significant bit first, the RTL's width).
pub type Regs = Vec<(String, String)>;

/// Where a unit's registers go, one at a time and always in the same order (a unit's `visit`):
/// the name, formatted only if the sink wants it, and the value's `width` bits, least
/// significant first in 64-bit words. [`RegStrings`] makes the [`Regs`] list of them; the
/// in-process lockstep (`crates/rtl/src/cosim_v3.rs`) compares the words with the RTL's without a string.
pub trait RegSink {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize);

    /// A value of at most 128 bits.
    fn val(&mut self, name: std::fmt::Arguments<'_>, v: u128, width: usize) {
        self.reg(name, &[v as u64, (v >> 64) as u64], width)
    }

    /// A RAM's words, `width` <= 64 bits each, named `name[k]`.
    fn ram(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        for (k, w) in words.iter().enumerate() {
            self.reg(format_args!("{name}[{k}]"), &[*w], width);
        }
    }

    /// A RAM's words of up to 128 bits each, named `name[k]`.
    fn ram128(&mut self, name: std::fmt::Arguments<'_>, words: &[u128], width: usize) {
        for (k, w) in words.iter().enumerate() {
            self.val(format_args!("{name}[{k}]"), *w, width);
        }
    }

    /// `n` values of `width` <= 64 bits each (`get(k)` the k-th) concatenated into one register,
    /// the first least significant, as the RTL packs a per-port or per-group field ([`Cat`]).
    /// A sink that packs words itself takes them without the [`Cat`]'s allocation.
    fn cat(
        &mut self,
        name: std::fmt::Arguments<'_>,
        n: usize,
        width: usize,
        get: impl Fn(usize) -> u64,
    ) {
        let mut c = Cat::with_bits(n * width);
        for k in 0..n {
            c.push(get(k).into(), width);
        }
        c.to(self, name);
    }
}

/// Buffers a unit keeps from one clock edge to the next so that a cycle allocates nothing: not
/// state, so any two are equal and none is printed.
#[derive(Clone, Default)]
pub struct Scratch<T>(pub T);

impl<T> PartialEq for Scratch<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Scratch<T> {}

impl<T> std::fmt::Debug for Scratch<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// Not state, so not saved: a snapshot holds `null` for it and a restored unit starts with empty
/// buffers.
impl<T> serde::Serialize for Scratch<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

impl<'de, T: Default> serde::Deserialize<'de> for Scratch<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <()>::deserialize(d)?;
        Ok(Scratch::default())
    }
}

/// The sink that lists the registers as [`Regs`].
#[derive(Debug, Default)]
pub struct RegStrings(pub Regs);

impl RegSink for RegStrings {
    fn reg(&mut self, name: std::fmt::Arguments<'_>, words: &[u64], width: usize) {
        let b: String = (0..width)
            .rev()
            .map(|i| {
                if words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        self.0.push((name.to_string(), b));
    }
}

/// Values concatenated into one register's bits, the first pushed least significant (as the
/// RTL packs an array of per-port or per-group fields into one vector).
#[derive(Debug, Default, Clone)]
pub struct Cat {
    pub words: Vec<u64>,
    pub len: usize,
}

impl Cat {
    /// `v`'s low `width` bits above the bits pushed so far (bits above 128 are 0), a word's worth
    /// at a time.
    pub fn push(&mut self, v: u128, width: usize) -> &mut Self {
        let mut done = 0;
        while done < width {
            let off = self.len % 64;
            if off == 0 {
                self.words.push(0);
            }
            let take = (64 - off).min(width - done);
            let chunk = if done < 128 { (v >> done) as u64 } else { 0 };
            let mask = if take == 64 {
                u64::MAX
            } else {
                (1u64 << take) - 1
            };
            *self.words.last_mut().expect("pushed above") |= (chunk & mask) << off;
            self.len += take;
            done += take;
        }
        self
    }

    /// Room for `bits` bits (one allocation for a whole concatenation).
    fn with_bits(bits: usize) -> Cat {
        Cat {
            words: Vec::with_capacity(bits.div_ceil(64)),
            len: 0,
        }
    }

    /// One bit a flag, the first least significant.
    pub fn flags(it: impl Iterator<Item = bool>) -> Cat {
        let mut c = Cat::with_bits(it.size_hint().0);
        for f in it {
            c.push(f as u128, 1);
        }
        c
    }

    /// `width` bits a value, the first least significant.
    pub fn values(it: impl Iterator<Item = u64>, width: usize) -> Cat {
        let mut c = Cat::with_bits(it.size_hint().0 * width);
        for v in it {
            c.push(v.into(), width);
        }
        c
    }

    pub fn to<S: RegSink + ?Sized>(&self, s: &mut S, name: std::fmt::Arguments<'_>) {
        s.reg(name, &self.words, self.len);
    }
}

/// `value`'s low `width` bits as a binary string, most significant first.
pub fn bits(value: u128, width: usize) -> String {
    (0..width)
        .rev()
        .map(|b| {
            if b < 128 && value >> b & 1 == 1 {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

/// `x` truncated to `w` bits (w <= 64).
#[inline]
pub fn trunc(x: u64, w: u32) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

/// A `w`-bit two's complement value as a signed number.
#[inline]
pub fn signed(x: u64, w: u32) -> i64 {
    let x = trunc(x, w);
    if w < 64 && x >> (w - 1) & 1 == 1 {
        x as i64 - (1i64 << w)
    } else {
        x as i64
    }
}

/// `capfc_pkg::units`: a size in bytes rounded up to cells of 2^cell_log2 bytes (32-bit result).
#[inline]
pub fn units(size: u64, cell_log2: u32) -> u64 {
    let s = (size & 0xffff_ffff) + (1u64 << cell_log2) - 1;
    (s >> cell_log2) & 0xffff_ffff
}

/// `$clog2(x)`.
pub fn clog2(x: usize) -> u32 {
    if x <= 1 {
        0
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}

/// PW: the port index's width, `(NP > 1) ? $clog2(NP) : 1`.
pub fn port_width(np: usize) -> u32 {
    if np > 1 {
        clog2(np)
    } else {
        1
    }
}

/// LW: the class index's width, `(NL > 1) ? $clog2(NL) : 1`.
pub fn class_width(nl: u32) -> u32 {
    if nl > 1 {
        clog2(nl as usize)
    } else {
        1
    }
}

/// The v3 RTL's parameter check (each unit's `gen_param_check`, the union of their ranges): NP
/// 2..128, SW 1..OW, OW ..30, CW 1..16, CELL_LOG2 0..12 and < SW, CUT_F 1..16, NL 1..8.
pub fn check_params(
    np: usize,
    sw: u32,
    ow: u32,
    cw: u32,
    cell_log2: u32,
    cut_f: u32,
    nl: u32,
) -> Result<(), crate::error::ParamsError> {
    let ok = (2..=128).contains(&np)
        && (1..=ow).contains(&sw)
        && ow <= 30
        && (1..=16).contains(&cw)
        && cell_log2 <= 12
        && cell_log2 < sw
        && (1..=16).contains(&cut_f)
        && (1..=8).contains(&nl);
    if ok {
        Ok(())
    } else {
        Err(crate::error::ParamsError(format!(
            "NP={np} SW={sw} OW={ow} CW={cw} CELL_LOG2={cell_log2} CUT_F={cut_f} NL={nl} \
             (NP 2..128, SW 1..OW, OW ..30, CW 1..16, CELL_LOG2 0..12 and < SW, CUT_F 1..16, NL 1..8)"
        )))
    }
}

#[cfg(test)]
mod cat_tests {
    use super::Cat;

    /// The word-at-a-time push puts every bit where the bit-at-a-time one did.
    #[test]
    fn push_matches_bit_by_bit() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..2000 {
            let (mut fast, mut want) = (Cat::default(), Cat::default());
            for _ in 0..(rnd() % 9) {
                let v = u128::from(rnd()) << 64 | u128::from(rnd());
                let w = (rnd() % 140) as usize;
                fast.push(v, w);
                for b in 0..w {
                    if want.len.is_multiple_of(64) {
                        want.words.push(0);
                    }
                    if b < 128 && v >> b & 1 == 1 {
                        *want.words.last_mut().unwrap() |= 1 << (want.len % 64);
                    }
                    want.len += 1;
                }
            }
            assert_eq!((fast.len, &fast.words), (want.len, &want.words));
        }
    }
}
