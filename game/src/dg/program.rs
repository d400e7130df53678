//! A DG Scripts trigger's lines, compiled once into operations with their jumps
//! (`if`/`elseif`/`else`/`end`, `while`/`done`, `switch`/`case`/`default`/`break`/
//! `done`), and the interpreter that runs them: line by line, variables substituted as
//! each line runs (as tbaMUD did), a step budget per run, and `wait` that hands back
//! where to resume instead of blocking.

use std::collections::BTreeMap;

use super::expr;
use super::subst::{subst, Vars};

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Blank lines and `*` comments.
    Nothing,
    If(String),
    ElseIf(String),
    Else,
    End,
    While(String),
    Switch(String),
    Case(String),
    Default,
    Break,
    /// Closes a `while` or a `switch`.
    Done,
    Set(String),
    Eval(String),
    Global(String),
    Unset(String),
    Remote(String),
    RDelete(String),
    Extract(String),
    /// `makeuid var uid`: a variable naming an entity.
    MakeUid(String),
    /// `context N`: pawns keeps one set of globals per entity; nothing to do.
    Context,
    Wait(String),
    Halt,
    Return(String),
    Nop(String),
    /// Anything else: a script command (`%send% …`) or, in a mob's script, a command.
    Command(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    pub ops: Vec<Op>,
    /// If-family: the next branch (`elseif`/`else`/`end`); `while`/`switch`: its
    /// `done`; `done` of a while: the `while`; `break`: the `done` it leaves by.
    pub jump: Vec<usize>,
    /// If-family and `else`: the `end` of the whole `if`.
    pub end_of: Vec<usize>,
    /// A `switch`: its `case`/`default` lines in order.
    pub cases: BTreeMap<usize, Vec<usize>>,
}

fn word_rest(line: &str) -> (&str, &str) {
    match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    }
}

enum Open {
    If(Vec<usize>),
    While(usize, Vec<usize>),
    Switch(usize, Vec<usize>, Vec<usize>),
}

/// Compiles a trigger's text, as leniently as tbaMUD ran it: a stray `end` or `done`
/// is passed over, a stray `else` skips to its `end`, and blocks still open at the end
/// close there. What cannot mean anything (`case` outside a `switch`, `break` outside
/// a loop) is an error naming its line.
pub fn compile(text: &str) -> Result<Program, String> {
    let mut p = Program::default();
    let mut open: Vec<Open> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let (w, rest) = word_rest(line);
        let op = match w.to_ascii_lowercase().as_str() {
            "" => Op::Nothing,
            _ if line.starts_with('*') => Op::Nothing,
            "if" => Op::If(rest.into()),
            "elseif" => Op::ElseIf(rest.into()),
            "else" => Op::Else,
            "end" => Op::End,
            "while" => Op::While(rest.into()),
            "switch" => Op::Switch(rest.into()),
            "case" => Op::Case(rest.into()),
            "default" => Op::Default,
            "break" => Op::Break,
            "done" => Op::Done,
            "set" => Op::Set(rest.into()),
            "eval" => Op::Eval(rest.into()),
            "global" => Op::Global(rest.into()),
            "unset" => Op::Unset(rest.into()),
            "remote" => Op::Remote(rest.into()),
            "rdelete" => Op::RDelete(rest.into()),
            "extract" => Op::Extract(rest.into()),
            "makeuid" => Op::MakeUid(rest.into()),
            "context" => Op::Context,
            "wait" => Op::Wait(rest.into()),
            "halt" => Op::Halt,
            "return" => Op::Return(rest.into()),
            "nop" => Op::Nop(rest.into()),
            _ => Op::Command(line.into()),
        };
        let n = p.ops.len();
        let bad = |what: &str| Err(format!("line {}: {what}", i + 1));
        match &op {
            Op::If(_) => open.push(Open::If(vec![n])),
            Op::ElseIf(_) | Op::Else => match open.last_mut() {
                Some(Open::If(b)) => b.push(n),
                // Reached only in order: it skips to its `end`, as tbaMUD's did.
                _ => open.push(Open::If(vec![n])),
            },
            Op::End => match open.last() {
                Some(Open::If(_)) => {
                    let Some(Open::If(b)) = open.pop() else { unreachable!() };
                    close_if(&mut p, &b, n);
                }
                _ => {
                    p.ops.push(Op::Nothing);
                    continue;
                }
            },
            Op::While(_) => open.push(Open::While(n, Vec::new())),
            Op::Switch(_) => open.push(Open::Switch(n, Vec::new(), Vec::new())),
            Op::Case(_) | Op::Default => match open.last_mut() {
                Some(Open::Switch(_, cases, _)) => cases.push(n),
                _ => return bad("case/default outside a switch"),
            },
            Op::Break => match open.iter_mut().rev().find(|o| !matches!(o, Open::If(_))) {
                Some(Open::While(_, breaks)) | Some(Open::Switch(_, _, breaks)) => breaks.push(n),
                _ => return bad("break outside a switch or while"),
            },
            Op::Done if !matches!(open.last(), Some(Open::While(..)) | Some(Open::Switch(..))) => {
                p.ops.push(Op::Nothing);
                continue;
            }
            Op::Done => match open.pop() {
                Some(Open::While(start, breaks)) => {
                    p.jump.resize(n + 1, 0);
                    p.jump[start] = n;
                    p.jump[n] = start;
                    for b in breaks {
                        p.jump[b] = n;
                    }
                }
                Some(Open::Switch(start, cases, breaks)) => {
                    p.jump.resize(n + 1, 0);
                    p.jump[start] = n;
                    p.jump[n] = n;
                    for b in breaks {
                        p.jump[b] = n;
                    }
                    p.cases.insert(start, cases);
                }
                _ => return bad("done without while or switch"),
            },
            _ => {}
        }
        p.ops.push(op);
    }
    // Blocks left open close at the end of the script.
    let n = p.ops.len();
    p.jump.resize(n + 1, 0);
    p.end_of.resize(n + 1, 0);
    while let Some(o) = open.pop() {
        match o {
            Open::If(b) => close_if(&mut p, &b, n),
            Open::While(start, breaks) | Open::Switch(start, _, breaks) => {
                p.jump[start] = n;
                for b in breaks {
                    p.jump[b] = n;
                }
            }
        }
    }
    p.ops.push(Op::Nothing);
    p.jump.resize(p.ops.len(), 0);
    p.end_of.resize(p.ops.len(), 0);
    Ok(p)
}

/// The jumps of an `if` whose branches start at `b` and whose `end` is at `end`.
fn close_if(p: &mut Program, b: &[usize], end: usize) {
    p.jump.resize(p.jump.len().max(end + 1), 0);
    p.end_of.resize(p.end_of.len().max(end + 1), 0);
    for (k, at) in b.iter().enumerate() {
        p.jump[*at] = b.get(k + 1).copied().unwrap_or(end);
        p.end_of[*at] = end;
    }
}

/// What a script asks of the world as it runs (and [`Vars`] for its variables).
pub trait Host: Vars {
    /// A command line, already substituted.
    fn command(&mut self, line: &str) -> Result<(), String>;
    /// A line that failed (tbaMUD's `script_log`): the run goes on with the next line.
    fn error(&mut self, _message: String) {}
    fn set_global(&mut self, name: &str, value: Option<&str>);
    /// `remote var uid`: the value goes to another's globals.
    fn remote(&mut self, name: &str, value: Option<&str>, target: &str);
    /// Pulses since the game day's midnight (for `wait until`).
    fn pulse_of_day(&self) -> u64 {
        0
    }
}

/// `wait until 21:00` or `wait until 2100`: the minute of the game day.
fn until_minute(at: &str) -> Option<u64> {
    let at = at.trim();
    let (h, m) = match at.split_once(':') {
        Some((h, m)) => (h.trim().parse::<u64>().ok()?, m.trim().parse::<u64>().ok()?),
        None => {
            let n = at.parse::<u64>().ok()?;
            (n / 100, n % 100)
        }
    };
    Some(h * 60 + m)
}

/// tbaMUD's `process_wait` for `until`: the pulses from `now` (in the day) to that
/// minute, tomorrow's if it has come today.
fn pulses_until(minute: u64, now: u64, pulses_per_hour: u64) -> u64 {
    let day = 24 * pulses_per_hour;
    let then = minute * pulses_per_hour / 60;
    if now % day >= then {
        day - now % day + then
    } else {
        then - now % day
    }
}

/// A run in progress (kept across a `wait`).
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub pc: usize,
    pub locals: BTreeMap<String, String>,
    /// What `return` set (tbaMUD's default is 1).
    pub ret: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Finished (or halted): the script's return value.
    Done(i64),
    /// `wait`: resume at `Run.pc` after this many pulses.
    Wait(u64),
    Error(String),
}

/// Lines one run may step through (a `while` that never ends is stopped).
pub const STEP_BUDGET: u32 = 20_000;

/// The locals first, then the host.
struct Scope<'a> {
    locals: &'a BTreeMap<String, String>,
    host: &'a mut dyn Host,
}

impl Vars for Scope<'_> {
    fn var(&mut self, name: &str) -> Option<String> {
        self.locals.get(name).cloned().or_else(|| self.host.var(name))
    }
    fn field(&mut self, base: Option<&str>, value: &str, field: &str, arg: Option<&str>) -> Option<String> {
        self.host.field(base, value, field, arg)
    }
}

/// `wait 5 s`, `wait 2 t` (mud hours), `wait 30` (pulses): how many pulses.
pub fn wait_pulses(arg: &str, pulses_per_hour: u64) -> u64 {
    let mut words = arg.split_whitespace();
    let n: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(1);
    match words.next().map(|u| u.to_ascii_lowercase()) {
        Some(u) if u.starts_with('s') => n * 10,
        Some(u) if u.starts_with('t') => n * pulses_per_hour,
        _ => n,
    }
    .clamp(1, 100_000)
}

pub fn ret_of(run: &Run) -> i64 {
    run.ret.as_deref().map(|r| r.trim().parse::<i64>().unwrap_or(if expr::truthy(r) { 1 } else { 0 })).unwrap_or(1)
}

/// Runs (or resumes) `run` through `p`.
pub fn execute(p: &Program, run: &mut Run, host: &mut dyn Host, pulses_per_hour: u64) -> Outcome {
    let mut steps = 0u32;
    // Set when a failed test jumps to the next branch (which must then be tested).
    let mut testing = false;
    while run.pc < p.ops.len() {
        steps += 1;
        if steps > STEP_BUDGET {
            return Outcome::Error(format!("step budget ({STEP_BUDGET} lines) exceeded at line {}", run.pc + 1));
        }
        let i = run.pc;
        let sub = |run: &Run, host: &mut dyn Host, s: &str| subst(s, &mut Scope { locals: &run.locals, host });
        let was_testing = std::mem::replace(&mut testing, false);
        match &p.ops[i] {
            Op::Nothing | Op::End | Op::Case(_) | Op::Default | Op::Context => run.pc += 1,
            Op::If(c) => {
                let v = expr::eval(&sub(run, host, c));
                if expr::truthy(&v) {
                    run.pc += 1;
                } else {
                    run.pc = p.jump[i];
                    testing = true;
                }
            }
            Op::ElseIf(c) => {
                if was_testing {
                    let v = expr::eval(&sub(run, host, c));
                    if expr::truthy(&v) {
                        run.pc += 1;
                    } else {
                        run.pc = p.jump[i];
                        testing = true;
                    }
                } else {
                    run.pc = p.end_of[i];
                }
            }
            Op::Else => run.pc = if was_testing { i + 1 } else { p.end_of[i] },
            Op::While(c) => {
                let v = expr::eval(&sub(run, host, c));
                run.pc = if expr::truthy(&v) { i + 1 } else { p.jump[i] + 1 };
            }
            Op::Done => {
                // The `done` of a while goes back to its test; a switch's is passed.
                run.pc = if matches!(p.ops.get(p.jump[i]), Some(Op::While(_))) && p.jump[i] != i { p.jump[i] } else { i + 1 };
            }
            Op::Switch(e) => {
                let v = expr::eval(&sub(run, host, e));
                let cases = p.cases.get(&i).cloned().unwrap_or_default();
                let mut target = None;
                for c in &cases {
                    if let Op::Case(value) = &p.ops[*c] {
                        if sub(run, host, value).trim().eq_ignore_ascii_case(v.trim()) {
                            target = Some(*c);
                            break;
                        }
                    }
                }
                let default = cases.iter().copied().find(|c| p.ops[*c] == Op::Default);
                run.pc = target.or(default).map(|c| c + 1).unwrap_or(p.jump[i] + 1);
            }
            Op::Break => run.pc = p.jump[i] + 1,
            // `makeuid var uid` is a `set`: our uids are the values `%x.id%` gives.
            Op::Set(s) | Op::MakeUid(s) => {
                let line = sub(run, host, s);
                let (name, value) = word_rest(&line);
                if !name.is_empty() {
                    run.locals.insert(name.to_string(), value.to_string());
                }
                run.pc += 1;
            }
            Op::Eval(s) => {
                let (name, e) = word_rest(s);
                // `eval s %%txt%n%%%` names a variable by another: substitute twice.
                let mut text = sub(run, host, e);
                if text.contains('%') {
                    text = sub(run, host, &text);
                }
                let value = expr::eval(&text);
                let name = sub(run, host, name);
                if !name.is_empty() {
                    run.locals.insert(name, value);
                }
                run.pc += 1;
            }
            Op::Global(s) => {
                for name in s.split_whitespace() {
                    let value = run.locals.get(name).cloned();
                    host.set_global(name, value.as_deref());
                }
                run.pc += 1;
            }
            Op::Unset(s) => {
                for name in s.split_whitespace() {
                    run.locals.remove(name);
                    host.set_global(name, None);
                }
                run.pc += 1;
            }
            Op::Remote(s) | Op::RDelete(s) => {
                let line = sub(run, host, s);
                let (name, target) = word_rest(&line);
                let value = if matches!(p.ops[i], Op::Remote(_)) { run.locals.get(name).cloned() } else { None };
                host.remote(name, value.as_deref(), target);
                run.pc += 1;
            }
            Op::Extract(s) => {
                // extract <var> <n> <text>: the n-th word.
                let line = sub(run, host, s);
                let mut w = line.split_whitespace();
                if let (Some(name), Some(n)) = (w.next(), w.next().and_then(|n| n.parse::<usize>().ok())) {
                    let words: Vec<&str> = w.collect();
                    let value = n.checked_sub(1).and_then(|k| words.get(k)).copied().unwrap_or("");
                    run.locals.insert(name.to_string(), value.to_string());
                }
                run.pc += 1;
            }
            Op::Wait(s) => {
                let arg = sub(run, host, s);
                if let Some(at) = arg.trim_start().strip_prefix("until") {
                    let Some(want) = until_minute(at) else {
                        return Outcome::Error(format!("line {}: wait until what time? ({})", i + 1, at.trim()));
                    };
                    run.pc += 1;
                    return Outcome::Wait(pulses_until(want, host.pulse_of_day(), pulses_per_hour));
                }
                run.pc += 1;
                return Outcome::Wait(wait_pulses(&arg, pulses_per_hour));
            }
            Op::Halt => return Outcome::Done(ret_of(run)),
            Op::Return(s) => {
                run.ret = Some(expr::eval(&sub(run, host, s)));
                run.pc += 1;
            }
            Op::Nop(s) => {
                let _ = sub(run, host, s);
                run.pc += 1;
            }
            Op::Command(s) => {
                let line = sub(run, host, s);
                // As tbaMUD: a command that fails is logged and the script carries on.
                if let Err(e) = host.command(line.trim()) {
                    host.error(format!("line {}: {e}", i + 1));
                }
                run.pc += 1;
            }
        }
    }
    Outcome::Done(ret_of(run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log {
        said: Vec<String>,
        globals: BTreeMap<String, String>,
    }
    impl Vars for Log {
        fn var(&mut self, name: &str) -> Option<String> {
            match name {
                "send" => Some("msend".into()),
                "actor" => Some("@ann".into()),
                _ => self.globals.get(name).cloned(),
            }
        }
        fn field(&mut self, _: Option<&str>, value: &str, field: &str, _: Option<&str>) -> Option<String> {
            (value == "@ann" && field == "class").then(|| "Magic User".into())
        }
    }
    impl Host for Log {
        fn command(&mut self, line: &str) -> Result<(), String> {
            self.said.push(line.into());
            Ok(())
        }
        fn set_global(&mut self, name: &str, value: Option<&str>) {
            match value {
                Some(v) => self.globals.insert(name.into(), v.into()),
                None => self.globals.remove(name),
            };
        }
        fn remote(&mut self, _: &str, _: Option<&str>, _: &str) {}
    }

    fn run(text: &str) -> (Outcome, Log, Run) {
        let p = compile(text).unwrap();
        let mut log = Log::default();
        let mut r = Run::default();
        let o = execute(&p, &mut r, &mut log, 630);
        (o, log, r)
    }

    #[test]
    fn branches_loops_and_switches() {
        let (o, log, _) =
            run("if %actor.class% != Magic User\n  say not a mage\nelseif 1 == 2\n  say never\nelse\n  say a mage\nend\nsay after");
        assert_eq!(o, Outcome::Done(1));
        assert_eq!(log.said, ["say a mage", "say after"]);
        let (_, log, _) = run("set i 0\nwhile %i% < 3\n  eval i %i% + 1\n  say %i%\ndone\nsay out");
        assert_eq!(log.said, ["say 1", "say 2", "say 3", "say out"]);
        let (_, log, _) = run("set x b\nswitch %x%\n  case a\n    say A\n  break\n  case b\n  case c\n    say BC\n  break\n  default\n    say D\n  break\ndone\nsay end");
        assert_eq!(log.said, ["say BC", "say end"]);
        let (_, log, _) = run("switch zzz\ncase a\nsay A\nbreak\ndefault\nsay D\nbreak\ndone");
        assert_eq!(log.said, ["say D"]);
        let (_, log, _) = run("if 1\n  if 0\n    say inner\n  else\n    say inner else\n  end\nelse\n  say outer else\nend");
        assert_eq!(log.said, ["say inner else"]);
    }

    #[test]
    fn return_sets_the_value_and_goes_on_halt_stops_wait_hands_back() {
        let (o, log, _) = run("return 0\n%send% %actor% blocked");
        assert_eq!(o, Outcome::Done(0));
        assert_eq!(log.said, ["msend @ann blocked"], "tbaMUD runs on after return");
        let (o, log, _) = run("say a\nhalt\nsay b");
        assert_eq!((o, log.said), (Outcome::Done(1), vec!["say a".to_string()]));
        let p = compile("say one\nwait 2 s\nsay two").unwrap();
        let mut log = Log::default();
        let mut r = Run::default();
        assert_eq!(execute(&p, &mut r, &mut log, 630), Outcome::Wait(20));
        assert_eq!(execute(&p, &mut r, &mut log, 630), Outcome::Done(1));
        assert_eq!(log.said, ["say one", "say two"]);
        let (o, _, _) = run("while 1\ndone");
        assert!(matches!(o, Outcome::Error(e) if e.contains("step budget")));
        let (_, log, _) = run("set v 5\nglobal v\nunset q\nextract w 2 alpha beta gamma\nsay %w% %v%");
        assert_eq!(log.globals.get("v").map(String::as_str), Some("5"));
        assert_eq!(log.said, ["say beta 5"]);
    }

    #[test]
    fn stray_blocks_run_as_tbamud_ran_them_and_nonsense_is_refused() {
        let (_, log, _) = run("if 1\n  say x");
        assert_eq!(log.said, ["say x"], "an if left open closes at the end");
        let (_, log, _) = run("if 0\n  say x");
        assert!(log.said.is_empty());
        let (_, log, _) = run("say a\nend\nsay b\ndone");
        assert_eq!(log.said, ["say a", "say b"], "stray end and done are passed over");
        // tbaMUD's trigger 4601: an `end` too many, then an `else` that skips to its end.
        let (_, log, _) = run("if 1\n  say in\n  end\nelse\n  say never\nend\nsay out");
        assert_eq!(log.said, ["say in", "say out"]);
        let (o, _, _) = run("set i 0\nwhile %i% < 2\n  eval i %i% + 1");
        assert_eq!(o, Outcome::Done(1), "a while left open ends at the end");
        assert!(compile("break").is_err());
        assert!(compile("case 1").is_err());
        assert_eq!(wait_pulses("5 s", 630), 50);
        assert_eq!(wait_pulses("2 t", 630), 1260);
        assert_eq!(wait_pulses("7", 630), 7);
    }

    proptest::proptest! {
        #[test]
        fn any_script_compiles_or_is_refused_and_runs_within_budget(s in "(if 1|else|end|while 0|done|switch a|case a|break|say x|wait 1|set a b|\\PC{0,20})(\\n(if 1|else|end|while 0|done|switch a|case a|break|say x|set a b|\\PC{0,20})){0,12}") {
            if let Ok(p) = compile(&s) {
                let mut log = Log::default();
                let mut r = Run::default();
                for _ in 0..20 {
                    match execute(&p, &mut r, &mut log, 630) {
                        Outcome::Wait(_) => continue,
                        _ => break,
                    }
                }
            }
        }
    }
}
