//! The command language of `capfc step`: commands, the conditions of `break` and `run until`, and
//! the values of `print` and `watch`. Words separated by blanks; `#` starts a comment.

use std::fmt;

/// A comparison of an occupancy with a number of bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    pub fn test(self, a: u64, b: u64) -> bool {
        match self {
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Lt => a < b,
            Op::Le => a <= b,
        }
    }
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "<" => Op::Lt,
            "<=" => Op::Le,
            _ => return None,
        })
    }
    fn sym(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
}

/// Which way a PFC frame goes for the conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// Any frame.
    Any,
    /// A frame pausing the priority (quanta > 0).
    Xoff,
    /// A frame resuming it (quanta 0).
    Xon,
}

/// When `break` and `run until` stop: checked after every cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// The cycle count reaches N.
    Cycle(u64),
    /// The block sends a PFC frame (on a port, naming a priority).
    Pfc {
        kind: FrameKind,
        port: Option<usize>,
        prio: Option<u8>,
    },
    /// A packet is dropped (at egress MAX, at ingress MAX, or either).
    Drop(Option<DropKind>),
    /// The model and the RTL differ (`--dut both`).
    Mismatch,
    /// An occupancy register crosses a value: true on the cycle the comparison becomes true.
    Occ {
        side: Side,
        port: usize,
        prio: u8,
        op: Op,
        bytes: u64,
    },
    /// Every flow has completed.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropKind {
    Egress,
    Ingress,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Ingress,
    Egress,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Ingress => "ingress",
            Side::Egress => "egress",
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Cycle(n) => write!(f, "cycle {n}"),
            Cond::Pfc { kind, port, prio } => {
                let k = match kind {
                    FrameKind::Any => "pfc",
                    FrameKind::Xoff => "xoff",
                    FrameKind::Xon => "xon",
                };
                write!(f, "{k}")?;
                if let Some(p) = port {
                    write!(f, " port {p}")?;
                }
                if let Some(q) = prio {
                    write!(f, " prio {q}")?;
                }
                Ok(())
            }
            Cond::Drop(None) => write!(f, "drop"),
            Cond::Drop(Some(DropKind::Egress)) => write!(f, "drop egress"),
            Cond::Drop(Some(DropKind::Ingress)) => write!(f, "drop ingress"),
            Cond::Mismatch => write!(f, "mismatch"),
            Cond::Occ {
                side,
                port,
                prio,
                op,
                bytes,
            } => write!(f, "{} {port} {prio} {} {bytes}", side.name(), op.sym()),
            Cond::Done => write!(f, "done"),
        }
    }
}

/// A value that `print` shows and `watch` follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Cycle,
    /// The block's occupancy register of an ingress (port, prio) or egress queue, bytes.
    Occ(Side, usize, u8),
    /// D of a port: the priorities paused.
    D(usize),
    /// I of a port: the priorities over ingress XOFF.
    I(usize),
    /// E of egress queue (port, prio): the inputs it pauses.
    E(usize, u8),
    /// The arrival counters of egress queue (port, prio), per input (0 where not valid).
    C(usize, u8),
    /// The priorities the sender of a port has paused.
    Paused(usize),
    /// Bytes in the ingress FIFO of a port.
    Fifo(usize),
    /// Bytes in the traffic manager's queue (port, prio).
    Queue(usize, u8),
    /// The sort unit's registers.
    Sort,
    /// An architectural register by its RTL name, one element (`u_egress.e_q[3]`).
    Reg(String, usize),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Cycle => write!(f, "cycle"),
            Value::Occ(s, o, p) => write!(f, "{} {o} {p}", s.name()),
            Value::D(i) => write!(f, "D {i}"),
            Value::I(i) => write!(f, "I {i}"),
            Value::E(o, p) => write!(f, "E {o} {p}"),
            Value::C(o, p) => write!(f, "C {o} {p}"),
            Value::Paused(i) => write!(f, "paused {i}"),
            Value::Fifo(i) => write!(f, "fifo {i}"),
            Value::Queue(o, p) => write!(f, "queue {o} {p}"),
            Value::Sort => write!(f, "sort"),
            Value::Reg(n, k) => write!(f, "reg {n}[{k}]"),
        }
    }
}

/// What `print` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Show {
    /// One value.
    Value(Value),
    /// Ingress of every port, or one.
    Ingress(Option<usize>),
    /// Egress of every port, or one.
    Egress(Option<usize>),
    /// The E matrix of every priority with a bit set, or of one priority.
    EMatrix(Option<u8>),
    /// I and D of every port.
    Id,
    Pipe,
    Sort,
    Pfc,
    Flows,
    Stats,
    Cfg,
    Summary,
    /// The block's input lanes and outputs of the last cycle.
    Lanes,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poke {
    /// A new flow starting now.
    Packet {
        src: usize,
        dst: usize,
        prio: u8,
        bytes: u64,
    },
    /// The downstream receiver of an output pauses a priority.
    Pause { port: usize, prio: u8, cycles: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Info {
    Breaks,
    Snapshots,
    Scenario,
}

/// One command of `capfc step`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Step(u64),
    Run(Option<Cond>),
    Break(Cond),
    Watch(Value),
    Delete(Option<u32>),
    Info(Info),
    Print(Show),
    Poke(Poke),
    Snapshot(Option<String>),
    Restore(String),
    Back(u64),
    Source(String),
    /// Start writing the block's waveform to a file, or stop (None).
    Wave(Option<String>),
    Help(Option<String>),
    Quit,
    /// A blank line or a comment.
    Nothing,
}

/// The commands, their syntax, what they do and an example: `help` prints these.
pub const HELP: &[(&str, &str, &str, &str)] = &[
    ("step", "step [N]", "advance N cycles (1); stops early at a breakpoint", "step 100"),
    ("run", "run [until COND | for N]", "advance until a breakpoint, COND, the end of every flow, the scenario's cycle limit or a mismatch", "run until xoff port 1"),
    ("break", "break COND", "stop `step` and `run` whenever COND holds after a cycle", "break egress 0 3 >= 25000"),
    ("watch", "watch VALUE", "print VALUE whenever it changes while stepping", "watch E 0 3"),
    ("delete", "delete ID | delete all", "remove a breakpoint or watch", "delete 1"),
    ("info", "info breaks | info snapshots | info scenario", "list breakpoints and watches, snapshots, or the scenario", "info breaks"),
    ("print", "print WHAT", "show a unit or a value (see `help print`)", "print E 3"),
    ("poke", "poke packet SRC DST PRIO BYTES | poke pause PORT PRIO CYCLES", "inject a new flow starting now, or have the receiver behind an output pause a priority", "poke packet 5 0 3 1500"),
    ("snapshot", "snapshot [NAME | FILE.json]", "save the whole state (switch and block) in memory under NAME (s1, s2, ...) or to a JSON file", "snapshot before-xoff"),
    ("restore", "restore NAME | FILE.json", "go to a saved state; stepping on gives what stepping from there gave", "restore before-xoff"),
    ("back", "back [N]", "go back N cycles (1), from the snapshots taken every --back-every cycles; undoes pokes made since", "back 100"),
    ("wave", "wave FILE.vcd | wave off", "write the block's waveform from now on under the RTL's signal names (--dut both: FILE_model.vcd and FILE_rtl.vcd, side by side in GTKWave); back and restore stop it", "wave pause.vcd"),
    ("source", "source FILE", "run the commands of a file", "source session.cmds"),
    ("help", "help [COMMAND]", "this list, or one command", "help run"),
    ("quit", "quit", "leave (also: exit, Ctrl-D)", "quit"),
];

/// `help print` and `help break`.
pub const HELP_PRINT: &str = "\
print WHAT, WHAT one of:
  summary              cycle, flows done, drops, PFC frames, what is paused
  ingress [PORT]       the block's ingress occupancy per priority, I, the FIFO and the sender
  egress [PORT]        the block's egress occupancy per priority, E, the traffic manager's queues
  E [PRIO]             the E matrix: rows egress port, columns input port (every priority with a bit set, or PRIO)
  C PORT PRIO          the arrival counters of egress queue (PORT, PRIO), per input, with valid bits
  ID                   I and D of every port
  pipe                 the packets in the pipeline, the next to reach its end first
  sort                 the contributor sort unit: pending queues, the queue being sorted, its values
  pfc                  the PFC generator (D signalled, refresh timers), frames on their way, the senders' pauses
  flows                every flow: bytes sent, delivered, lost, completion time
  stats                the statistics so far, as `capfc run` reports them
  cfg                  the block's configuration registers
  lanes                the block's input lanes and outputs in the last cycle (what it was asked, what it said)
  VALUE                one value, as `watch` takes it
VALUE, one of:
  cycle | egress PORT PRIO | ingress PORT PRIO | D PORT | I PORT | E PORT PRIO | C PORT PRIO
  paused PORT | fifo PORT | queue PORT PRIO | sort | reg NAME[INDEX] (an RTL register, e.g. reg u_egress.e_q[3])
COND, one of:
  cycle N                        the cycle count reaches N
  pfc|xoff|xon [port P] [prio Q] the block sends a PFC frame (xoff: pausing, xon: resuming Q)
  drop [egress|ingress]          a packet is dropped
  egress|ingress PORT PRIO OP BYTES   an occupancy crosses BYTES (OP: > >= < <=)
  mismatch                       the model and the RTL differ (--dut both)
  done                           every flow has completed";

/// A line the REPL cannot read: what is missing, unexpected or unknown in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A word the command needs (`what`: its name, `port`, `N`, ...).
    #[error("missing {0}")]
    Missing(&'static str),
    #[error("{what}: '{word}' is not a number")]
    NotNumber { what: &'static str, word: String },
    #[error("unexpected '{0}'")]
    Unexpected(String),
    /// A command or condition used wrong: its forms (`delete ID | delete all`, ...).
    #[error("{0}")]
    Usage(&'static str),
    #[error("run {0}: expected `run`, `run until COND` or `run for N`")]
    Run(String),
    #[error("drop {0}: expected egress or ingress")]
    Drop(String),
    #[error("{0} PORT PRIO OP BYTES: OP is one of > >= < <=")]
    Op(String),
    #[error("'{0}': expected NAME[INDEX]")]
    Index(String),
    #[error("unknown condition '{0}' (help print lists them)")]
    UnknownCond(String),
    #[error("unknown value '{0}' (help print lists them)")]
    UnknownValue(String),
    #[error("unknown command '{0}' (help lists the commands)")]
    UnknownCommand(String),
}

fn num<T: std::str::FromStr>(w: Option<&&str>, what: &'static str) -> Result<T, ParseError> {
    let w = w.ok_or(ParseError::Missing(what))?;
    w.parse().map_err(|_| ParseError::NotNumber {
        what,
        word: w.to_string(),
    })
}

fn opt_num<T: std::str::FromStr>(
    w: Option<&&str>,
    what: &'static str,
) -> Result<Option<T>, ParseError> {
    match w {
        None => Ok(None),
        Some(_) => num(w, what).map(Some),
    }
}

fn no_more(rest: &[&str]) -> Result<(), ParseError> {
    match rest.first() {
        None => Ok(()),
        Some(w) => Err(ParseError::Unexpected(w.to_string())),
    }
}

/// Parse a condition from its words.
pub fn parse_cond(w: &[&str]) -> Result<Cond, ParseError> {
    let Some(&head) = w.first() else {
        return Err(ParseError::Usage(
            "missing condition (help print lists them)",
        ));
    };
    let c = match head {
        "cycle" => {
            no_more(&w[2.min(w.len())..])?;
            Cond::Cycle(num(w.get(1), "cycle")?)
        }
        "pfc" | "xoff" | "xon" => {
            let kind = match head {
                "pfc" => FrameKind::Any,
                "xoff" => FrameKind::Xoff,
                _ => FrameKind::Xon,
            };
            let (mut port, mut prio) = (None, None);
            let mut k = 1;
            let mut positional = 0;
            while k < w.len() {
                match w[k] {
                    "port" => {
                        port = Some(num(w.get(k + 1), "port")?);
                        k += 2;
                    }
                    "prio" => {
                        prio = Some(num(w.get(k + 1), "prio")?);
                        k += 2;
                    }
                    _ if positional == 0 => {
                        port = Some(num(w.get(k), "port")?);
                        positional = 1;
                        k += 1;
                    }
                    _ if positional == 1 => {
                        prio = Some(num(w.get(k), "prio")?);
                        positional = 2;
                        k += 1;
                    }
                    x => return Err(ParseError::Unexpected(x.to_string())),
                }
            }
            Cond::Pfc { kind, port, prio }
        }
        "drop" => {
            let k = match w.get(1).copied() {
                None => None,
                Some("egress") => Some(DropKind::Egress),
                Some("ingress") => Some(DropKind::Ingress),
                Some(x) => return Err(ParseError::Drop(x.to_string())),
            };
            no_more(&w[2.min(w.len())..])?;
            Cond::Drop(k)
        }
        "mismatch" => {
            no_more(&w[1..])?;
            Cond::Mismatch
        }
        "done" => {
            no_more(&w[1..])?;
            Cond::Done
        }
        "egress" | "ingress" => {
            let side = if head == "egress" {
                Side::Egress
            } else {
                Side::Ingress
            };
            let port = num(w.get(1), "port")?;
            let prio = num(w.get(2), "prio")?;
            let op = w
                .get(3)
                .and_then(|o| Op::parse(o))
                .ok_or_else(|| ParseError::Op(head.to_string()))?;
            let bytes = num(w.get(4), "bytes")?;
            no_more(&w[5.min(w.len())..])?;
            Cond::Occ {
                side,
                port,
                prio,
                op,
                bytes,
            }
        }
        x => return Err(ParseError::UnknownCond(x.to_string())),
    };
    Ok(c)
}

/// Parse a value from its words.
pub fn parse_value(w: &[&str]) -> Result<Value, ParseError> {
    let Some(&head) = w.first() else {
        return Err(ParseError::Usage("missing value (help print lists them)"));
    };
    let (v, used) = match head {
        "cycle" => (Value::Cycle, 1),
        "egress" | "ingress" => {
            let s = if head == "egress" {
                Side::Egress
            } else {
                Side::Ingress
            };
            (
                Value::Occ(s, num(w.get(1), "port")?, num(w.get(2), "prio")?),
                3,
            )
        }
        "D" | "d" => (Value::D(num(w.get(1), "port")?), 2),
        "I" | "i" => (Value::I(num(w.get(1), "port")?), 2),
        "E" | "e" => (Value::E(num(w.get(1), "port")?, num(w.get(2), "prio")?), 3),
        "C" | "c" => (Value::C(num(w.get(1), "port")?, num(w.get(2), "prio")?), 3),
        "paused" => (Value::Paused(num(w.get(1), "port")?), 2),
        "fifo" => (Value::Fifo(num(w.get(1), "port")?), 2),
        "queue" => (
            Value::Queue(num(w.get(1), "port")?, num(w.get(2), "prio")?),
            3,
        ),
        "sort" => (Value::Sort, 1),
        "reg" => {
            let name = w.get(1).ok_or(ParseError::Usage(
                "missing register name (e.g. u_egress.e_q[3])",
            ))?;
            // The index is the last bracket: `u_egress.gen_port[3].u_cnt.mem[17]`.
            let (n, idx) = match name.rsplit_once('[').filter(|(_, r)| r.ends_with(']')) {
                Some((n, rest)) => {
                    let k = rest
                        .strip_suffix(']')
                        .and_then(|k| k.parse().ok())
                        .ok_or_else(|| ParseError::Index(name.to_string()))?;
                    (n.to_string(), k)
                }
                None => (name.to_string(), 0),
            };
            (Value::Reg(n, idx), 2)
        }
        x => return Err(ParseError::UnknownValue(x.to_string())),
    };
    no_more(&w[used.min(w.len())..])?;
    Ok(v)
}

fn parse_show(w: &[&str]) -> Result<Show, ParseError> {
    let Some(&head) = w.first() else {
        return Ok(Show::Summary);
    };
    let s = match (head, w.len()) {
        ("summary", 1) => Show::Summary,
        ("ingress", 1 | 2) => Show::Ingress(opt_num(w.get(1), "port")?),
        ("egress", 1 | 2) => Show::Egress(opt_num(w.get(1), "port")?),
        ("E" | "e", 1 | 2) => Show::EMatrix(opt_num(w.get(1), "prio")?),
        ("ID" | "id" | "I" | "D", 1) => Show::Id,
        ("pipe", 1) => Show::Pipe,
        ("sort", 1) => Show::Sort,
        ("pfc", 1) => Show::Pfc,
        ("flows", 1) => Show::Flows,
        ("stats", 1) => Show::Stats,
        ("cfg", 1) => Show::Cfg,
        ("lanes", 1) => Show::Lanes,
        _ => Show::Value(parse_value(w)?),
    };
    Ok(s)
}

/// Parse one line.
///
/// (Long: one arm a command, each a few lines.)
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let line = line.split('#').next().unwrap_or("");
    let w: Vec<&str> = line.split_whitespace().collect();
    let Some(&head) = w.first() else {
        return Ok(Command::Nothing);
    };
    let rest = &w[1..];
    let c = match head {
        "step" | "s" => {
            no_more(&w[2.min(w.len())..])?;
            Command::Step(opt_num(w.get(1), "N")?.unwrap_or(1))
        }
        "run" | "r" | "continue" | "c" => match rest.first().copied() {
            None => Command::Run(None),
            Some("until") => Command::Run(Some(parse_cond(&rest[1..])?)),
            Some("for") => {
                no_more(&rest[2.min(rest.len())..])?;
                Command::Step(num(rest.get(1), "N")?)
            }
            Some(x) => return Err(ParseError::Run(x.to_string())),
        },
        "break" | "b" => Command::Break(parse_cond(rest)?),
        "watch" | "w" => Command::Watch(parse_value(rest)?),
        "delete" | "d" => match rest {
            ["all"] => Command::Delete(None),
            [n] => Command::Delete(Some(num(Some(n), "ID")?)),
            [] => return Err(ParseError::Usage("delete ID | delete all")),
            [_, x, ..] => return Err(ParseError::Unexpected(x.to_string())),
        },
        "info" | "i" => match rest {
            ["breaks" | "break" | "watches" | "b"] => Command::Info(Info::Breaks),
            ["snapshots"] => Command::Info(Info::Snapshots),
            ["scenario"] => Command::Info(Info::Scenario),
            _ => {
                return Err(ParseError::Usage(
                    "info breaks | info snapshots | info scenario",
                ))
            }
        },
        "print" | "p" | "show" => Command::Print(parse_show(rest)?),
        "poke" => match rest.first().copied() {
            Some("packet") => {
                no_more(&rest[5.min(rest.len())..])?;
                Command::Poke(Poke::Packet {
                    src: num(rest.get(1), "SRC")?,
                    dst: num(rest.get(2), "DST")?,
                    prio: num(rest.get(3), "PRIO")?,
                    bytes: num(rest.get(4), "BYTES")?,
                })
            }
            Some("pause") => {
                no_more(&rest[4.min(rest.len())..])?;
                Command::Poke(Poke::Pause {
                    port: num(rest.get(1), "PORT")?,
                    prio: num(rest.get(2), "PRIO")?,
                    cycles: num(rest.get(3), "CYCLES")?,
                })
            }
            _ => {
                return Err(ParseError::Usage(
                    "poke packet SRC DST PRIO BYTES | poke pause PORT PRIO CYCLES",
                ))
            }
        },
        "snapshot" | "save" => {
            no_more(&w[2.min(w.len())..])?;
            Command::Snapshot(rest.first().map(|s| s.to_string()))
        }
        "restore" | "load" => {
            no_more(&w[2.min(w.len())..])?;
            Command::Restore(
                rest.first()
                    .ok_or(ParseError::Usage("restore NAME | FILE.json"))?
                    .to_string(),
            )
        }
        "back" => {
            no_more(&w[2.min(w.len())..])?;
            Command::Back(opt_num(w.get(1), "N")?.unwrap_or(1))
        }
        "source" => {
            no_more(&w[2.min(w.len())..])?;
            Command::Source(
                rest.first()
                    .ok_or(ParseError::Usage("source FILE"))?
                    .to_string(),
            )
        }
        "wave" => {
            no_more(&w[2.min(w.len())..])?;
            match rest.first().copied() {
                None => return Err(ParseError::Usage("wave FILE.vcd | wave off")),
                Some("off") => Command::Wave(None),
                Some(f) => Command::Wave(Some(f.to_string())),
            }
        }
        "help" | "h" | "?" => Command::Help(rest.first().map(|s| s.to_string())),
        "quit" | "q" | "exit" => Command::Quit,
        x => return Err(ParseError::UnknownCommand(x.to_string())),
    };
    Ok(c)
}

/// What may come next after `before` (the words typed so far, the last one complete), for tab
/// completion.
pub fn next_words(before: &[&str]) -> &'static [&'static str] {
    const COMMANDS: &[&str] = &[
        "step", "run", "break", "watch", "delete", "info", "print", "poke", "snapshot", "restore",
        "back", "wave", "source", "help", "quit",
    ];
    const CONDS: &[&str] = &[
        "pfc", "xoff", "xon", "drop", "egress", "ingress", "cycle", "mismatch", "done",
    ];
    const VALUES: &[&str] = &[
        "cycle", "egress", "ingress", "D", "I", "E", "C", "paused", "fifo", "queue", "sort", "reg",
    ];
    const SHOWS: &[&str] = &[
        "summary", "ingress", "egress", "E", "C", "ID", "pipe", "sort", "pfc", "flows", "stats",
        "cfg", "lanes", "cycle", "D", "I", "paused", "fifo", "queue", "reg",
    ];
    match before {
        [] => COMMANDS,
        ["print" | "p" | "show"] => SHOWS,
        ["run" | "r" | "continue" | "c"] => &["until", "for"],
        ["run" | "r" | "continue" | "c", "until"] | ["break" | "b"] => CONDS,
        ["watch" | "w"] => VALUES,
        ["info" | "i"] => &["breaks", "snapshots", "scenario"],
        ["poke"] => &["packet", "pause"],
        ["delete" | "d"] => &["all"],
        ["wave"] => &["off"],
        ["help" | "h" | "?"] => COMMANDS,
        [.., "drop"] => &["egress", "ingress"],
        [.., "pfc" | "xoff" | "xon"] => &["port", "prio"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_help_shows() {
        for (_, _, _, example) in HELP {
            parse(example).unwrap_or_else(|e| panic!("help example '{example}': {e}"));
        }
        assert_eq!(parse("step").unwrap(), Command::Step(1));
        assert_eq!(
            parse("run until xoff 1 3").unwrap(),
            Command::Run(Some(Cond::Pfc {
                kind: FrameKind::Xoff,
                port: Some(1),
                prio: Some(3)
            }))
        );
        assert_eq!(
            parse("b egress 0 3 >= 25000").unwrap().clone(),
            Command::Break(Cond::Occ {
                side: Side::Egress,
                port: 0,
                prio: 3,
                op: Op::Ge,
                bytes: 25000
            })
        );
        assert_eq!(
            parse("p reg u_egress.e_q[3]").unwrap(),
            Command::Print(Show::Value(Value::Reg("u_egress.e_q".into(), 3)))
        );
        assert_eq!(
            parse("p reg u_egress.gen_port[3].u_cnt.mem[17]").unwrap(),
            Command::Print(Show::Value(Value::Reg(
                "u_egress.gen_port[3].u_cnt.mem".into(),
                17
            )))
        );
        assert_eq!(parse("  # a comment").unwrap(), Command::Nothing);
    }

    #[test]
    fn completion_offers_what_parses() {
        // Every command name completes, and every completed command word starts a valid line.
        for (name, _, _, _) in HELP {
            assert!(next_words(&[]).contains(name), "{name} not offered");
        }
        for w in next_words(&["print"]) {
            let line = format!("print {w} 0 3");
            let short = format!("print {w}");
            assert!(
                parse(&line).is_ok()
                    || parse(&short).is_ok()
                    || parse(&format!("print {w} 0")).is_ok(),
                "print {w}: offered but does not parse"
            );
        }
        for w in next_words(&["break"]) {
            let ok = [
                format!("break {w}"),
                format!("break {w} 1"),
                format!("break {w} 0 3 > 1"),
            ]
            .iter()
            .any(|l| parse(l).is_ok());
            assert!(ok, "break {w}: offered but does not parse");
        }
        assert_eq!(next_words(&["run", "until", "xoff"]), &["port", "prio"]);
    }

    #[test]
    fn refuses_with_a_reason() {
        for (line, why) in [
            ("stpe", "unknown command 'stpe'"),
            ("step x", "N: 'x' is not a number"),
            ("step 1 2", "unexpected '2'"),
            ("run until", "missing condition"),
            ("break egress 0 3 = 5", "OP is one of"),
            ("watch E 0", "missing prio"),
            ("poke packet 1 2 3", "missing BYTES"),
            ("print reg u_egress.e_q[x]", "expected NAME[INDEX]"),
        ] {
            let e = parse(line).unwrap_err().to_string();
            assert!(e.contains(why), "'{line}': got '{e}', expected '{why}'");
        }
    }
}
