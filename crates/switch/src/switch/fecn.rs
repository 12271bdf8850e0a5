//! Forward explicit congestion notification (FECN): the congestion point of one egress queue, its
//! queue control functions, the 802.3x PAUSE hysteresis beside it, and the probe frame on the wire.
//!
//! **Congestion point.** Per measurement interval `T` (`(t_{i-1}, t_i]`) the egress queue counts the
//! bytes that arrive (`A_i` is that count over `T`, in bit/s) and reads its length `q_i` at `t_i`
//! (packets: bytes over `P_m`, so that any frame size counts by its bytes). Then
//! `ρ_i = A_i / (f(q_i) · C')` with `C' = γ·C` when `q_i > Q_eq`, else `C`, and the advertised rate
//! for the next interval is `r_{i+1} = r_i / ρ_i`, from `r_0 = C / N_0`. An interval with no arrival
//! (`ρ_i = 0`) advertises `C`; the advertised rate is kept within `[r_min, C]`. The paper's moving
//! average on the advertised rate is the weight `w` ([`CpParams::avg_weight`]):
//! `r_{i+1} = (1 − w)·r_i + w·r_i/ρ_i`, `w = 1` the bare rule. A forward probe that
//! passes the queue leaves with `min(probe rate, r)`.
//!
//! **Queue control** ([`QueueControl`]): the hyperbolic function
//! `f(q) = a·Q_eq / ((a−1)·q + Q_eq)` for `q ≤ Q_eq`, else `max(c, b·Q_eq / ((b−1)·q + Q_eq))`;
//! or the piecewise-linear multistage function of `n` stages: stage 0 is `q ≤ Q_eq`, stage m is
//! `(m·Q_eq, (m+1)·Q_eq]`; on stage m (m ≥ 1) the slope is `−k_m / Q_eq` with `k_m = k·min(m, n)`,
//! on stage 0 it is `−k / Q_eq`; `f(Q_eq) = 1`, continuous, and never below `c`. With `k = 0.002`,
//! `f(0) = 1.002 = a`, so stage 0 matches the hyperbolic function's end. `n = 1` is single stage.
//!
//! **Hooks.** [`CongestionPoint`] implements [`QueueHook`], the three events an egress queue gives
//! a congestion point (a frame arrives, a frame leaves, the measurement clock ticks); an 802.1Qau
//! congestion point (sampling on arrival, `F_b` from the queue) takes the same three.

use thiserror::Error;

/// What an egress queue tells a congestion point. `q_bytes` is the queue's length after the event.
pub trait QueueHook {
    /// A frame of `bytes` has been queued.
    fn on_arrival(&mut self, bytes: u64, q_bytes: u64);
    /// A frame of `bytes` has left the queue.
    fn on_departure(&mut self, _bytes: u64, _q_bytes: u64) {}
    /// The measurement clock ticks (every `T` for FECN).
    fn on_tick(&mut self, q_bytes: u64);
}

/// The queue control function `f(q)`, `q` in packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueControl {
    /// The hyperbolic function of FECN and ERICA.
    Hyperbolic { a: f64, b: f64, c: f64, q_eq: f64 },
    /// Piecewise linear, `n` stages, `k_m = k·min(m, n)` on stage m ≥ 1, floor `c`.
    Multistage { k: f64, n: u32, c: f64, q_eq: f64 },
}

impl QueueControl {
    /// The paper's hyperbolic function: a = 1.002, b = 1.1, c = 0.1, Q_eq = 16 packets.
    pub const PAPER: QueueControl = QueueControl::Hyperbolic {
        a: 1.002,
        b: 1.1,
        c: 0.1,
        q_eq: 16.0,
    };

    /// `f(q)`, `q` in packets.
    pub fn f(&self, q: f64) -> f64 {
        match *self {
            QueueControl::Hyperbolic { a, b, c, q_eq } => {
                if q <= q_eq {
                    a * q_eq / ((a - 1.0) * q + q_eq)
                } else {
                    c.max(b * q_eq / ((b - 1.0) * q + q_eq))
                }
            }
            QueueControl::Multistage { k, n, c, q_eq } => {
                if q <= q_eq {
                    return 1.0 + k * (q_eq - q) / q_eq;
                }
                // Walk the stages above Q_eq: stage m spans (m·Q_eq, (m+1)·Q_eq].
                let mut f = 1.0;
                let mut m = 1u32;
                let mut lo = q_eq;
                loop {
                    let km = k * f64::from(m.min(n));
                    let hi = (f64::from(m) + 1.0) * q_eq;
                    if q <= hi || m >= n {
                        f -= km * (q - lo) / q_eq;
                        break;
                    }
                    f -= km * (hi - lo) / q_eq;
                    lo = hi;
                    m += 1;
                }
                f.max(c)
            }
        }
    }

    /// `Q_eq`, packets.
    pub fn q_eq(&self) -> f64 {
        match *self {
            QueueControl::Hyperbolic { q_eq, .. } | QueueControl::Multistage { q_eq, .. } => q_eq,
        }
    }
}

/// A congestion point's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpParams {
    /// Link capacity `C`, bit/s.
    pub capacity_bps: f64,
    /// `P_m`, bytes: the queue length in packets is its bytes over this.
    pub packet_bytes: u64,
    /// `N_0`: `r_0 = C / N_0`.
    pub n0: f64,
    /// `γ`: above `Q_eq` the capacity is `γ·C`.
    pub gamma: f64,
    /// The smallest advertised rate, bit/s.
    pub min_rate_bps: f64,
    /// The moving average on the advertised rate: `r_{i+1} = (1 − w)·r_i + w·r_i/ρ_i`; `w = 1`
    /// is the bare rule.
    pub avg_weight: f64,
    pub control: QueueControl,
}

/// One interval's measurement and its result, for the record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// `A_i`, bit/s.
    pub arrival_bps: f64,
    /// `q_i`, packets.
    pub q: f64,
    pub f: f64,
    pub rho: f64,
    /// `r_{i+1}`, bit/s.
    pub rate_bps: f64,
}

/// FECN's congestion point at one egress queue.
#[derive(Debug, Clone)]
pub struct CongestionPoint {
    pub p: CpParams,
    /// Measurement interval `T`, seconds.
    pub interval_s: f64,
    /// The advertised rate `r_i`, bit/s.
    rate_bps: f64,
    /// Bytes that arrived in the current interval.
    arrived: u64,
    /// The last interval's result.
    pub last: Option<Interval>,
}

impl CongestionPoint {
    pub fn new(p: CpParams, interval_s: f64) -> Self {
        CongestionPoint {
            p,
            interval_s,
            rate_bps: p.capacity_bps / p.n0,
            arrived: 0,
            last: None,
        }
    }

    /// The advertised rate now, bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// One interval's arithmetic: `A_i` (bit/s) and `q_i` (packets) to `(f, ρ, r_{i+1})`.
    pub fn update(&self, arrival_bps: f64, q: f64) -> Interval {
        let p = &self.p;
        let f = p.control.f(q);
        let cap = if q > p.control.q_eq() {
            p.gamma * p.capacity_bps
        } else {
            p.capacity_bps
        };
        let rho = arrival_bps / (f * cap);
        let target = if rho > 0.0 {
            self.rate_bps / rho
        } else {
            p.capacity_bps
        };
        let next = (1.0 - p.avg_weight) * self.rate_bps + p.avg_weight * target;
        Interval {
            arrival_bps,
            q,
            f,
            rho,
            rate_bps: next.clamp(p.min_rate_bps, p.capacity_bps),
        }
    }

    /// A forward probe carrying `probe_bps` leaves with this.
    pub fn mark(&self, probe_bps: f64) -> f64 {
        probe_bps.min(self.rate_bps)
    }
}

impl QueueHook for CongestionPoint {
    fn on_arrival(&mut self, bytes: u64, _q_bytes: u64) {
        self.arrived += bytes;
    }

    fn on_tick(&mut self, q_bytes: u64) {
        let a = self.arrived as f64 * 8.0 / self.interval_s;
        let q = q_bytes as f64 / self.p.packet_bytes as f64;
        let iv = self.update(a, q);
        self.rate_bps = iv.rate_bps;
        self.arrived = 0;
        self.last = Some(iv);
    }
}

/// 802.3x PAUSE at a queue, seed 001's rule: PAUSE/ON to every upstream neighbour when the queue
/// exceeds `Q_on` packets, PAUSE/OFF when it falls below `Q_off`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PauseCtl {
    pub q_on: f64,
    pub q_off: f64,
    pub packet_bytes: u64,
    pub on: bool,
}

/// What [`PauseCtl::check`] asks the switch to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseSignal {
    On,
    Off,
}

impl PauseCtl {
    pub fn new(q_on: f64, q_off: f64, packet_bytes: u64) -> Self {
        PauseCtl {
            q_on,
            q_off,
            packet_bytes,
            on: false,
        }
    }

    /// The queue is `q_bytes` long now.
    pub fn check(&mut self, q_bytes: u64) -> Option<PauseSignal> {
        let q = q_bytes as f64 / self.packet_bytes as f64;
        if !self.on && q > self.q_on {
            self.on = true;
            Some(PauseSignal::On)
        } else if self.on && q < self.q_off {
            self.on = false;
            Some(PauseSignal::Off)
        } else {
            None
        }
    }
}

/// One PAUSE interval by seed 001's formula, seconds: `(L − Q_off)·P_m / C`.
pub fn pause_interval_s(l: f64, q_off: f64, packet_bytes: u64, capacity_bps: f64) -> f64 {
    (l - q_off) * packet_bytes as f64 * 8.0 / capacity_bps
}

/// The probe's EtherType: IEEE 802's local experimental EtherType 1.
pub const PROBE_ETHERTYPE: u16 = 0x88B5;
/// The probe format's version.
pub const PROBE_VERSION: u8 = 1;
/// A probe is a minimum Ethernet frame: 60 bytes and the 4-byte FCS.
pub const PROBE_BYTES: usize = 64;

/// An FECN rate-discovery probe. On the wire (64 bytes, big-endian):
///
/// | bytes | field |
/// |---|---|
/// | 0..6 | destination MAC (the flow's destination host) |
/// | 6..12 | source MAC (the flow's source host) |
/// | 12..14 | EtherType 0x88B5 |
/// | 14 | version (1) |
/// | 15 | flags: bit 0 set when reflected (backward), other bits 0 |
/// | 16..20 | flow id |
/// | 20..24 | sequence number |
/// | 24..28 | rate, kb/s (the smallest advertised rate on the path so far) |
/// | 28..36 | send time, ps since the run's start |
/// | 36..60 | zero padding |
/// | 60..64 | FCS (CRC-32 of bytes 0..60, as Ethernet) |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub reflected: bool,
    pub flow: u32,
    pub seq: u32,
    pub rate_kbps: u32,
    pub sent_ps: u64,
}

/// Why bytes are not a probe: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProbeError {
    #[error("probe: {0} bytes, expected {PROBE_BYTES}")]
    Length(usize),
    #[error("probe field {field} (bytes {at}): {why}")]
    Field {
        field: &'static str,
        at: &'static str,
        why: String,
    },
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

impl Probe {
    /// The frame's 64 bytes.
    pub fn encode(&self) -> [u8; PROBE_BYTES] {
        let mut b = [0u8; PROBE_BYTES];
        b[0..6].copy_from_slice(&self.dst_mac);
        b[6..12].copy_from_slice(&self.src_mac);
        b[12..14].copy_from_slice(&PROBE_ETHERTYPE.to_be_bytes());
        b[14] = PROBE_VERSION;
        b[15] = u8::from(self.reflected);
        b[16..20].copy_from_slice(&self.flow.to_be_bytes());
        b[20..24].copy_from_slice(&self.seq.to_be_bytes());
        b[24..28].copy_from_slice(&self.rate_kbps.to_be_bytes());
        b[28..36].copy_from_slice(&self.sent_ps.to_be_bytes());
        let fcs = crc32(&b[..60]);
        b[60..64].copy_from_slice(&fcs.to_le_bytes());
        b
    }

    /// Read a probe, refusing anything that is not one, naming the field.
    pub fn decode(b: &[u8]) -> Result<Probe, ProbeError> {
        if b.len() != PROBE_BYTES {
            return Err(ProbeError::Length(b.len()));
        }
        let bad = |field, at, why: String| ProbeError::Field { field, at, why };
        let be32 = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let fcs = u32::from_le_bytes([b[60], b[61], b[62], b[63]]);
        let want = crc32(&b[..60]);
        if fcs != want {
            return Err(bad(
                "fcs",
                "60..64",
                format!("{fcs:#010x}, the frame's CRC-32 is {want:#010x}"),
            ));
        }
        let et = u16::from_be_bytes([b[12], b[13]]);
        if et != PROBE_ETHERTYPE {
            return Err(bad(
                "ethertype",
                "12..14",
                format!("{et:#06x}, expected {PROBE_ETHERTYPE:#06x}"),
            ));
        }
        if b[14] != PROBE_VERSION {
            return Err(bad(
                "version",
                "14",
                format!("{}, expected {PROBE_VERSION}", b[14]),
            ));
        }
        if b[15] & !1 != 0 {
            return Err(bad(
                "flags",
                "15",
                format!("{:#04x}: only bit 0 (reflected) is defined", b[15]),
            ));
        }
        if let Some(i) = b[36..60].iter().position(|&x| x != 0) {
            return Err(bad(
                "padding",
                "36..60",
                format!("byte {} is {:#04x}, expected 0", 36 + i, b[36 + i]),
            ));
        }
        let mut dst_mac = [0u8; 6];
        let mut src_mac = [0u8; 6];
        dst_mac.copy_from_slice(&b[0..6]);
        src_mac.copy_from_slice(&b[6..12]);
        let mut t = [0u8; 8];
        t.copy_from_slice(&b[28..36]);
        Ok(Probe {
            dst_mac,
            src_mac,
            reflected: b[15] & 1 != 0,
            flow: be32(16),
            seq: be32(20),
            rate_kbps: be32(24),
            sent_ps: u64::from_be_bytes(t),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn hyperbolic_both_sides_of_q_eq() {
        let f = QueueControl::PAPER;
        // q = 0: a·16/16 = 1.002.
        assert!(close(f.f(0.0), 1.002));
        // q = 8: 1.002·16 / (0.002·8 + 16) = 16.032 / 16.016 = 1.000999000999...
        assert!(close(f.f(8.0), 16.032 / 16.016));
        // q = Q_eq from below: 16.032 / 16.032 = 1.
        assert!(close(f.f(16.0), 1.0));
        // q = 32 (above): 1.1·16 / (0.1·32 + 16) = 17.6 / 19.2 = 0.91666...
        assert!(close(f.f(32.0), 17.6 / 19.2));
        // q = 100: 17.6 / 26 = 0.6769...; c = 0.1 does not act.
        assert!(close(f.f(100.0), 17.6 / 26.0));
        // q = 10000: 17.6 / 1016 = 0.0173 < c, so c = 0.1.
        assert!(close(f.f(10_000.0), 0.1));
    }

    #[test]
    fn multistage_stages() {
        let g = |n| QueueControl::Multistage {
            k: 0.002,
            n,
            c: 0.1,
            q_eq: 16.0,
        };
        // Below Q_eq: 1 + 0.002·(16 − 4)/16 = 1.0015.
        assert!(close(g(3).f(4.0), 1.0015));
        assert!(close(g(3).f(16.0), 1.0));
        // Single stage at q = 48: 1 − 0.002·32/16 = 0.996.
        assert!(close(g(1).f(48.0), 0.996));
        // n = 2 at q = 48: stage 1 (16..32) −0.002, stage 2 (32..48) −0.004: 0.994.
        assert!(close(g(2).f(48.0), 0.994));
        // n = 2 at q = 64: stage 3 goes on at k_2 = 0.004: 0.990.
        assert!(close(g(2).f(64.0), 0.990));
        // n = 3 at q = 64: −0.002 −0.004 −0.006 = 0.988.
        assert!(close(g(3).f(64.0), 0.988));
        // Far out, the floor c.
        assert!(close(g(3).f(1e9), 0.1));
    }

    fn cp(gamma: f64) -> CongestionPoint {
        CongestionPoint::new(
            CpParams {
                capacity_bps: 10e9,
                packet_bytes: 1500,
                n0: 100.0,
                gamma,
                min_rate_bps: 1e5,
                avg_weight: 1.0,
                control: QueueControl::PAPER,
            },
            1e-3,
        )
    }

    #[test]
    fn rho_and_rate_over_two_intervals() {
        let mut c = cp(0.99);
        // r_0 = 10 Gb/s / 100 = 100 Mb/s.
        assert!(close(c.rate_bps(), 100e6));
        // Interval 1: 2.5 MB arrive in 1 ms (A = 20 Gb/s), q = 0 packets at t_1.
        // f(0) = 1.002, C' = C: ρ_1 = 20e9 / (1.002·10e9) = 1.996007984...;
        // r_2 = 100e6 / ρ_1 = 50.1 Mb/s.
        c.on_arrival(2_500_000, 0);
        c.on_tick(0);
        let i1 = c.last.unwrap();
        assert!(close(i1.rho, 20e9 / 1.002e10));
        assert!(close(c.rate_bps(), 50.1e6));
        // Interval 2: 1.125 MB arrive (A = 9 Gb/s), q = 32 packets (48,000 bytes).
        // f(32) = 17.6/19.2 = 0.916666..., above Q_eq so C' = 0.99·C = 9.9 Gb/s:
        // ρ_2 = 9e9 / (0.91666…·9.9e9) = 0.991735537..., r_3 = 50.1e6 / ρ_2 = 50.5175 Mb/s.
        c.on_arrival(1_125_000, 48_000);
        c.on_tick(48_000);
        let i2 = c.last.unwrap();
        assert!(close(i2.f, 17.6 / 19.2));
        assert!(close(i2.rho, 9e9 / (17.6 / 19.2 * 9.9e9)));
        assert!(close(c.rate_bps(), 50.1e6 * (17.6 / 19.2 * 9.9e9) / 9e9));
        assert!(close(c.rate_bps(), 50_517_500.0));
        // The probe takes the smaller rate.
        assert!(close(c.mark(200e6), 50_517_500.0));
        assert!(close(c.mark(10e6), 10e6));
    }

    #[test]
    fn moving_average_halves_the_step() {
        let mut c = cp(0.99);
        c.p.avg_weight = 0.5;
        // As interval 1 above: the bare rule gives 50.1 Mb/s; halfway from 100 is 75.05 Mb/s.
        c.on_arrival(2_500_000, 0);
        c.on_tick(0);
        assert!(close(c.rate_bps(), 75.05e6));
    }

    #[test]
    fn idle_interval_advertises_capacity() {
        let mut c = cp(0.99);
        c.on_tick(0);
        assert!(close(c.rate_bps(), 10e9));
    }

    #[test]
    fn pause_hysteresis() {
        let mut p = PauseCtl::new(90.0, 80.0, 1500);
        assert_eq!(p.check(90 * 1500), None, "at Q_on: not above it");
        assert_eq!(p.check(91 * 1500), Some(PauseSignal::On));
        assert_eq!(p.check(95 * 1500), None);
        assert_eq!(p.check(80 * 1500), None, "at Q_off: not below it");
        assert_eq!(p.check(79 * 1500), Some(PauseSignal::Off));
        // (100 − 80)·1500·8 / 10e9 = 24 us.
        assert!(close(pause_interval_s(100.0, 80.0, 1500, 10e9), 24e-6));
    }

    #[test]
    fn probe_round_trip_and_refusals() {
        let p = Probe {
            dst_mac: [2, 0, 0, 0, 0, 100],
            src_mac: [2, 0, 0, 0, 0, 7],
            reflected: true,
            flow: 7,
            seq: 3,
            rate_kbps: 100_000,
            sent_ps: 123_456_789,
        };
        let b = p.encode();
        assert_eq!(Probe::decode(&b), Ok(p));
        let mut x = b;
        x[14] = 2;
        // The FCS is checked first: a changed byte is a bad FCS.
        assert!(matches!(
            Probe::decode(&x),
            Err(ProbeError::Field { field: "fcs", .. })
        ));
        let fix = |mut x: [u8; 64]| {
            let f = crc32(&x[..60]);
            x[60..64].copy_from_slice(&f.to_le_bytes());
            x
        };
        assert!(matches!(
            Probe::decode(&fix(x)),
            Err(ProbeError::Field {
                field: "version",
                ..
            })
        ));
        let mut y = b;
        y[15] = 3;
        assert!(matches!(
            Probe::decode(&fix(y)),
            Err(ProbeError::Field { field: "flags", .. })
        ));
        let mut z = b;
        z[12] = 0x08;
        assert!(matches!(
            Probe::decode(&fix(z)),
            Err(ProbeError::Field {
                field: "ethertype",
                ..
            })
        ));
        let mut w = b;
        w[40] = 1;
        assert!(matches!(
            Probe::decode(&fix(w)),
            Err(ProbeError::Field {
                field: "padding",
                ..
            })
        ));
        assert_eq!(Probe::decode(&b[..63]), Err(ProbeError::Length(63)));
        // The CRC-32 of "123456789" is 0xCBF43926 (the standard check value).
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}
