//! `capfc step`: the REPL over the switch (see [`crate::repl`]). On a terminal: line editing and
//! history (rustyline, history in `~/.capfc_history`). Otherwise: a script on standard input, one
//! command a line; the first refused command stops it with its line and a non-zero exit.

use crate::repl::{run_script, Flow, Session};
use crate::switch::scenario::Scenario;
use crate::switch::{BlockKind, DutKind, FlowMode};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::{IsTerminal, Read, Write};

#[derive(Args, Debug)]
pub struct StepArgs {
    /// A built-in scenario's name, or a scenario TOML file.
    #[arg(long, default_value = "incast-victims")]
    pub scenario: String,
    /// The flow-control mode: PFC_wdrop, PFC_wstop, CaPFC_max or CaPFC_cal.
    #[arg(long, default_value = "CaPFC_cal")]
    pub mode: String,
    /// The block behind the switch: model, rtl (the Verilated RTL) or both (lockstep-checked).
    #[arg(long, default_value = "model")]
    pub dut: String,
    /// The block's micro-architecture: v3 (docs/microarchitecture.md, the default: 125 MHz at 48
    /// ports) or v2 (docs/microarchitecture-v2.md: every lane answered in the cycle it is seen).
    #[arg(long, default_value = "v3")]
    pub block: String,
    /// One JSON object per command instead of the human transcript.
    #[arg(long)]
    pub json: bool,
    /// Keep a snapshot every N cycles for `back` (smaller: faster `back`, more memory).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub back_every: u64,
    /// Run the commands of this file first (then standard input, or the prompt on a terminal).
    #[arg(long, value_name = "FILE")]
    pub script: Option<std::path::PathBuf>,
}

pub fn run(a: &StepArgs) -> Result<()> {
    let sc = Scenario::load(&a.scenario)?;
    let mode = FlowMode::parse(&a.mode).with_context(|| {
        format!(
            "--mode '{}': expected PFC_wdrop, PFC_wstop, CaPFC_max or CaPFC_cal",
            a.mode
        )
    })?;
    let dut = DutKind::parse(&a.dut)
        .with_context(|| format!("--dut '{}': expected model, rtl or both", a.dut))?;
    let block = BlockKind::parse(&a.block)
        .with_context(|| format!("--block '{}': expected v2 or v3", a.block))?;
    if a.back_every == 0 {
        bail!("--back-every 0: must be at least 1");
    }
    let mut s =
        Session::new(&sc, mode, dut, block, a.back_every, a.json).map_err(anyhow::Error::msg)?;
    {
        let flag = s.interrupt.clone();
        // Ctrl-C during a `run` stops it at the end of the cycle (at the prompt rustyline has the
        // terminal and reads Ctrl-C itself). Installing can fail only if a handler exists already.
        let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if !a.json {
        writeln!(w, "{}", s.banner())?;
    }
    if let Some(f) = &a.script {
        let text = std::fs::read_to_string(f).with_context(|| format!("{}", f.display()))?;
        run_script(&mut s, &f.display().to_string(), &text, &mut w).map_err(anyhow::Error::msg)?;
    }
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        drop(w);
        return interactive(&mut s);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("reading commands from standard input")?;
    run_script(&mut s, "<stdin>", &text, &mut w).map_err(anyhow::Error::msg)?;
    w.flush()?;
    Ok(())
}

/// Tab completion of command names and their keywords.
struct Completion;

impl rustyline::completion::Completer for Completion {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map_or(0, |k| k + 1);
        let before: Vec<&str> = head[..start].split_whitespace().collect();
        let word = &head[start..];
        let found = crate::repl::parse::next_words(&before)
            .iter()
            .filter(|w| w.starts_with(word))
            .map(|w| format!("{w} "))
            .collect();
        Ok((start, found))
    }
}
impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

fn interactive(s: &mut Session) -> Result<()> {
    use rustyline::error::ReadlineError;
    let mut rl: rustyline::Editor<Completion, rustyline::history::DefaultHistory> =
        rustyline::Editor::new().context("starting the line editor")?;
    rl.set_helper(Some(Completion));
    let hist = std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".capfc_history"));
    if let Some(h) = &hist {
        let _ = rl.load_history(h);
    }
    let stdout = std::io::stdout();
    loop {
        let prompt = format!("(capfc {}) ", s.sw.now);
        match rl.readline(&prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                let mut w = stdout.lock();
                match s.exec(&line, &mut w) {
                    Ok(Flow::Quit) => break,
                    Ok(Flow::Continue) => {}
                    Err(e) => s.emit_error(&line, &e, &mut w),
                }
                w.flush()?;
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("reading a command"),
        }
    }
    if let Some(h) = &hist {
        let _ = rl.save_history(h);
    }
    Ok(())
}
