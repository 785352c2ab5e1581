//! docs/ARCHITECTURE.md names the code it maps: every repository path
//! (`src/...`, `tests/...`, `schema/...`) and every `module::item` or
//! `Type::member` it writes between backticks must exist, so that the map
//! cannot drift from the code unseen. A failure names the doc's line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every span between backticks, with its line number (from 1).
fn code_spans(doc: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in doc.lines().enumerate() {
        let mut parts = line.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            out.push((i + 1, span.to_string()));
        }
        // An odd tail (a span left open) is not a span.
    }
    out
}

/// The Rust paths of a span: maximal `a::b::c` runs of identifiers with
/// at least one `::`.
fn rust_paths(span: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut chars = span.chars().peekable();
    let flush = |cur: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
        if cur.len() > 1 {
            out.push(std::mem::take(cur));
        }
        cur.clear();
    };
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') && !word.is_empty() {
            chars.next();
            cur.push(std::mem::take(&mut word));
        } else {
            if !word.is_empty() {
                cur.push(std::mem::take(&mut word));
            }
            flush(&mut cur, &mut out);
        }
    }
    if !word.is_empty() {
        cur.push(word);
    }
    flush(&mut cur, &mut out);
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a directory") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file of module `path` (`["report", "text"]`), if it is one.
fn module_file(path: &[String]) -> Option<PathBuf> {
    let base = root().join("src").join(path.join("/"));
    [base.with_extension("rs"), base.join("mod.rs")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Whether `text` defines `name` as an item, or imports or re-exports it
/// (`use` statements may span lines).
fn defines(text: &str, name: &str) -> bool {
    let in_use = text.split(';').any(|stmt| {
        let stmt = stmt.trim_start();
        let stmt = stmt.strip_prefix("pub ").unwrap_or(stmt);
        stmt.starts_with("use ")
            && stmt
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
    });
    in_use
        || text.lines().any(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub(super) "))
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            let named = |rest: &str| {
                rest.strip_prefix(name).is_some_and(|after| {
                    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            };
            [
                "fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "mod ",
            ]
            .iter()
            .any(|kw| l.strip_prefix(kw).is_some_and(named))
                || (l.starts_with("use ")
                    && l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == name))
        })
}

/// Whether a `Type::member` exists: a file that defines or implements
/// `Type` has `member` as a function, constant, associated type or
/// enum variant.
fn type_has(files: &BTreeMap<PathBuf, String>, ty: &str, member: &str) -> bool {
    files.values().any(|text| {
        let holds_type = text.lines().any(|l| {
            let l = l.trim_start().trim_start_matches("pub ");
            ["struct ", "enum ", "trait ", "impl ", "type "]
                .iter()
                .any(|kw| l.starts_with(kw))
                && l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == ty)
        });
        holds_type
            && (defines(text, member)
                || text.lines().any(|l| {
                    // A variant (`Name,`, `Name {`, `Name(`) or a field
                    // (`name:`, `pub name:`).
                    let l = l.trim_start();
                    let l = l.strip_prefix("pub ").unwrap_or(l);
                    l.strip_prefix(member).is_some_and(|after| {
                        after.starts_with([',', ' ', '(', '{', ':']) || after.is_empty()
                    })
                }))
    })
}

/// What is wrong with the doc's names, each with its line.
fn broken_names(doc: &str) -> Vec<String> {
    let mut src_files = Vec::new();
    rust_files(&root().join("src"), &mut src_files);
    let files: BTreeMap<PathBuf, String> = src_files
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).expect("a source file");
            (p, t)
        })
        .collect();
    let mut out = Vec::new();
    for (line, span) in code_spans(doc) {
        let first = span.split_whitespace().next().unwrap_or_default();
        let repo_path = ["src/", "tests/", "schema/", "benches/", "contrib/", "docs/"]
            .iter()
            .any(|p| first.starts_with(p));
        if repo_path {
            let p = first.trim_end_matches([',', '.', ')']);
            if !root().join(p).exists() {
                out.push(format!("docs/ARCHITECTURE.md:{line}: `{p}` does not exist"));
            }
            continue;
        }
        for path in rust_paths(&span) {
            let top = &path[0];
            if top.starts_with(char::is_uppercase) {
                // `Type::member`.
                if !type_has(&files, top, &path[1]) {
                    out.push(format!(
                        "docs/ARCHITECTURE.md:{line}: `{}` is not a member of a type `{top}` in src/",
                        path.join("::")
                    ));
                }
                continue;
            }
            if module_file(&path[..1]).is_none() {
                continue; // std::, serde::, clap::: not ours
            }
            let k = (1..=path.len())
                .rev()
                .find(|&k| module_file(&path[..k]).is_some())
                .expect("the top module exists");
            let file = module_file(&path[..k]).expect("a module");
            let text = &files[&file];
            let ok = match &path[k..] {
                [] => true,
                [item] => defines(text, item),
                [ty, member, ..] => defines(text, ty) && type_has(&files, ty, member),
            };
            if !ok {
                out.push(format!(
                    "docs/ARCHITECTURE.md:{line}: `{}` is not defined in {}",
                    path.join("::"),
                    file.strip_prefix(root()).unwrap_or(&file).display()
                ));
            }
        }
    }
    out
}

#[test]
fn every_path_and_item_the_map_names_exists() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let broken = broken_names(&doc);
    assert!(broken.is_empty(), "\n{}\n", broken.join("\n"));
}

#[test]
fn a_stale_name_is_reported_with_its_line() {
    let doc = "ok: `run::Measure`, `src/run/mod.rs`, `End::text`, `std::io`\n\
               gone: `src/run.rs` and `report::text::end_text`\n\
               `Mark::no_such_method` `stats::rng::SplitMix64` `run::nothing_here`\n";
    let broken = broken_names(doc);
    assert_eq!(broken.len(), 4, "{broken:#?}");
    assert!(
        broken[0].contains(":2: `src/run.rs` does not exist"),
        "{}",
        broken[0]
    );
    assert!(
        broken[1].contains(":2: `report::text::end_text` is not defined in src/report/text.rs"),
        "{}",
        broken[1]
    );
    assert!(
        broken[2].contains(":3: `Mark::no_such_method`"),
        "{}",
        broken[2]
    );
    assert!(
        broken[3].contains(":3: `run::nothing_here` is not defined in src/run/mod.rs"),
        "{}",
        broken[3]
    );
}

/// The `model::forms` row of the code map names every file of
/// `src/model/forms/`: a new printed form is mapped when it is added.
#[test]
fn the_map_names_every_printed_form() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `model::forms` |"))
        .expect("a `model::forms` row");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(root().join("src/model/forms")).expect("src/model/forms") {
        let p = e.expect("an entry").path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if stem != "mod" && !row.contains(&format!("`{stem}`")) {
            missing.push(stem);
        }
    }
    assert!(
        missing.is_empty(),
        "the model::forms row misses {missing:?}"
    );
}

/// Where the docs say how short a loop delay runs as one block ("1 under
/// about 1.5 s"), they say the figure `trials::plan` computes: the fewest
/// trials of the CPU loop's shortest trial. The help, the man page's
/// prose, README and this map all say it.
#[test]
fn the_one_block_delay_the_docs_state_is_the_planners() {
    use quickbench::trials::{plan, run_trials, StepKind, MIN_TRIALS};
    use std::time::Duration;
    let said = regex::Regex::new(r"(?:1|one block) under about ([0-9.]+) s").unwrap();
    let mut figures = Vec::new();
    for file in [
        "docs/ARCHITECTURE.md",
        "README.md",
        "src/cli.rs",
        "src/generate.rs",
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect(file);
        // Words across lines, string continuations (`\` at a line's end)
        // and doc comments' `///` included.
        let flat = text
            .replace("\\\n", " ")
            .replace("///", " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let found: Vec<f64> = said
            .captures_iter(&flat)
            .map(|c| c[1].parse().expect("a number"))
            .collect();
        assert!(
            !found.is_empty(),
            "{file} no longer says when one block runs"
        );
        figures.extend(found.into_iter().map(|f| (file, f)));
    }
    let kinds = [StepKind::CpuLoop, StepKind::Memory, StepKind::Storage];
    for (file, secs) in figures {
        let at = Duration::from_secs_f64(secs);
        let under = at - Duration::from_millis(1);
        assert_eq!(run_trials(&kinds, under, None), 1, "{file}: {secs} s");
        assert_eq!(
            plan(StepKind::CpuLoop, at, None).trials,
            MIN_TRIALS,
            "{file}: {secs} s"
        );
    }
}
