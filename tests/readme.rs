//! README.md's commands can be pasted as they are: the test command is
//! the one `.ci/run` runs, no code block holds a `<placeholder>` that a
//! shell would read as a redirection, and every example comparison
//! compares JSON reports (a text report carries no samples, so its
//! figures only get the fixed band).

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The lines of README's `sh` code blocks, with the heading each is under.
fn sh_lines(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let (mut heading, mut in_sh) = (String::new(), false);
    for line in readme.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            heading = h.to_string();
        } else if line == "```sh" {
            in_sh = true;
        } else if line.starts_with("```") {
            in_sh = false;
        } else if in_sh {
            out.push((heading.clone(), line.to_string()));
        }
    }
    out
}

/// The command of a line, without its comment.
fn command(line: &str) -> &str {
    line.split(" #").next().unwrap().trim()
}

#[test]
fn the_test_command_is_the_one_ci_runs() {
    let readme = read("README.md");
    let ci = read(".ci/run");
    let ci_test = ci
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap();
    assert_eq!(ci_test, "cargo test --locked", ".ci/run's last command");
    let lines = sh_lines(&readme);
    let first_block: Vec<&str> = lines
        .iter()
        .filter(|(h, _)| h == "Get it")
        .map(|(_, l)| command(l))
        .take(2)
        .collect();
    assert_eq!(
        first_block,
        ["cargo build --release --locked", ci_test],
        "README's first commands: build, then the test command of .ci/run"
    );
}

#[test]
fn code_blocks_hold_no_placeholder() {
    let placeholder = regex::Regex::new(r"<[A-Za-z_][A-Za-z_-]*>").unwrap();
    let lines = sh_lines(&read("README.md"));
    assert!(lines.len() > 10, "README's sh blocks not found");
    for (heading, line) in lines {
        assert!(
            !placeholder.is_match(command(&line)),
            "{heading}: a placeholder breaks a paste: {line}"
        );
    }
}

#[test]
fn example_comparisons_compare_json() {
    let lines = sh_lines(&read("README.md"));
    let compares: Vec<&String> = lines
        .iter()
        .map(|(_, l)| l)
        .filter(|l| command(l).starts_with("quickbench compare"))
        .collect();
    assert!(compares.len() >= 5, "{compares:?}");
    for line in compares {
        // The words before a redirection: options, the page, the reports.
        let words = command(line).split(" > ").next().unwrap();
        for word in words.split_whitespace().skip(2) {
            let report = word.ends_with(".json") || word == "-" || word == "--";
            let option = word.starts_with("--") || word.ends_with(".html");
            assert!(report || option, "not a JSON report: {word} in {line}");
        }
    }
}
