//! What `print`, `info scenario`, `help` and the end of a step show: human tables and the same as
//! JSON.

use super::parse::{Show, Side, HELP, HELP_PRINT};
use super::{Out, ReplError, Session};
use crate::block::NPRIO;
use serde_json::{json, Value as Json};

/// The events of the last cycle: the block's PFC frames, (JSON, lines).
pub(super) fn events(s: &Session) -> (Json, Vec<String>) {
    let out = s.sw.block_outputs();
    let mut lines = vec![];
    let mut list = vec![];
    for i in 0..s.params.np {
        if out.pfc_valid >> i & 1 == 0 {
            continue;
        }
        let cev = out.pfc_cev[i];
        let q: Vec<u16> = (0..NPRIO).map(|p| out.quanta(i, p)).collect();
        let parts: Vec<String> = (0..NPRIO)
            .filter(|p| cev >> p & 1 == 1)
            .map(|p| {
                if q[p] > 0 {
                    format!("prio {p} XOFF {} quanta", q[p])
                } else {
                    format!("prio {p} XON")
                }
            })
            .collect();
        lines.push(format!(
            "PFC frame to the sender of port {i}: {}",
            parts.join(", ")
        ));
        list.push(json!({"pfc": {"port": i, "cev": cev, "quanta": q}}));
    }
    (Json::Array(list), lines)
}

fn prio_list(b: u8) -> String {
    if b == 0 {
        return "-".into();
    }
    (0..NPRIO)
        .filter(|p| b >> p & 1 == 1)
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn bytes_of<'a>(q: impl Iterator<Item = &'a crate::switch::Packet>) -> (usize, u64) {
    q.fold((0, 0), |(n, b), p| (n + 1, b + u64::from(p.size)))
}

/// The block's side, and its micro-architecture when it is not the default's (v2).
fn block_name(s: &Session) -> String {
    match s.sw.block_kind {
        crate::switch::BlockKind::V2 => s.sw.dut_kind.name().to_string(),
        b => format!("{} ({})", s.sw.dut_kind.name(), b.name()),
    }
}

pub(super) fn scenario(s: &Session, o: &mut Out) {
    let sc = &s.sw.sc;
    o.line(format!(
        "scenario {}: {} ports, {} flows, mode {}, block {}",
        sc.name,
        sc.ports,
        sc.flows.len(),
        s.sw.mode.name(),
        block_name(s)
    ));
    o.line(format!(
        "  one cycle = {} ns; links: propagation {} cycles, PFC response {} cycles; pipeline: one packet every {} cycles, latency {} cycles",
        sc.cycle_ns, sc.prop_delay, sc.pfc_response, sc.pipe_interval, sc.pipe_latency
    ));
    o.line(format!(
        "  cycle limit {}; snapshots for `back` every {} cycles",
        sc.max_cycles, s.back_every
    ));
    o.set("scenario", serde_json::to_value(sc).unwrap_or(Json::Null));
    o.set("mode", json!(s.sw.mode.name()));
    o.set("dut", json!(s.sw.dut_kind.name()));
}

pub(super) fn help(topic: Option<&str>, o: &mut Out) -> Result<(), ReplError> {
    match topic {
        None => {
            o.line("commands (a unique first letter works for step, run, break, watch, delete, info, print, help, quit):");
            for (_, syn, what, _) in HELP {
                o.line(format!("  {syn:<40} {what}"));
            }
            o.line("`help print` lists what print and watch show and the conditions of break and run until.");
            o.line("Stepping: step and run stop at the first breakpoint; Ctrl-C stops a run.");
        }
        Some("print" | "watch" | "break" | "until" | "cond" | "value") => {
            for l in HELP_PRINT.lines() {
                o.line(l);
            }
        }
        Some(t) => {
            let Some((_, syn, what, ex)) = HELP.iter().find(|h| h.0 == t) else {
                return Err(ReplError::Help(t.to_string()));
            };
            o.line(format!("{syn}\n  {what}\n  example: {ex}"));
        }
    }
    Ok(())
}

/// (Long: one arm a `show` subject, each a few lines.)
pub(super) fn print(s: &Session, what: &Show, o: &mut Out) -> Result<(), ReplError> {
    let np = s.params.np;
    let now = s.sw.now;
    match what {
        Show::Value(v) => {
            s.check_value(v)?;
            let x = s.value(v);
            o.line(format!("{v} = {x}"));
            o.set("value", x);
        }
        Show::Summary => {
            let st = &s.sw.stats;
            let done = (0..s.sw.sc.flows.len())
                .filter(|&f| s.sw.flow_progress(f).fct.is_some())
                .count();
            let paused: Vec<usize> = (0..np)
                .filter(|&i| s.sw.senders()[i].pause.until.iter().any(|&u| u > now))
                .collect();
            let d: Vec<String> = (0..np)
                .filter(|&i| s.d_bits(i) != 0)
                .map(|i| format!("{i}:{}", prio_list(s.d_bits(i))))
                .collect();
            o.line(format!(
                "cycle {now} ({:.1} us), mode {}, block {}",
                now as f64 * s.sw.sc.cycle_ns / 1000.0,
                s.sw.mode.name(),
                block_name(s)
            ));
            o.line(format!(
                "  flows done {done}/{}; drops: egress {}, ingress {}; PFC frames {}; pipeline {}",
                s.sw.sc.flows.len(),
                st.egress_drops,
                st.ingress_drops,
                st.total_pfc_frames(),
                if s.sw.stalled { "STALLED" } else { "moving" }
            ));
            o.line(format!(
                "  D (port:prios) {}; senders paused: {}",
                if d.is_empty() {
                    "-".into()
                } else {
                    d.join(" ")
                },
                if paused.is_empty() {
                    "-".into()
                } else {
                    paused
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                }
            ));
            o.set("flows_done", json!(done));
            o.set("egress_drops", json!(st.egress_drops));
            o.set("ingress_drops", json!(st.ingress_drops));
            o.set("pfc_frames", json!(st.total_pfc_frames()));
            o.set("stalled", json!(s.sw.stalled));
            o.set("d", json!((0..np).map(|i| s.d_bits(i)).collect::<Vec<_>>()));
            o.set("senders_paused", json!(paused));
        }
        Show::Ingress(port) => {
            if let Some(p) = port {
                s.check_port(*p)?;
            }
            o.line(
                "ingress, bytes per priority (block occupancy; * = over XOFF, I)    fifo pkts/bytes   sender paused",
            );
            o.line(format!(
                "port {}",
                (0..NPRIO)
                    .map(|p| format!("{:>8}", format!("p{p}")))
                    .collect::<String>()
            ));
            let mut rows = vec![];
            for i in (0..np).filter(|i| port.is_none_or(|p| p == *i)) {
                let occ: Vec<u64> = (0..NPRIO)
                    .map(|p| s.occ(Side::Ingress, i, p as u8))
                    .collect();
                let ib = s.i_bits(i);
                let (n, b) = bytes_of(s.sw.ingress[i].iter());
                let sender = &s.sw.senders()[i];
                let paused: Vec<(usize, u64)> = (0..NPRIO)
                    .filter(|&p| sender.pause.until[p] > now)
                    .map(|p| (p, sender.pause.until[p] - now))
                    .collect();
                let cells: String = occ
                    .iter()
                    .enumerate()
                    .map(|(p, v)| {
                        let m = if ib >> p & 1 == 1 { "*" } else { " " };
                        format!("{:>7}{m}", v)
                    })
                    .collect();
                let ps = if paused.is_empty() {
                    "-".into()
                } else {
                    paused
                        .iter()
                        .map(|(p, c)| format!("p{p} for {c}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                o.line(format!("{i:>4}{cells}   {n:>4}/{b:<8}   {ps}"));
                rows.push(json!({"port": i, "occ": occ, "i": ib, "fifo_packets": n, "fifo_bytes": b,
                    "sender_paused": paused.iter().map(|(p, c)| json!({"prio": p, "cycles_left": c})).collect::<Vec<_>>()}));
            }
            o.set("ingress", Json::Array(rows));
        }
        Show::Egress(port) => {
            if let Some(p) = port {
                s.check_port(*p)?;
            }
            o.line("egress, bytes per priority (block occupancy; E = inputs paused by the queue)");
            let mut rows = vec![];
            for e in (0..np).filter(|i| port.is_none_or(|p| p == *i)) {
                let mut line = format!("port {e}:");
                let mut prios = vec![];
                for p in 0..NPRIO {
                    let occ = s.occ(Side::Egress, e, p as u8);
                    let (n, b) = bytes_of(s.sw.tm.queues[e * NPRIO + p].iter());
                    let eb = s.e_bits(e, p);
                    if occ == 0 && n == 0 && eb == 0 {
                        continue;
                    }
                    let ins: Vec<usize> = (0..np).filter(|i| eb >> i & 1 == 1).collect();
                    line += &format!(
                        "  p{p} {occ} B ({n} pkts queued) E={}",
                        if ins.is_empty() {
                            "-".into()
                        } else {
                            format!("{ins:?}")
                        }
                    );
                    prios.push(json!({"prio": p, "occ": occ, "packets": n, "bytes": b, "e": ins}));
                }
                if prios.is_empty() {
                    line += "  empty";
                }
                o.line(line);
                rows.push(json!({"port": e, "queues": prios}));
            }
            o.set("egress", Json::Array(rows));
        }
        Show::EMatrix(prio) => {
            if let Some(q) = prio {
                s.check_queue(0, *q)?;
            }
            let mut mats = vec![];
            for p in 0..NPRIO {
                let rows: Vec<u128> = (0..np).map(|e| s.e_bits(e, p)).collect();
                let wanted = match prio {
                    Some(q) => usize::from(*q) == p,
                    None => rows.iter().any(|&r| r != 0),
                };
                if !wanted {
                    continue;
                }
                o.line(format!(
                    "E, priority {p}: row = egress port, column = input port, X = the queue pauses that input"
                ));
                o.line(format!(
                    "       {}",
                    (0..np).map(|i| format!("{:>3}", i)).collect::<String>()
                ));
                for (e, r) in rows.iter().enumerate() {
                    o.line(format!(
                        "out {e:>2} {}   {} B",
                        (0..np)
                            .map(|i| if r >> i & 1 == 1 { "  X" } else { "  ." })
                            .collect::<String>(),
                        s.occ(Side::Egress, e, p as u8)
                    ));
                }
                mats.push(json!({"prio": p, "rows": rows.iter().map(|r| (0..np).filter(|i| r >> i & 1 == 1).collect::<Vec<_>>()).collect::<Vec<_>>()}));
            }
            if mats.is_empty() {
                o.line("E is all zero: no egress queue pauses any input");
            }
            o.set("e", Json::Array(mats));
        }
        Show::Id => {
            o.line("port   I (ingress XOFF)   D (paused: I or E)");
            let mut rows = vec![];
            for i in 0..np {
                o.line(format!(
                    "{i:>4}   {:<17}  {}",
                    prio_list(s.i_bits(i)),
                    prio_list(s.d_bits(i))
                ));
                rows.push(json!({"port": i, "i": s.i_bits(i), "d": s.d_bits(i)}));
            }
            o.set("ports", Json::Array(rows));
        }
        Show::Pipe => {
            let pipe = &s.sw.pipe;
            o.line(format!(
                "pipeline: {} packets{}",
                pipe.len(),
                if s.sw.stalled {
                    ", STALLED (the packet at its end does not fit)"
                } else {
                    ""
                }
            ));
            let mut list = vec![];
            for (k, (t, p)) in pipe.iter().enumerate() {
                if k < 16 {
                    o.line(format!(
                        "  at end in {:>6} cycles: flow {} input {} -> output {} prio {} {} B",
                        t.saturating_sub(now),
                        p.flow,
                        p.src,
                        p.dst,
                        p.prio,
                        p.size
                    ));
                }
                list.push(json!({"end": t, "flow": p.flow, "src": p.src, "dst": p.dst, "prio": p.prio, "size": p.size}));
            }
            if pipe.len() > 16 {
                o.line(format!("  ... {} more", pipe.len() - 16));
            }
            o.set("pipe", Json::Array(list));
            o.set("stalled", json!(s.sw.stalled));
        }
        Show::Sort => {
            let j = s.sort_json();
            let engines = j["engines"].as_array().cloned().unwrap_or_default();
            if engines.is_empty() {
                o.line("sort engines: all idle, nothing pending");
            }
            for e in &engines {
                let port = &e["port"];
                // (v3: an engine for two ports, its rows granted in round robin)
                let who = match e.get("engine") {
                    Some(n) => format!("engine {n} (ports {})", e["ports"]),
                    None => format!("port {port}"),
                };
                let on = match e.get("engine") {
                    Some(_) => format!("port {port} class"),
                    None => "class".into(),
                };
                if e["busy"] == json!(true) {
                    let algo = if e["stop_calibrate"] == json!(true) {
                        "Stop-Calibrate"
                    } else {
                        "Stop-Max"
                    };
                    o.line(format!(
                        "{who}: busy on {on} {} (prio {}), {algo}, phase {} step {} bit {}, v {} index {} acc {} target {}",
                        e["class"], e["prio"], e["phase"].as_str().unwrap_or("?"), e["step"], e["bit"],
                        e["v"], e["index"], e["acc"], e["target"]
                    ));
                } else {
                    o.line(format!("{who}: idle"));
                }
                match e.get("pending") {
                    Some(p) => o.line(format!(
                        "  pending rows (port, class) {p}; round-robin pointer {}",
                        e["rr"]
                    )),
                    None => o.line(format!(
                        "  pending classes {}; round-robin pointer {}",
                        e["pending_classes"], e["rr"]
                    )),
                }
            }
            o.set("sort", j);
        }
        Show::Pfc => {
            o.line("PFC generator: per port, D of the last frame the MAC took and cycles to the next refresh");
            let mut gens = vec![];
            for i in 0..np {
                let (prev, timer) = s.pfc_gen(i);
                if prev != 0 || timer != 0 {
                    o.line(format!(
                        "  port {i}: signalled {} refresh in {timer}",
                        prio_list(prev)
                    ));
                }
                gens.push(json!({"port": i, "signalled": prev, "timer": timer}));
            }
            let fl = s.sw.pfc_in_flight();
            o.line(format!("frames on their way to the senders: {}", fl.len()));
            for (t, i, cev, q) in &fl {
                o.line(format!(
                    "  to port {i}, takes effect in {} cycles: cev {} quanta {:?}",
                    t - now,
                    prio_list(*cev),
                    q
                ));
            }
            o.line("senders: cycles of pause left per priority");
            let mut snd = vec![];
            for (i, sd) in s.sw.senders().iter().enumerate() {
                let left: Vec<u64> = sd
                    .pause
                    .until
                    .iter()
                    .map(|&u| u.saturating_sub(now))
                    .collect();
                if left.iter().any(|&c| c > 0) {
                    o.line(format!("  port {i}: {left:?}"));
                }
                snd.push(json!(left));
            }
            o.set("generator", Json::Array(gens));
            o.set(
                "in_flight",
                Json::Array(
                    fl.iter()
                        .map(|(t, i, cev, q)| json!({"effective": t, "port": i, "cev": cev, "quanta": q}))
                        .collect(),
                ),
            );
            o.set("sender_pause_left", Json::Array(snd));
        }
        Show::Flows => {
            o.line("flow  class        src dst prio       bytes        sent   delivered        lost   FCT (us)");
            let mut list = vec![];
            for (f, fl) in s.sw.sc.flows.iter().enumerate() {
                let p = s.sw.flow_progress(f);
                let fct = p.fct.map_or("-".into(), |c| {
                    format!("{:.1}", c as f64 * s.sw.sc.cycle_ns / 1000.0)
                });
                o.line(format!(
                    "{f:>4}  {:<12} {:>3} {:>3} {:>4} {:>11} {:>11} {:>11} {:>11} {:>10}",
                    fl.class, fl.src, fl.dst, fl.prio, fl.bytes, p.sent, p.delivered, p.lost, fct
                ));
                list.push(json!({"flow": f, "class": fl.class, "src": fl.src, "dst": fl.dst, "prio": fl.prio,
                    "bytes": fl.bytes, "start": fl.start, "progress": p}));
            }
            o.set("flows", Json::Array(list));
        }
        Show::Stats => {
            let st = s.sw.stats_so_far();
            let us = |c: u64| c as f64 * s.sw.sc.cycle_ns / 1000.0;
            o.line(format!("after {now} cycles ({:.1} us):", us(now)));
            o.line(format!(
                "  egress drops {}, ingress overflow {}, pipeline stalled {:.1} us, PFC frames {}, paused {:.1} us (all ports)",
                st.egress_drops,
                st.ingress_drops,
                us(st.stall_cycles),
                st.total_pfc_frames(),
                st.total_paused_us(s.sw.sc.cycle_ns)
            ));
            for c in &st.classes {
                o.line(format!(
                    "  {}: {}/{} done, {} with losses, FCT max {:.0} us, p99 {:.0} us, goodput {:.3} Gb/s",
                    c.class, c.completed, c.flows, c.with_losses, c.fct_max_us, c.fct_p99_us, c.goodput_gbps
                ));
            }
            o.set("stats", serde_json::to_value(&st).unwrap_or(Json::Null));
        }
        Show::Lanes => {
            let (inp, out) = (s.sw.block_inputs(), s.sw.block_outputs());
            let last = now.saturating_sub(1);
            o.line(format!(
                "cycle {last}, the block's inputs: {}",
                inp.describe()
            ));
            let mut said = vec![];
            let arrivals: Vec<usize> = (0..np).filter(|&i| inp.arr[i].is_some()).collect();
            if !arrivals.is_empty() {
                let acc: Vec<usize> = arrivals
                    .iter()
                    .copied()
                    .filter(|&i| out.arr_accept >> i & 1 == 1)
                    .collect();
                let rej: Vec<usize> = arrivals
                    .iter()
                    .copied()
                    .filter(|&i| out.arr_accept >> i & 1 == 0)
                    .collect();
                said.push(format!("arrivals accepted {acc:?} refused {rej:?}"));
            }
            if inp.enq.is_some() {
                said.push(format!(
                    "enqueue {}",
                    if out.enq_accept {
                        "accepted"
                    } else {
                        "refused (does not fit)"
                    }
                ));
            }
            let (ev, lines) = events(s);
            said.extend(lines);
            o.line(format!(
                "  outputs: {}",
                if said.is_empty() {
                    "nothing to say".into()
                } else {
                    said.join("; ")
                }
            ));
            o.set("inputs", serde_json::to_value(inp).unwrap_or(Json::Null));
            o.set(
                "outputs",
                json!({"arr_accept": out.arr_accept.to_string(), "enq_accept": out.enq_accept, "pfc": ev}),
            );
        }
        Show::Cfg => {
            let cell = s.params.cell_log2;
            let tables = s.thresholds();
            let mut m = serde_json::Map::new();
            o.line(format!(
                "thresholds, bytes        {}",
                (0..NPRIO)
                    .map(|p| format!("{:>8}", format!("p{p}")))
                    .collect::<String>()
            ));
            for (k, (label, reg)) in [
                ("ingress MAX", "u_cfg.ing_max_q"),
                ("ingress XOFF", "u_cfg.ing_xoff_q"),
                ("ingress XON", "u_cfg.ing_xon_q"),
                ("egress MAX", "u_cfg.eg_max_q"),
                ("egress XOFF", "u_cfg.eg_xoff_q"),
                ("egress XON", "u_cfg.eg_xon_q"),
                ("egress WARN", "u_cfg.eg_warn_q"),
            ]
            .into_iter()
            .enumerate()
            {
                let v: Vec<u64> = tables[k].iter().map(|x| x << cell).collect();
                o.line(format!(
                    "  {label:<22}{}",
                    v.iter().map(|x| format!("{x:>8}")).collect::<String>()
                ));
                m.insert(reg.to_string(), json!(v));
            }
            let lossless = s.cfg_reg("lossless_q") as u8;
            let mode = s.cfg_reg("mode_q");
            let cut = s.cfg_reg("cut_q");
            o.line(format!(
                "  lossless {}; mode register {mode}; CUT {cut}/{} = {:.3}; quanta {}; refresh {}",
                prio_list(lossless),
                1u64 << s.params.cut_f,
                cut as f64 / (1u64 << s.params.cut_f) as f64,
                s.cfg_reg("quanta_q"),
                s.cfg_reg("refresh_q")
            ));
            m.insert("lossless".into(), json!(lossless));
            m.insert("mode".into(), json!(mode));
            m.insert("cut".into(), json!(cut));
            o.set("cfg", Json::Object(m));
        }
    }
    Ok(())
}
