//! The layers (ARCHITECTURE.md) as a check: nothing in the engine (`game`, `script`,
//! `dg`, `worldfile`) names the wire protocol, a service, the edge or a tool, and no leaf
//! (`time`, `hud`, `auth`) names the engine. Read from the sources, so it runs in
//! `cargo test` (issue 49). The imports that still run the wrong way are listed below:
//! a new one fails this test, and so does a listed one that is gone (take it off the
//! list), so the list only ever shrinks until the engine is a crate of its own and the
//! compiler holds the rule.

use std::collections::BTreeMap;
use std::path::Path;

const ENGINE: &[&str] = &["game", "script", "dg", "worldfile"];
const ABOVE_ENGINE: &[&str] = &[
    "protocol", "record", "search", "memory", "mind", "replay", "metrics", "net", "resident", "server", "agent", "research", "cli", "bench",
];
const LEAVES: &[&str] = &["time", "hud", "auth"];

/// (file, the folder it names) → how many times, as the sources stand: each to be moved
/// (issue 49, step 1).
const KNOWN: &[(&str, &str, usize)] = &[
];

/// Every `crate::FOLDER` a source file names outside comments, by (file, folder).
fn imports(root: &Path) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            for line in std::fs::read_to_string(&p).unwrap().lines() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                let mut rest = code;
                while let Some(at) = rest.find("crate::") {
                    rest = &rest[at + "crate::".len()..];
                    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() {
                        *out.entry((rel.clone(), name)).or_default() += 1;
                    }
                }
            }
        }
    }
    out
}

fn wrong_way(file: &str, target: &str) -> bool {
    let Some(top) = file.strip_prefix("src/").and_then(|f| f.split('/').next()).filter(|_| file.matches('/').count() >= 2) else {
        return false;
    };
    (ENGINE.contains(&top) && ABOVE_ENGINE.contains(&target)) || (LEAVES.contains(&top) && ENGINE.contains(&target))
}

#[test]
fn no_import_runs_the_wrong_way_but_those_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: BTreeMap<(String, String), usize> =
        imports(root).into_iter().filter(|((file, target), _)| wrong_way(file, target)).collect();
    let known: BTreeMap<(String, String), usize> = KNOWN.iter().map(|(f, t, n)| ((f.to_string(), t.to_string()), *n)).collect();
    let new: Vec<_> = found.iter().filter(|(k, n)| known.get(*k).is_none_or(|m| *n > m)).collect();
    let gone: Vec<_> = known.iter().filter(|(k, n)| found.get(*k).is_none_or(|m| m < *n)).collect();
    assert!(new.is_empty(), "imports that run the wrong way (the engine names a layer above it, or a leaf the engine): {new:?}");
    assert!(gone.is_empty(), "fewer wrong-way imports than listed: take these off KNOWN in tests/layering.rs: {gone:?}");
}

#[test]
fn the_check_sees_a_wrong_import() {
    assert!(wrong_way("src/game/x.rs", "net"));
    assert!(wrong_way("src/hud/x.rs", "game"));
    assert!(!wrong_way("src/net/x.rs", "game"));
    assert!(!wrong_way("src/game/x.rs", "game"));
    assert!(!wrong_way("src/lib.rs", "game"));
    let found = imports(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(found.contains_key(&("src/net/ws.rs".to_string(), "protocol".to_string())), "the scan reads the sources");
}
