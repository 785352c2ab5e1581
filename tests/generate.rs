//! What `quickbench --generate` prints, checked with the tools that read it:
//! the man page lints clean with mandoc and renders with man to text that
//! names every option of `quickbench --help` and `quickbench compare --help`;
//! each completion script loads from where README.md says to copy it and
//! completes the run's options and compare's. A missing tool skips the test
//! with the reason (a failure under `QB_REQUIRE_ROOT_TESTS`, as in CI, where
//! `.ci/run` installs mandoc, man-db, zsh, fish and bash-completion).

mod common_skip;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("quickbench")
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"))
}

/// `quickbench --generate kind`, which must succeed quietly.
fn generate(kind: &str) -> String {
    let out = run(Command::new(bin()).args(["--generate", kind]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "--generate {kind}: {err}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Whether `tool` is on the PATH; if not, skips the test (see common_skip).
fn have(tool: &str, package: &str) -> bool {
    let found = run(Command::new("sh").args(["-c", &format!("command -v {tool}")]))
        .status
        .success();
    if !found {
        common_skip::skip(&format!(
            "{tool} is not installed (Debian package {package})"
        ));
    }
    found
}

/// `text` as one line of words: man breaks lines and hyphenates words at
/// its line ends (U+2010).
fn words(text: &str) -> String {
    text.replace("\u{2010}\n", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every `--long` option that `args --help` lists.
fn long_options(args: &[&str]) -> Vec<String> {
    let out = run(Command::new(bin()).args(args).arg("--help"));
    let help = String::from_utf8(out.stdout).unwrap();
    let re = regex::Regex::new(r"(?m)^\s+(?:-\w, )?(--[a-z][a-z-]*)").unwrap();
    let opts: Vec<String> = re.captures_iter(&help).map(|c| c[1].to_string()).collect();
    assert!(
        opts.len() >= 3,
        "no options found in {args:?} --help:\n{help}"
    );
    opts
}

/// The `--only`/`--skip` section names, from the code (the list clap
/// offers), sorted as the shells list them: a new section needs no edit
/// here.
fn section_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = quickbench::model::Section::ALL
        .iter()
        .map(|s| s.name())
        .collect();
    names.sort_unstable();
    names
}

/// The completions of a section name typed as `prefix` after `before`
/// (`cpu,` for a list's second name), space-separated.
fn names_after(before: &str, prefix: &str) -> String {
    section_names()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(|n| format!("{before}{n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The shortest prefix of the section name `name` that no other name
/// starts with (what Tab completes whole).
fn unique_prefix(name: &str) -> &str {
    let names = section_names();
    assert!(names.contains(&name), "{name} is not a section: {names:?}");
    (1..=name.len())
        .map(|n| &name[..n])
        .find(|p| names.iter().filter(|o| o.starts_with(p)).count() == 1)
        .unwrap_or(name)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn man_page_lints_clean() {
    if !have("mandoc", "mandoc") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let page = write(d.path(), "quickbench.1", &generate("man"));
    let out = run(Command::new("mandoc").args(["-T", "lint"]).arg(&page));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.is_empty(),
        "mandoc -T lint:\n{said}"
    );
}

#[test]
fn man_page_renders_every_option_and_compare() {
    if !have("man", "man-db") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let page = write(d.path(), "quickbench.1", &generate("man"));
    let out = run(Command::new("man")
        .args(["-P", "cat", "-l"])
        .arg(&page)
        .env("MANWIDTH", "80")
        .env("LC_ALL", "C.UTF-8")
        .env_remove("MANPAGER")
        .env_remove("PAGER"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "man -l: {err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{8}'),
        "formatting left in man's text output"
    );
    for heading in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "COMPARE",
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "EXAMPLES",
        "SEE ALSO",
    ] {
        assert!(
            text.lines().any(|l| l == heading),
            "no {heading} section in:\n{text}"
        );
    }
    let flat = words(&text);
    let run_opts = long_options(&[]);
    let compare_opts = long_options(&["compare"]);
    assert!(run_opts.contains(&"--max-size".to_string()), "{run_opts:?}");
    assert!(
        compare_opts.contains(&"--table".to_string()),
        "{compare_opts:?}"
    );
    let compare_part = &flat[flat.find("COMPARE").unwrap()..flat.find("EXIT STATUS").unwrap()];
    for opt in &run_opts {
        assert!(
            flat.contains(opt.as_str()),
            "{opt} missing from the man page"
        );
    }
    for opt in &compare_opts {
        assert!(
            compare_part.contains(opt.as_str()),
            "compare's {opt} missing:\n{compare_part}"
        );
    }
    for phrase in [
        "quickbench [-d|--dir]",
        "[LOOP_DELAY]",
        "quickbench compare [--table] [--json]",
        "./quickbench 30",
        "quickbench 30 --json > host.json",
        "quickbench compare a.json b.json",
        "NO_COLOR",
        "COLUMNS",
    ] {
        assert!(flat.contains(phrase), "{phrase:?} missing from:\n{text}");
    }
    assert!(
        !flat.contains("--generate"),
        "the hidden option is documented"
    );
}

/// The EXIT STATUS section and `--help` say what README.md's table says:
/// the same codes, and the signal codes that the 130 row names.
#[test]
fn man_exit_statuses_are_the_readmes() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = readme
        .split("## Exit status")
        .nth(1)
        .expect("README.md has an '## Exit status' section");
    let row = regex::Regex::new(r"(?m)^\| (\d+) \| (.*) \|$").unwrap();
    let also = regex::Regex::new(r"\b(1\d\d) for SIG").unwrap();
    let mut codes = Vec::new();
    for c in row.captures_iter(table.split("\n## ").next().unwrap()) {
        codes.push(c[1].to_string());
        codes.extend(also.captures_iter(&c[2]).map(|m| m[1].to_string()));
    }
    assert_eq!(
        codes,
        ["0", "1", "2", "130", "129", "143", "141"],
        "README's table changed"
    );
    // `quickbench --help` lists the same codes, in the same order.
    let help = run(Command::new(bin()).arg("--help"));
    let help = String::from_utf8(help.stdout).unwrap();
    let said = words(
        help.split("Exit status:")
            .nth(1)
            .expect("--help lists exit statuses"),
    );
    let number = regex::Regex::new(r"\b(\d+)\b").unwrap();
    let in_help: Vec<&str> = number.find_iter(&said).map(|m| m.as_str()).collect();
    assert_eq!(in_help, codes, "--help's exit statuses: {said}");
    // compare's are among them
    let help = run(Command::new(bin()).args(["compare", "--help"]));
    let help = String::from_utf8(help.stdout).unwrap();
    let said = words(
        help.split("Exit status:")
            .nth(1)
            .expect("compare --help lists them"),
    );
    for code in number.find_iter(&said) {
        assert!(codes.iter().any(|c| c == code.as_str()), "compare: {said}");
    }
    let man = generate("man");
    let section =
        &man[man.find(".SH \"EXIT STATUS\"").unwrap()..man.find(".SH ENVIRONMENT").unwrap()];
    for code in &codes {
        let tag = format!(".TP\n\\fB{code}\\fR\n");
        assert!(
            section.contains(&tag) || section.contains(&format!("{code} for SIG")),
            "exit status {code} missing from the man page:\n{section}"
        );
    }
}

#[test]
fn man_page_date_follows_source_date_epoch() {
    let gen = |epoch: &str| {
        run(Command::new(bin())
            .args(["--generate", "man"])
            .env("SOURCE_DATE_EPOCH", epoch))
    };
    let a = gen("1767225600");
    assert!(a.status.success());
    let text = String::from_utf8(a.stdout.clone()).unwrap();
    assert!(
        text.contains(".TH QUICKBENCH 1 2026-01-01 \"quickbench "),
        "{}",
        text.lines()
            .find(|l| l.starts_with(".TH"))
            .unwrap_or("no .TH line")
    );
    assert_eq!(a.stdout, gen("1767225600").stdout, "two runs differ");
    let bad = gen("yesterday");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(bad.stdout.is_empty());
    assert!(err.contains("SOURCE_DATE_EPOCH='yesterday'"), "{err}");
}

#[test]
fn generate_refuses_unknown_kinds_and_company() {
    for args in [
        &["--generate", "complete-powershell"][..],
        &["--generate", "man", "30"],
        &["--json", "--generate", "man"],
    ] {
        let out = run(Command::new(bin()).args(args));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = run(Command::new(bin()).args(["--generate", "nroff"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "unknown kind 'nroff' (known: man, complete-bash, complete-zsh, complete-fish)"
        ),
        "{err}"
    );
}

/// Bash: the script registers `_quickbench`, which completes the run's
/// options (after a loop delay too) and compare's; with bash-completion,
/// the file loads on demand from the user's completions directory.
#[test]
fn bash_completion_completes() {
    if !have("bash", "bash") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let script = write(
        d.path(),
        "data/bash-completion/completions/quickbench.bash",
        &generate("complete-bash"),
    );
    // Outside of a completion, compopt only says so; the stub records it.
    // A number completes to itself, unchanged (`--repeat ''`: one empty
    // word, so that bash falls back to no file names).
    let probe = r#"
        source "$1" || exit 9
        complete -p quickbench
        compopt() { opt=" ($1 $2)"; }
        c() {
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); opt=
            _quickbench quickbench "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
            echo "$*: $(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd ' ')$opt"
        }
        c quickbench --j
        c quickbench 30 --j
        c quickbench --gen
        c quickbench compare --t
        c quickbench compare --j
        c quickbench comp
        c quickbench compare ''
        c quickbench compare a.json ''
        c quickbench compare a.json -- ''
        c quickbench compare --html ''
        c quickbench export ''
        c quickbench --only ''
        c quickbench --only cpu,m
        c quickbench --skip io,s
        c quickbench 3
        c quickbench -q 0.
        c quickbench --repeat ''
        c quickbench --max-size 5
        c quickbench --text-out ''
    "#;
    // The files that compare's reports and --html complete from.
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "a.json", "{}");
    write(cwd.path(), "notes.txt", "");
    let out = run(Command::new("bash")
        .args(["--norc", "--noprofile", "-c", probe, "probe"])
        .arg(&script)
        .current_dir(cwd.path()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = "complete -o bashdefault -o default -o nosort -F _quickbench quickbench\n\
                    quickbench --j: --json\n\
                    quickbench 30 --j: --json\n\
                    quickbench --gen: \n\
                    quickbench compare --t: --table\n\
                    quickbench compare --j: --json\n\
                    quickbench comp: compare\n\
                    quickbench compare : a.json notes.txt (-o filenames)\n\
                    quickbench compare a.json : a.json notes.txt (-o filenames)\n\
                    quickbench compare a.json -- : a.json notes.txt (-o filenames)\n\
                    quickbench compare --html : a.json notes.txt (-o filenames)\n\
                    quickbench export : a.json notes.txt (-o filenames)\n"
        .to_string()
        + &format!(
            "quickbench --only : {}\n\
             quickbench --only cpu,m: {}\n\
             quickbench --skip io,s: {}\n",
            names_after("", ""),
            names_after("cpu,", "m"),
            names_after("io,", "s"),
        )
        + "quickbench 3: 3 (-o nospace)\n\
                    quickbench -q 0.: 0. (-o nospace)\n\
                    quickbench --repeat :  (-o nospace)\n\
                    quickbench --max-size 5: 5 (-o nospace)\n\
                    quickbench --text-out : a.json notes.txt (-o filenames)\n";
    assert_eq!(text, expected);

    let loader = Path::new("/usr/share/bash-completion/bash_completion");
    if !loader.exists() {
        common_skip::skip("bash-completion is not installed (Debian package bash-completion)");
        return;
    }
    let out = run(Command::new("bash")
        .args([
            "--norc",
            "--noprofile",
            "-c",
            "source \"$1\"; __load_completion quickbench && complete -p quickbench",
            "probe",
        ])
        .arg(loader)
        .env("XDG_DATA_HOME", d.path().join("data")));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("-F _quickbench quickbench"),
        "not loaded on demand: {text}"
    );
}

/// Zsh: the script passes `zsh -n`, compinit finds it in a directory of
/// `fpath`, and a real interactive zsh (on a pseudo-terminal, zsh/zpty)
/// completes what a user types followed by Tab.
#[test]
fn zsh_completion_completes() {
    if !have("zsh", "zsh") || !have("timeout", "coreutils") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let script = write(d.path(), "functions/_quickbench", &generate("complete-zsh"));
    let out = run(Command::new("zsh").arg("-n").arg(&script));
    assert!(
        out.status.success(),
        "zsh -n: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Types each argument and Tab into an interactive zsh, then prints the
    // line as completion left it (a widget bound to ^X^P).
    let typist = r#"
        zmodload zsh/zpty || exit 3
        dir=$1; shift
        zpty z 'zsh -f -i'
        zpty -w z "PROMPT='> '; fpath=($dir \$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z 'show() { print -r -- "<<$BUFFER>>"; BUFFER=""; }; zle -N show; bindkey "^X^P" show; print RE""ADY'
        zpty -r z out '*READY*' || exit 4
        for typed in "$@"; do
            zpty -w -n z "$typed"$'\t\C-x\C-p'
            zpty -r z out '*<<*>>*' || exit 5
            out=${out##*<<}; print -r -- "${out%%>>*}"
        done
        zpty -d z
    "#;
    // One file to complete, so that Tab completes it whole.
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "a.json", "{}");
    let typed_and_completed = [
        ("quickbench --max", "quickbench --max-size="),
        ("quickbench --j", "quickbench --json "),
        ("quickbench comp", "quickbench compare "),
        ("quickbench compare --t", "quickbench compare --table "),
        ("quickbench compare ", "quickbench compare a.json "),
        (
            "quickbench compare a.json ",
            "quickbench compare a.json a.json ",
        ),
        (
            "quickbench compare --html ",
            "quickbench compare --html a.json ",
        ),
    ];
    // Typed up to where no other section name starts the same.
    let only = format!("quickbench --only {}", unique_prefix("memory"));
    let skip = format!("quickbench --skip cpu,{}", unique_prefix("storage"));
    let typed_and_completed = typed_and_completed.into_iter().chain([
        (only.as_str(), "quickbench --only memory,"),
        (skip.as_str(), "quickbench --skip cpu,storage,"),
        ("quickbench --repeat ", "quickbench --repeat "),
        ("quickbench --max-size ", "quickbench --max-size "),
        ("quickbench 3", "quickbench 3"),
    ]);
    let typed_and_completed: Vec<(&str, &str)> = typed_and_completed.collect();
    let out = run(Command::new("timeout")
        .args(["60", "zsh", "-f", "-c", typist, "typist"])
        .arg(d.path().join("functions"))
        .args(typed_and_completed.iter().map(|(typed, _)| *typed))
        .current_dir(cwd.path()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "zsh typist ended with {:?}: {text}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: String = typed_and_completed
        .iter()
        .map(|(_, line)| format!("{line}\n"))
        .collect();
    assert_eq!(text, expected);
}

/// Fish: the script passes `fish -n`, and from the user's completions
/// directory it completes the run's options and compare's.
#[test]
fn fish_completion_completes() {
    if !have("fish", "fish") {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let script = write(
        d.path(),
        "config/fish/completions/quickbench.fish",
        &generate("complete-fish"),
    );
    let out = run(Command::new("fish").arg("-n").arg(&script));
    assert!(
        out.status.success(),
        "fish -n: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Fish loads a command's completions once the command is on the PATH.
    let path = format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cwd = tempfile::tempdir().unwrap();
    write(cwd.path(), "a.json", "{}");
    write(cwd.path(), "notes.txt", "");
    let complete = |line: &str| {
        let out = run(Command::new("fish")
            .args(["-c", &format!("complete -C'{line}'")])
            .env("XDG_CONFIG_HOME", d.path().join("config"))
            .env("XDG_DATA_HOME", d.path().join("data"))
            .env("PATH", &path)
            .current_dir(cwd.path()));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let options: Vec<String> = complete("quickbench --")
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    for opt in long_options(&[]) {
        assert!(options.contains(&opt), "{opt} not offered: {options:?}");
    }
    assert!(
        !options.iter().any(|o| o.contains("generate")),
        "{options:?}"
    );
    assert!(complete("quickbench ")
        .lines()
        .any(|l| l.starts_with("compare\t")));
    let compare = complete("quickbench compare --");
    assert!(
        compare.lines().any(|l| l.starts_with("--table\t")),
        "{compare}"
    );
    assert!(
        !compare.contains("--max-size"),
        "run options offered to compare: {compare}"
    );
    // The completions themselves, without fish's descriptions.
    let words = |line: &str| -> String {
        let mut w: Vec<String> = complete(line)
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
        w.sort();
        w.join(" ")
    };
    for (line, expected) in [
        ("quickbench compare ", "a.json notes.txt".into()),
        ("quickbench compare a.json ", "a.json notes.txt".into()),
        ("quickbench compare --html ", "a.json notes.txt".into()),
        ("quickbench --only ", names_after("", "")),
        ("quickbench --only cpu,m", names_after("cpu,", "m")),
        ("quickbench --skip=st", names_after("--skip=", "st")),
        ("quickbench --repeat ", String::new()),
        ("quickbench --max-size ", String::new()),
        ("quickbench 3", String::new()),
    ] {
        assert_eq!(words(line), expected, "{line:?}");
    }
}

/// `contrib/release/package.sh`, as the release workflow runs it: the
/// archive holds the binary, the man page, the three completion scripts,
/// the JSON schemas, the docs README points at, README.md and LICENSE in
/// one directory; SHA256SUMS checks; and the
/// same input makes the same bytes.
#[test]
fn release_archive_holds_the_binary_and_its_docs() {
    if !have("tar", "tar") || !have("sha256sum", "coreutils") || !have("gzip", "gzip") {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/release/package.sh");
    let d = tempfile::tempdir().unwrap();
    let pack = |out: &str| {
        let out = run(Command::new("bash")
            .arg(&script)
            .args(["archive"])
            .arg(bin())
            .arg("x86_64-test")
            .arg(d.path().join(out))
            .env("SOURCE_DATE_EPOCH", "1767225600"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    pack("a");
    pack("b");
    let version = env!("CARGO_PKG_VERSION");
    let name = format!("quickbench-{version}-x86_64-test");
    let archive = d.path().join("a").join(format!("{name}.tar.gz"));
    let again = std::fs::read(d.path().join("b").join(format!("{name}.tar.gz"))).unwrap();
    assert!(
        std::fs::read(&archive).unwrap() == again,
        "two packings differ"
    );

    let out = run(Command::new("tar").arg("tvzf").arg(&archive));
    let listing = String::from_utf8(out.stdout).unwrap();
    let entries: Vec<(&str, &str)> = listing
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0], f[f.len() - 1])
        })
        .collect();
    let want = |mode, path: &str| (mode, format!("{name}/{path}"));
    let expected = [
        want("drwxr-xr-x", ""),
        want("-rw-r--r--", "LICENSE"),
        want("-rw-r--r--", "README.md"),
        want("drwxr-xr-x", "complete/"),
        want("-rw-r--r--", "complete/_quickbench"),
        want("-rw-r--r--", "complete/quickbench.bash"),
        want("-rw-r--r--", "complete/quickbench.fish"),
        want("drwxr-xr-x", "docs/"),
        want("-rw-r--r--", "docs/KERNELS.md"),
        want("-rw-r--r--", "docs/METHOD.md"),
        want("-rwxr-xr-x", "quickbench"),
        want("-rw-r--r--", "quickbench.1"),
        want("drwxr-xr-x", "schema/"),
        want("-rw-r--r--", "schema/compare.schema.json"),
        want("-rw-r--r--", "schema/report.schema.json"),
    ];
    let got: Vec<(&str, String)> = entries.iter().map(|(m, p)| (*m, p.to_string())).collect();
    assert_eq!(got, expected, "{listing}");
    assert!(
        listing
            .lines()
            .all(|l| l.contains(" 0/0 ") && l.contains(" 2026-01-01 ")),
        "{listing}"
    );

    let x = run(Command::new("tar")
        .arg("xzf")
        .arg(&archive)
        .current_dir(d.path()));
    assert!(x.status.success());
    let unpacked = d.path().join(&name);
    assert_eq!(
        std::fs::read_to_string(unpacked.join("complete/_quickbench")).unwrap(),
        generate("complete-zsh")
    );
    assert_eq!(
        std::fs::read(unpacked.join("quickbench")).unwrap(),
        std::fs::read(bin()).unwrap()
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for schema in [
        "schema/report.schema.json",
        "schema/compare.schema.json",
        "docs/METHOD.md",
        "docs/KERNELS.md",
    ] {
        assert_eq!(
            std::fs::read(unpacked.join(schema)).unwrap(),
            std::fs::read(root.join(schema)).unwrap(),
            "{schema}"
        );
    }

    let out = run(Command::new("bash")
        .arg(&script)
        .arg("sums")
        .arg(d.path().join("a")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sums = std::fs::read_to_string(d.path().join("a/SHA256SUMS")).unwrap();
    let files: Vec<&str> = sums
        .lines()
        .map(|l| l.split("  ").nth(1).unwrap())
        .collect();
    assert_eq!(files, [name.clone(), format!("{name}.tar.gz")]);
    let check = run(Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(d.path().join("a")));
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    std::fs::write(&archive, b"tampered").unwrap();
    let check = run(Command::new("sha256sum")
        .args(["-c", "--quiet", "SHA256SUMS"])
        .current_dir(d.path().join("a")));
    assert!(!check.status.success(), "a tampered archive passed");
}
