//! PFC headroom: the delay value DV of IEEE 802.1Q-2018 Annex N, its adaptive (measured) variant, and
//! the XOFF threshold they imply (`shared/domain.md` section 6, seed 004).
//!
//! Annex N: `DV = 2·MaxFrame + PFCFrame + 2·CableDelay + (TX_s1 + RX_s2) + (TX_s2 + RX_s1) + HD_s2`.
//! Measured: `X = (T4 − T1 − (T3 − T2))·speed`, `DV = X + 2·MaxFrame + PFCFrame`.
//! Then `Headroom = DV·α` (α ≥ 1, buffer-chunk fragmentation), reserved in whole cells, and
//! `XOFF = MAX − Headroom`.
//!
//! Contract:
//! - All arithmetic is integer, in bit times; every rounding goes **up** (more headroom, never less):
//!   the cable delay and X are rounded up to a whole bit time, bytes are `ceil(bits / 8)`, the headroom
//!   in bytes is `ceil(DV_bits·α / 8)`, cells are `ceil(headroom_bytes / cell)`, and XOFF subtracts the
//!   cell-rounded headroom (`cells·cell`) from MAX.
//! - The core ([`annex_n`], [`measured`], [`headroom`], [`xoff`]) is pure: a struct of link parameters in,
//!   a struct of terms out, no I/O, no panics. It is what the switch model calls for `xoff = "auto"`;
//!   [`compute`] takes the flags as written ([`Inputs`]) to a [`Report`]; `capfc headroom` (crate
//!   `capfc-cli`) only parses them and prints.
//! - Errors from parsing name the flag and the value (`--cable '-5m': length is negative`).
use std::fmt::Write as _;

use anyhow::Context as _;
use serde::Serialize;

/// Bits per PAUSE quantum, the unit 802.3 states its delay limits in.
pub const PAUSE_QUANTUM_BITS: u64 = 512;

/// Default on-wire maximum frame, bytes, including preamble + SFD (8) and inter-frame gap (12): a
/// 2000-byte frame. 2020·8 = 16160 bit times, the MaxFrame of the Annex N example.
pub const DEFAULT_MAX_FRAME_BYTES: u64 = 2020;
/// Default on-wire PFC frame, bytes: a 64-byte MAC Control frame + 20 bytes of overhead = 672 bit
/// times, the PFCFrame of the Annex N example.
pub const DEFAULT_PFC_FRAME_BYTES: u64 = 84;
/// Default buffer cell (chunk) size in bytes: the slides' example of a smallest chunk.
pub const DEFAULT_CELL_BYTES: u64 = 160;

/// A PHY with its default delays in bit times. `tx_bits` / `rx_bits` are one station's interface delays
/// (xMII to MDI and back), `hd_bits` the higher-layer delay (time to act on a received PFC frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phy {
    pub name: &'static str,
    pub speed_bps: u64,
    pub tx_bits: u64,
    pub rx_bits: u64,
    pub hd_bits: u64,
    /// Default medium (a name in [`MEDIA`]).
    pub medium: &'static str,
    /// Where the delay defaults come from; printed by `--list-phys`.
    pub source: &'static str,
}

/// The PHY table. Only the 10GBASE-T row is the standard's own (the Annex N worked example), and only the
/// 100GBASE-R total is from the seed; everything else is a documented assumption. Override with
/// `--tx-delay`, `--rx-delay`, `--hd` where the real hardware is known (or measure with `--measured`).
pub const PHYS: &[Phy] = &[
    Phy {
        name: "1000BASE-T",
        speed_bps: 1_000_000_000,
        // Assumption, not from the standard's text: 2 pause quanta each way and 2 for the response,
        // a round bound above the few hundred ns of real 1000BASE-T PHYs.
        tx_bits: 2 * PAUSE_QUANTUM_BITS,
        rx_bits: 2 * PAUSE_QUANTUM_BITS,
        hd_bits: 2 * PAUSE_QUANTUM_BITS,
        medium: "cat6",
        source: "assumption: 2 pause quanta (1024 BT) each for TX, RX and HD",
    },
    Phy {
        name: "10GBASE-T",
        speed_bps: 10_000_000_000,
        // IEEE 802.1Q-2018 Annex N example (seed 004): TX 25600, RX 12288 per station, HD 6144.
        // These reproduce the example's DV = 126024 bit times for 100 m of Cat6.
        tx_bits: 25_600,
        rx_bits: 12_288,
        hd_bits: 6_144,
        medium: "cat6",
        source: "802.1Q-2018 Annex N worked example (TX 25600, RX 12288, HD 6144)",
    },
    Phy {
        name: "10GBASE-R",
        speed_bps: 10_000_000_000,
        // RX and HD: the MAC-side terms of the 10GBASE-T example, assumed PHY-independent.
        // TX: 10GBASE-R PCS 3584 + PMA 512 + PMD 512 bit times, 802.3 clause 44 delay table as
        // recalled (not checked against the text) in place of the 10GBASE-T PHY's 25600.
        tx_bits: 3_584 + 512 + 512,
        rx_bits: 12_288,
        hd_bits: 6_144,
        medium: "fibre",
        source: "assumption: RX, HD as 10GBASE-T example; TX = PCS+PMA+PMD 4608 (802.3 cl. 44, recalled)",
    },
    Phy {
        name: "25GBASE-R",
        speed_bps: 25_000_000_000,
        // Assumption: the same bit-time budget as 10GBASE-R (no 802.3 clause 105 figures at hand).
        tx_bits: 3_584 + 512 + 512,
        rx_bits: 12_288,
        hd_bits: 6_144,
        medium: "fibre",
        source: "assumption: same bit times as 10GBASE-R",
    },
    Phy {
        name: "40GBASE-R",
        speed_bps: 40_000_000_000,
        // Assumption: the same bit-time budget as 100GBASE-R (no 802.3 clause 80 figures at hand).
        tx_bits: 31_616,
        rx_bits: 31_616,
        hd_bits: 6_144,
        medium: "fibre",
        source: "assumption: same bit times as 100GBASE-R",
    },
    Phy {
        name: "100GBASE-R",
        speed_bps: 100_000_000_000,
        // Seed 004: interface plus higher-layer delay at 100G, 802.3 maximum, is 132608 bit times,
        // i.e. TX_s1 + RX_s2 + TX_s2 + RX_s1 + HD_s2. The split is an assumption: HD as in the
        // 10GBASE-T example (6144), the rest shared equally: 4·31616 + 6144 = 132608.
        tx_bits: 31_616,
        rx_bits: 31_616,
        hd_bits: 6_144,
        medium: "fibre",
        source: "seed 004: ID+HD total 132608 BT (802.3 max); split assumed TX=RX=31616, HD=6144",
    },
];

/// A transmission medium: propagation delay in picoseconds per metre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Medium {
    pub name: &'static str,
    pub ps_per_m: u64,
}

pub const MEDIA: &[Medium] = &[
    // Annex N example: 100 m of Cat6 at 10 Gb/s is 5556 bit times, i.e. 5.556 ns/m.
    Medium {
        name: "cat6",
        ps_per_m: 5_556,
    },
    // Seed 004: 10 m at 100 Gb/s is 5000 bit times, i.e. 5 ns/m.
    Medium {
        name: "fibre",
        ps_per_m: 5_000,
    },
];

/// Looks a PHY up by name, case-insensitively.
pub fn phy(name: &str) -> Option<&'static Phy> {
    PHYS.iter()
        .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
}

/// Looks a medium up by name, case-insensitively; `fiber` is accepted for `fibre`.
pub fn medium(name: &str) -> Option<&'static Medium> {
    let name = name.trim();
    let name = if name.eq_ignore_ascii_case("fiber") {
        "fibre"
    } else {
        name
    };
    MEDIA.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

/// Typed errors of the headroom core and its parsers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeadroomError {
    #[error("{flag} '{value}': {why}")]
    BadValue {
        flag: &'static str,
        value: String,
        why: String,
    },
    #[error("{flag} is required: {why}")]
    Missing {
        flag: &'static str,
        why: &'static str,
    },
    #[error("T4 ({}) is before T1 ({})", fmt_ps(*t4_ps), fmt_ps(*t1_ps))]
    T4BeforeT1 { t1_ps: i128, t4_ps: i128 },
    #[error("T3 ({}) is before T2 ({})", fmt_ps(*t3_ps), fmt_ps(*t2_ps))]
    T3BeforeT2 { t2_ps: i128, t3_ps: i128 },
    #[error(
        "the round trip T4 - T1 ({}) is not longer than the remote's turnaround T3 - T2 ({})",
        fmt_ps(*round_trip_ps),
        fmt_ps(*turnaround_ps)
    )]
    RoundTripTooShort {
        round_trip_ps: i128,
        turnaround_ps: i128,
    },
    #[error("headroom {headroom_bytes} bytes ({cells} cells of {cell_bytes}) is not below MAX {max_bytes} bytes")]
    HeadroomNotBelowMax {
        headroom_bytes: u64,
        cells: u64,
        cell_bytes: u64,
        max_bytes: u64,
    },
    #[error("{what} overflows 64 bits")]
    Overflow { what: &'static str },
}

/// Link parameters of Annex N, all in bit times. Station 1 sends the PFC frame, station 2 (the remote)
/// stops sending; `hd_s2` is the remote's higher-layer delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkParams {
    pub max_frame_bits: u64,
    pub pfc_frame_bits: u64,
    pub cable_delay_bits: u64,
    pub tx_s1_bits: u64,
    pub rx_s1_bits: u64,
    pub tx_s2_bits: u64,
    pub rx_s2_bits: u64,
    pub hd_s2_bits: u64,
}

impl LinkParams {
    /// Both stations with `phy`'s default delays, default frame sizes, and the given cable delay.
    pub fn for_phy(phy: &Phy, cable_delay_bits: u64) -> Self {
        LinkParams {
            max_frame_bits: DEFAULT_MAX_FRAME_BYTES * 8,
            pfc_frame_bits: DEFAULT_PFC_FRAME_BYTES * 8,
            cable_delay_bits,
            tx_s1_bits: phy.tx_bits,
            rx_s1_bits: phy.rx_bits,
            tx_s2_bits: phy.tx_bits,
            rx_s2_bits: phy.rx_bits,
            hd_s2_bits: phy.hd_bits,
        }
    }
}

/// One term of the DV sum: `count × each_bits = bits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Term {
    pub name: &'static str,
    pub count: u64,
    pub each_bits: u64,
    pub bits: u64,
    pub bytes: u64,
}

impl Term {
    fn new(name: &'static str, count: u64, each_bits: u64) -> Result<Self, HeadroomError> {
        let bits = count
            .checked_mul(each_bits)
            .ok_or(HeadroomError::Overflow { what: name })?;
        Ok(Term {
            name,
            count,
            each_bits,
            bits,
            bytes: bits_to_bytes(bits),
        })
    }
}

/// The delay value: its terms (which sum to `dv_bits`) and the total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelayValue {
    pub terms: Vec<Term>,
    pub dv_bits: u64,
}

impl DelayValue {
    fn from_terms(terms: Vec<Term>) -> Result<Self, HeadroomError> {
        let dv_bits = terms
            .iter()
            .try_fold(0u64, |acc, t| acc.checked_add(t.bits))
            .ok_or(HeadroomError::Overflow { what: "DV" })?;
        Ok(DelayValue { terms, dv_bits })
    }

    pub fn dv_bytes(&self) -> u64 {
        bits_to_bytes(self.dv_bits)
    }
}

/// `ceil(bits / 8)`.
pub fn bits_to_bytes(bits: u64) -> u64 {
    bits.div_ceil(8)
}

/// Cable delay in bit times for a length in micrometres, rounded up to a whole bit time.
pub fn cable_delay_bits(
    length_um: u64,
    ps_per_m: u64,
    speed_bps: u64,
) -> Result<u64, HeadroomError> {
    // bits = length_m · ps_per_m · 1e-12 s · speed_bps = length_um · ps_per_m · speed_bps / 1e18.
    let overflow = HeadroomError::Overflow {
        what: "cable delay",
    };
    let num = (u128::from(length_um) * u128::from(ps_per_m))
        .checked_mul(u128::from(speed_bps))
        .ok_or(overflow.clone())?;
    u64::try_from(num.div_ceil(1_000_000_000_000_000_000)).map_err(|_| overflow)
}

/// DV after IEEE 802.1Q-2018 Annex N.
pub fn annex_n(p: &LinkParams) -> Result<DelayValue, HeadroomError> {
    DelayValue::from_terms(vec![
        Term::new("max_frame", 2, p.max_frame_bits)?,
        Term::new("pfc_frame", 1, p.pfc_frame_bits)?,
        Term::new("cable_delay", 2, p.cable_delay_bits)?,
        Term::new("tx_s1", 1, p.tx_s1_bits)?,
        Term::new("rx_s2", 1, p.rx_s2_bits)?,
        Term::new("tx_s2", 1, p.tx_s2_bits)?,
        Term::new("rx_s1", 1, p.rx_s1_bits)?,
        Term::new("hd_s2", 1, p.hd_s2_bits)?,
    ])
}

/// Round-trip timestamps of the adaptive-headroom measurement, in picoseconds: station 1 sends at T1,
/// station 2 receives at T2 and answers at T3, station 1 receives at T4. T1/T4 and T2/T3 are on
/// different clocks, so only the differences matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamps {
    pub t1_ps: i128,
    pub t2_ps: i128,
    pub t3_ps: i128,
    pub t4_ps: i128,
}

impl Timestamps {
    /// `T4 − T1 − (T3 − T2)` in picoseconds, checked for order.
    pub fn wire_round_trip_ps(&self) -> Result<i128, HeadroomError> {
        if self.t4_ps < self.t1_ps {
            return Err(HeadroomError::T4BeforeT1 {
                t1_ps: self.t1_ps,
                t4_ps: self.t4_ps,
            });
        }
        if self.t3_ps < self.t2_ps {
            return Err(HeadroomError::T3BeforeT2 {
                t2_ps: self.t2_ps,
                t3_ps: self.t3_ps,
            });
        }
        let round_trip_ps = self.t4_ps - self.t1_ps;
        let turnaround_ps = self.t3_ps - self.t2_ps;
        // Equal means no cable and no interface at all: not a measurement of a real link.
        if round_trip_ps <= turnaround_ps {
            return Err(HeadroomError::RoundTripTooShort {
                round_trip_ps,
                turnaround_ps,
            });
        }
        Ok(round_trip_ps - turnaround_ps)
    }
}

/// DV of the adaptive variant: `X + 2·MaxFrame + PFCFrame`, X rounded up to a whole bit time.
pub fn measured(
    speed_bps: u64,
    ts: &Timestamps,
    max_frame_bits: u64,
    pfc_frame_bits: u64,
) -> Result<DelayValue, HeadroomError> {
    let wire_ps = ts.wire_round_trip_ps()?;
    let x = u128::try_from(wire_ps)
        .ok()
        .and_then(|ps| ps.checked_mul(u128::from(speed_bps)))
        .map(|n| n.div_ceil(1_000_000_000_000))
        .and_then(|bits| u64::try_from(bits).ok())
        .ok_or(HeadroomError::Overflow { what: "X" })?;
    DelayValue::from_terms(vec![
        Term::new("max_frame", 2, max_frame_bits)?,
        Term::new("pfc_frame", 1, pfc_frame_bits)?,
        Term::new("measured_x", 1, x)?,
    ])
}

/// The fragmentation factor α ≥ 1 as an exact fraction `num / den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alpha {
    num: u64,
    den: u64,
}

impl Alpha {
    pub const ONE: Alpha = Alpha { num: 1, den: 1 };

    /// `None` unless `den > 0` and `num / den ≥ 1`.
    pub fn new(num: u64, den: u64) -> Option<Self> {
        (den > 0 && num >= den).then_some(Alpha { num, den })
    }

    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

/// Headroom reserved for one lossless queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Headroom {
    /// `ceil(DV_bits · α / 8)`.
    pub headroom_bytes: u64,
    /// `ceil(headroom_bytes / cell_bytes)`.
    pub headroom_cells: u64,
    pub cell_bytes: u64,
}

impl Headroom {
    /// The reservation in bytes once rounded up to whole cells.
    pub fn reserved_bytes(&self) -> u64 {
        self.headroom_cells.saturating_mul(self.cell_bytes)
    }
}

/// `Headroom = DV · α`, in bytes and in cells of `cell_bytes` (≥ 1).
pub fn headroom(dv_bits: u64, alpha: Alpha, cell_bytes: u64) -> Result<Headroom, HeadroomError> {
    if cell_bytes == 0 {
        return Err(HeadroomError::BadValue {
            flag: "--cell",
            value: "0".into(),
            why: "cell size must be at least 1 byte".into(),
        });
    }
    let bits = u128::from(dv_bits) * u128::from(alpha.num);
    let bytes = bits.div_ceil(u128::from(alpha.den) * 8);
    let headroom_bytes =
        u64::try_from(bytes).map_err(|_| HeadroomError::Overflow { what: "headroom" })?;
    Ok(Headroom {
        headroom_bytes,
        headroom_cells: headroom_bytes.div_ceil(cell_bytes),
        cell_bytes,
    })
}

/// `XOFF = MAX − Headroom` in bytes, with the headroom rounded up to whole cells.
pub fn xoff(max_bytes: u64, h: &Headroom) -> Result<u64, HeadroomError> {
    let reserved = h.reserved_bytes();
    if reserved >= max_bytes {
        return Err(HeadroomError::HeadroomNotBelowMax {
            headroom_bytes: reserved,
            cells: h.headroom_cells,
            cell_bytes: h.cell_bytes,
            max_bytes,
        });
    }
    Ok(max_bytes - reserved)
}

// ---------------------------------------------------------------------------------------------------
// Parsing of flag values. Every number is parsed as an exact decimal, never as a float.

/// A decimal `±digits / 10^scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: u128,
    scale: u32,
}

/// Splits `"12.5km"` into `("12.5", "km")`.
fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim();
    let at = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    (s[..at].trim(), s[at..].trim())
}

fn parse_decimal(s: &str) -> Option<Decimal> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // 30 significant digits keep every later product within u128.
    let all = format!("{int}{frac}");
    let all = all.trim_start_matches('0');
    if all.len() > 30 || frac.len() > 18 {
        return None;
    }
    let digits = if all.is_empty() { 0 } else { all.parse().ok()? };
    Some(Decimal {
        negative,
        digits,
        scale: frac.len() as u32,
    })
}

fn bad(flag: &'static str, value: &str, why: impl Into<String>) -> HeadroomError {
    HeadroomError::BadValue {
        flag,
        value: value.to_string(),
        why: why.into(),
    }
}

/// Exact `d · unit / 10^scale` as an integer, or `None` if it is not a whole number of the base unit.
fn scale_exact(d: Decimal, unit: u128) -> Option<u128> {
    let n = d.digits.checked_mul(unit)?;
    let p = 10u128.checked_pow(d.scale)?;
    (n % p == 0).then_some(n / p)
}

/// A number with a unit from `units` (or `bare` if none is written) into an integer of the base unit.
fn parse_with_unit(
    flag: &'static str,
    value: &str,
    units: &[(&str, u128)],
    bare: Option<u128>,
    what: &str,
) -> Result<(bool, u128), HeadroomError> {
    let (num, unit) = split_unit(value);
    let d = parse_decimal(num).ok_or_else(|| bad(flag, value, format!("not a {what}")))?;
    let factor = if unit.is_empty() {
        bare.ok_or_else(|| {
            let names: Vec<_> = units.iter().map(|(n, _)| *n).collect();
            bad(flag, value, format!("missing unit ({})", names.join(", ")))
        })?
    } else {
        units
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(unit))
            .map(|(_, f)| *f)
            .ok_or_else(|| bad(flag, value, format!("unknown unit '{unit}'")))?
    };
    let v = scale_exact(d, factor).ok_or_else(|| {
        bad(
            flag,
            value,
            format!("{what} is too large or too finely given"),
        )
    })?;
    Ok((d.negative && v != 0, v))
}

/// A length such as `100m`, `10km`, `0.5m`, into micrometres.
pub fn parse_length(flag: &'static str, value: &str) -> Result<u64, HeadroomError> {
    let units = [
        ("m", 1_000_000),
        ("km", 1_000_000_000),
        ("cm", 10_000),
        ("mm", 1_000),
    ];
    let (negative, um) = parse_with_unit(flag, value, &units, None, "length")?;
    if negative {
        return Err(bad(flag, value, "length is negative"));
    }
    u64::try_from(um).map_err(|_| bad(flag, value, "length is too large"))
}

/// A speed such as `10G`, `100g`, `1000M`, `2.5Gb/s`, into bit/s.
pub fn parse_speed(flag: &'static str, value: &str) -> Result<u64, HeadroomError> {
    let stripped = value.trim();
    let lower = stripped.to_ascii_lowercase();
    let stripped = ["b/s", "bps"]
        .iter()
        .find_map(|suf| lower.strip_suffix(suf))
        .map(|s| &stripped[..s.len()])
        .unwrap_or(stripped);
    let units = [
        ("k", 1_000),
        ("m", 1_000_000),
        ("g", 1_000_000_000),
        ("t", 1_000_000_000_000),
    ];
    let (negative, bps) =
        parse_with_unit(flag, stripped, &units, Some(1), "speed").map_err(|e| match e {
            HeadroomError::BadValue { flag, why, .. } => bad(flag, value, why),
            e => e,
        })?;
    if negative || bps == 0 {
        return Err(bad(flag, value, "speed must be positive"));
    }
    u64::try_from(bps).map_err(|_| bad(flag, value, "speed is too large"))
}

/// A whole non-negative number (bytes or bit times).
pub fn parse_count(flag: &'static str, value: &str) -> Result<u64, HeadroomError> {
    let d = parse_decimal(value.trim()).ok_or_else(|| bad(flag, value, "not a number"))?;
    let v = scale_exact(d, 1).ok_or_else(|| bad(flag, value, "not a whole number"))?;
    if d.negative && v != 0 {
        return Err(bad(flag, value, "must not be negative"));
    }
    u64::try_from(v).map_err(|_| bad(flag, value, "too large"))
}

/// A timestamp in nanoseconds (or with a unit `ps`, `ns`, `us`, `ms`, `s`), into picoseconds.
pub fn parse_time_ps(flag: &'static str, value: &str) -> Result<i128, HeadroomError> {
    let units = [
        ("ps", 1),
        ("ns", 1_000),
        ("us", 1_000_000),
        ("ms", 1_000_000_000),
        ("s", 1_000_000_000_000),
    ];
    let (negative, ps) = parse_with_unit(flag, value, &units, Some(1_000), "time")?;
    // Timestamps are bounded to ±2^100 ps so that differences cannot overflow i128.
    let ps = i128::try_from(ps)
        .ok()
        .filter(|&p| p < 1 << 100)
        .ok_or_else(|| bad(flag, value, "time is too large"))?;
    Ok(if negative { -ps } else { ps })
}

/// α as a decimal ≥ 1 with at most 6 decimal places.
pub fn parse_alpha(flag: &'static str, value: &str) -> Result<Alpha, HeadroomError> {
    let d = parse_decimal(value.trim()).ok_or_else(|| bad(flag, value, "not a number"))?;
    if d.scale > 6 {
        return Err(bad(flag, value, "more than 6 decimal places"));
    }
    let den = 10u64.pow(d.scale);
    let num = u64::try_from(d.digits).map_err(|_| bad(flag, value, "too large"))?;
    if d.negative && num != 0 {
        return Err(bad(flag, value, "alpha must be at least 1"));
    }
    Alpha::new(num, den).ok_or_else(|| bad(flag, value, "alpha must be at least 1"))
}

/// Propagation delay in ns/m (e.g. `5.556`), into ps/m.
pub fn parse_ns_per_m(flag: &'static str, value: &str) -> Result<u64, HeadroomError> {
    let d = parse_decimal(value.trim()).ok_or_else(|| bad(flag, value, "not a number"))?;
    let ps =
        scale_exact(d, 1_000).ok_or_else(|| bad(flag, value, "finer than 1 ps/m or too large"))?;
    if d.negative || ps == 0 {
        return Err(bad(flag, value, "propagation delay must be positive"));
    }
    u64::try_from(ps).map_err(|_| bad(flag, value, "too large"))
}

/// `value / 10^scale` without trailing zeros: `fmt_fixed(5556, 3) == "5.556"`.
fn fmt_fixed(value: i128, scale: u32) -> String {
    let p = 10i128.pow(scale);
    let sign = if value < 0 { "-" } else { "" };
    let (int, frac) = (
        value.unsigned_abs() / p as u128,
        value.unsigned_abs() % p as u128,
    );
    if frac == 0 {
        format!("{sign}{int}")
    } else {
        let frac = format!("{frac:0width$}", width = scale as usize);
        format!("{sign}{int}.{}", frac.trim_end_matches('0'))
    }
}

fn fmt_ps(ps: i128) -> String {
    format!("{} ns", fmt_fixed(ps, 3))
}

// ---------------------------------------------------------------------------------------------------
// From the flags as written to the report.

/// What a headroom is computed from (`capfc headroom`'s flags, as written): PFC headroom after
/// IEEE 802.1Q-2018 Annex N, or from measured timestamps. `None` takes the default.
///
/// All delays are in bit times, frame and buffer sizes in bytes. Every default can be overridden.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// PHY (case-insensitive): 1000BASE-T, 10GBASE-T, 10GBASE-R, 25GBASE-R, 40GBASE-R, 100GBASE-R.
    pub phy: Option<String>,
    /// Port speed overriding the PHY's, e.g. 25G, 400g, 1000M.
    pub speed: Option<String>,
    /// Cable length with a unit: 100m, 10km, 0.5m.
    pub cable: Option<String>,
    /// Medium: cat6 (5.556 ns/m) or fibre (5 ns/m). Default: cat6 for BASE-T, fibre for BASE-R.
    pub medium: Option<String>,
    /// Propagation delay in ns per metre, overriding the medium's.
    pub ns_per_m: Option<String>,
    /// Maximum frame on the wire in bytes, incl. preamble, SFD and IFG [default: 2020 = 16160 bit times].
    pub max_frame: Option<String>,
    /// PFC frame on the wire in bytes, incl. preamble, SFD and IFG [default: 84 = 672 bit times].
    pub pfc_frame: Option<String>,
    /// Interface TX delay in bit times, both stations (TX_s1, TX_s2) [default: the PHY's].
    pub tx_delay: Option<String>,
    /// Interface RX delay in bit times, both stations (RX_s1, RX_s2) [default: the PHY's].
    pub rx_delay: Option<String>,
    /// The remote station's TX delay (TX_s2) if it differs [default: --tx-delay].
    pub remote_tx_delay: Option<String>,
    /// The remote station's RX delay (RX_s2) if it differs [default: --rx-delay].
    pub remote_rx_delay: Option<String>,
    /// The remote station's higher-layer delay HD_s2 in bit times [default: the PHY's].
    pub hd: Option<String>,
    /// Adaptive variant: request sent at T1, received at T2, answered at T3, answer received at T4.
    /// Nanoseconds unless a unit (ps, ns, us, ms, s) is written.
    pub measured: Option<Vec<String>>,
    /// Fragmentation factor α ≥ 1: Headroom = DV·α [default: 1].
    pub alpha: Option<String>,
    /// Buffer cell (chunk) size in bytes [default: 160].
    pub cell: Option<String>,
    /// Buffer MAX in bytes: prints XOFF = MAX − headroom (rounded up to whole cells).
    pub max: Option<String>,
}

/// Everything `capfc headroom` reports; `--json` prints it as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// `annex_n` or `measured`.
    pub method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phy: Option<&'static str>,
    pub speed_bps: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cable_m: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medium: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns_per_m: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cable_delay_bits: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_x_bits: Option<u64>,
    pub terms: Vec<Term>,
    pub dv_bits: u64,
    pub dv_bytes: u64,
    pub alpha: f64,
    pub cell_bytes: u64,
    pub headroom_bytes: u64,
    pub headroom_cells: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xoff_bytes: Option<u64>,
}

fn opt<T>(
    v: &Option<String>,
    flag: &'static str,
    parse: impl Fn(&'static str, &str) -> Result<T, HeadroomError>,
) -> Result<Option<T>, HeadroomError> {
    v.as_deref().map(|s| parse(flag, s)).transpose()
}

/// The frame, buffer and speed inputs that both variants share, parsed and checked.
struct Common {
    speed_bps: u64,
    max_frame_bits: u64,
    pfc_frame_bits: u64,
    alpha: Alpha,
    cell_bytes: u64,
    max_bytes: Option<u64>,
}

/// `--phy`, looked up.
fn resolve_phy(args: &Inputs) -> Result<Option<&'static Phy>, HeadroomError> {
    match args.phy.as_deref() {
        None => Ok(None),
        Some(name) => Ok(Some(phy(name).ok_or_else(|| {
            let names: Vec<_> = PHYS.iter().map(|p| p.name).collect();
            bad(
                "--phy",
                name,
                format!("unknown PHY (known: {})", names.join(", ")),
            )
        })?)),
    }
}

/// The speed (`--speed`, else the PHY's), frame sizes, α, cell and MAX.
fn common_inputs(args: &Inputs, phy: Option<&'static Phy>) -> Result<Common, HeadroomError> {
    let speed_bps = match (opt(&args.speed, "--speed", parse_speed)?, phy) {
        (Some(s), _) => s,
        (None, Some(p)) => p.speed_bps,
        (None, None) => {
            return Err(HeadroomError::Missing {
                flag: "--phy",
                why: "give --phy or --speed",
            })
        }
    };
    let max_frame_bytes =
        opt(&args.max_frame, "--max-frame", parse_count)?.unwrap_or(DEFAULT_MAX_FRAME_BYTES);
    let pfc_frame_bytes =
        opt(&args.pfc_frame, "--pfc-frame", parse_count)?.unwrap_or(DEFAULT_PFC_FRAME_BYTES);
    if max_frame_bytes == 0 {
        let value = args.max_frame.as_deref().unwrap_or("0");
        return Err(bad("--max-frame", value, "must be at least 1 byte"));
    }
    let max_frame_bits = max_frame_bytes
        .checked_mul(8)
        .ok_or_else(|| bad("--max-frame", &max_frame_bytes.to_string(), "too large"))?;
    let pfc_frame_bits = pfc_frame_bytes
        .checked_mul(8)
        .ok_or_else(|| bad("--pfc-frame", &pfc_frame_bytes.to_string(), "too large"))?;
    let alpha = opt(&args.alpha, "--alpha", parse_alpha)?.unwrap_or(Alpha::ONE);
    let cell_bytes = opt(&args.cell, "--cell", parse_count)?.unwrap_or(DEFAULT_CELL_BYTES);
    if cell_bytes == 0 {
        return Err(bad(
            "--cell",
            args.cell.as_deref().unwrap_or("0"),
            "must be at least 1 byte",
        ));
    }
    let max_bytes = opt(&args.max, "--max", parse_count)?;
    Ok(Common {
        speed_bps,
        max_frame_bits,
        pfc_frame_bits,
        alpha,
        cell_bytes,
        max_bytes,
    })
}

/// Parses the flags and computes the report (no printing).
pub fn compute(args: &Inputs) -> anyhow::Result<Report> {
    let phy = resolve_phy(args)?;
    let common = common_inputs(args, phy)?;
    let mut report = Report {
        method: "annex_n",
        phy: phy.map(|p| p.name),
        speed_bps: common.speed_bps,
        cable_m: None,
        medium: None,
        ns_per_m: None,
        cable_delay_bits: None,
        measured_x_bits: None,
        terms: Vec::new(),
        dv_bits: 0,
        dv_bytes: 0,
        alpha: common.alpha.as_f64(),
        cell_bytes: common.cell_bytes,
        headroom_bytes: 0,
        headroom_cells: 0,
        max_bytes: common.max_bytes,
        xoff_bytes: None,
    };

    let dv = if let Some(ts) = &args.measured {
        measured_dv(ts, &common, &mut report)?
    } else {
        annex_n_dv(args, phy, &common, &mut report)?
    };

    let h = headroom(dv.dv_bits, common.alpha, common.cell_bytes)?;
    report.dv_bits = dv.dv_bits;
    report.dv_bytes = dv.dv_bytes();
    report.terms = dv.terms;
    report.headroom_bytes = h.headroom_bytes;
    report.headroom_cells = h.headroom_cells;
    if let Some(max) = common.max_bytes {
        report.xoff_bytes = Some(xoff(max, &h).with_context(|| format!("--max '{max}'"))?);
    }
    Ok(report)
}

/// The adaptive variant's DV from `--measured T1 T2 T3 T4`.
fn measured_dv(ts: &[String], common: &Common, report: &mut Report) -> anyhow::Result<DelayValue> {
    let [t1, t2, t3, t4] = ts else {
        return Err(bad(
            "--measured",
            &ts.join(" "),
            "needs exactly 4 timestamps T1 T2 T3 T4",
        )
        .into());
    };
    let ts_ps = Timestamps {
        t1_ps: parse_time_ps("--measured T1", t1)?,
        t2_ps: parse_time_ps("--measured T2", t2)?,
        t3_ps: parse_time_ps("--measured T3", t3)?,
        t4_ps: parse_time_ps("--measured T4", t4)?,
    };
    let dv = measured(
        common.speed_bps,
        &ts_ps,
        common.max_frame_bits,
        common.pfc_frame_bits,
    )
    .with_context(|| format!("--measured '{}'", ts.join(" ")))?;
    report.method = "measured";
    report.measured_x_bits = dv
        .terms
        .iter()
        .find(|t| t.name == "measured_x")
        .map(|t| t.bits);
    Ok(dv)
}

/// Annex N's DV from the cable, the medium and the interface delays.
fn annex_n_dv(
    args: &Inputs,
    phy: Option<&'static Phy>,
    common: &Common,
    report: &mut Report,
) -> anyhow::Result<DelayValue> {
    let cable = args.cable.as_deref().ok_or(HeadroomError::Missing {
        flag: "--cable",
        why: "the cable length, e.g. --cable 100m (or use --measured)",
    })?;
    let length_um = parse_length("--cable", cable)?;
    let ps_per_m = propagation_ps_per_m(args, phy, report)?;
    let cable_bits = cable_delay_bits(length_um, ps_per_m, common.speed_bps)
        .with_context(|| format!("--cable '{cable}'"))?;
    let link = link_params(args, phy, common, cable_bits)?;
    report.cable_m = Some(fmt_fixed(i128::from(length_um), 6));
    report.ns_per_m = Some(fmt_fixed(i128::from(ps_per_m), 3));
    report.cable_delay_bits = Some(cable_bits);
    Ok(annex_n(&link)?)
}

/// The propagation delay in ps/m: `--ns-per-m`, else `--medium`'s, else the PHY's medium's
/// (fibre without a PHY); records the medium in the report.
fn propagation_ps_per_m(
    args: &Inputs,
    phy: Option<&'static Phy>,
    report: &mut Report,
) -> Result<u64, HeadroomError> {
    Ok(
        match (
            opt(&args.ns_per_m, "--ns-per-m", parse_ns_per_m)?,
            &args.medium,
        ) {
            (Some(ps), _) => {
                report.medium = args.medium.clone();
                ps
            }
            (None, Some(name)) => {
                let m = medium(name)
                    .ok_or_else(|| bad("--medium", name, "unknown medium (known: cat6, fibre)"))?;
                report.medium = Some(m.name.to_string());
                m.ps_per_m
            }
            (None, None) => {
                let name = phy.map_or("fibre", |p| p.medium);
                let m = medium(name).unwrap_or(&MEDIA[1]);
                report.medium = Some(m.name.to_string());
                m.ps_per_m
            }
        },
    )
}

/// The link's parameters: the interface delays from the flags, else the PHY's.
fn link_params(
    args: &Inputs,
    phy: Option<&'static Phy>,
    common: &Common,
    cable_bits: u64,
) -> Result<LinkParams, HeadroomError> {
    let need = |flag: &'static str| HeadroomError::Missing {
        flag,
        why: "no PHY default without --phy",
    };
    let tx = opt(&args.tx_delay, "--tx-delay", parse_count)?
        .or(phy.map(|p| p.tx_bits))
        .ok_or_else(|| need("--tx-delay"))?;
    let rx = opt(&args.rx_delay, "--rx-delay", parse_count)?
        .or(phy.map(|p| p.rx_bits))
        .ok_or_else(|| need("--rx-delay"))?;
    let hd = opt(&args.hd, "--hd", parse_count)?
        .or(phy.map(|p| p.hd_bits))
        .ok_or_else(|| need("--hd"))?;
    Ok(LinkParams {
        max_frame_bits: common.max_frame_bits,
        pfc_frame_bits: common.pfc_frame_bits,
        cable_delay_bits: cable_bits,
        tx_s1_bits: tx,
        rx_s1_bits: rx,
        tx_s2_bits: opt(&args.remote_tx_delay, "--remote-tx-delay", parse_count)?.unwrap_or(tx),
        rx_s2_bits: opt(&args.remote_rx_delay, "--remote-rx-delay", parse_count)?.unwrap_or(rx),
        hd_s2_bits: hd,
    })
}

fn fmt_speed(bps: u64) -> String {
    let (v, unit) = if bps >= 1_000_000_000 {
        (fmt_fixed(i128::from(bps), 9), "Gb/s")
    } else {
        (fmt_fixed(i128::from(bps), 6), "Mb/s")
    };
    format!("{v} {unit}")
}

/// The human-readable table: the formula's terms one per line, then DV, headroom and XOFF.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let phy = r.phy.unwrap_or("(no PHY)");
    if r.method == "measured" {
        let _ = writeln!(
            s,
            "PFC headroom, adaptive (measured): {phy} at {}",
            fmt_speed(r.speed_bps)
        );
        let _ = writeln!(
            s,
            "DV = 2*max_frame + pfc_frame + measured_x,  X = (T4 - T1 - (T3 - T2)) * speed"
        );
    } else {
        let _ = writeln!(
            s,
            "PFC headroom, IEEE 802.1Q-2018 Annex N: {phy} at {}, {} m of {} ({} ns/m)",
            fmt_speed(r.speed_bps),
            r.cable_m.as_deref().unwrap_or("?"),
            r.medium.as_deref().unwrap_or("custom medium"),
            r.ns_per_m.as_deref().unwrap_or("?"),
        );
        let _ = writeln!(
            s,
            "DV = 2*max_frame + pfc_frame + 2*cable_delay + (tx_s1 + rx_s2) + (tx_s2 + rx_s1) + hd_s2"
        );
    }
    let _ = writeln!(
        s,
        "{:<14}{:>16}{:>14}{:>12}",
        "term", "", "bit times", "bytes"
    );
    for t in &r.terms {
        let detail = if t.count == 1 {
            String::new()
        } else {
            format!("{} x {}", t.count, t.each_bits)
        };
        let _ = writeln!(
            s,
            "{:<14}{:>16}{:>14}{:>12}",
            t.name, detail, t.bits, t.bytes
        );
    }
    let _ = writeln!(
        s,
        "{:<14}{:>16}{:>14}{:>12}",
        "dv", "", r.dv_bits, r.dv_bytes
    );
    let _ = writeln!(
        s,
        "headroom      DV x {} = {} bytes = {} cells of {} bytes ({} bytes)",
        r.alpha,
        r.headroom_bytes,
        r.headroom_cells,
        r.cell_bytes,
        r.headroom_cells.saturating_mul(r.cell_bytes)
    );
    if let (Some(max), Some(x)) = (r.max_bytes, r.xoff_bytes) {
        let _ = writeln!(
            s,
            "xoff          MAX {max} - {} = {x} bytes",
            r.headroom_cells.saturating_mul(r.cell_bytes)
        );
    }
    s
}

/// The PHY and medium tables, with the source of each default (`capfc headroom --list-phys`).
pub fn render_phys() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<12}{:>10}{:>9}{:>9}{:>8}  {:<7} source",
        "phy", "Gb/s", "tx", "rx", "hd", "medium"
    );
    for p in PHYS {
        let _ = writeln!(
            s,
            "{:<12}{:>10}{:>9}{:>9}{:>8}  {:<7} {}",
            p.name,
            fmt_fixed(i128::from(p.speed_bps), 9),
            p.tx_bits,
            p.rx_bits,
            p.hd_bits,
            p.medium,
            p.source
        );
    }
    for m in MEDIA {
        let _ = writeln!(
            s,
            "medium {:<6} {} ns/m",
            m.name,
            fmt_fixed(i128::from(m.ps_per_m), 3)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(phy: &str, cable: &str) -> Inputs {
        Inputs {
            phy: Some(phy.into()),
            cable: Some(cable.into()),
            ..Default::default()
        }
    }

    #[test]
    fn annex_n_example_term_by_term() {
        let p = phy("10gbase-t").unwrap();
        let cable = cable_delay_bits(100_000_000, 5_556, p.speed_bps).unwrap();
        assert_eq!(cable, 5556);
        let dv = annex_n(&LinkParams::for_phy(p, cable)).unwrap();
        let bits: Vec<_> = dv.terms.iter().map(|t| (t.name, t.bits)).collect();
        assert_eq!(
            bits,
            [
                ("max_frame", 32320),
                ("pfc_frame", 672),
                ("cable_delay", 11112),
                ("tx_s1", 25600),
                ("rx_s2", 12288),
                ("tx_s2", 25600),
                ("rx_s1", 12288),
                ("hd_s2", 6144)
            ]
        );
        assert_eq!(dv.dv_bits, 126_024);
        assert_eq!(dv.dv_bytes(), 15_753);
    }

    #[test]
    fn hundred_g_interface_plus_higher_layer_is_the_8023_maximum() {
        let p = phy("100GBASE-R").unwrap();
        assert_eq!(2 * p.tx_bits + 2 * p.rx_bits + p.hd_bits, 132_608);
    }

    #[test]
    fn cable_delay_rounds_up_to_whole_bit_times() {
        // 1 m of Cat6 at 1 Gb/s is 5.556 bit times.
        assert_eq!(
            cable_delay_bits(1_000_000, 5_556, 1_000_000_000).unwrap(),
            6
        );
        // Exactly whole stays whole.
        assert_eq!(
            cable_delay_bits(1_000_000, 5_000, 1_000_000_000).unwrap(),
            5
        );
        assert_eq!(cable_delay_bits(0, 5_000, 100_000_000_000).unwrap(), 0);
        // 0.5 m of fibre at 100G: 2.5 ns · 100 = 250.
        assert_eq!(
            cable_delay_bits(500_000, 5_000, 100_000_000_000).unwrap(),
            250
        );
    }

    #[test]
    fn lengths_parse_with_units() {
        assert_eq!(parse_length("--cable", "100m").unwrap(), 100_000_000);
        assert_eq!(parse_length("--cable", "10km").unwrap(), 10_000_000_000);
        assert_eq!(parse_length("--cable", "0.5m").unwrap(), 500_000);
        assert_eq!(parse_length("--cable", "2.5 KM").unwrap(), 2_500_000_000);
        assert_eq!(parse_length("--cable", "-0m").unwrap(), 0);
        for bad in [
            "-5m",
            "100",
            "m",
            "1e3m",
            "5 ft",
            "1.2.3m",
            "",
            "0.0000001m",
            "nanm",
        ] {
            let e = parse_length("--cable", bad).unwrap_err().to_string();
            assert!(e.starts_with("--cable '"), "{bad:?}: {e}");
        }
        assert!(parse_length("--cable", "-5m")
            .unwrap_err()
            .to_string()
            .contains("negative"));
    }

    #[test]
    fn speeds_and_phys_are_case_insensitive() {
        assert_eq!(parse_speed("--speed", "10G").unwrap(), 10_000_000_000);
        assert_eq!(parse_speed("--speed", "25g").unwrap(), 25_000_000_000);
        assert_eq!(parse_speed("--speed", "2.5Gb/s").unwrap(), 2_500_000_000);
        assert_eq!(parse_speed("--speed", "1000M").unwrap(), 1_000_000_000);
        assert!(parse_speed("--speed", "0G").is_err());
        assert!(parse_speed("--speed", "-10G").is_err());
        assert!(parse_speed("--speed", "fast").is_err());
        assert_eq!(phy("100gBase-r").unwrap().name, "100GBASE-R");
        assert!(phy("10GBASE-X").is_none());
        assert_eq!(medium("Fiber").unwrap().name, "fibre");
    }

    #[test]
    fn alpha_must_be_at_least_one() {
        assert_eq!(
            parse_alpha("--alpha", "1.25").unwrap(),
            Alpha { num: 125, den: 100 }
        );
        for bad in ["0.99", "0", "-2", "abc", "NaN", "inf", "1.0000001"] {
            let e = parse_alpha("--alpha", bad).unwrap_err().to_string();
            assert!(e.starts_with("--alpha '"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn headroom_cells_and_xoff() {
        // 126024 · 1.2 / 8 = 18903.6 → 18904 bytes → 118.15 → 119 cells of 160 = 19040 bytes.
        let h = headroom(126_024, Alpha::new(12, 10).unwrap(), 160).unwrap();
        assert_eq!((h.headroom_bytes, h.headroom_cells), (18_904, 119));
        assert_eq!(xoff(100_000, &h).unwrap(), 80_960);
        assert!(matches!(
            xoff(19_040, &h),
            Err(HeadroomError::HeadroomNotBelowMax { .. })
        ));
        assert_eq!(xoff(19_041, &h).unwrap(), 1);
    }

    #[test]
    fn measured_checks_order() {
        let ts = |t1, t2, t3, t4| Timestamps {
            t1_ps: t1,
            t2_ps: t2,
            t3_ps: t3,
            t4_ps: t4,
        };
        assert!(matches!(
            measured(1, &ts(10, 0, 0, 5), 0, 0),
            Err(HeadroomError::T4BeforeT1 { .. })
        ));
        assert!(matches!(
            measured(1, &ts(0, 10, 5, 50), 0, 0),
            Err(HeadroomError::T3BeforeT2 { .. })
        ));
        assert!(matches!(
            measured(1, &ts(0, 0, 50, 50), 0, 0),
            Err(HeadroomError::RoundTripTooShort { .. })
        ));
        // Clocks of the two stations need not agree: T2 may be "before" T1.
        // 1 ns of wire round trip at 10G = 10 bit times; 1 ps more rounds up to 11.
        let dv = measured(10_000_000_000, &ts(0, -500, 500, 2_001), 0, 0).unwrap();
        assert_eq!(dv.dv_bits, 11);
    }

    #[test]
    fn compute_reports_flag_names() {
        let mut a = args("10GBASE-T", "100m");
        a.alpha = Some("0.5".into());
        assert!(compute(&a).unwrap_err().to_string().contains("--alpha"));
        let a = args("10GBASE-Q", "100m");
        assert!(compute(&a)
            .unwrap_err()
            .to_string()
            .contains("--phy '10GBASE-Q'"));
        let a = Inputs {
            phy: Some("10GBASE-T".into()),
            ..Default::default()
        };
        assert!(compute(&a).unwrap_err().to_string().contains("--cable"));
    }

    #[test]
    fn render_lists_each_term() {
        let r = compute(&args("10GBASE-T", "100m")).unwrap();
        let text = render(&r);
        for name in [
            "max_frame",
            "pfc_frame",
            "cable_delay",
            "tx_s1",
            "rx_s2",
            "tx_s2",
            "rx_s1",
            "hd_s2",
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(name)),
                "{name} missing:\n{text}"
            );
        }
        assert!(
            text.lines()
                .any(|l| l.starts_with("dv") && l.contains("126024")),
            "{text}"
        );
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(s in "\\PC{0,40}") {
            let _ = parse_length("--cable", &s);
            let _ = parse_speed("--speed", &s);
            let _ = parse_count("--cell", &s);
            let _ = parse_time_ps("--measured T1", &s);
            let _ = parse_alpha("--alpha", &s);
            let _ = parse_ns_per_m("--ns-per-m", &s);
        }

        #[test]
        fn numeric_parsers_never_panic(s in "[-+]?[0-9]{0,40}(\\.[0-9]{0,25})?(m|km|g|ns|ps)?") {
            let _ = parse_length("--cable", &s);
            let _ = parse_speed("--speed", &s);
            let _ = parse_count("--cell", &s);
            let _ = parse_time_ps("--measured T1", &s);
            let _ = parse_alpha("--alpha", &s);
        }

        #[test]
        fn dv_is_the_sum_of_its_terms(
            mf in 0u64..1 << 20, pf in 0u64..1 << 20, c in 0u64..1 << 40,
            t1 in 0u64..1 << 20, r1 in 0u64..1 << 20, t2 in 0u64..1 << 20, r2 in 0u64..1 << 20,
            hd in 0u64..1 << 20,
        ) {
            let dv = annex_n(&LinkParams {
                max_frame_bits: mf, pfc_frame_bits: pf, cable_delay_bits: c,
                tx_s1_bits: t1, rx_s1_bits: r1, tx_s2_bits: t2, rx_s2_bits: r2, hd_s2_bits: hd,
            }).unwrap();
            proptest::prop_assert_eq!(dv.dv_bits, 2 * mf + pf + 2 * c + t1 + r1 + t2 + r2 + hd);
        }
    }
}
