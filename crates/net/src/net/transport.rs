//! A window-based, TCP-like transport for the network's hosts: what makes flow
//! completion times honest when the network is congested, as in the paper's runs (TCP with ECN
//! marked at 20 KB). Two presets: [`TcpConfig::paper`], the Linux TCP the paper's simulator ran
//! (NSC embeds a Linux 2.6.26 stack: CUBIC, RFC 3168 ECN, delayed ACKs, a 200 ms minimum
//! retransmission timeout), and [`TcpConfig::dctcp`], DCTCP's reaction to ECN, which the paper names
//! as future work. `docs/network.md` ("Transport") lists what each assumes.
//!
//! **Sender** ([`TcpSender`], per flow; sequence numbers are byte offsets in the flow, segments of
//! `mss` bytes from offset 0, the last one shorter):
//! - slow start from `init_cwnd` segments while `cwnd < ssthresh`: `cwnd += acked` bytes
//!   (appropriate byte counting, [`TcpConfig::byte_counting`]) or one `mss` per ACK that
//!   acknowledges new data (Linux 2.6.26, whose byte counting is off by default);
//! - congestion avoidance after: [`Cc::Reno`], `cwnd += mss · acked / cwnd`; [`Cc::Cubic`], the
//!   window function of Linux's `tcp_cubic.c` (v2.2: C = 0.4, beta = 717/1024, fast convergence,
//!   the TCP-friendly region), one `mss` every `cnt` ACKs, in whole segments;
//! - fast retransmit and NewReno recovery: on the third duplicate ACK (`dupack_threshold`; none
//!   under DeTail, whose per-packet spreading reorders: DeTail turns fast retransmit off and
//!   relies on PFC and the timeout), `ssthresh` cut by the congestion control (Reno: `flight / 2`;
//!   CUBIC: `cwnd · beta`; at least 2 mss), the segment at `snd_una` is sent again,
//!   `cwnd = ssthresh + 3 mss` and grows by one `mss` per further duplicate; a partial ACK (below
//!   `recover`, the highest sequence sent when recovery began) sends the next hole again; a full
//!   ACK ends recovery with `cwnd = ssthresh`;
//! - a retransmission timeout (from the last progress; doubled on each expiry, up to 64 ×): `rto`
//!   flat, or with [`TcpConfig::rto_estimated`] Linux's `srtt + rto` (`rto` then plays Linux's
//!   `TCP_RTO_MIN`; srtt from one timed segment a window, Karn's rule: none across a
//!   retransmission); on expiry `ssthresh` is cut as on a loss, `cwnd = mss`, and sending resumes
//!   at `snd_una` (go back N);
//! - ECN echo, [`Ecn::Dctcp`]: per window of data (one `cwnd` of sequence space) the fraction F of
//!   acknowledged bytes whose ACK echoed CE; at the window's end `alpha = (1 - g) alpha + g F`
//!   (g = 1/16, alpha from 1 as in Linux) and, if any ACK of the window echoed CE,
//!   `cwnd = max(cwnd (1 - alpha / 2), mss)` once; [`Ecn::Classic`] (RFC 3168): on an ECE, `ssthresh`
//!   cut by the congestion control as on a loss and `cwnd = ssthresh`, at most once per window;
//!   [`Ecn::Off`] ignores it.
//!
//! **Receiver** ([`TcpReceiver`], per flow): cumulative ACKs, out-of-order segments kept. Without
//! delayed ACKs, one ACK a data segment, echoing that segment's CE mark (exact for DCTCP's F).
//! With [`DelayedAck`] (Linux's): an ACK every `every` in-order segments, at once for a segment
//! out of order, one that fills a hole or a duplicate, and for the first `quick` segments;
//! otherwise when the delayed-ACK timer fires `timeout` after the first unacknowledged segment. An
//! ACK echoes CE if any segment it covers carried CE. ACKs are [`ACK_BYTES`] long and travel back
//! through the network on the flow's priority.
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

/// The congestion control: how the window grows in congestion avoidance and how far a loss or an
/// ECN echo cuts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cc {
    /// `cwnd += mss · acked / cwnd`; a loss halves the flight.
    Reno,
    /// Linux's CUBIC (`tcp_cubic.c` v2.2, the default from Linux 2.6.19 on).
    Cubic,
}

/// Delayed ACKs (Linux's): an ACK every `every` in-order segments, or `timeout` cycles after the
/// first segment not yet acknowledged; the first `quick` segments of a flow are acknowledged at
/// once (Linux's quick-ACK mode at the start of a connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayedAck {
    pub every: u32,
    pub timeout: u64,
    pub quick: u32,
}

/// The transport's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpConfig {
    /// Bytes of payload per segment (the switches' MTU).
    pub mss: u32,
    /// Initial congestion window, segments.
    pub init_cwnd: u32,
    /// Retransmission timeout, cycles: the timeout itself, or with `rto_estimated` the least a
    /// timeout adds to the smoothed round trip.
    pub rto: u64,
    /// Linux's timeout, `srtt + rto`, from a smoothed round-trip time (else `rto` flat).
    pub rto_estimated: bool,
    pub ecn: Ecn,
    /// ECN marking threshold of every egress queue, bytes (None: no marking).
    pub ecn_threshold: Option<u32>,
    /// Duplicate ACKs that start a fast retransmit (None: never; for routing that spreads one
    /// flow's packets over several paths, whose reordering would look like loss, as DeTail does).
    pub dupack_threshold: Option<u32>,
    pub cc: Cc,
    /// Slow start by bytes acknowledged (RFC 3465) rather than by one segment per ACK.
    pub byte_counting: bool,
    /// None: an ACK for every data segment.
    pub delayed_ack: Option<DelayedAck>,
    /// Nanoseconds a cycle of the durations above (`rto`, the delayed-ACK timer), and of the
    /// clock CUBIC's window function reads; 0: the network's cycle, whatever it is. A network
    /// whose cycle differs rescales the durations to its own ([`TcpConfig::in_cycles_of`]).
    pub cycle_ns: f64,
}

/// The Linux kernel whose TCP defaults [`TcpConfig::paper`] takes: 2.6.26, the newest stack the
/// Network Simulation Cradle (NSC 0.5) embeds in ns-3, which the paper ran.
pub const PAPER_KERNEL: &str = "Linux 2.6.26 (NSC 0.5)";

impl TcpConfig {
    /// The paper's transport: unmodified Linux TCP as NSC runs it ([`PAPER_KERNEL`]), with RFC 3168
    /// ECN marked at 20 KB (the paper: "ECN is implemented using NSC's TCP stack. ECN threshold is
    /// set to 20KB"). The paper gives nothing more; these are the kernel's defaults, assumed:
    /// CUBIC; an initial window of 3 segments (RFC 3390 for a 1460-byte MSS); slow start by one
    /// segment an ACK (`tcp_abc` = 0); delayed ACKs every second segment, a 40 ms timer
    /// (`TCP_DELACK_MIN`), two quick ACKs at the start; a timeout of srtt + 200 ms
    /// (`TCP_RTO_MIN`); 1500-byte segments (the switches' MTU, as every preset here). Not
    /// modelled: SACK (NewReno recovery), the three-way handshake, rate-halving after an ECN
    /// echo (the window drops to ssthresh at once), ECE held until CWR.
    pub fn paper(cycle_ns: f64) -> TcpConfig {
        let ms = |m: f64| (m * 1e6 / cycle_ns).round() as u64;
        TcpConfig {
            mss: 1500,
            init_cwnd: 3,
            rto: ms(200.0),
            rto_estimated: true,
            ecn: Ecn::Classic,
            ecn_threshold: Some(20 * 1024),
            dupack_threshold: Some(3),
            cc: Cc::Cubic,
            byte_counting: false,
            delayed_ack: Some(DelayedAck {
                every: 2,
                timeout: ms(40.0),
                quick: 2,
            }),
            cycle_ns,
        }
    }

    /// The same durations in cycles of `cycle_ns` nanoseconds.
    pub fn in_cycles_of(mut self, cycle_ns: f64) -> TcpConfig {
        if self.cycle_ns > 0.0 && self.cycle_ns != cycle_ns {
            let k = self.cycle_ns / cycle_ns;
            self.rto = (self.rto as f64 * k).round() as u64;
            if let Some(d) = &mut self.delayed_ack {
                d.timeout = (d.timeout as f64 * k).round() as u64;
            }
        }
        self.cycle_ns = cycle_ns;
        self
    }

    /// DCTCP (not the paper's transport: its future work): ECN marked at 20 KB, DCTCP's reaction,
    /// Reno's growth by bytes acknowledged, an initial window of 10 segments (RFC 6928), an ACK a
    /// segment, and the given retransmission timeout flat, in the network's cycles.
    pub fn dctcp(rto: u64) -> TcpConfig {
        TcpConfig {
            mss: 1500,
            init_cwnd: 10,
            rto,
            rto_estimated: false,
            ecn: Ecn::Dctcp,
            ecn_threshold: Some(20 * 1024),
            dupack_threshold: Some(3),
            cc: Cc::Reno,
            byte_counting: true,
            delayed_ack: None,
            cycle_ns: 0.0,
        }
    }
}

/// The named transports of `capfc net --transport` and a scenario's `[network] transport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// [`TcpConfig::paper`].
    Paper,
    /// [`TcpConfig::dctcp`].
    Dctcp,
    /// Open-loop senders at line rate (no transport).
    Open,
}

impl TransportKind {
    pub const NAMES: &'static str =
        "paper (Linux TCP with RFC 3168 ECN, as the paper's NSC ran), dctcp or open";

    pub fn parse(s: &str) -> Option<TransportKind> {
        match s {
            "paper" => Some(TransportKind::Paper),
            "dctcp" => Some(TransportKind::Dctcp),
            "open" => Some(TransportKind::Open),
            _ => None,
        }
    }
}

/// CUBIC's state (`struct bictcp` of Linux's `tcp_cubic.c`), windows in segments.
#[derive(Debug, Clone, Default, PartialEq)]
struct Cubic {
    /// The window before the last reduction (fast convergence lowers it).
    last_max: f64,
    /// When the current epoch began (None: at the next ACK in congestion avoidance).
    epoch: Option<u64>,
    /// The window function's origin and its time to it, seconds.
    origin: f64,
    k: f64,
    /// The TCP-friendly estimate and its ACK counter.
    tcp_cwnd: f64,
    ack_cnt: f64,
    /// ACKs counted towards the next segment of growth.
    cwnd_cnt: f64,
    /// The least round trip seen, cycles.
    delay_min: Option<u64>,
}

const CUBIC_C: f64 = 0.4;
const CUBIC_BETA: f64 = 717.0 / 1024.0;

impl Cubic {
    /// The window cut (segments) on a loss or an ECN echo, with fast convergence.
    fn cut(&mut self, cwnd: f64) -> f64 {
        self.epoch = None;
        self.last_max = if cwnd < self.last_max {
            cwnd * (1.0 + CUBIC_BETA) / 2.0
        } else {
            cwnd
        };
        (cwnd * CUBIC_BETA).max(2.0)
    }

    /// ACKs needed for the next segment of growth at window `cwnd` (segments) at cycle `now`.
    fn cnt(&mut self, cwnd: f64, now: u64, cycle_ns: f64) -> f64 {
        let epoch = *self.epoch.get_or_insert_with(|| {
            self.ack_cnt = 1.0;
            self.tcp_cwnd = cwnd;
            if self.last_max <= cwnd {
                self.k = 0.0;
                self.origin = cwnd;
            } else {
                self.k = ((self.last_max - cwnd) / CUBIC_C).cbrt();
                self.origin = self.last_max;
            }
            now
        });
        let secs = |c: u64| c as f64 * cycle_ns * 1e-9;
        let t = secs(now - epoch + self.delay_min.unwrap_or(0));
        let target = self.origin + CUBIC_C * (t - self.k).powi(3);
        let mut cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100.0 * cwnd
        };
        // the TCP-friendly region: Reno's growth with CUBIC's beta
        // Linux's beta_scale, 8 (1024 + 717) / 3 / (1024 - 717) in integers
        let delta = cwnd * 15.0 / 8.0;
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1.0;
        }
        if self.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        cnt.max(1.0)
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
    /// When the retransmission timer was last set (for the stragglers' report).
    pub rto_armed: u64,
    pub alpha: f64,
    /// DCTCP's window: it ends when `snd_una` passes `win_end`.
    win_end: u64,
    win_acked: u64,
    win_marked: u64,
    /// Classic ECN: no further cut until `snd_una` passes this.
    cwr_until: u64,
    cubic: Cubic,
    /// The segment being timed for the round trip: its end and when it was sent (Karn: dropped on
    /// a retransmission).
    timed: Option<(u64, u64)>,
    /// Smoothed round trip and its variation, cycles (RFC 6298; None before the first sample).
    pub srtt: Option<f64>,
    rttvar: f64,
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
            rto_armed: 0,
            alpha: 1.0,
            win_end: 0,
            win_acked: 0,
            win_marked: 0,
            cwr_until: 0,
            cubic: Cubic::default(),
            timed: None,
            srtt: None,
            rttvar: 0.0,
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
        if self.rtx == Some(seq) || seq + len <= self.high {
            // a retransmission: Karn's rule, no round trip measured across it
            self.timed = None;
        } else if self.timed.is_none() {
            self.timed = Some((seq + len, now));
        }
        if self.rtx == Some(seq) {
            self.rtx = None;
        } else {
            debug_assert_eq!(seq, self.snd_nxt);
            self.snd_nxt = seq + len;
        }
        self.high = self.high.max(seq + len);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto);
            self.rto_armed = now;
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
            self.sample_rtt(now, ack);
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
                None => self.grow(now, acked, cfg),
            }
            if self.rtx.is_some_and(|r| r < self.snd_una) {
                self.rtx = None;
            }
            self.rto_at = (!self.done() && self.high > self.snd_una).then_some(now + self.rto);
            self.rto_armed = now;
            self.rto = self.base_rto(cfg);
        } else if ack == self.snd_una && self.high > self.snd_una {
            self.ecn_window(0, ece, cfg);
            self.dupacks += 1;
            if self.recover.is_some() {
                self.cwnd += mss;
            } else if cfg.dupack_threshold == Some(self.dupacks) {
                self.ssthresh = self.cut(cfg);
                self.cwnd = self.ssthresh + 3.0 * mss;
                self.recover = Some(self.high);
                self.rtx = Some(self.snd_una);
                self.fast_retransmits += 1;
            }
        }
    }

    /// The window's growth on an ACK of `acked` new bytes outside recovery.
    fn grow(&mut self, now: u64, acked: u64, cfg: &TcpConfig) {
        let mss = f64::from(cfg.mss);
        if self.cwnd < self.ssthresh {
            self.cwnd += if cfg.byte_counting { acked as f64 } else { mss };
            return;
        }
        match cfg.cc {
            Cc::Reno => self.cwnd += mss * acked as f64 / self.cwnd,
            Cc::Cubic => {
                let w = (self.cwnd / mss).floor().max(1.0);
                let segs = (acked as f64 / mss).ceil().max(1.0);
                self.cubic.ack_cnt += segs;
                let cnt = self.cubic.cnt(w, now, cfg.cycle_ns);
                self.cubic.cwnd_cnt += segs;
                if self.cubic.cwnd_cnt >= cnt {
                    self.cubic.cwnd_cnt = 0.0;
                    self.cwnd = (w + 1.0) * mss;
                }
            }
        }
    }

    /// The slow-start threshold after a loss or an ECN echo, bytes.
    fn cut(&mut self, cfg: &TcpConfig) -> f64 {
        let mss = f64::from(cfg.mss);
        match cfg.cc {
            Cc::Reno => {
                let flight = (self.high - self.snd_una) as f64;
                (flight / 2.0).max(2.0 * mss)
            }
            Cc::Cubic => self.cubic.cut((self.cwnd / mss).floor().max(1.0)) * mss,
        }
    }

    /// A round-trip sample when the timed segment is acknowledged (RFC 6298's estimator).
    fn sample_rtt(&mut self, now: u64, ack: u64) {
        let Some((_, at)) = self.timed.filter(|&(end, _)| ack >= end) else {
            return;
        };
        self.timed = None;
        let r = (now - at) as f64;
        self.cubic.delay_min = Some(self.cubic.delay_min.map_or(now - at, |d| d.min(now - at)));
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
    }

    /// The retransmission timeout before any backoff: `rto` flat, or Linux's srtt + `rto`.
    fn base_rto(&self, cfg: &TcpConfig) -> u64 {
        if cfg.rto_estimated {
            cfg.rto + self.srtt.unwrap_or(0.0).round() as u64
        } else {
            cfg.rto
        }
    }

    /// DCTCP's per-window fraction and cut, or the classic halving.
    fn ecn_window(&mut self, acked: u64, ece: bool, cfg: &TcpConfig) {
        let mss = f64::from(cfg.mss);
        match cfg.ecn {
            Ecn::Off => {}
            Ecn::Classic => {
                if ece && (self.snd_una > self.cwr_until || self.ecn_cuts == 0) {
                    self.ssthresh = match cfg.cc {
                        Cc::Reno => (self.cwnd / 2.0).max(2.0 * mss),
                        Cc::Cubic => self.cubic.cut((self.cwnd / mss).floor().max(1.0)) * mss,
                    };
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
        self.ssthresh = self.cut(cfg);
        self.cwnd = mss;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.recover = None;
        self.rtx = None;
        self.rto = (self.rto * 2).min(self.base_rto(cfg) * 64);
        self.rto_at = Some(now + self.rto);
        self.rto_armed = now;
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
    /// Delayed ACKs: segments since the last ACK, whether one of them carried CE, when the first
    /// of them arrived, and the segments seen in all (for the quick ACKs).
    unacked: u32,
    ce: bool,
    pub first_unacked: Option<u64>,
    segments: u32,
    /// Counts, for the statistics: ACKs sent, and of them those the delayed-ACK timer sent.
    pub acks: u32,
    pub timer_acks: u32,
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

    /// A segment arrived in cycle `now`, CE-marked or not: the ACK to send at once (cumulative
    /// sequence, ECE), or None when it waits ([`TcpReceiver::on_delack_timer`]).
    pub fn on_segment(
        &mut self,
        now: u64,
        seq: u64,
        len: u64,
        ce: bool,
        delayed: Option<&DelayedAck>,
    ) -> Option<(u64, bool)> {
        // out of order, a duplicate, or filling a hole: acknowledged at once
        let irregular = seq != self.rcv_nxt || !self.ooo.is_empty();
        self.on_data(seq, len);
        self.segments += 1;
        self.unacked += 1;
        self.ce |= ce;
        let now_ack = match delayed {
            None => true,
            Some(d) => irregular || self.segments <= d.quick || self.unacked >= d.every,
        };
        if now_ack {
            Some(self.ack_sent())
        } else {
            self.first_unacked.get_or_insert(now);
            None
        }
    }

    /// The delayed-ACK timer of a segment that arrived at `first_unacked`: at or after
    /// `first_unacked + timeout` the ACK goes (Some); None if nothing waits or it is not yet time.
    pub fn on_delack_timer(&mut self, now: u64, d: &DelayedAck) -> Option<(u64, bool)> {
        match self.first_unacked {
            Some(at) if at + d.timeout <= now => {
                self.timer_acks += 1;
                Some(self.ack_sent())
            }
            _ => None,
        }
    }

    fn ack_sent(&mut self) -> (u64, bool) {
        let ece = self.ce;
        self.acks += 1;
        self.unacked = 0;
        self.ce = false;
        self.first_unacked = None;
        (self.rcv_nxt, ece)
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
            rto_estimated: false,
            ecn,
            ecn_threshold: None,
            dupack_threshold: Some(3),
            cc: Cc::Reno,
            byte_counting: true,
            delayed_ack: None,
            cycle_ns: 8.0,
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

    /// The paper's preset: Linux's defaults as stated, its durations in the network's cycles.
    #[test]
    fn the_paper_preset_is_linux_tcp_with_classic_ecn() {
        let t = TcpConfig::paper(8.0);
        assert_eq!((t.cc, t.ecn, t.init_cwnd), (Cc::Cubic, Ecn::Classic, 3));
        assert_eq!(t.rto, 25_000_000, "200 ms of 8 ns cycles");
        assert_eq!(t.delayed_ack.unwrap().timeout, 5_000_000, "40 ms");
        let t = t.in_cycles_of(0.8);
        assert_eq!(t.rto, 250_000_000, "the same 200 ms at a 0.8 ns cycle");
        assert_eq!(t.delayed_ack.unwrap().timeout, 50_000_000);
        let d = TcpConfig::dctcp(1000).in_cycles_of(0.8);
        assert_eq!(
            (d.rto, d.cycle_ns),
            (1000, 0.8),
            "dctcp's rto is in network cycles already"
        );
    }

    /// Linux 2.6.26's slow start grows by one segment an ACK, not by the bytes it acknowledges:
    /// with an ACK every second segment the window grows by half a flight a round trip.
    #[test]
    fn slow_start_by_ack_counts_acks_not_bytes() {
        let mut c = cfg(Ecn::Off);
        c.byte_counting = false;
        let mut s = TcpSender::new(1_000_000, &c);
        s.cwnd = 4000.0;
        let segs = burst(&mut s, &c, 0);
        assert_eq!(segs.len(), 4);
        s.on_ack(5, 2000, false, &c);
        s.on_ack(5, 4000, false, &c);
        assert_eq!(
            s.cwnd, 6000.0,
            "two ACKs, two segments more (byte counting: four)"
        );
    }

    /// CUBIC cuts to beta = 717/1024 of the window and climbs back to the window before the cut
    /// K = cbrt(W_max (1 - beta) / C) seconds later, flat near it, faster beyond.
    #[test]
    fn cubic_cuts_by_beta_and_returns_to_w_max_after_k() {
        let mut c = cfg(Ecn::Off);
        c.cc = Cc::Cubic;
        c.cycle_ns = 1e6; // a cycle a millisecond
        let mss = f64::from(c.mss);
        let mut s = TcpSender::new(u64::MAX / 2, &c);
        s.cwnd = 100.0 * mss;
        s.ssthresh = s.cwnd;
        s.high = 1;
        let th = s.cut(&c);
        assert!((th / mss - 70.0).abs() < 0.1, "{}", th / mss);
        s.cwnd = th;
        s.ssthresh = th;
        let k = (100.0 * (1.0 - CUBIC_BETA) / CUBIC_C).cbrt(); // about 4.2 s
                                                               // an ACK of one segment every millisecond (a cycle) for 2 K: the window at K and after
        let mut at_k = 0.0;
        let end = (2.0 * k * 1000.0) as u64;
        for now in 1..=end {
            s.snd_una += c.mss as u64;
            s.grow(now, u64::from(c.mss), &c);
            if now == (k * 1000.0) as u64 {
                at_k = s.cwnd / mss;
            }
        }
        assert!(
            (at_k - 100.0).abs() <= 2.0,
            "at K the window is back at W_max: {at_k}"
        );
        let last = s.cwnd / mss;
        let want = 100.0 + CUBIC_C * k.powi(3);
        assert!(
            last > 105.0 && (last - want).abs() < 0.05 * want,
            "{last} vs {want}"
        );
    }

    /// Delayed ACKs: the first `quick` segments at once, then every second in-order segment; a
    /// segment out of order at once; a lone segment when the timer fires; CE of any covered
    /// segment echoed.
    #[test]
    fn delayed_acks_every_second_segment_or_on_the_timer() {
        let d = DelayedAck {
            every: 2,
            timeout: 40,
            quick: 2,
        };
        let mut r = TcpReceiver::default();
        let mut acks = vec![];
        for k in 0..6u64 {
            acks.push(r.on_segment(k, k * 100, 100, k == 2, Some(&d)));
        }
        assert_eq!(
            acks,
            vec![
                Some((100, false)),
                Some((200, false)),
                None,
                Some((400, true)),
                None,
                Some((600, false))
            ]
        );
        assert_eq!(r.on_segment(10, 600, 100, false, Some(&d)), None);
        assert_eq!(r.first_unacked, Some(10));
        assert_eq!(r.on_delack_timer(49, &d), None, "not yet");
        assert_eq!(r.on_delack_timer(50, &d), Some((700, false)));
        assert_eq!(r.on_delack_timer(90, &d), None, "nothing waits");
        // out of order: at once, the same cumulative ACK (a duplicate)
        assert_eq!(
            r.on_segment(91, 800, 100, false, Some(&d)),
            Some((700, false))
        );
        // the hole filled: at once
        assert_eq!(
            r.on_segment(92, 700, 100, false, Some(&d)),
            Some((900, false))
        );
    }

    /// Linux's timeout: the smoothed round trip plus the minimum, Karn's rule for samples.
    #[test]
    fn the_estimated_timeout_is_srtt_plus_the_minimum() {
        let mut c = cfg(Ecn::Off);
        c.rto_estimated = true;
        let mut s = TcpSender::new(1_000_000, &c);
        burst(&mut s, &c, 0);
        s.on_ack(300, 1000, false, &c);
        assert_eq!(s.srtt, Some(300.0));
        assert_eq!(
            s.rto_at,
            Some(300 + 1000),
            "armed with the rto before the sample"
        );
        burst(&mut s, &c, 300);
        s.on_ack(600, 2000, false, &c);
        assert_eq!(s.rto_at, Some(600 + 1300), "srtt + rto");
        // a timeout: no sample across the retransmission
        s.on_timeout(5000, &c);
        let before = s.srtt;
        burst(&mut s, &c, 5000);
        s.on_ack(9000, 3000, false, &c);
        assert_eq!(
            s.srtt, before,
            "Karn: the retransmitted segment is not timed"
        );
    }
}
