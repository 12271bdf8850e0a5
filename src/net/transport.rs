//! A window-based, TCP-like transport for the network's hosts: what makes flow
//! completion times honest when the network is congested, as in the paper's runs (TCP with ECN
//! marked at 20 KB).
//!
//! **Sender** ([`TcpSender`], per flow; sequence numbers are byte offsets in the flow, segments of
//! `mss` bytes from offset 0, the last one shorter):
//! - slow start from `init_cwnd` segments: `cwnd += acked` while `cwnd < ssthresh`; congestion
//!   avoidance after: `cwnd += mss · acked / cwnd`;
//! - fast retransmit and NewReno recovery: on the third duplicate ACK (`dupack_threshold`; none
//!   under DeTail, whose per-packet spreading reorders: DeTail turns fast retransmit off and
//!   relies on PFC and the timeout), `ssthresh = max(flight / 2,
//!   2 mss)`, the segment at `snd_una` is sent again, `cwnd = ssthresh + 3 mss` and grows by one
//!   `mss` per further duplicate; a partial ACK (below `recover`, the highest sequence sent when
//!   recovery began) sends the next hole again; a full ACK ends recovery with `cwnd = ssthresh`;
//! - a retransmission timeout `rto` (from the last progress; doubled on each expiry, up to 64 ×):
//!   `ssthresh = max(flight / 2, 2 mss)`, `cwnd = mss`, and sending resumes at `snd_una` (go back N);
//! - ECN echo, [`Ecn::Dctcp`]: per window of data (one `cwnd` of sequence space) the fraction F of
//!   acknowledged bytes whose ACK echoed CE; at the window's end `alpha = (1 - g) alpha + g F`
//!   (g = 1/16, alpha from 1 as in Linux) and, if any ACK of the window echoed CE,
//!   `cwnd = max(cwnd (1 - alpha / 2), mss)` once; [`Ecn::Classic`] (RFC 3168): on an ECE, `ssthresh
//!   = max(cwnd / 2, 2 mss)`, `cwnd = ssthresh`, at most once per window; [`Ecn::Off`] ignores it.
//!
//! **Receiver** ([`TcpReceiver`], per flow): cumulative ACKs, one per data segment (no delayed
//! ACK), out-of-order segments kept; each ACK echoes the CE mark of the segment it answers (ECE),
//! which is exact for DCTCP's F with one ACK per segment. ACKs are [`ACK_BYTES`] long and travel
//! back through the network on the flow's priority.
//!
//! A flow is complete when its receiver holds every byte (the FCT is taken there, as for the
//! open-loop senders).

use std::collections::BTreeMap;

/// An ACK's size on the wire before preamble and gap: a minimum Ethernet frame.
pub const ACK_BYTES: u16 = 64;

/// The sender's reaction to ECN echoes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecn {
    /// DCTCP: cut in proportion to the fraction of marked bytes.
    Dctcp,
    /// RFC 3168: halve once per window.
    Classic,
    /// Ignore ECE.
    Off,
}

impl Ecn {
    pub fn parse(s: &str) -> Option<Ecn> {
        match s {
            "dctcp" => Some(Ecn::Dctcp),
            "classic" => Some(Ecn::Classic),
            "off" => Some(Ecn::Off),
            _ => None,
        }
    }
}

/// The transport's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpConfig {
    /// Bytes of payload per segment (the switches' MTU).
    pub mss: u32,
    /// Initial congestion window, segments.
    pub init_cwnd: u32,
    /// Initial (and least) retransmission timeout, cycles.
    pub rto: u64,
    pub ecn: Ecn,
    /// ECN marking threshold of every egress queue, bytes (None: no marking).
    pub ecn_threshold: Option<u32>,
    /// Duplicate ACKs that start a fast retransmit (None: never; for routing that spreads one
    /// flow's packets over several paths, whose reordering would look like loss, as DeTail does).
    pub dupack_threshold: Option<u32>,
}

impl TcpConfig {
    /// The paper's: TCP with ECN marked at 20 KB, DCTCP's reaction, 1500-byte segments, an initial
    /// window of 10 segments (RFC 6928), the given retransmission timeout.
    pub fn paper(rto: u64) -> TcpConfig {
        TcpConfig {
            mss: 1500,
            init_cwnd: 10,
            rto,
            ecn: Ecn::Dctcp,
            ecn_threshold: Some(20 * 1024),
            dupack_threshold: Some(3),
        }
    }
}

/// One flow's sender.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpSender {
    size: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Highest sequence sent + 1.
    high: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u32,
    /// In recovery until `snd_una` reaches this.
    recover: Option<u64>,
    /// A segment to send again before new data.
    rtx: Option<u64>,
    rto: u64,
    /// When the retransmission timer fires (None: nothing outstanding).
    pub rto_at: Option<u64>,
    pub alpha: f64,
    /// DCTCP's window: it ends when `snd_una` passes `win_end`.
    win_end: u64,
    win_acked: u64,
    win_marked: u64,
    /// Classic ECN: no further cut until `snd_una` passes this.
    cwr_until: u64,
    /// Counts, for the statistics.
    pub timeouts: u32,
    pub fast_retransmits: u32,
    pub ecn_cuts: u32,
}

impl TcpSender {
    pub fn new(size: u64, cfg: &TcpConfig) -> TcpSender {
        TcpSender {
            size,
            snd_una: 0,
            snd_nxt: 0,
            high: 0,
            cwnd: f64::from(cfg.init_cwnd.max(1) * cfg.mss),
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recover: None,
            rtx: None,
            rto: cfg.rto,
            rto_at: None,
            alpha: 1.0,
            win_end: 0,
            win_acked: 0,
            win_marked: 0,
            cwr_until: 0,
            timeouts: 0,
            fast_retransmits: 0,
            ecn_cuts: 0,
        }
    }

    /// Every byte acknowledged.
    pub fn done(&self) -> bool {
        self.snd_una >= self.size
    }

    fn seg_len(&self, seq: u64, mss: u32) -> u64 {
        (self.size - seq).min(u64::from(mss))
    }

    /// The segment the window lets go now, if any: (sequence, length).
    pub fn next_segment(&self, cfg: &TcpConfig) -> Option<(u64, u64)> {
        if let Some(r) = self.rtx {
            return Some((r, self.seg_len(r, cfg.mss)));
        }
        if self.snd_nxt >= self.size {
            return None;
        }
        let len = self.seg_len(self.snd_nxt, cfg.mss);
        let flight = self.snd_nxt - self.snd_una;
        // At least one segment may always be in flight.
        (flight == 0 || (flight + len) as f64 <= self.cwnd).then_some((self.snd_nxt, len))
    }

    /// The segment [`TcpSender::next_segment`] gave went on the wire in cycle `now`.
    pub fn sent(&mut self, now: u64, seq: u64, len: u64) {
        if self.rtx == Some(seq) {
            self.rtx = None;
        } else {
            debug_assert_eq!(seq, self.snd_nxt);
            self.snd_nxt = seq + len;
        }
        self.high = self.high.max(seq + len);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto);
        }
    }

    /// An ACK of everything below `ack` arrived in cycle `now`; `ece` echoes a CE mark.
    pub fn on_ack(&mut self, now: u64, ack: u64, ece: bool, cfg: &TcpConfig) {
        let mss = f64::from(cfg.mss);
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.dupacks = 0;
            self.ecn_window(acked, ece, cfg);
            match self.recover {
                Some(r) if ack < r => {
                    // Partial ACK: the next hole goes again; deflate by what was acked.
                    self.rtx = Some(ack);
                    self.cwnd = (self.cwnd - acked as f64 + mss).max(mss);
                }
                Some(_) => {
                    self.recover = None;
                    self.cwnd = self.ssthresh;
                }
                None => {
                    if self.cwnd < self.ssthresh {
                        self.cwnd += acked as f64;
                    } else {
                        self.cwnd += mss * acked as f64 / self.cwnd;
                    }
                }
            }
            if self.rtx.is_some_and(|r| r < self.snd_una) {
                self.rtx = None;
            }
            self.rto_at = (!self.done() && self.high > self.snd_una).then_some(now + self.rto);
            self.rto = cfg.rto;
        } else if ack == self.snd_una && self.high > self.snd_una {
            self.ecn_window(0, ece, cfg);
            self.dupacks += 1;
            if self.recover.is_some() {
                self.cwnd += mss;
            } else if cfg.dupack_threshold == Some(self.dupacks) {
                let flight = (self.high - self.snd_una) as f64;
                self.ssthresh = (flight / 2.0).max(2.0 * mss);
                self.cwnd = self.ssthresh + 3.0 * mss;
                self.recover = Some(self.high);
                self.rtx = Some(self.snd_una);
                self.fast_retransmits += 1;
            }
        }
    }

    /// DCTCP's per-window fraction and cut, or the classic halving.
    fn ecn_window(&mut self, acked: u64, ece: bool, cfg: &TcpConfig) {
        let mss = f64::from(cfg.mss);
        match cfg.ecn {
            Ecn::Off => {}
            Ecn::Classic => {
                if ece && (self.snd_una > self.cwr_until || self.ecn_cuts == 0) {
                    self.ssthresh = (self.cwnd / 2.0).max(2.0 * mss);
                    self.cwnd = self.ssthresh;
                    self.cwr_until = self.high.max(self.snd_una + 1);
                    self.ecn_cuts += 1;
                }
            }
            Ecn::Dctcp => {
                self.win_acked += acked;
                if ece {
                    self.win_marked += acked.max(1);
                }
                if self.snd_una >= self.win_end {
                    let f = if self.win_acked > 0 {
                        (self.win_marked as f64 / self.win_acked as f64).min(1.0)
                    } else {
                        0.0
                    };
                    self.alpha = (1.0 - 1.0 / 16.0) * self.alpha + f / 16.0;
                    if self.win_marked > 0 {
                        self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(mss);
                        self.ssthresh = self.cwnd;
                        self.ecn_cuts += 1;
                    }
                    self.win_acked = 0;
                    self.win_marked = 0;
                    self.win_end = self.snd_una + self.cwnd as u64;
                }
            }
        }
    }

    /// The retransmission timer fires in cycle `now` (the caller checks `rto_at`): go back to
    /// `snd_una` with a window of one segment, and back the timer off.
    pub fn on_timeout(&mut self, now: u64, cfg: &TcpConfig) {
        let mss = f64::from(cfg.mss);
        let flight = (self.high - self.snd_una) as f64;
        self.ssthresh = (flight / 2.0).max(2.0 * mss);
        self.cwnd = mss;
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.recover = None;
        self.rtx = None;
        self.rto = (self.rto * 2).min(cfg.rto * 64);
        self.rto_at = Some(now + self.rto);
        self.timeouts += 1;
    }
}

/// One flow's receiver.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TcpReceiver {
    /// Every byte below this has arrived.
    pub rcv_nxt: u64,
    /// Segments beyond `rcv_nxt`: start → end.
    ooo: BTreeMap<u64, u64>,
}

impl TcpReceiver {
    /// A segment [seq, seq + len) arrived; returns the cumulative ACK to send.
    pub fn on_data(&mut self, seq: u64, len: u64) -> u64 {
        let end = seq + len;
        if seq <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(end);
            while let Some((&s, &e)) = self.ooo.first_key_value() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.ooo.pop_first();
            }
        } else {
            let e = self.ooo.entry(seq).or_insert(end);
            *e = (*e).max(end);
        }
        self.rcv_nxt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(ecn: Ecn) -> TcpConfig {
        TcpConfig {
            mss: 1000,
            init_cwnd: 2,
            rto: 1000,
            ecn,
            ecn_threshold: None,
            dupack_threshold: Some(3),
        }
    }

    /// Send everything the window allows at `now`; returns the segments.
    fn burst(s: &mut TcpSender, c: &TcpConfig, now: u64) -> Vec<(u64, u64)> {
        let mut v = vec![];
        while let Some((q, l)) = s.next_segment(c) {
            s.sent(now, q, l);
            v.push((q, l));
        }
        v
    }

    #[test]
    fn slow_start_doubles_the_window_each_round_trip() {
        let c = cfg(Ecn::Off);
        let mut s = TcpSender::new(1_000_000, &c);
        let mut r = TcpReceiver::default();
        let mut sizes = vec![];
        for round in 0..4 {
            let segs = burst(&mut s, &c, round * 10);
            sizes.push(segs.len());
            for (q, l) in segs {
                let a = r.on_data(q, l);
                s.on_ack(round * 10 + 5, a, false, &c);
            }
        }
        assert_eq!(sizes, vec![2, 4, 8, 16]);
    }

    #[test]
    fn three_duplicate_acks_resend_the_hole_and_halve() {
        let c = cfg(Ecn::Off);
        let mut s = TcpSender::new(100_000, &c);
        s.cwnd = 8000.0;
        let segs = burst(&mut s, &c, 0);
        assert_eq!(segs.len(), 8);
        let mut r = TcpReceiver::default();
        // Segment 1 is lost.
        for &(q, l) in segs.iter().filter(|s| s.0 != 1000) {
            let a = r.on_data(q, l);
            s.on_ack(1, a, false, &c);
        }
        assert_eq!(s.fast_retransmits, 1);
        assert_eq!(
            s.next_segment(&c),
            Some((1000, 1000)),
            "the hole goes again"
        );
        // Seven segments were in flight (segment 0 was acknowledged): half of it.
        assert!((s.ssthresh - 3500.0).abs() < 1e-9, "{}", s.ssthresh);
        s.sent(2, 1000, 1000);
        let a = r.on_data(1000, 1000);
        assert_eq!(a, 8000, "the receiver kept what came out of order");
        s.on_ack(3, a, false, &c);
        assert!(
            (s.cwnd - 3500.0).abs() < 1e-9,
            "a full ACK ends recovery at ssthresh"
        );
        assert_eq!(s.timeouts, 0);
    }

    #[test]
    fn a_timeout_goes_back_to_the_first_unacked_byte_with_one_segment() {
        let c = cfg(Ecn::Off);
        let mut s = TcpSender::new(10_000, &c);
        burst(&mut s, &c, 0);
        assert_eq!(s.rto_at, Some(1000));
        s.on_timeout(1000, &c);
        assert_eq!((s.snd_nxt, s.cwnd as u64), (0, 1000));
        assert_eq!(s.rto_at, Some(3000), "backed off to 2 rto");
        assert_eq!(burst(&mut s, &c, 1000), vec![(0, 1000)]);
    }

    #[test]
    fn dctcp_cuts_by_alpha_over_two_and_classic_halves() {
        let c = cfg(Ecn::Dctcp);
        let mut s = TcpSender::new(1_000_000, &c);
        s.cwnd = 10_000.0;
        s.ssthresh = 10_000.0;
        let mut r = TcpReceiver::default();
        // Every byte marked, window after window: alpha climbs from 1 (Linux's start) and stays.
        for _ in 0..3 {
            for (q, l) in burst(&mut s, &c, 0) {
                s.on_ack(1, r.on_data(q, l), true, &c);
            }
        }
        assert!((s.alpha - 1.0).abs() < 1e-9);
        assert!(s.ecn_cuts >= 2);
        // No marks from now: the first ACK closes the last marked window (one more cut), then alpha
        // decays by 15/16 a window and the window is not cut.
        for (q, l) in burst(&mut s, &c, 2) {
            s.on_ack(3, r.on_data(q, l), false, &c);
        }
        let (a0, cuts) = (s.alpha, s.ecn_cuts);
        for (q, l) in burst(&mut s, &c, 4) {
            s.on_ack(5, r.on_data(q, l), false, &c);
        }
        assert!(s.alpha < a0 && s.alpha > 0.8, "{}", s.alpha);
        assert_eq!(s.ecn_cuts, cuts);

        let c = cfg(Ecn::Classic);
        let mut s = TcpSender::new(1_000_000, &c);
        s.cwnd = 8000.0;
        let mut r = TcpReceiver::default();
        for (q, l) in burst(&mut s, &c, 0) {
            s.on_ack(1, r.on_data(q, l), true, &c);
        }
        assert_eq!(s.ecn_cuts, 1, "once per window");
    }
}
