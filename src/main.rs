//! quickbench: one command, the Quickbench report of this host.
//!
//! The table of contents: the command line ([`quickbench::cli`]) picks one
//! of four commands, each a function below that maps its outcome to an
//! exit status: a run (measuring in [`quickbench::run`], its outputs in
//! [`quickbench::run::outputs`], text and JSON in [`quickbench::report`]),
//! `compare` ([`quickbench::compare`], one [`Render`] per output), `export`
//! ([`quickbench::export`]) and `--generate` ([`quickbench::generate`]).

use std::io::{self, Write};
use std::process::ExitCode;

use quickbench::cli::{self, Command, ExportConfig, ExportTo, Usage};
use quickbench::compare::render::HtmlRenderer;
use quickbench::compare::{self, CompareConfig, HtmlTo, PageFile, Render, Style};
use quickbench::progress::Progress;
use quickbench::report::textfile;
use quickbench::report::{self, Console};
use quickbench::run::{self, Stop};
use quickbench::signals;

/// Exit status when stdout was closed early: 128 + SIGPIPE, as a shell
/// reports a program killed by SIGPIPE, but quietly.
const EXIT_BROKEN_PIPE: u8 = 141;
/// Exit status of bad usage, and of anything else found wrong before a
/// step is measured or an input read (an output file that cannot be
/// created).
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cfg = match cli::parse_command(std::env::args_os()) {
        Ok(Command::Run(c)) => c,
        Ok(Command::Compare(c)) => return compare(&c),
        Ok(Command::Export(c)) => return export(&c),
        Ok(Command::Generate(kind)) => return generate(kind),
        Err(u) => return usage(u),
    };
    // Before measuring: a path that cannot take the textfile, or a budget
    // the first pass already exceeds, is bad usage.
    if let Err(e) = run::check_before(&cfg) {
        report::stderr_line(&e);
        return ExitCode::from(EXIT_USAGE);
    }
    signals::install();
    let console = Console::new(Progress::stderr(cfg.quiet));
    let progress = Progress::disabled();
    let status = match run::outputs(&cfg, console.progress(), &progress) {
        // The report's sections, in report order.
        Ok(mut out) => run::report(&cfg, &mut out, &console).map(|r| r.exit_status()),
        Err(e) => {
            // Nothing measured yet: a path to fix, as bad usage is.
            console.warn(&format!("{e}"));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match status {
        Ok(code) => ExitCode::from(code),
        Err(Stop::BrokenPipe) => ExitCode::from(EXIT_BROKEN_PIPE),
        Err(Stop::Aborted(sig)) => {
            console.warn(&format!("aborted by {}", signals::name(sig)));
            ExitCode::from(signals::exit_code(sig) as u8)
        }
        Err(Stop::Error(e)) => {
            console.warn(&format!("{e:#}"));
            ExitCode::from(1)
        }
    }
}

/// `quickbench compare`: the comparison on stdout, and the HTML page where
/// `--html` says; exit 0, 2 when the page's file cannot be opened or an
/// input cannot be read (before anything is written), 1 when writing the
/// page or stdout fails, 141 when stdout was closed early.
fn compare(cfg: &CompareConfig) -> ExitCode {
    let cannot = |path: &std::path::Path, e| report::stderr_line(&PageFile::error(path, e));
    let page_file = match &cfg.html {
        Some(HtmlTo::File(path)) => match PageFile::open(path) {
            Ok(f) => Some(f),
            Err(e) => {
                cannot(path, e);
                return ExitCode::from(EXIT_USAGE);
            }
        },
        _ => None,
    };
    let inputs = match compare::load_for_compare(&cfg.inputs) {
        Ok(i) => i,
        Err(e) => {
            report::stderr_line(&format!("{e}"));
            if let Some(f) = page_file {
                f.abandon();
            }
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let grouping = cfg
        .split
        .map_or(compare::Grouping::Auto, compare::Grouping::Split);
    // Compute what the outputs show, nothing more: the fleet table and
    // page judge no pair, the text no bootstrap interval.
    let stdout = compare::render::for_stdout(cfg, Style::of_stdout());
    let c = compare::compare_for(&inputs, grouping, |c| match page_file {
        Some(_) => stdout.detail(c).max(HtmlRenderer.detail(c)),
        None => stdout.detail(c),
    });
    // Warnings go to stderr whatever the output (a document may repeat
    // them): stdout holds only the comparison.
    for w in &c.warnings {
        report::stderr_line(&format!("warning: {w}"));
    }
    if let Some(f) = page_file {
        let path = f.path.clone();
        if let Err(e) = f.write(&HtmlRenderer.render(&c)) {
            cannot(&path, e);
            return ExitCode::from(1);
        }
    }
    print_stdout(stdout.render(&c).as_bytes(), "the comparison")
}

/// `quickbench export`: the Prometheus textfile of stored reports, in a
/// file (replaced atomically) or on stdout; exit 0, 2 when an input cannot
/// be read or two are of one host, 1 when the file or stdout cannot be
/// written, 141 when stdout was closed early.
fn export(cfg: &ExportConfig) -> ExitCode {
    let inputs = match compare::load(&cfg.inputs) {
        Ok(i) => i,
        Err(e) => {
            report::stderr_line(&format!("{e}"));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let text = match quickbench::export::prometheus_textfile(&inputs) {
        Ok(t) => t,
        Err(e) => {
            report::stderr_line(&e);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match &cfg.prometheus {
        ExportTo::Stdout => print_stdout(text.as_bytes(), "the Prometheus textfile"),
        ExportTo::File(path) => match textfile::write_atomically(path, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                report::stderr_line(&format!(
                    "{}: cannot write the Prometheus textfile: {e} (give --prometheus a file in a writable directory, or - for stdout)",
                    path.display()
                ));
                ExitCode::from(1)
            }
        },
    }
}

/// `quickbench --generate KIND`: the man page or a completion script on
/// stdout; exit 0, 1 when it cannot be rendered or written, 141 when
/// stdout was closed early.
fn generate(kind: cli::Generate) -> ExitCode {
    match quickbench::generate::render(kind) {
        Ok(bytes) => print_stdout(&bytes, &format!("the {} output", kind.name())),
        Err(e) => {
            report::stderr_line(&e);
            ExitCode::from(1)
        }
    }
}

/// Writes a whole document (`what`, for the error) to stdout: exit 0, 141
/// when stdout was closed early (as a report does), 1 when it cannot be
/// written.
fn print_stdout(bytes: &[u8], what: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_BROKEN_PIPE),
        Err(e) => {
            report::stderr_line(&format!("writing {what} to stdout: {e}"));
            ExitCode::from(1)
        }
    }
}

/// Help and version go to stdout (exit 0); bad usage is one line on
/// stderr (exit 2).
fn usage(u: Usage) -> ExitCode {
    match u {
        Usage::Info(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Usage::Bad(line) => {
            report::stderr_line(&line);
            ExitCode::from(EXIT_USAGE)
        }
    }
}
