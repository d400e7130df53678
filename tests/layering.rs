//! The layers (ARCHITECTURE.md) as a check, read from the sources so it runs in `cargo
//! test` (issue 49): nothing in the engine (`game`, `script`, `dg`, `worldfile`) names
//! the wire protocol, a service, the edge or a tool; no leaf (`time`, `hud`, `auth`,
//! `names`, `priority`) names the engine; no two top-level modules need each other,
//! however far round (no import cycle spans two of them); and the engine's crate,
//! `pawns-game`, depends on nothing above it (`cargo tree`), so the compiler holds the
//! line between the engine and what serves it. `KNOWN` lists imports allowed to run the
//! wrong way for now; it is empty, and a listed one that is gone fails too, so it can
//! only shrink.

use std::collections::BTreeMap;
use std::path::Path;

const ENGINE: &[&str] = &["game", "script", "dg", "worldfile"];
const ABOVE_ENGINE: &[&str] = &[
    "protocol", "record", "search", "memory", "mind", "replay", "metrics", "net", "resident", "server", "agent", "research", "cli",
    "bench", "client",
];
const LEAVES: &[&str] = &["time", "hud", "auth", "names", "priority"];

/// (file, the module it names) → how many times: wrong-way imports tolerated while
/// they are moved. None are left.
const KNOWN: &[(&str, &str, usize)] = &[];

/// The crates' sources: `pawns` (`src/`) and the engine's own crate, `pawns-game`
/// (`game/src/`), whose modules `pawns` re-exports under the same names.
const SOURCES: &[&str] = &["src", "game/src"];

/// Every `crate::MODULE` a source file names outside comments, by (file, module).
fn imports(root: &Path) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<_> = SOURCES.iter().map(|s| root.join(s)).collect();
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
                assert!(
                    !code.contains("crate::{"),
                    "{rel}: `crate::{{…}}` hides which modules it names from this check; write one `use` per module"
                );
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
    let Some(top) = module_of(file) else { return false };
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
    assert!(wrong_way("game/src/game/x.rs", "mind"));
    assert!(wrong_way("game/src/priority.rs", "game"));
    assert!(!wrong_way("game/src/lib.rs", "game"));
    assert!(wrong_way("src/hud/x.rs", "game"));
    assert!(!wrong_way("src/net/x.rs", "game"));
    assert!(!wrong_way("src/game/x.rs", "game"));
    assert!(!wrong_way("src/lib.rs", "game"));
    let found = imports(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(found.contains_key(&("src/net/ws.rs".to_string(), "protocol".to_string())), "the scan reads the sources");
    assert!(found.contains_key(&("game/src/game/run/engine.rs".to_string(), "game".to_string())), "and the engine's crate");
}

/// The top-level module a source file belongs to (`src/net/ws.rs` → `net`, `src/client.rs`
/// → `client`, `game/src/dg/expr.rs` → `dg`; `lib.rs` and `main.rs` are the crates'
/// roots, in no module).
fn module_of(file: &str) -> Option<&str> {
    let rest = SOURCES.iter().find_map(|s| file.strip_prefix(s)?.strip_prefix('/'))?;
    let top = rest.split('/').next()?;
    let top = top.strip_suffix(".rs").unwrap_or(top);
    (top != "lib" && top != "main").then_some(top)
}

/// The sets of top-level modules that need each other (strongly connected, more than one).
fn cycles(edges: &BTreeMap<String, BTreeMap<String, Vec<String>>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm (recursive: the graph has some twenty nodes).
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, Vec<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: std::collections::BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        if let Some(next) = t.edges.get(v) {
            for w in next.keys() {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let lw = t.low[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if t.on.contains(w) {
                    let iw = t.index[w];
                    let lv = t.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: Default::default(), out: Vec::new() };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v.as_str());
        }
    }
    t.out
}

/// Module → module it names → the files that name it.
fn module_edges(found: &BTreeMap<(String, String), usize>) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut edges: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (file, target) in found.keys() {
        if let Some(from) = module_of(file).filter(|m| m != target) {
            edges.entry(from.to_string()).or_default().entry(target.clone()).or_default().push(file.clone());
        }
    }
    edges
}

#[test]
fn no_import_cycle_spans_two_top_level_modules() {
    let edges = module_edges(&imports(Path::new(env!("CARGO_MANIFEST_DIR"))));
    let found = cycles(&edges);
    let explain: Vec<String> = found
        .iter()
        .map(|comp| {
            let mut lines = vec![format!("{comp:?} need each other:")];
            for a in comp {
                for b in comp {
                    if let Some(files) = edges.get(a).and_then(|m| m.get(b)) {
                        lines.push(format!("  {a} -> {b}: {files:?}"));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(found.is_empty(), "import cycles across top-level modules:\n{}", explain.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let mut found = BTreeMap::new();
    for (f, t) in [("src/a/x.rs", "b"), ("src/b/y.rs", "c"), ("src/c.rs", "a"), ("src/d/z.rs", "a"), ("src/a/w.rs", "a")] {
        found.insert((f.to_string(), t.to_string()), 1);
    }
    let edges = module_edges(&found);
    assert_eq!(cycles(&edges), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    found.remove(&("src/c.rs".to_string(), "a".to_string()));
    assert!(cycles(&module_edges(&found)).is_empty());
}

/// The engine is a crate of its own, and the compiler holds the rule: `pawns-game` needs
/// no search index, HTTP, WebSocket, Parquet, model client or the `pawns` crate.
#[test]
fn the_engine_crate_needs_nothing_above_it() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["tree", "-p", "pawns-game", "-e", "normal,build", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"pawns-game") && names.contains(&"mlua") && names.contains(&"pawns-storage"), "{tree}");
    for banned in ["tantivy", "hyper", "tungstenite", "tokio-tungstenite", "parquet", "reqwest", "pawns", "arrow"] {
        assert!(!names.contains(&banned), "pawns-game depends on {banned}:\n{tree}");
    }
}
