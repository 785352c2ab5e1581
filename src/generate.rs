//! `quickbench --generate KIND`: the man page and the shell completion
//! scripts, rendered from the clap definitions of [`crate::cli`] (clap_mangen
//! and clap_complete), so that they never drift from the options the binary
//! parses and a single static binary can print them anywhere.
//!
//! The man page is clap_mangen's title, NAME, SYNOPSIS and OPTIONS, with
//! the prose sections written here; `compare`'s synopsis, description and
//! options come from its own definition, in a COMPARE section.

use std::io::{self, Write};

use clap_complete::Shell;
use clap_mangen::roff::{bold, italic, roman, Inline, Roff};
use clap_mangen::Man;

use crate::cli::{self, Generate, ADVISED_DELAY_S, DEFAULT_DELAY_S, MIN_DELAY_S};
use crate::model::Section;
use crate::report::json::rfc3339_utc;
use crate::signals;

/// The program's name in the man page and the completion scripts.
const BIN: &str = "quickbench";

/// The bytes `--generate kind` prints, or why it cannot (a malformed
/// `SOURCE_DATE_EPOCH`).
pub fn render(kind: Generate) -> Result<Vec<u8>, String> {
    let (run, compare, export) = cli::definitions();
    let shell = match kind {
        Generate::Man => return Ok(man_page(run, compare, export, &man_date()?).into_bytes()),
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
    };
    // For completion, `compare` is the subcommand it is on the command
    // line, and there is no `help` subcommand. Hidden options stay out
    // (clap_complete would offer them). So does the loop delay: a number,
    // nothing to complete, and the zsh script would take `compare` for it
    // and offer the run's options after `quickbench compare`.
    let mut cmd = completion_command(&run, BIN, |a| !a.is_hide_set() && !a.is_positional())
        .subcommand(completion_command(&compare, "compare", |a| {
            !a.is_hide_set()
        }))
        .subcommand(completion_command(&export, "export", |a| !a.is_hide_set()))
        .disable_help_subcommand(true);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut out);
    let script = String::from_utf8(out).map_err(|e| e.to_string())?;
    let script = match shell {
        Shell::Bash => bash_values(&script, &run),
        Shell::Zsh => zsh_values(&script),
        Shell::Fish => fish_values(&script),
        _ => Ok(script),
    };
    script.map(String::into_bytes)
}

/// The section names, as `--only` and `--skip` take them.
fn section_names() -> String {
    Section::ALL.map(Section::name).join(" ")
}

/// `script` with `from` replaced by `to`, which must occur `times` times:
/// a newer clap_complete that writes it otherwise fails the tests here,
/// not a user's shell.
fn patched(script: &str, from: &str, to: &str, times: usize) -> Result<String, String> {
    let found = script.matches(from).count();
    if found != times {
        return Err(format!(
            "the completion script changed: {from:?} found {found} times, not {times}"
        ));
    }
    Ok(script.replace(from, to))
}

/// What clap_complete's bash script lacks: the files that `compare`
/// takes (it offers its options instead, and the common prefix `-` is
/// what Tab inserted), each name of a comma-separated section list, and
/// nothing for a number (a loop delay, where it offered file names).
fn bash_values(script: &str, run: &clap::Command) -> Result<String, String> {
    let names = section_names();
    let script = patched(
        script,
        &format!("COMPREPLY=($(compgen -W \"{names}\" -- \"${{cur}}\"))"),
        &format!(
            "COMPREPLY=($(compgen -P \"${{cur%\"${{cur##*,}}\"}}\" -W \"{names}\" -- \"${{cur##*,}}\"))"
        ),
        2,
    )?;
    // compare and export: options after a dash, else the reports, files.
    let (head, tail) = script
        .split_once("quickbench__subcmd__compare)\n")
        .ok_or("the completion script changed: no compare branch")?;
    let commands = 2;
    let tail = patched(
        tail,
        "if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then",
        "if [[ ${cur} == -* ]] ; then",
        commands,
    )?;
    let files = "local IFS=$'\\n'\n            \
                 COMPREPLY=($(compgen -f -- \"${cur}\"))\n            \
                 compopt -o filenames 2>/dev/null\n            \
                 return 0\n            ;;\n";
    let tail = patched(
        &tail,
        "COMPREPLY=( $(compgen -W \"${opts}\" -- \"${cur}\") )\n            return 0\n            ;;\n",
        files,
        commands,
    )?;
    // The run: a word that starts like a number, where no path is
    // expected, is a loop delay: nothing to complete.
    let paths: Vec<String> = run
        .get_opts()
        .filter(|a| {
            matches!(
                a.get_value_hint(),
                clap::ValueHint::DirPath | clap::ValueHint::FilePath
            )
        })
        .flat_map(|a| {
            let longs = a.get_long().map(|l| format!("--{l}"));
            let shorts = a.get_short().map(|s| format!("-{s}"));
            longs.into_iter().chain(shorts)
        })
        .collect();
    let opts_line = script
        .lines()
        .find(|l| l.trim_start().starts_with("opts=\"-d "))
        .ok_or("the completion script changed: no opts line for the run")?;
    let number = format!(
        "{opts_line}\n            \
         if [[ ${{cur}} == [0-9.]* && ! ${{prev}} =~ ^({})$ ]] ; then\n                \
         COMPREPLY=(\"${{cur}}\")\n                \
         compopt -o nospace 2>/dev/null\n                \
         return 0\n            \
         fi",
        paths.join("|")
    );
    let head = patched(head, opts_line, &number, 1)?;
    Ok(format!("{head}quickbench__subcmd__compare)\n{tail}"))
}

/// zsh: each name of a comma-separated section list (`_values -s ,`).
fn zsh_values(script: &str) -> Result<String, String> {
    let names = section_names();
    patched(
        script,
        &format!(":LIST:({names})'"),
        &format!(":LIST:_values -s , section {names}'"),
        2,
    )
}

/// fish: each name of a comma-separated section list
/// (`__fish_complete_list`).
fn fish_values(script: &str) -> Result<String, String> {
    let listed: String = Section::ALL
        .iter()
        .map(|s| format!("{}\\t''\n", s.name()))
        .collect();
    let from = format!("-r -f -a \"{}\"", listed.trim_end());
    let to = format!(
        "-r -f -a \"(__fish_complete_list , 'string split \\  {}')\"",
        section_names()
    );
    let script = patched(script, &from, &to, 2)?;
    // An option still waiting for its value (`--only `) makes argparse
    // fail; the script then took it for a command and offered no
    // option's values, only files. No command is there yet.
    patched(
        &script,
        "argparse -s (__fish_quickbench_global_optspecs) -- $cmd 2>/dev/null\n    or return\n",
        "argparse -s (__fish_quickbench_global_optspecs) -- $cmd 2>/dev/null\n    or return 0\n",
        1,
    )
}

/// `cmd` renamed `name`, with the arguments that `keep` accepts (its about
/// and version kept).
fn completion_command(
    cmd: &clap::Command,
    name: &'static str,
    keep: impl Fn(&clap::Arg) -> bool,
) -> clap::Command {
    let mut c = clap::Command::new(name).args(cmd.get_arguments().filter(|a| keep(a)).cloned());
    if let Some(about) = cmd.get_about() {
        c = c.about(about.clone());
    }
    if cmd.get_version().is_some() {
        // The derive's `version` is the package's.
        c = c.version(env!("CARGO_PKG_VERSION"));
    }
    c
}

/// The man page's date, `YYYY-MM-DD`: `SOURCE_DATE_EPOCH` when set (the
/// reproducible-builds convention, which the release packaging follows;
/// malformed is an error, as it asks), else today (UTC).
fn man_date() -> Result<String, String> {
    let secs = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) => v.trim().parse::<u64>().map_err(|_| {
            format!(
                "SOURCE_DATE_EPOCH='{v}' is not a number of seconds since 1970: \
                 unset it or set it to e.g. $(git log -1 --format=%ct)"
            )
        })?,
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    Ok(rfc3339_utc(secs)[..10].to_string())
}

/// The man page: clap_mangen's pieces of the run's and compare's
/// definitions, and the sections that no option says.
fn man_page(
    run: clap::Command,
    compare: clap::Command,
    export: clap::Command,
    date: &str,
) -> String {
    let run = Man::new(run)
        .title("QUICKBENCH")
        .date(date)
        .manual("User Commands");
    let compare = Man::new(compare);
    let export = Man::new(export);
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let mut put = |f: &dyn Fn(&mut dyn Write) -> io::Result<()>| f(&mut out).expect("Vec write");
    put(&|w| run.render_title(w));
    put(&|w| run.render_name_section(w));
    put(&|w| run.render_synopsis_section(w));
    put(&|w| {
        let mut r = Roff::new();
        r.control("br", []);
        r.to_writer(w)?;
        without_heading(w, |w| compare.render_synopsis_section(w))?;
        let mut r = Roff::new();
        r.control("br", []);
        r.to_writer(w)?;
        without_heading(w, |w| export.render_synopsis_section(w))
    });
    put(&|w| description().to_writer(w));
    put(&|w| run.render_options_section(w));
    put(&|w| {
        let mut r = Roff::new();
        r.control("SH", ["COMPARE"]);
        r.to_writer(w)?;
        without_heading(w, |w| compare.render_description_section(w))?;
        r = Roff::new();
        r.control("PP", []);
        r.text([
            roman("Each "),
            italic("REPORT"),
            roman(" is a file, or - for standard input (once). The word "),
            bold("compare"),
            roman(" comes first: it is read before any loop delay, and "),
            bold(format!("{BIN} compare --help")),
            roman(" prints its own help. Its options:"),
        ]);
        r.to_writer(w)?;
        without_heading(w, |w| compare.render_options_section(w))
    });
    put(&|w| {
        let mut r = Roff::new();
        r.control("SH", ["EXPORT"]);
        r.to_writer(w)?;
        without_heading(w, |w| export.render_description_section(w))?;
        r = Roff::new();
        r.control("PP", []);
        r.text([
            roman("Each "),
            italic("REPORT"),
            roman(" is a file, or - for standard input (once). The word "),
            bold("export"),
            roman(" comes first, and "),
            bold(format!("{BIN} export --help")),
            roman(" prints its own help. Its options:"),
        ]);
        r.to_writer(w)?;
        without_heading(w, |w| export.render_options_section(w))
    });
    put(&|w| prose().to_writer(w));
    tidy(&String::from_utf8_lossy(&out))
}

/// Roff that `mandoc -T lint` passes without a remark: roff's preamble
/// once (every clap_mangen piece starts with it), no trailing blanks, and
/// text lines of at most [`WRAP`] bytes. In filled text a line break is a
/// word space, so a long text line is split at a space; the tag line after
/// `.TP` is kept whole, as are control lines.
fn tidy(page: &str) -> String {
    // roff's preamble: it defines the apostrophe string that text uses.
    const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];
    let mut out = String::new();
    let mut seen = [false; 2];
    let mut after_tp = false;
    for line in page.lines() {
        let line = trim_blanks(line);
        if let Some(i) = PREAMBLE.iter().position(|p| *p == line) {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
        }
        let control = line.starts_with('.') || line.starts_with('\'');
        if control || after_tp {
            out.push_str(line);
            out.push('\n');
        } else {
            wrap_into(&mut out, line);
        }
        after_tp = line == ".TP";
    }
    out
}

/// `line` without trailing blanks, but an escaped one (`\ `) stays: a
/// line ending in a backslash would continue onto the next.
fn trim_blanks(line: &str) -> &str {
    let mut t = line.trim_end();
    let slashes = t.bytes().rev().take_while(|&b| b == b'\\').count();
    if slashes % 2 == 1 {
        t = &line[..t.len() + 1];
    }
    t
}

/// The widest text line [`tidy`] leaves (mandoc's style check asks for 80).
const WRAP: usize = 78;

/// Appends `line` split at unescaped spaces into lines of at most [`WRAP`]
/// bytes where it can; no piece starts with `.` or `'`, which would make it a
/// control line.
fn wrap_into(out: &mut String, line: &str) {
    let mut rest = line;
    while rest.len() > WRAP {
        let bytes = rest.as_bytes();
        let breakable = |i: usize| {
            bytes[i] == b' '
                && bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
                && i + 1 < bytes.len()
                && !matches!(bytes[i + 1], b'.' | b'\'' | b' ')
        };
        let cut = (1..=WRAP.min(bytes.len() - 1))
            .rev()
            .find(|&i| breakable(i))
            .or_else(|| (WRAP..bytes.len()).find(|&i| breakable(i)));
        let Some(cut) = cut else { break };
        out.push_str(&rest[..cut]);
        out.push('\n');
        rest = &rest[cut + 1..];
    }
    out.push_str(rest);
    out.push('\n');
}

/// Writes what `f` renders without its first line (its `.SH` heading), so
/// that a section of compare's page becomes part of a section of this one.
fn without_heading(
    w: &mut dyn Write,
    f: impl Fn(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    f(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let mut kept = String::new();
    let mut dropped = false;
    for line in text.split_inclusive('\n') {
        if !dropped && line.starts_with(".SH ") {
            dropped = true;
        } else {
            kept.push_str(line);
        }
    }
    w.write_all(kept.as_bytes())
}

/// What a report is, its sections, the loop delay.
fn description() -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["DESCRIPTION"]);
    r.text([
        bold(BIN),
        roman(
            " prints the Quickbench report of the host it runs on, in the layout of \
             Bearstech's bash Quickbench, so that hosts can be compared by eye or with ",
        ),
        bold(format!("{BIN} compare")),
        roman(
            ". It reads /proc, /sys and /dev directly and spawns no program: the \
             static binary runs as it is on a rescue system with no bash, dd or \
             util-linux.",
        ),
    ]);
    r.control("PP", []);
    r.text([roman(
        "The report opens with a header (versions, kernel, build, the CPU loop's \
         definition, and a Run line with the loop delay, the benchmark directory, \
         its filesystem and device, and the UTC date), then these sections, in \
         this order; the name in parentheses is the one ",
    )]);
    r.text([
        bold("--only"),
        roman(" and "),
        bold("--skip"),
        roman(" take:"),
    ]);
    for s in Section::ALL {
        let (title, text) = s.doc();
        r.control("TP", []);
        r.text([bold(title), roman(" ("), italic(s.name()), roman(")")]);
        r.text([roman(text)]);
    }
    r.control("PP", []);
    r.text([
        roman("Each step (a CPU loop step, the memory copy, a storage line) runs for "),
        italic("LOOP_DELAY"),
        roman(format!(
            " seconds: {DEFAULT_DELAY_S} by default, decimals allowed down to \
             {MIN_DELAY_S}. Under {ADVISED_DELAY_S} s a warning says the figures get \
             noisy; use {DEFAULT_DELAY_S} s or more for figures worth comparing. \
             The plan that --dry-run prints says how long a whole run takes."
        )),
    ]);
    r.control("PP", []);
    let marks: Vec<&str> = crate::conditions::MarkKind::ALL
        .iter()
        .map(|k| k.word())
        .collect();
    r.text([roman(format!(
        "Only the report goes to standard output; progress, warnings and errors go \
         to standard error, so a redirected report is clean. A figure that another \
         workload or the hardware's own limits disturbed gets a mark after its line \
         ({}), and standard error says what to do. The CPUs' clock is measured by \
         timing two chains of dependent instructions (x86-64 only) before the CPU \
         loop and after each of its steps; the frequency settings of cpufreq are \
         read, and a governor, a cap or boost off is warned about with the file to \
         change. One Ctrl-C ends the step in progress and the report goes on; two \
         within 2 s abort.",
        marks.join(", ")
    ))]);
    r
}

/// EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO.
fn prose() -> Roff {
    let mut r = Roff::new();
    trials(&mut r);
    exit_status(&mut r);
    environment_and_files(&mut r);
    examples_and_see_also(&mut r);
    r
}

/// TRIALS: how a step's loop delay is cut into trials.
fn trials(r: &mut Roff) {
    r.control("SH", ["TRIALS"]);
    r.text([roman(
        "Each timed step of the standard report (each CPU loop step, the memory bandwidth, \
         each storage line) spends its loop delay as K interleaved trials, in shuffled \
         rounds: 6 by default, fewer (down to 3) when a trial would be shorter than useful \
         (500 ms for the CPU loop, 250 ms for memory, 300 ms for a storage line, whose \
         trials each start after the jobs' 200 ms rest, taken out of the delay), one block \
         under about 1.5 s. The run takes the time it took with one block. The text prints each step's \
         rate over all its trials (their work over their time, the original's figure of \
         one block), a mark with the number of trials that earned it when not all did \
         (busy: ..., in 2 of 6 trials), and the Run line says the trials (loop delay 30 s in 6 trials); the \
         JSON keeps every trial, so compare judges one report a side by its measured spread. \
         --trials K asks for K trials (1: one block, as the original). --repeat N multiplies \
         the time: N rounds of the K trials of every step, N x K trials a step, each a K-th \
         of the delay (loop delay 30 s x 3 in 18 trials); each step prints the rate over \
         all N x K trials. --budget DURATION (90s, 10m, 1h) spends a whole-run time: after \
         the first pass of each section's trials (what the run takes without it, its \
         minimum; --dry-run states both), it adds one trial at a time to the step whose 95 % \
         t interval on its log trial rates is widest against the 5 % margin of compare, until \
         each step is within 2 %, has 60 trials, or the section's share of the budget (in \
         proportion to its first pass; what one leaves goes to the next) cannot pay for \
         another. The text prints the rate over all of a step's trials and the Run line names \
         the budget (loop delay 30 s in 6 trials, budget 20m); the JSON says what stopped \
         each step (budget_stop).",
    )]);
}

/// One tagged paragraph: `head`, then `text` under it.
fn item(r: &mut Roff, head: Vec<Inline>, text: &str) {
    r.control("TP", []);
    r.text(head);
    r.text([roman(text)]);
}

/// EXIT STATUS.
fn exit_status(r: &mut Roff) {
    r.control("SH", ["EXIT STATUS"]);
    for (code, text) in [
        (
            0,
            "Every selected section ran (compare: the reports were compared; export: \
             the reports were exported).",
        ),
        (
            1,
            "A section could not run: the report says which, standard error why and what \
             to do (and the --prometheus file of a run, if asked for, cannot be \
             written). For compare: writing the --html page or standard output \
             failed; for export: the --prometheus file or standard output.",
        ),
        (
            2,
            "Bad usage, with a one-line reason on standard error, found before anything \
             is measured: an unknown option, a --dir that is no directory (or, when the \
             storage bandwidth runs, one it cannot use: read-only, full, not writable, a \
             pseudo-filesystem), a --text-out file that cannot be created, a \
             --prometheus path that cannot be written, a --device that is no block \
             device, a --destroy naming another device or one that is in use or holds \
             data (the line names what was found and how to clear it). For compare, also an --html file \
             that cannot be opened; for compare and export, an input that cannot be \
             read (the message names the file and line); for export, two reports of \
             one host.",
        ),
    ] {
        item(r, vec![bold(code.to_string())], text);
    }
    let sig = |s| signals::exit_code(s).to_string();
    item(
        r,
        vec![bold(sig(libc::SIGINT))],
        &format!(
            "Aborted by Ctrl-C twice within 2 s ({} for SIGHUP, {} for SIGTERM).",
            sig(libc::SIGHUP),
            sig(libc::SIGTERM)
        ),
    );
    item(
        r,
        vec![bold(sig(libc::SIGPIPE))],
        "Standard output was closed early (quickbench | head -3); ends quietly.",
    );
}

/// ENVIRONMENT and FILES.
fn environment_and_files(r: &mut Roff) {
    r.control("SH", ["ENVIRONMENT"]);
    item(
        r,
        vec![bold("NO_COLOR")],
        "When set and not empty, quickbench compare prints no colour. Colour is only \
         ever used on a terminal; the words carry the meaning.",
    );
    item(
        r,
        vec![bold("COLUMNS")],
        "The width that quickbench compare fits its columns to (else the terminal's \
         width, else 100); too narrow for one column per report, it prints one row \
         per report.",
    );

    r.control("SH", ["FILES"]);
    item(
        r,
        vec![
            italic("/proc"),
            roman(", "),
            italic("/sys"),
            roman(", "),
            italic("/dev"),
        ],
        "Read, never written. With --sysroot DIR they are read under DIR (a dump) \
         and nothing is measured.",
    );
    item(
        r,
        vec![italic("DIR")],
        "The storage bandwidth sections write one temporary file on the filesystem of \
         the benchmark directory (--dir, default the current directory): unnamed \
         (O_TMPFILE) or unlinked at once, at most --max-size and half the free \
         space, and gone on every exit, even SIGKILL.",
    );
    item(
        r,
        vec![italic("DEV")],
        "With --device DEV the storage sections read the block device itself, opened \
         read-only; with --destroy DEV as well they write it first, destroying its data \
         (refused when it is mounted, active swap, holds another device, or carries a \
         filesystem, partition table, LVM, md, LUKS, ZFS or swap signature).",
    );
}

/// EXAMPLES and SEE ALSO.
fn examples_and_see_also(r: &mut Roff) {
    r.control("SH", ["EXAMPLES"]);
    for (cmd, text) in [
        (
            "./quickbench 30",
            "The whole report, 30 s per step; the storage sections run on the filesystem of the current directory.",
        ),
        (
            "quickbench 30 --json > host.json",
            "One JSON document (every figure with its unit) instead of the text report.",
        ),
        (
            "quickbench 30 --json --text-out host.txt > host.json",
            "Both, from one run.",
        ),
        (
            "quickbench --dry-run -d /srv",
            "The information sections and the storage plan for /srv; nothing is measured or written.",
        ),
        (
            "quickbench 10 --only storage,io --device /dev/sdb",
            "On a rescue system: the raw disk's read lines, nothing written; --destroy /dev/sdb also writes it.",
        ),
        (
            "quickbench 5 --only cpu,memory",
            "A short trial of two sections.",
        ),
        (
            "quickbench 30 --json --prometheus /var/lib/prometheus/node-exporter/quickbench.prom > host.json",
            "The JSON document, and the figures for node_exporter's textfile collector, written when the run ends.",
        ),
        (
            "quickbench export --prometheus - host.json",
            "A stored report's figures in the Prometheus text format, on stdout.",
        ),
        (
            "quickbench compare a.json b.json",
            "Two reports side by side, b relative to a.",
        ),
        (
            "quickbench compare --table reports/*.json",
            "One row per host with the key figures and their median.",
        ),
        (
            "quickbench compare --html fleet.html reports/*.json",
            "The comparison on stdout, and as a self-contained HTML page in fleet.html.",
        ),
        (
            "quickbench compare --markdown a.json b.json",
            "The comparison as Markdown tables, to paste into a ticket (--csv: for a spreadsheet).",
        ),
    ] {
        r.control("TP", []);
        r.text([bold(cmd)]);
        r.text([roman(text)]);
    }

    r.control("SH", ["SEE ALSO"]);
    r.text([
        bold("lscpu"),
        roman("(1), "),
        bold("lsblk"),
        roman("(8), "),
        bold("dd"),
        roman("(1), "),
        bold("fio"),
        roman("(1)"),
    ]);
    r.control("PP", []);
    r.text([roman(
        "README.md beside the binary explains the report and points at docs/READING.md (every \
         line) and docs/MARKS.md (the marks). \
         The bash original: https://github.com/bearstech/quickbench",
    )]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{parse_command, Command, Usage};

    #[test]
    fn names_round_trip() {
        for g in Generate::ALL {
            assert_eq!(Generate::from_name(g.name()), Some(g));
        }
        assert_eq!(Generate::from_name("complete-powershell"), None);
    }

    #[test]
    fn generate_is_an_option_alone() {
        assert!(matches!(
            parse_command(["quickbench", "--generate", "complete-zsh"]),
            Ok(Command::Generate(Generate::CompleteZsh))
        ));
        for bad in [
            &["quickbench", "--generate", "nroff"][..],
            &["quickbench", "--generate", "man", "30"],
            &["quickbench", "-q", "--generate", "man"],
        ] {
            assert!(
                matches!(parse_command(bad.to_vec()), Err(Usage::Bad(_))),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn generate_is_hidden_from_help_and_man() {
        let Err(Usage::Info(help)) = parse_command(["quickbench", "--help"]) else {
            panic!("no help");
        };
        assert!(!help.contains("--generate"), "{help}");
        let man = String::from_utf8(render(Generate::Man).unwrap()).unwrap();
        assert!(
            !man.contains("generate"),
            "the hidden option leaked into the man page"
        );
        assert!(
            !man.contains("fake"),
            "a hidden option leaked into the man page"
        );
    }

    #[test]
    fn man_page_has_every_section_and_every_command() {
        let man = String::from_utf8(render(Generate::Man).unwrap()).unwrap();
        let headings: Vec<&str> = man.lines().filter(|l| l.starts_with(".SH ")).collect();
        assert_eq!(
            headings,
            [
                ".SH NAME",
                ".SH SYNOPSIS",
                ".SH DESCRIPTION",
                ".SH OPTIONS",
                ".SH COMPARE",
                ".SH EXPORT",
                ".SH TRIALS",
                ".SH \"EXIT STATUS\"",
                ".SH ENVIRONMENT",
                ".SH FILES",
                ".SH EXAMPLES",
                ".SH \"SEE ALSO\"",
            ]
        );
        assert!(man.starts_with(".ie"), "{}", &man[..80]);
        assert!(man.contains(".TH QUICKBENCH 1 "), "no title line");
        let trials =
            &man[man.find(".SH TRIALS").unwrap()..man.find(".SH \"EXIT STATUS\"").unwrap()];
        for said in ["\\-\\-budget DURATION", "minimum", "(budget_stop)"] {
            assert!(trials.contains(said), "TRIALS says {said}: {trials}");
        }
        let synopsis =
            &man[man.find(".SH SYNOPSIS").unwrap()..man.find(".SH DESCRIPTION").unwrap()];
        assert!(synopsis.contains("\\fBquickbench\\fR"), "{synopsis}");
        assert!(
            synopsis.contains("\\fBquickbench compare\\fR"),
            "{synopsis}"
        );
        assert!(synopsis.contains("\\fBquickbench export\\fR"), "{synopsis}");
        let compare = &man[man.find(".SH COMPARE").unwrap()..man.find(".SH EXPORT").unwrap()];
        for opt in [
            "\\-\\-table",
            "\\-\\-json",
            "\\-\\-markdown",
            "\\-\\-csv",
            "REPORT",
        ] {
            assert!(compare.contains(opt), "compare's {opt} missing:\n{compare}");
        }
        let export = &man[man.find(".SH EXPORT").unwrap()..man.find(".SH \"EXIT").unwrap()];
        for opt in ["\\-\\-prometheus", "REPORT", "textfile"] {
            assert!(export.contains(opt), "export's {opt} missing:\n{export}");
        }
        for s in Section::ALL {
            assert!(
                man.contains(&format!("\\fI{}\\fR", s.name())),
                "section {s:?}"
            );
        }
    }

    #[test]
    fn completions_name_the_options_and_compare() {
        for kind in [
            Generate::CompleteBash,
            Generate::CompleteZsh,
            Generate::CompleteFish,
        ] {
            let text = String::from_utf8(render(kind).unwrap()).unwrap();
            for word in ["only", "max-size", "text-out", "compare", "table"] {
                assert!(text.contains(word), "{} lacks {word}", kind.name());
            }
            for hidden in ["generate", "stand-in", "fake-figures", "io-jobs"] {
                assert!(
                    !text.contains(hidden),
                    "{} offers hidden {hidden}",
                    kind.name()
                );
            }
        }
    }

    #[test]
    fn a_patch_that_no_longer_applies_is_an_error() {
        assert_eq!(patched("a b a", "a", "c", 2), Ok("c b c".to_string()));
        for times in [1, 3] {
            let e = patched("a b a", "a", "c", times).unwrap_err();
            assert!(e.contains("found 2 times"), "{e}");
        }
    }

    #[test]
    fn tidy_wraps_text_lines_and_keeps_tags_whole() {
        let long = "word ".repeat(40);
        let tag = format!("\\fB--tag\\fR {}", "x ".repeat(50));
        let page = format!(
            ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.SH A  \n{long}\n.TP\n{tag}\n\
             .ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\nend\\ \n{} .x {}\n",
            "a".repeat(70),
            "b".repeat(20)
        );
        let out = tidy(&page);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains(".ds Aq")).count(), 2);
        assert_eq!(lines[2], ".SH A", "trailing blanks stay");
        assert!(lines.contains(&tag.trim_end()), "the .TP tag was split");
        assert!(lines.contains(&"end\\ "), "an escaped blank was trimmed");
        for l in &lines {
            assert!(l.len() <= WRAP || *l == tag.trim_end(), "{l:?}");
        }
        // A break before ".x" would make it a control line.
        assert!(lines.iter().all(|l| !l.starts_with(".x")), "{out}");
        let words = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.contains(".ds Aq"))
                .flat_map(|l| l.split_whitespace().map(str::to_string))
                .collect()
        };
        assert_eq!(words(&out), words(&page), "words lost or added");
    }
}
