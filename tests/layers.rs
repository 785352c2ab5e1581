//! The import layers of the crate, read from the sources: which top-level
//! module (`src/<name>.rs` or `src/<name>/`) names which through `crate::`
//! and `super::` paths, test code included, comments and string literals
//! excluded.
//!
//! From the bottom up: the measuring modules return data; the model embeds
//! their data types; the sink, the plan and the renderers read the model;
//! the runner drives them; the command line and `compare` sit on top. The
//! rules below keep that order, and a failure names the edge (file and
//! line) that breaks it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The report's layers: none of these may sit on an import cycle.
const REPORT_LAYERS: [&str; 12] = [
    "cli",
    "model",
    "plan",
    "report",
    "run",
    "sink",
    "compare",
    "clock",
    "conditions",
    "end",
    "stats",
    "sections",
];

/// What the model may never import: everything above it.
const ABOVE_MODEL: [&str; 6] = ["report", "run", "plan", "cli", "compare", "sink"];

/// The statistics are pure arithmetic: they import nothing of the crate.
const STATS: &str = "stats";

/// The modules that measure.
const MEASURING: [&str; 7] = [
    "sysinfo", "cpu_loop", "membw", "blockdev", "dd_io", "work", "latency",
];

/// What a measuring module may never import: the renderers, the verdicts
/// on its figures (`conditions`), and every report layer above the data.
const NOT_FROM_MEASURING: [&str; 8] = [
    "report",
    "conditions",
    "model",
    "sink",
    "run",
    "plan",
    "cli",
    "compare",
];

/// What an added section (`src/sections/`) may never import: the layers
/// that go through the sections registry (the renderers and readers, the
/// runner, the plan, compare) and those above them. A section gives them
/// its data; they turn it into lines, steps and comparisons.
const NOT_FROM_SECTIONS: [&str; 6] = ["report", "run", "plan", "cli", "compare", "sink"];

/// One import: where it is written.
#[derive(Debug, Clone)]
struct Site {
    file: String,
    line: usize,
    path: String,
}

/// Top-level module -> top-level module -> the first site of that import.
type Graph = BTreeMap<String, BTreeMap<String, Site>>;

/// The source with comments and the contents of string and char literals
/// blanked (newlines kept, so line numbers stay right).
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let j = i + if c[i] == 'b' { 2 } else { 1 };
            let hashes = c[j..].iter().take_while(|&&h| h == '#').count();
            c.get(j + hashes) == Some(&'"')
        } {
            // A raw string: r"..." or r#"..."#, perhaps a byte string.
            let j = i + if c[i] == 'b' { 2 } else { 1 };
            let hashes = c[j..].iter().take_while(|&&h| h == '#').count();
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body = j + hashes + 1;
            let mut k = body;
            while k < c.len() && !c[k..].starts_with(&close) {
                k += 1;
            }
            let end = (k + close.len()).min(c.len());
            out.extend(c[i..body].iter());
            out.extend(c[body..k.min(c.len())].iter().map(|&ch| blank(ch)));
            out.extend(c[k.min(c.len())..end].iter());
            i = end;
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' && i + 1 < c.len() {
                    out.push(' ');
                    i += 1;
                }
                out.push(blank(c[i]));
                i += 1;
            }
            if i < c.len() {
                out.push('"');
                i += 1;
            }
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{b5}'), or a lifetime ('a).
            let end = if c.get(i + 1) == Some(&'\\') {
                // The escaped character itself may be a quote: '\''.
                (i + 3..c.len()).find(|&k| c[k] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    out.push('\'');
                    out.extend(std::iter::repeat_n(' ', e - i - 1));
                    out.push('\'');
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The module path of a source file: `src/report/text.rs` is
/// `[report, text]`, `src/report/mod.rs` is `[report]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// Every `crate::`/`super::` path of `code` (already [`code_only`]), as
/// (line, the absolute path: its names up to the first that is not
/// followed by `::` and a name, the path as written). `module` is the
/// file's module path; inline `mod name { ... }` blocks nest it further.
fn imports(code: &str, module: &[String]) -> Vec<(usize, Vec<String>, String)> {
    let c: Vec<char> = code.chars().collect();
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let word_at = |i: usize, w: &str| {
        let w: Vec<char> = w.chars().collect();
        c[i..].starts_with(&w)
            && (i == 0 || (!ident(c[i - 1]) && c[i - 1] != '$'))
            && c.get(i + w.len()).is_none_or(|&n| !ident(n))
    };
    let skip_ws = |mut i: usize| {
        while i < c.len() && c[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let read_ident = |i: usize| {
        let e = (i..c.len()).find(|&k| !ident(c[k])).unwrap_or(c.len());
        (c[i..e].iter().collect::<String>(), e)
    };
    // `::` after optional whitespace: the index after it.
    let colons = |i: usize| {
        let i = skip_ws(i);
        (c.get(i) == Some(&':') && c.get(i + 1) == Some(&':')).then_some(i + 2)
    };
    let mut out = Vec::new();
    let mut line = 1;
    let mut depth = 0usize;
    // Inline modules open at this brace depth.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\n' => line += 1,
            '{' => {
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
                depth += 1;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            ';' => pending_mod = None,
            _ => {}
        }
        if word_at(i, "mod") {
            let (name, e) = read_ident(skip_ws(i + 3));
            if !name.is_empty() {
                pending_mod = Some(name);
                i = e;
                continue;
            }
        }
        let start = i;
        let (mut base, mut j): (Vec<String>, usize) = if word_at(i, "crate") {
            match colons(i + 5) {
                Some(j) => (Vec::new(), j),
                None => {
                    i += 1;
                    continue;
                }
            }
        } else if word_at(i, "super") {
            let mut here: Vec<String> = module.to_vec();
            here.extend(inline.iter().map(|(n, _)| n.clone()));
            let mut j = i;
            loop {
                if !word_at(skip_ws(j), "super") {
                    break;
                }
                match colons(skip_ws(j) + 5) {
                    Some(k) => {
                        here.pop();
                        j = k;
                    }
                    None => break,
                }
            }
            if j == i {
                i += 1;
                continue;
            }
            (here, j)
        } else {
            i += 1;
            continue;
        };
        // A group `{a, b::c}` (each item's first name), or one name.
        j = skip_ws(j);
        if c.get(j) == Some(&'{') {
            let mut d = 0;
            let mut item_start = true;
            let mut k = j;
            while k < c.len() {
                match c[k] {
                    '{' => {
                        d += 1;
                        item_start = d == 1;
                    }
                    '}' => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    ',' if d == 1 => item_start = true,
                    ch if item_start && d == 1 && ident(ch) => {
                        let (name, mut e) = read_ident(k);
                        let mut p = base.clone();
                        p.push(name);
                        while let Some(n) = colons(e) {
                            let (more, after) = read_ident(skip_ws(n));
                            if more.is_empty() {
                                break;
                            }
                            p.push(more);
                            e = after;
                        }
                        let prefix: String = c[start..=j].iter().collect();
                        out.push((
                            line,
                            p,
                            format!("{prefix}{}}}", c[k..e].iter().collect::<String>()),
                        ));
                        item_start = false;
                    }
                    _ => {}
                }
                k += 1;
            }
        } else {
            let (name, e) = read_ident(j);
            if !name.is_empty() {
                base.push(name);
                j = e;
            }
            // The rest of the path.
            let mut shown = j;
            while let Some(k) = colons(shown) {
                let (more, e) = read_ident(skip_ws(k));
                if more.is_empty() {
                    break;
                }
                base.push(more);
                shown = e;
            }
            if !base.is_empty() {
                out.push((line, base, c[start..shown].iter().collect::<String>()));
            }
        }
        i = j.max(i + 1);
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate's top-level modules (`pub mod x;` of lib.rs), and the names
/// lib.rs re-exports (`pub use sysroot::Sysroot;`), mapped to their module.
fn crate_root(src: &Path) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let lib = code_only(&lib);
    let mut mods = BTreeSet::new();
    let mut reexports = BTreeMap::new();
    for l in lib.lines() {
        let l = l.trim().trim_start_matches("pub ").trim_end_matches(';');
        if let Some(m) = l.strip_prefix("mod ") {
            mods.insert(m.trim().to_string());
        } else if let Some(u) = l.strip_prefix("use ") {
            if let (Some(m), Some(last)) = (u.split("::").next(), u.rsplit("::").next()) {
                reexports.insert(last.trim().to_string(), m.trim().to_string());
            }
        }
    }
    (mods, reexports)
}

/// The graph of the library's top-level modules.
fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (mods, reexports) = crate_root(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut g = Graph::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src");
        // main.rs is the binary: its `crate` is itself, and it sits on top.
        if rel == Path::new("main.rs") || rel == Path::new("lib.rs") {
            continue;
        }
        let module = module_path(rel);
        let from = module[0].clone();
        assert!(mods.contains(&from), "{} is not in src/lib.rs", f.display());
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (line, path, written) in imports(&code_only(&text), &module) {
            let to = match path.first() {
                Some(m) if mods.contains(m) => m.clone(),
                Some(name) => match reexports.get(name) {
                    Some(m) => m.clone(),
                    None => continue,
                },
                None => continue,
            };
            if to != from {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(Site {
                        file: format!("src/{}", rel.display()),
                        line,
                        path: written,
                    });
            }
        }
        g.entry(from).or_default();
    }
    g
}

fn edge(g: &Graph, a: &str, b: &str) -> String {
    let s = &g[a][b];
    format!("{a} -> {b} ({}:{}: {})", s.file, s.line, s.path)
}

/// A shortest import path from `from` back to `to`, if there is one.
fn path_between(g: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([from.to_string()]);
    let mut seen = BTreeSet::from([from.to_string()]);
    while let Some(n) = queue.pop_front() {
        for next in g.get(&n).into_iter().flat_map(|e| e.keys()) {
            if next == to {
                let mut p = vec![to.to_string(), n.clone()];
                let mut cur = n.clone();
                while let Some(b) = prev.get(&cur) {
                    p.push(b.clone());
                    cur = b.clone();
                }
                p.reverse();
                return Some(p);
            }
            if seen.insert(next.clone()) {
                prev.insert(next.clone(), n.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

/// The import cycles through each report layer, every edge named.
fn cycles(g: &Graph) -> Vec<String> {
    // One message per cycle, whichever layer it was found from.
    let mut out: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for m in REPORT_LAYERS {
        let Some(edges) = g.get(m) else { continue };
        for first in edges.keys() {
            if let Some(back) = path_between(g, first, m) {
                let mut cycle = vec![m.to_string()];
                cycle.extend(back);
                let mut key = cycle[..cycle.len() - 1].to_vec();
                key.sort();
                let steps: Vec<String> = cycle.windows(2).map(|w| edge(g, &w[0], &w[1])).collect();
                out.entry(key)
                    .or_insert_with(|| format!("cycle: {}", steps.join(", ")));
            }
        }
    }
    out.into_values().collect()
}

fn forbidden(g: &Graph, from: &[&str], to: &[&str], rule: &str) -> Vec<String> {
    let mut out = Vec::new();
    for a in from {
        for b in to {
            if g.get(*a).is_some_and(|e| e.contains_key(*b)) {
                out.push(format!("{rule}: {}", edge(g, a, b)));
            }
        }
    }
    out
}

#[test]
fn report_layers_have_no_import_cycle() {
    let g = graph();
    let broken = cycles(&g);
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

#[test]
fn the_model_imports_nothing_above_it() {
    let g = graph();
    let broken = forbidden(
        &g,
        &["model"],
        &ABOVE_MODEL,
        "the model imports a layer above it",
    );
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

#[test]
fn measuring_modules_import_no_renderer_and_no_report_layer() {
    let g = graph();
    let broken = forbidden(
        &g,
        &MEASURING,
        &NOT_FROM_MEASURING,
        "a measuring module imports a renderer or a report layer",
    );
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

#[test]
fn sections_import_none_of_the_layers_that_read_them() {
    let g = graph();
    let broken = forbidden(
        &g,
        &["sections"],
        &NOT_FROM_SECTIONS,
        "an added section imports a layer that goes through the registry",
    );
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

/// The graph is read at all: edges every version of the crate has.
#[test]
fn the_graph_sees_the_known_imports() {
    let g = graph();
    for (a, b) in [
        ("run", "model"),
        ("report", "model"),
        ("model", "blockdev"),
        ("dd_io", "sysroot"),
        ("compare", "report"),
    ] {
        assert!(
            g.get(a).is_some_and(|e| e.contains_key(b)),
            "{a} -> {b} not found: {:?}",
            g.get(a).map(|e| e.keys().collect::<Vec<_>>())
        );
    }
}

#[test]
fn the_scanner_reads_paths_and_skips_comments_and_strings() {
    let src = r##"
use crate::a::b;
use crate::{c, d::e};
// crate::commented
/* crate::block /* nested */ crate::still */
const S: &str = "crate::in_string";
const R: &str = r#"crate::raw "quoted""#;
fn f<'a>(x: &'a str) -> char { let _ = (x, '\'', '\u{b5}'); '{' }
mod tests {
    use super::*;
    use super::super::sibling;
    fn g() { crate :: spaced::h(); }
}
fn k() { super::up(); }
"##;
    let found: Vec<(usize, Vec<String>)> = imports(&code_only(src), &["top".into(), "sub".into()])
        .into_iter()
        .map(|(l, p, _)| (l, p))
        .collect();
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        found,
        vec![
            (2, v(&["a", "b"])),
            (3, v(&["c"])),
            (3, v(&["d", "e"])),
            (10, v(&["top", "sub"])),
            (11, v(&["top", "sibling"])),
            (12, v(&["spaced", "h"])),
            (14, v(&["top", "up"])),
        ]
    );
}

#[test]
fn a_cycle_names_every_edge() {
    let site = |p: &str| Site {
        file: "src/x.rs".into(),
        line: 1,
        path: p.into(),
    };
    let mut g = Graph::new();
    g.entry("model".into())
        .or_default()
        .insert("plan".into(), site("crate::plan::Plan"));
    g.entry("plan".into())
        .or_default()
        .insert("cli".into(), site("crate::cli::Config"));
    g.entry("cli".into())
        .or_default()
        .insert("model".into(), site("crate::model::Section"));
    let c = cycles(&g);
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(
        c[0].contains("model -> plan (src/x.rs:1: crate::plan::Plan)"),
        "{}",
        c[0]
    );
    assert!(c[0].contains("plan -> cli"), "{}", c[0]);
    assert!(c[0].contains("cli -> model"), "{}", c[0]);
}

#[test]
fn the_statistics_import_nothing_of_the_crate() {
    let g = graph();
    let imported: Vec<String> = g
        .get(STATS)
        .map(|e| {
            e.keys()
                .filter(|m| m.as_str() != STATS)
                .map(|m| edge(&g, STATS, m))
                .collect()
        })
        .unwrap_or_default();
    assert!(imported.is_empty(), "\n{}\n", imported.join("\n"));
}

/// Files of src/ that import each other on purpose: each set is one unit,
/// and the `//!` comment at the top of each of its files says so ("one
/// unit") and why.
const ONE_UNIT: &[&[&str]] = &[];

/// What a file re-exports from elsewhere (`pub use child::Name;`, `pub
/// use crate::m::{A, B as C};`): the name it is known by here -> the
/// absolute path of what it names. Glob re-exports are not followed.
fn reexports(code: &str, module: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut rest = code;
    while let Some(at) = rest.find("pub use ") {
        let after = &rest[at + "pub use ".len()..];
        let end = after.find(';').unwrap_or(after.len());
        let text: String = after[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        rest = &after[end..];
        let (head, items): (&str, Vec<&str>) = match text.split_once('{') {
            Some((head, group)) => (head, group.trim_end_matches('}').split(',').collect()),
            None => match text.rsplit_once("::") {
                Some((head, item)) => (head, vec![item]),
                None => continue,
            },
        };
        let mut base: Vec<String> = module.to_vec();
        for seg in head.split("::").map(str::trim).filter(|s| !s.is_empty()) {
            match seg {
                "crate" => base.clear(),
                "super" => {
                    base.pop();
                }
                "self" => {}
                name => base.push(name.to_string()),
            }
        }
        for item in items {
            let item = item.trim();
            if item.is_empty() || item.contains('*') || item.contains('{') {
                continue;
            }
            let (path, alias) = match item.split_once(" as ") {
                Some((p, a)) => (p.trim(), a.trim()),
                None => (item, item.rsplit("::").next().unwrap_or(item)),
            };
            let mut full = base.clone();
            full.extend(path.split("::").map(|s| s.trim().to_string()));
            if full.last().is_some_and(|l| l == "self") {
                full.pop();
            }
            out.insert(alias.to_string(), full);
        }
    }
    out
}

/// `code` (already [`code_only`]) without its `#[cfg(test)] mod name {
/// .. }` blocks (newlines kept): a file's unit tests may use what is built
/// on it (a load test checks the mark its figures earn) without making
/// the two files one.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|k| k + from) {
        let after = &out[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_mod = trimmed.starts_with("mod ")
            && trimmed
                .find(['{', ';'])
                .is_some_and(|k| trimmed.as_bytes()[k] == b'{');
        let Some(open) = is_mod
            .then(|| out[at..].find('{').map(|k| k + at))
            .flatten()
        else {
            from = at + 1;
            continue;
        };
        let mut depth = 0;
        let mut end = out.len();
        for (k, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[at..end]
            .chars()
            .map(|ch| if ch == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    out
}

/// The graph of the library's files (`src/a/b.rs`): an edge where a
/// file's code (its unit tests aside) names an item of another through
/// `crate::` or `super::`, followed through re-exports to the file that
/// defines it.
fn file_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut texts = Vec::new();
    let mut reexported: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).expect("under src").to_path_buf();
        if rel == Path::new("main.rs") {
            continue;
        }
        let module = module_path(&rel);
        let name = format!("src/{}", rel.display());
        let code = code_only(&std::fs::read_to_string(&f).expect("a source file"));
        let code = without_test_modules(&code);
        modules.insert(module.clone(), name.clone());
        reexported.insert(module.clone(), reexports(&code, &module));
        texts.push((name, module, code));
    }
    // The file that defines what `path` names.
    let resolve = |path: &[String]| {
        let mut path = path.to_vec();
        for _ in 0..8 {
            let k = (0..=path.len())
                .rev()
                .find(|&k| modules.contains_key(&path[..k]))?;
            match path
                .get(k)
                .and_then(|name| reexported.get(&path[..k])?.get(name))
            {
                Some(target) if *target != path[..=k] => {
                    let mut next = target.clone();
                    next.extend_from_slice(&path[k + 1..]);
                    path = next;
                }
                _ => return modules.get(&path[..k]).cloned(),
            }
        }
        None
    };
    let mut g = Graph::new();
    for (name, module, code) in &texts {
        g.entry(name.clone()).or_default();
        for (line, path, written) in imports(code, module) {
            let Some(to) = resolve(&path) else { continue };
            if to != *name && to != "src/lib.rs" {
                g.entry(name.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(Site {
                        file: name.clone(),
                        line,
                        path: written,
                    });
            }
        }
    }
    g
}

/// The strongly connected sets of two files or more (Tarjan's algorithm,
/// SIAM J. Comput. 1(2), 1972), each sorted.
fn strong_sets(g: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.g.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The file cycles not on an allow-list, each with its files and one
/// cycle through them, every edge named.
fn file_cycles(g: &Graph, allowed: &[&[&str]]) -> Vec<String> {
    strong_sets(g)
        .into_iter()
        .filter(|set| {
            !allowed
                .iter()
                .any(|a| a.len() == set.len() && a.iter().all(|f| set.iter().any(|s| s == f)))
        })
        .map(|set| {
            let first = &set[0];
            let back = g[first]
                .keys()
                .filter(|n| set.contains(n))
                .find_map(|n| path_between(g, n, first).map(|p| (n, p)));
            let steps = match back {
                Some((_, p)) => {
                    let mut cycle = vec![first.clone()];
                    cycle.extend(p);
                    cycle
                        .windows(2)
                        .map(|w| edge(g, &w[0], &w[1]))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
                None => String::new(),
            };
            format!("import cycle among {}: {steps}", set.join(", "))
        })
        .collect()
}

#[test]
fn files_import_each_other_only_as_one_documented_unit() {
    let g = file_graph();
    let broken = file_cycles(&g, ONE_UNIT);
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

#[test]
fn one_unit_files_say_so_at_their_top() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for set in ONE_UNIT {
        for f in *set {
            let text = std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            let head: String = text
                .lines()
                .take_while(|l| l.starts_with("//!"))
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                head.contains("one unit"),
                "{f}: its `//!` comment must say why it is one unit with {set:?}"
            );
        }
    }
}

/// The file graph is read at all, through `super::`, `crate::` and
/// re-exports.
#[test]
fn the_file_graph_sees_the_known_imports() {
    let g = file_graph();
    for (a, b) in [
        ("src/run/cpu.rs", "src/run/rounds.rs"),
        ("src/conditions/mark.rs", "src/conditions/reach.rs"),
        // `crate::Sysroot`, re-exported by lib.rs.
        ("src/dd_io/workspace.rs", "src/sysroot.rs"),
        // `super::Run`, defined in run/mod.rs.
        ("src/run/storage.rs", "src/run/mod.rs"),
    ] {
        assert!(
            g.get(a).is_some_and(|e| e.contains_key(b)),
            "{a} -> {b} not found: {:?}",
            g.get(a).map(|e| e.keys().collect::<Vec<_>>())
        );
    }
}

#[test]
fn a_file_cycle_names_its_files_and_edges_unless_allowed() {
    let site = |f: &str, p: &str| Site {
        file: f.into(),
        line: 3,
        path: p.into(),
    };
    let mut g = Graph::new();
    for (a, b) in [
        ("src/a.rs", "src/b.rs"),
        ("src/b.rs", "src/c.rs"),
        ("src/c.rs", "src/a.rs"),
        ("src/c.rs", "src/d.rs"),
        ("src/d.rs", "src/e.rs"),
        ("src/e.rs", "src/d.rs"),
    ] {
        g.entry(a.into())
            .or_default()
            .insert(b.into(), site(a, &format!("crate::{b}")));
    }
    assert_eq!(
        strong_sets(&g),
        vec![
            vec!["src/a.rs", "src/b.rs", "src/c.rs"],
            vec!["src/d.rs", "src/e.rs"]
        ]
    );
    let c = file_cycles(&g, &[]);
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(
        c[0].starts_with("import cycle among src/a.rs, src/b.rs, src/c.rs:"),
        "{}",
        c[0]
    );
    assert!(
        c[0].contains("src/a.rs -> src/b.rs (src/a.rs:3: crate::src/b.rs)"),
        "{}",
        c[0]
    );
    assert!(c[0].contains("src/c.rs -> src/a.rs"), "{}", c[0]);
    let c = file_cycles(&g, &[&["src/e.rs", "src/d.rs"]]);
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(c[0].contains("src/a.rs"), "{}", c[0]);
}

#[test]
fn re_exports_and_test_modules_are_read() {
    let m = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let code = code_only(
        "pub use mark::{Mark, MarkKind as Kind};\npub use crate::a::b::C;\npub use self::x::*;\n",
    );
    let r = reexports(&code, &m(&["conditions"]));
    assert_eq!(r.get("Mark"), Some(&m(&["conditions", "mark", "Mark"])));
    assert_eq!(r.get("Kind"), Some(&m(&["conditions", "mark", "MarkKind"])));
    assert_eq!(r.get("C"), Some(&m(&["a", "b", "C"])));
    assert_eq!(r.len(), 3, "{r:?}");
    let code = code_only(
        "use crate::a::X;\n#[cfg(test)]\nmod tests {\n    use crate::b::Y;\n}\nfn f() {}\n",
    );
    let kept = without_test_modules(&code);
    assert!(
        kept.contains("crate::a::X") && !kept.contains("crate::b"),
        "{kept}"
    );
    assert_eq!(
        kept.lines().count(),
        code.lines().count(),
        "line numbers kept"
    );
}
