//! The environment's side of the v3 block's lanes (`docs/microarchitecture.md`, "Lanes:
//! handshakes instead of every cycle" and "Fixed latency"): what a switch, a golden-vector
//! generator or a REPL puts between its events and [`super::top::Top`]'s ports.
//!
//! Each lane (an arrival per input port, the departure lane, the enqueue lane, a dequeue per
//! output port) is offered from a FIFO of the user's events and held, unchanged, until the block
//! takes it (valid and its port's slot ready, `arr_ready` or `deq_ready`, at a rising edge: the
//! departure lane on `arr_ready[dep_port]`, the enqueue lane on `deq_ready[enq_oport]`); the
//! next event of that FIFO is offered from the following cycle. An arrival or an enqueue taken in cycle t is answered by `arr_accept[i]` or
//! `enq_accept` in cycle t + [`ACCEPT_LATENCY`]; a departure or a dequeue needs no answer. Every
//! event carries the user's tag `T` (a packet, say), which comes back with its answer.
//!
//! One cycle is [`Lanes::drive`] (the lanes into the block's inputs), the block's cycle, then
//! [`Lanes::settle`] with its outputs (the takes of this cycle, the answers due in it).

use super::top::{TopIn, TopOut};
use crate::error::{LaneError, SnapshotError};
use std::collections::VecDeque;

/// Cycles from a take to its accept.
pub const ACCEPT_LATENCY: u64 = 4;

/// An event for a lane, one type for what a lane carries wherever it is driven or judged (the
/// checker's lane event too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Lane {
    /// `size` bytes arrive at ingress (port, prio); answered by an accept.
    Arrive { port: usize, prio: usize, size: u32 },
    /// A packet leaves ingress (port, prio) into the pipeline.
    Depart { port: usize, prio: usize, size: u32 },
    /// A packet from `iport` asks for egress queue (oport, prio); answered by an accept.
    Enqueue {
        oport: usize,
        prio: usize,
        iport: usize,
        size: u32,
    },
    /// A packet leaves egress queue (oport, prio).
    Dequeue {
        oport: usize,
        prio: usize,
        size: u32,
    },
}

impl Lane {
    /// An event the block answers (an arrival or an enqueue, by an accept).
    pub fn answered(&self) -> bool {
        matches!(self, Lane::Arrive { .. } | Lane::Enqueue { .. })
    }

    /// An event that takes bytes out (a departure or a dequeue).
    pub fn removes(&self) -> bool {
        matches!(self, Lane::Depart { .. } | Lane::Dequeue { .. })
    }
}

impl std::fmt::Display for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Lane::Arrive { port, prio, size } => write!(f, "arr{port}(p{prio} {size}B)"),
            Lane::Depart { port, prio, size } => write!(f, "dep(port{port} p{prio} {size}B)"),
            Lane::Enqueue {
                oport,
                prio,
                iport,
                size,
            } => write!(f, "enq(o{oport} p{prio} i{iport} {size}B)"),
            Lane::Dequeue { oport, prio, size } => write!(f, "deq{oport}(p{prio} {size}B)"),
        }
    }
}

/// What became of an event.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Answer<T> {
    /// an arrival or an enqueue, answered `ACCEPT_LATENCY` cycles after its take
    Accept { lane: Lane, tag: T, accepted: bool },
    /// a departure or a dequeue, taken
    Taken { lane: Lane, tag: T },
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lanes<T> {
    np: usize,
    arr: Vec<VecDeque<(Lane, T)>>,
    deq: Vec<VecDeque<(Lane, T)>>,
    dep: VecDeque<(Lane, T)>,
    enq: VecDeque<(Lane, T)>,
    /// taken, waiting for their accept: (the cycle it is due, the event, its tag)
    due: VecDeque<(u64, Lane, T)>,
}

impl<T> Lanes<T> {
    pub fn new(np: usize) -> Self {
        Lanes {
            np,
            arr: (0..np).map(|_| VecDeque::new()).collect(),
            deq: (0..np).map(|_| VecDeque::new()).collect(),
            dep: VecDeque::new(),
            enq: VecDeque::new(),
            due: VecDeque::new(),
        }
    }

    /// Queue `lane` behind the events already waiting for it. A port outside the block is an
    /// error (the block would never take it).
    pub fn offer(&mut self, lane: Lane, tag: T) -> Result<(), LaneError> {
        let np = self.np;
        let bad = |what: &'static str, port: usize| Err(LaneError::Port { what, port, np });
        match lane {
            Lane::Arrive { port, .. } if port >= np => bad("arrival at", port),
            Lane::Depart { port, .. } if port >= np => bad("departure from", port),
            Lane::Enqueue { oport, .. } if oport >= np => bad("enqueue to", oport),
            Lane::Enqueue { iport, .. } if iport >= np => bad("enqueue from", iport),
            Lane::Dequeue { oport, .. } if oport >= np => bad("dequeue from", oport),
            Lane::Arrive { prio, .. }
            | Lane::Depart { prio, .. }
            | Lane::Enqueue { prio, .. }
            | Lane::Dequeue { prio, .. }
                if prio > 7 =>
            {
                Err(LaneError::Priority(prio))
            }
            Lane::Arrive { port, .. } => {
                self.arr[port].push_back((lane, tag));
                Ok(())
            }
            Lane::Dequeue { oport, .. } => {
                self.deq[oport].push_back((lane, tag));
                Ok(())
            }
            Lane::Depart { .. } => {
                self.dep.push_back((lane, tag));
                Ok(())
            }
            Lane::Enqueue { .. } => {
                self.enq.push_back((lane, tag));
                Ok(())
            }
        }
    }

    /// Lanes restored from a snapshot are lanes of an `np`-port block that [`Lanes::offer`]
    /// could have made: a FIFO per arrival and dequeue port, every event in its lane's FIFO, its
    /// ports inside the block, its priority 0 to 7; only arrivals and enqueues wait for an answer,
    /// due in cycle order.
    pub fn check(&self, np: usize) -> Result<(), SnapshotError> {
        if self.np != np || self.arr.len() != np || self.deq.len() != np {
            return Err(SnapshotError::new(
                "lanes",
                format!(
                    "{} ports, {} arrival and {} dequeue lanes; the block has {np} ports",
                    self.np,
                    self.arr.len(),
                    self.deq.len()
                ),
            ));
        }
        let mut probe = Lanes::<()>::new(np);
        let mut ok = |what: &str, lane: &Lane, fits: bool| -> Result<(), SnapshotError> {
            let at = || format!("lanes: {what}");
            probe
                .offer(*lane, ())
                .map_err(|e| SnapshotError::new(at(), e.to_string()))?;
            if fits {
                Ok(())
            } else {
                Err(SnapshotError::new(
                    at(),
                    format!("{lane:?} does not belong there"),
                ))
            }
        };
        for (i, q) in self.arr.iter().enumerate() {
            for (l, _) in q {
                ok(
                    &format!("arrival lane {i}"),
                    l,
                    matches!(*l, Lane::Arrive { port, .. } if port == i),
                )?;
            }
        }
        for (o, q) in self.deq.iter().enumerate() {
            for (l, _) in q {
                ok(
                    &format!("dequeue lane {o}"),
                    l,
                    matches!(*l, Lane::Dequeue { oport, .. } if oport == o),
                )?;
            }
        }
        for (l, _) in &self.dep {
            ok("departure lane", l, matches!(l, Lane::Depart { .. }))?;
        }
        for (l, _) in &self.enq {
            ok("enqueue lane", l, matches!(l, Lane::Enqueue { .. }))?;
        }
        for w in self.due.iter().zip(self.due.iter().skip(1)) {
            if w.0 .0 > w.1 .0 {
                return Err(SnapshotError::new(
                    "lanes",
                    format!("answers due in cycle {} before cycle {}", w.0 .0, w.1 .0),
                ));
            }
        }
        for (_, l, _) in &self.due {
            ok(
                "answers due",
                l,
                matches!(l, Lane::Arrive { .. } | Lane::Enqueue { .. }),
            )?;
        }
        Ok(())
    }

    /// Events offered or taken and not yet answered.
    pub fn pending(&self) -> usize {
        self.arr.iter().map(VecDeque::len).sum::<usize>()
            + self.deq.iter().map(VecDeque::len).sum::<usize>()
            + self.dep.len()
            + self.enq.len()
            + self.due.len()
    }

    /// Events taken and not yet answered (arrivals and enqueues, until their accept).
    pub fn in_flight(&self) -> usize {
        self.due.len()
    }

    /// Nothing taken and waiting for its answer, and no event offered at a port whose slot is
    /// up (`up(ingress, port)`: the arrivals and the departure wait for the ingress's slots, the
    /// dequeues and the enqueue for the egress's): a cycle in which the lanes take nothing.
    pub fn take_none(&self, up: impl Fn(bool, usize) -> bool) -> bool {
        let front_port = |q: &VecDeque<(Lane, T)>| match q.front() {
            Some((Lane::Depart { port, .. }, _)) => Some(*port),
            Some((Lane::Enqueue { oport, .. }, _)) => Some(*oport),
            _ => None,
        };
        self.due.is_empty()
            && (0..self.np).all(|i| {
                (self.arr[i].is_empty() || !up(true, i))
                    && (self.deq[i].is_empty() || !up(false, i))
            })
            && front_port(&self.dep).is_none_or(|o| !up(true, o))
            && front_port(&self.enq).is_none_or(|o| !up(false, o))
    }

    /// The events at the front of their lanes, each as (waits for an ingress slot, the port
    /// whose slot takes it): the arrivals and the departure the ingress's, the dequeues and the
    /// enqueue the egress's ([`Lanes::take_none`]).
    pub fn fronts(&self, mut f: impl FnMut(bool, usize)) {
        for i in 0..self.np {
            if !self.arr[i].is_empty() {
                f(true, i);
            }
            if !self.deq[i].is_empty() {
                f(false, i);
            }
        }
        if let Some((Lane::Depart { port, .. }, _)) = self.dep.front() {
            f(true, *port);
        }
        if let Some((Lane::Enqueue { oport, .. }, _)) = self.enq.front() {
            f(false, *oport);
        }
    }

    /// The lanes of this cycle into `inp` (every lane's valid and fields; the rest of `inp` is
    /// left as it is). `inp`'s per-port vectors must have the block's ports.
    pub fn drive(&self, inp: &mut TopIn) {
        for i in 0..self.np {
            inp.arr_valid[i] = false;
            if let Some(&(Lane::Arrive { prio, size, .. }, _)) = self.arr[i].front() {
                inp.arr_valid[i] = true;
                inp.arr_prio[i] = prio as u8;
                inp.arr_size[i] = size.into();
            }
            inp.deq_valid[i] = false;
            if let Some(&(Lane::Dequeue { prio, size, .. }, _)) = self.deq[i].front() {
                inp.deq_valid[i] = true;
                inp.deq_prio[i] = prio as u8;
                inp.deq_size[i] = size.into();
            }
        }
        inp.dep_valid = false;
        if let Some(&(Lane::Depart { port, prio, size }, _)) = self.dep.front() {
            inp.dep_valid = true;
            inp.dep_port = port as u64;
            inp.dep_prio = prio as u8;
            inp.dep_size = size.into();
        }
        inp.enq_valid = false;
        if let Some(&(
            Lane::Enqueue {
                oport,
                prio,
                iport,
                size,
            },
            _,
        )) = self.enq.front()
        {
            inp.enq_valid = true;
            inp.enq_oport = oport as u64;
            inp.enq_prio = prio as u8;
            inp.enq_iport = iport as u64;
            inp.enq_size = size.into();
        }
    }

    /// After the block's cycle `t` (driven by [`Lanes::drive`]) with outputs `out`: the
    /// answers due in `t` (their accepts are in `out`), then this cycle's takes (each lane
    /// valid and ready), appended to `answers` in that order. A reset (`rst` in `t`) drops
    /// every event taken and due after `t`, answering none of them (the block forgets them),
    /// and takes no lane: the events still offered wait for the lanes to be ready again.
    pub fn settle(&mut self, t: u64, rst: bool, out: &TopOut, answers: &mut Vec<Answer<T>>) {
        while self.due.front().is_some_and(|d| d.0 == t) {
            let (_, lane, tag) = self.due.pop_front().expect("checked");
            let accepted = match lane {
                Lane::Arrive { port, .. } => out.arr_accept[port],
                _ => out.enq_accept,
            };
            answers.push(Answer::Accept {
                lane,
                tag,
                accepted,
            });
        }
        if rst {
            // (the answers due in t are in t's outputs; the later ones are lost, and no lane is
            // taken in a reset cycle)
            self.due.clear();
            return;
        }
        for i in 0..self.np {
            if !self.arr[i].is_empty() && out.arr_ready[i] {
                let (lane, tag) = self.arr[i].pop_front().expect("checked");
                self.due.push_back((t + ACCEPT_LATENCY, lane, tag));
            }
            if !self.deq[i].is_empty() && out.deq_ready[i] {
                let (lane, tag) = self.deq[i].pop_front().expect("checked");
                answers.push(Answer::Taken { lane, tag });
            }
        }
        // (the shared lanes have no ready of their own: each is taken on its port's slot ready)
        let port = |l: &Lane| match *l {
            Lane::Depart { port, .. } => port,
            Lane::Enqueue { oport, .. } => oport,
            _ => unreachable!("a shared lane"),
        };
        if self
            .dep
            .front()
            .is_some_and(|(l, _)| out.arr_ready[port(l)])
        {
            let (lane, tag) = self.dep.pop_front().expect("checked");
            answers.push(Answer::Taken { lane, tag });
        }
        if self
            .enq
            .front()
            .is_some_and(|(l, _)| out.deq_ready[port(l)])
        {
            let (lane, tag) = self.enq.pop_front().expect("checked");
            self.due.push_back((t + ACCEPT_LATENCY, lane, tag));
        }
    }
}
