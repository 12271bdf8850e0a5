//! 802.1Qau quantized congestion notification (QCN): the congestion point (CP) of one egress queue,
//! the reaction point (RP, QCN pseudo-code v2.2) of one flow at a host, the congestion
//! notification message (CNM) on the wire, and the CN-snooping adaptive routing table.
//!
//! **Congestion point** ([`Cp`]). Arriving frames are sampled every `I_s` bytes, drawn uniformly in
//! `[0.85, 1.15]·I_s` after each sample (mean 150 KB; with [`CpParams::fb_sampling`], `I_s` follows
//! the last quantized feedback as in the standard's table: 150, 75, 50, 37.5, 30, 25, 21.4, 18.75 KB
//! for `⌊|Fb_q|/8⌋` = 0..7). At a sample, with `Q` the queue's bytes including the frame,
//! `Q_off = Q − Q_eq`, `Q_δ = Q − Q_old`, `F_b = −(Q_off + W_d·Q_δ)`, then `Q_old ← Q`. A CNM goes to
//! the sampled frame's source only when `F_b < 0`, carrying `|F_b|` quantized to 6 bits:
//! `Fb_q = min(63, ⌈|F_b|·63 / F_bmax⌉)` with `F_bmax = (1 + 2·W_d)·Q_eq` (so any negative `F_b`
//! gives at least 1, and `G_d·63 < 0.5`).
//!
//! **Reaction point** ([`Rp`]). Installed at the line rate `C` on the first CNM of its flow. On a CNM
//! with `Fb_q`: `TR ← CR`, `CR ← max(CR·max(1 − G_d·Fb_q, 0.5), R_min)`; both stage counters to 0;
//! the byte counter restarts at half its length (extra fast recovery: 75 KB) and the timer at 15 ms.
//! Each time the byte counter completes (150 KB sent), `BC += 1`; each time the timer expires,
//! `T += 1`; then fast recovery if both are below 5 (`CR ← (CR + TR)/2`), active increase if one is
//! (`TR ← TR + 5 Mb/s` first), hyperactive if both are (`TR ← TR + (min(BC, T) − 4)·50 Mb/s` first).
//! A limiter whose `CR` reaches `C` is removed. Where the 802.1Qau pseudo-code halves the byte
//! count and the timer in active increase, this model keeps them whole (the seed's rates).
//!
//! **CNM** ([`Cnm`]): EtherType 0x22E9 and the CNM PDU of 802.1Q clause 33.4 (version, reserved,
//! QntzFb, CPID, cnmQOffset, cnmQDelta in 64-byte units, encapsulated priority, destination MAC, MSDU
//! length and up to 64 bytes of the sampled frame's MSDU), padded to 64 bytes with an FCS.
//!
//! **Adaptive routing** ([`CongTable`]): per (destination, port) `{congested, local, fbCount,
//! feedback}` as in [`CongTable::note`]; remote entries expire `ar_timer` after their last update,
//! local ones when their queue drops below `Q_eq/2`; [`CongTable::route`] picks the first
//! uncongested port in preference order, else the least severe (feedback closest to 0).

use rand::Rng;
use std::collections::HashMap;
use thiserror::Error;

/// The congestion point's parameters (seed 003, Table I).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpParams {
    /// Equilibrium queue length, bytes (33,000).
    pub q_eq: f64,
    /// Weight of the queue's change (2).
    pub w_d: f64,
    /// Mean sample interval, bytes (150,000).
    pub sample_bytes: f64,
    /// The standard's Fb-dependent sampling instead of a fixed mean.
    pub fb_sampling: bool,
}

impl CpParams {
    pub const PAPER: CpParams = CpParams {
        q_eq: 33_000.0,
        w_d: 2.0,
        sample_bytes: 150_000.0,
        fb_sampling: false,
    };

    /// `F_bmax = (1 + 2·W_d)·Q_eq`, the |F_b| quantized to 63.
    pub fn fb_max(&self) -> f64 {
        (1.0 + 2.0 * self.w_d) * self.q_eq
    }
}

/// What the CP found at a sample that asks for a CNM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// `F_b` (negative), bytes.
    pub fb: f64,
    /// `|F_b|` quantized to 6 bits (1..=63).
    pub fb_q: u8,
    /// `Q − Q_eq`, bytes.
    pub q_off: i64,
    /// `Q − Q_old`, bytes.
    pub q_delta: i64,
}

/// `F_b = −(Q_off + W_d·Q_δ)` for queue `q` against `q_old`.
pub fn feedback(p: &CpParams, q: f64, q_old: f64) -> f64 {
    -((q - p.q_eq) + p.w_d * (q - q_old))
}

/// `|F_b|` quantized to 6 bits: `min(63, ⌈|F_b|·63 / F_bmax⌉)`, 0 for `F_b ≥ 0`.
pub fn quantize(p: &CpParams, fb: f64) -> u8 {
    if fb >= 0.0 {
        return 0;
    }
    ((-fb * 63.0 / p.fb_max()).ceil()).min(63.0) as u8
}

/// The standard's sample interval for the last quantized feedback, bytes.
pub fn fb_sample_bytes(base: f64, fb_q: u8) -> f64 {
    base / (1.0 + f64::from(fb_q / 8))
}

/// One egress queue's 802.1Qau congestion point.
#[derive(Debug, Clone)]
pub struct Cp {
    pub p: CpParams,
    q_old: f64,
    /// Bytes left to the next sample.
    to_sample: f64,
    last_fb_q: u8,
    /// Samples taken and CNMs asked for.
    pub samples: u64,
    pub cnms: u64,
}

impl Cp {
    pub fn new(p: CpParams, rng: &mut impl Rng) -> Cp {
        let mut cp = Cp {
            p,
            q_old: 0.0,
            to_sample: 0.0,
            last_fb_q: 0,
            samples: 0,
            cnms: 0,
        };
        cp.to_sample = cp.next_interval(rng);
        cp
    }

    fn next_interval(&self, rng: &mut impl Rng) -> f64 {
        let base = if self.p.fb_sampling {
            fb_sample_bytes(self.p.sample_bytes, self.last_fb_q)
        } else {
            self.p.sample_bytes
        };
        base * rng.gen_range(0.85..1.15)
    }

    /// A frame of `bytes` has been queued; the queue now holds `q_bytes`. `Some` when it is
    /// sampled and `F_b < 0`.
    pub fn on_arrival(&mut self, bytes: u64, q_bytes: u64, rng: &mut impl Rng) -> Option<Sample> {
        self.to_sample -= bytes as f64;
        if self.to_sample > 0.0 {
            return None;
        }
        self.samples += 1;
        let q = q_bytes as f64;
        let fb = feedback(&self.p, q, self.q_old);
        let q_delta = (q - self.q_old) as i64;
        self.q_old = q;
        let fb_q = quantize(&self.p, fb);
        self.last_fb_q = fb_q;
        self.to_sample = self.next_interval(rng);
        if fb_q == 0 {
            return None;
        }
        self.cnms += 1;
        Some(Sample {
            fb,
            fb_q,
            q_off: (q - self.p.q_eq) as i64,
            q_delta,
        })
    }
}

/// The reaction point's parameters (seed 003, Table I), rates in bit/s, times in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RpParams {
    pub line_bps: f64,
    pub g_d: f64,
    pub min_rate_bps: f64,
    pub min_decrease: f64,
    pub byte_count: f64,
    pub timer_s: f64,
    pub fast_recovery: u32,
    pub active_bps: f64,
    pub hyper_bps: f64,
    /// Extra fast recovery: the first byte count after a cut is half long.
    pub extra_fast: bool,
}

impl RpParams {
    pub const PAPER: RpParams = RpParams {
        line_bps: 10e9,
        g_d: 1.0 / 128.0,
        min_rate_bps: 100e3,
        min_decrease: 0.5,
        byte_count: 150_000.0,
        timer_s: 0.015,
        fast_recovery: 5,
        active_bps: 5e6,
        hyper_bps: 50e6,
        extra_fast: true,
    };
}

/// Which increase an RP event made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    FastRecovery,
    Active,
    Hyperactive,
}

/// One flow's QCN v2.2 rate limiter. Time is in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Rp {
    pub p: RpParams,
    /// Current rate `CR` and target rate `TR`, bit/s.
    pub cr: f64,
    pub tr: f64,
    /// Byte counter and timer stage counters.
    pub bc: u32,
    pub t: u32,
    /// Bytes left to the byte counter's next completion.
    pub bytes_left: f64,
    /// When the timer next expires.
    pub timer_at: f64,
    pub cnms: u64,
}

impl Rp {
    /// A limiter installed by a CNM at `now`: starts at the line rate, then takes the CNM.
    pub fn install(p: RpParams, fb_q: u8, now: f64) -> Rp {
        let mut rp = Rp {
            p,
            cr: p.line_bps,
            tr: p.line_bps,
            bc: 0,
            t: 0,
            bytes_left: 0.0,
            timer_at: 0.0,
            cnms: 0,
        };
        rp.on_cnm(fb_q, now);
        rp
    }

    /// A CNM with quantized feedback `fb_q` arrives at `now`.
    pub fn on_cnm(&mut self, fb_q: u8, now: f64) {
        self.cnms += 1;
        self.tr = self.cr;
        let factor = (1.0 - self.p.g_d * f64::from(fb_q)).max(self.p.min_decrease);
        self.cr = (self.cr * factor).max(self.p.min_rate_bps);
        self.bc = 0;
        self.t = 0;
        self.bytes_left = if self.p.extra_fast {
            self.p.byte_count / 2.0
        } else {
            self.p.byte_count
        };
        self.timer_at = now + self.p.timer_s;
    }

    fn increase(&mut self) -> Stage {
        let th = self.p.fast_recovery;
        let stage = if self.bc >= th && self.t >= th {
            let i = self.bc.min(self.t) - (th - 1);
            self.tr += f64::from(i) * self.p.hyper_bps;
            Stage::Hyperactive
        } else if self.bc >= th || self.t >= th {
            self.tr += self.p.active_bps;
            Stage::Active
        } else {
            Stage::FastRecovery
        };
        self.tr = self.tr.min(self.p.line_bps);
        self.cr = (self.cr + self.tr) / 2.0;
        stage
    }

    /// `bytes` were sent under this limiter; the byte counter's completions, each an increase.
    pub fn on_sent(&mut self, bytes: u64) -> Vec<Stage> {
        let mut out = Vec::new();
        self.bytes_left -= bytes as f64;
        while self.bytes_left <= 0.0 {
            self.bytes_left += self.p.byte_count;
            self.bc += 1;
            out.push(self.increase());
        }
        out
    }

    /// The timer's expiries up to `now`, each an increase.
    pub fn on_time(&mut self, now: f64) -> Vec<Stage> {
        let mut out = Vec::new();
        while self.timer_at <= now {
            self.timer_at += self.p.timer_s;
            self.t += 1;
            out.push(self.increase());
        }
        out
    }

    /// Whether the limiter has recovered the line rate (and is to be removed).
    pub fn done(&self) -> bool {
        self.cr >= self.p.line_bps * (1.0 - 1e-9)
    }
}

/// The CNM's EtherType (also the CN-TAG's).
pub const CNM_ETHERTYPE: u16 = 0x22E9;
/// Bytes of a CNM frame with no encapsulated MSDU: 14 header + 24 PDU, padded to 60, + FCS.
pub const CNM_MIN_BYTES: usize = 64;
/// The CNM PDU's fixed part, bytes.
const PDU_FIXED: usize = 24;

/// A congestion notification message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cnm {
    /// The sampled frame's source (the CNM's destination).
    pub dst_mac: [u8; 6],
    /// The CP's MAC.
    pub src_mac: [u8; 6],
    pub version: u8,
    pub fb_q: u8,
    pub cpid: u64,
    /// `Q − Q_eq` and `Q − Q_old` in 64-byte units.
    pub q_offset: i16,
    pub q_delta: i16,
    pub encap_priority: u8,
    /// The sampled frame's destination.
    pub encap_dst: [u8; 6],
    /// Up to 64 bytes of the sampled frame's MSDU.
    pub msdu: Vec<u8>,
}

/// Why bytes are not a CNM: the field, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CnmError {
    #[error("CNM: field {field}: frame of {len} bytes is too short (needs {need})")]
    Short {
        field: &'static str,
        len: usize,
        need: usize,
    },
    #[error("CNM: field ethertype: 0x{0:04x}, not 0x22e9")]
    EtherType(u16),
    #[error("CNM: field version: {0}, not 0")]
    Version(u8),
    #[error("CNM: field reserved: 0x{0:02x}, not 0")]
    Reserved(u8),
    #[error("CNM: field qntz_fb: 0 (a CNM carries negative feedback)")]
    ZeroFeedback,
    #[error("CNM: field encap_msdu_len: {0}, above 64")]
    MsduLen(u16),
    #[error("CNM: field encap_priority: 0x{0:04x}, reserved bits set or priority above 7")]
    Priority(u16),
    #[error("CNM: field fcs: 0x{got:08x}, computed 0x{want:08x}")]
    Fcs { got: u32, want: u32 },
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

impl Cnm {
    /// The frame's bytes, FCS included (little-endian on the wire, as Ethernet sends it).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(CNM_MIN_BYTES + self.msdu.len());
        b.extend_from_slice(&self.dst_mac);
        b.extend_from_slice(&self.src_mac);
        b.extend_from_slice(&CNM_ETHERTYPE.to_be_bytes());
        let first = (u16::from(self.version & 0xF) << 12) | u16::from(self.fb_q & 0x3F);
        b.extend_from_slice(&first.to_be_bytes());
        b.extend_from_slice(&self.cpid.to_be_bytes());
        b.extend_from_slice(&self.q_offset.to_be_bytes());
        b.extend_from_slice(&self.q_delta.to_be_bytes());
        b.extend_from_slice(&(u16::from(self.encap_priority & 7) << 13).to_be_bytes());
        b.extend_from_slice(&self.encap_dst);
        let n = self.msdu.len().min(64);
        b.extend_from_slice(&(n as u16).to_be_bytes());
        b.extend_from_slice(&self.msdu[..n]);
        while b.len() < CNM_MIN_BYTES - 4 {
            b.push(0);
        }
        let fcs = crc32(&b);
        b.extend_from_slice(&fcs.to_le_bytes());
        b
    }

    /// Parse a frame (FCS included); every field checked.
    pub fn decode(b: &[u8]) -> Result<Cnm, CnmError> {
        let need = |field, n: usize| {
            if b.len() < n {
                Err(CnmError::Short {
                    field,
                    len: b.len(),
                    need: n,
                })
            } else {
                Ok(())
            }
        };
        need("frame", CNM_MIN_BYTES)?;
        let be16 = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let et = be16(12);
        if et != CNM_ETHERTYPE {
            return Err(CnmError::EtherType(et));
        }
        let first = be16(14);
        let version = (first >> 12) as u8;
        if version != 0 {
            return Err(CnmError::Version(version));
        }
        let reserved = ((first >> 6) & 0x3F) as u8;
        if reserved != 0 {
            return Err(CnmError::Reserved(reserved));
        }
        let fb_q = (first & 0x3F) as u8;
        if fb_q == 0 {
            return Err(CnmError::ZeroFeedback);
        }
        let prio = be16(28);
        if prio & 0x1FFF != 0 {
            return Err(CnmError::Priority(prio));
        }
        let n = be16(36);
        if n > 64 {
            return Err(CnmError::MsduLen(n));
        }
        let body = (14 + PDU_FIXED + n as usize).max(CNM_MIN_BYTES - 4);
        need("encap_msdu", body + 4)?;
        let want = crc32(&b[..body]);
        let got = u32::from_le_bytes([b[body], b[body + 1], b[body + 2], b[body + 3]]);
        if got != want || b.len() != body + 4 {
            return Err(CnmError::Fcs { got, want });
        }
        let mac = |i: usize| -> [u8; 6] { b[i..i + 6].try_into().expect("6 bytes") };
        Ok(Cnm {
            dst_mac: mac(0),
            src_mac: mac(6),
            version,
            fb_q,
            cpid: u64::from_be_bytes(b[16..24].try_into().expect("8 bytes")),
            q_offset: be16(24) as i16,
            q_delta: be16(26) as i16,
            encap_priority: (prio >> 13) as u8,
            encap_dst: mac(30),
            msdu: b[38..38 + n as usize].to_vec(),
        })
    }
}

/// A (destination, port) entry of the congestion table.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CongEntry {
    pub congested: bool,
    pub local: bool,
    pub fb_count: u32,
    /// Sum of `fbCount · F_b` (negative; lower is more severe).
    pub feedback: f64,
    /// When a remote entry expires, seconds.
    pub expires: f64,
}

/// A switch's congestion information table for CN-snooping adaptive routing.
#[derive(Debug, Clone, Default)]
pub struct CongTable {
    pub entries: HashMap<(usize, usize), CongEntry>,
    /// Remote entries' lifetime, seconds (250 ms).
    pub timer_s: f64,
}

impl CongTable {
    pub fn new(timer_s: f64) -> CongTable {
        CongTable {
            entries: HashMap::new(),
            timer_s,
        }
    }

    /// A CN for destination `dst` on port `port` with quantized feedback `fb_q`, generated here
    /// (`local`) or snooped, at `now`.
    pub fn note(&mut self, dst: usize, port: usize, fb_q: u8, local: bool, now: f64) {
        let e = self.entries.entry((dst, port)).or_default();
        if e.congested {
            e.local = e.local && local;
        } else {
            e.congested = true;
            e.local = local;
        }
        e.fb_count += 1;
        e.feedback -= f64::from(e.fb_count) * f64::from(fb_q);
        e.expires = now + self.timer_s;
    }

    /// Expire the remote entries whose timer has run out by `now`. Returns how many were reset.
    pub fn expire(&mut self, now: f64) -> usize {
        let before = self.entries.len();
        self.entries.retain(|_, e| e.local || e.expires > now);
        before - self.entries.len()
    }

    /// Reset the local entries of `port` (its queue dropped below `Q_eq/2`).
    pub fn clear_local(&mut self, port: usize) -> usize {
        let before = self.entries.len();
        self.entries.retain(|&(_, p), e| !(p == port && e.local));
        before - self.entries.len()
    }

    fn congested(&self, dst: usize, port: usize) -> Option<&CongEntry> {
        self.entries.get(&(dst, port)).filter(|e| e.congested)
    }

    /// The port for a frame to `dst` among `prefs` (most preferred first): the first uncongested,
    /// else the least severe (feedback closest to zero; the earlier on a tie).
    pub fn route(&self, dst: usize, prefs: &[usize]) -> usize {
        if let Some(&p) = prefs.iter().find(|&&p| self.congested(dst, p).is_none()) {
            return p;
        }
        let mut best = prefs[0];
        let mut best_fb = f64::NEG_INFINITY;
        for &p in prefs {
            let fb = self.congested(dst, p).map_or(0.0, |e| e.feedback);
            if fb > best_fb {
                best_fb = fb;
                best = p;
            }
        }
        best
    }

    /// Entries flagged congested.
    pub fn congested_count(&self) -> usize {
        self.entries.values().filter(|e| e.congested).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn fb_at_the_sample_by_hand() {
        let p = CpParams::PAPER;
        // Q = 40,000, Q_old = 36,000: Q_off = 7,000, Q_δ = 4,000, F_b = −(7,000 + 8,000).
        assert_eq!(feedback(&p, 40_000.0, 36_000.0), -15_000.0);
        // F_bmax = 5·33,000 = 165,000; 15,000·63/165,000 = 5.727 → 6.
        assert_eq!(quantize(&p, -15_000.0), 6);
        // Queue below Q_eq and falling: positive, no CNM.
        assert_eq!(feedback(&p, 30_000.0, 31_000.0), 5_000.0);
        assert_eq!(quantize(&p, 5_000.0), 0);
        // Saturates at 63; the smallest negative gives 1.
        assert_eq!(quantize(&p, -1e9), 63);
        assert_eq!(quantize(&p, -1.0), 1);
    }

    #[test]
    fn cp_samples_every_150kb_on_average_and_reports_the_sample() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut cp = Cp::new(CpParams::PAPER, &mut rng);
        let mut got = None;
        let mut frames = 0u64;
        while got.is_none() {
            frames += 1;
            got = cp.on_arrival(1500, 60_000, &mut rng);
        }
        // First sample after 85..115 frames of 1500 B, Q_old = 0: F_b = −(27,000 + 120,000).
        assert!((85..=115).contains(&frames), "{frames}");
        let s = got.unwrap();
        assert_eq!(s.fb, -147_000.0);
        assert_eq!(s.fb_q, 57); // 147,000·63/165,000 = 56.13 → 57
        assert_eq!((s.q_off, s.q_delta), (27_000, 60_000));
        // Same queue next sample: F_b = −27,000 → 11.
        let mut s2 = None;
        while s2.is_none() {
            s2 = cp.on_arrival(1500, 60_000, &mut rng);
        }
        assert_eq!(s2.unwrap().fb_q, 11);
        // Fb-dependent sampling: 57/8 = 7 → 150 KB / 8.
        assert_eq!(fb_sample_bytes(150_000.0, 57), 18_750.0);
    }

    #[test]
    fn rp_decrease_and_each_increase_stage_by_hand() {
        let mut rp = Rp::install(RpParams::PAPER, 32, 0.0);
        // 10 G · (1 − 32/128) = 7.5 G; TR = 10 G.
        assert_eq!((rp.cr, rp.tr), (7.5e9, 10e9));
        // Second CNM with 63: factor max(1 − 63/128, 0.5) = 0.5078125.
        rp.on_cnm(63, 0.001);
        assert_eq!(rp.tr, 7.5e9);
        assert_eq!(rp.cr, 7.5e9 * (1.0 - 63.0 / 128.0));
        let cr0 = rp.cr;
        // Extra fast recovery: the first completion after 75 KB. Fast recovery: CR = (CR+TR)/2.
        assert_eq!(rp.on_sent(74_999), vec![]);
        assert_eq!(rp.on_sent(1), vec![Stage::FastRecovery]);
        assert_eq!(rp.cr, (cr0 + 7.5e9) / 2.0);
        // Four more completions (150 KB each): BC = 5 → active increase, TR + 5 Mb/s.
        for _ in 0..3 {
            assert_eq!(rp.on_sent(150_000), vec![Stage::FastRecovery]);
        }
        let cr = rp.cr;
        assert_eq!(rp.on_sent(150_000), vec![Stage::Active]);
        assert_eq!(rp.tr, 7.5e9 + 5e6);
        assert_eq!(rp.cr, (cr + 7.5e9 + 5e6) / 2.0);
        // Timer: five expiries (15 ms each from the CNM at 1 ms): the fifth with BC = 5 is
        // hyperactive with i = 1.
        let tr = rp.tr;
        let st = rp.on_time(0.001 + 5.0 * 0.015);
        assert_eq!(
            st,
            vec![
                Stage::Active,
                Stage::Active,
                Stage::Active,
                Stage::Active,
                Stage::Hyperactive
            ]
        );
        assert!((rp.tr - (tr + 4.0 * 5e6 + 50e6)).abs() < 1e-3);
        // BC = 6, T = 5: i = 1 still; BC = 6, T = 6: i = 2.
        let tr = rp.tr;
        rp.on_sent(150_000);
        assert!((rp.tr - (tr + 50e6)).abs() < 1e-3);
        let tr = rp.tr;
        rp.on_time(0.001 + 6.0 * 0.015);
        assert!((rp.tr - (tr + 100e6)).abs() < 1e-3);
    }

    #[test]
    fn rp_floor_and_removal() {
        let mut rp = Rp::install(RpParams::PAPER, 63, 0.0);
        for _ in 0..100 {
            rp.on_cnm(63, 0.0);
        }
        assert_eq!(rp.cr, 100e3);
        let mut rp = Rp::install(RpParams::PAPER, 1, 0.0);
        assert!(!rp.done());
        for _ in 0..60 {
            rp.on_sent(150_000);
        }
        assert!(rp.done(), "{}", rp.cr);
    }

    fn cnm() -> Cnm {
        Cnm {
            dst_mac: [2, 0, 0, 0, 0, 1],
            src_mac: [2, 0, 0, 1, 0, 7],
            version: 0,
            fb_q: 42,
            cpid: 0x0200_0001_0007_0003,
            q_offset: 421,
            q_delta: -3,
            encap_priority: 3,
            encap_dst: [2, 0, 0, 0, 0, 4],
            msdu: (0..64).collect(),
        }
    }

    #[test]
    fn cnm_round_trips_and_refuses_each_field() {
        let c = cnm();
        let b = c.encode();
        assert_eq!(b.len(), 14 + 24 + 64 + 4);
        assert_eq!(Cnm::decode(&b).unwrap(), c);
        let short = Cnm {
            msdu: vec![],
            ..cnm()
        };
        let bs = short.encode();
        assert_eq!(bs.len(), CNM_MIN_BYTES);
        assert_eq!(Cnm::decode(&bs).unwrap(), short);
        let bad = |i: usize, v: u8| {
            let mut x = bs.clone();
            x[i] = v;
            Cnm::decode(&x).unwrap_err()
        };
        assert_eq!(bad(12, 0x88), CnmError::EtherType(0x88E9));
        assert_eq!(bad(14, 0x10), CnmError::Version(1));
        assert!(matches!(bad(14, 0x01), CnmError::Reserved(_)));
        assert!(matches!(bad(20, 0x55), CnmError::Fcs { .. }));
        assert!(matches!(
            Cnm::decode(&bs[..40]),
            Err(CnmError::Short { need: 64, .. })
        ));
        assert_eq!(bad(15, 0x00), CnmError::ZeroFeedback);
        assert!(matches!(bad(29, 0x01), CnmError::Priority(_)));
        assert_eq!(bad(37, 65), CnmError::MsduLen(65));
    }

    #[test]
    fn cong_table_rules_by_hand() {
        let mut t = CongTable::new(0.25);
        // Route to the first uncongested port.
        assert_eq!(t.route(5, &[1, 2, 3]), 1);
        t.note(5, 1, 10, true, 0.0);
        assert_eq!(t.entries[&(5, 1)].feedback, -10.0);
        t.note(5, 1, 10, false, 0.1); // local kept only while local: remote overrides
        assert!(!t.entries[&(5, 1)].local);
        assert_eq!(t.entries[&(5, 1)].feedback, -10.0 - 2.0 * 10.0);
        assert_eq!(t.route(5, &[1, 2, 3]), 2);
        t.note(5, 2, 63, false, 0.1);
        t.note(5, 3, 1, false, 0.1);
        t.note(5, 3, 1, true, 0.1); // remote stays remote
        assert!(!t.entries[&(5, 3)].local);
        // All congested: least severe (3: −1 − 2 = −3).
        assert_eq!(t.route(5, &[1, 2, 3]), 3);
        // Other destinations unaffected.
        assert_eq!(t.route(6, &[1, 2, 3]), 1);
        // Expiry 250 ms after the last update.
        assert_eq!(t.expire(0.34), 0);
        assert_eq!(t.expire(0.35), 3);
        t.note(5, 4, 5, true, 0.0);
        assert_eq!(t.expire(10.0), 0);
        assert_eq!(t.clear_local(4), 1);
    }
}
