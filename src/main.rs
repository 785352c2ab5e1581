//! quickbench: one command, the Quickbench report of this host.
//!
//! This file parses the arguments, installs the signal handlers, picks the
//! outputs (the text report, the JSON document, or both), runs the report's
//! sections in order, and maps the outcome to an exit status. Measuring is
//! in [`quickbench::run`], text and JSON in [`quickbench::report`].

use std::io::{self, Write};
use std::process::ExitCode;

use quickbench::cli::{self, Command, Config, ExportConfig, ExportTo, Usage};
use quickbench::compare::{self, CompareConfig, CompareFormat, HtmlTo, Style};
use quickbench::progress::Progress;
use quickbench::report::json::JsonSink;
use quickbench::report::text::TextSink;
use quickbench::report::textfile::{self, TextfileSink};
use quickbench::report::{self, Console, FileOut};
use quickbench::run::{self, Stop};
use quickbench::signals;
use quickbench::sink::Output;

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
    // Before the run, not after it: a path that cannot take the textfile
    // is bad usage.
    if let Some(path) = &cfg.prometheus {
        if let Err(e) = textfile::check_writable(path) {
            report::stderr_line(&format!(
                "--prometheus {}: cannot write there: {e} (give a file in an existing, writable directory)",
                path.display()
            ));
            return ExitCode::from(2);
        }
    }
    // Before measuring: a budget the first pass already exceeds cannot be
    // kept.
    if let Some(budget) = cfg.budget.filter(|_| !cfg.dry_run) {
        let min = run::budget_minimum(&cfg);
        if budget < min {
            report::stderr_line(&format!(
                "--budget {}: less than this run's first pass of trials, which takes about {} \
                 (every timed step's loop delay, every storage line's rest): give at least \
                 --budget {}s, or a shorter loop delay, or fewer sections with --only",
                quickbench::plan::human_duration(budget.as_secs_f64()),
                quickbench::plan::human_duration(min.as_secs_f64()),
                min.as_secs()
            ));
            return ExitCode::from(EXIT_USAGE);
        }
    }
    signals::install();
    let console = Console::new(Progress::stderr(cfg.quiet));
    let progress = Progress::disabled();
    let status = match outputs(&cfg, console.progress(), &progress) {
        Ok(mut out) => report(&cfg, &mut out, &console),
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

/// The report's sections, in report order; returns the exit status.
fn report(cfg: &Config, out: &mut dyn Output, console: &Console) -> Result<u8, Stop> {
    Ok(run::report(cfg, out, console)?.exit_status())
}

/// The outputs: the text report on stdout, or the JSON document; with
/// `--text-out`, the text report in that file as well. The text on stdout
/// erases the progress line before each line; a file does not need to.
fn outputs<'p>(
    cfg: &Config,
    stdout_progress: &'p Progress,
    file_progress: &'p Progress,
) -> io::Result<Vec<Box<dyn Output + 'p>>> {
    let mut out: Vec<Box<dyn Output + 'p>> = Vec::new();
    if cfg.json {
        out.push(Box::new(JsonSink::new(io::stdout().lock())));
    } else {
        out.push(Box::new(TextSink::new(
            io::stdout().lock(),
            stdout_progress,
        )));
    }
    if let Some(path) = &cfg.text_out {
        let file = FileOut::create(path).map_err(|e| {
            io::Error::other(format!(
                "--text-out {}: cannot create it: {e}: choose a writable path",
                path.display()
            ))
        })?;
        out.push(Box::new(TextSink::new(file, file_progress)));
    }
    // Last: it writes when the run finishes, after the report is out.
    if let Some(path) = &cfg.prometheus {
        out.push(Box::new(TextfileSink::new(path)));
    }
    Ok(out)
}

/// `quickbench compare`: the comparison on stdout, and the HTML page where
/// `--html` says; exit 0, 2 when the page's file cannot be opened or an
/// input cannot be read (before anything is written), 1 when writing the
/// page or stdout fails, 141 when stdout was closed early.
fn compare(cfg: &CompareConfig) -> ExitCode {
    let cannot = |path: &std::path::Path, e: io::Error| {
        report::stderr_line(&format!(
            "--html {}: cannot write the HTML page: {e} (give --html a writable file, or --html - for stdout)",
            path.display()
        ));
    };
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
    let style = stdout_style();
    let c = compare::compare_for(&inputs, grouping, |c| {
        let page = || {
            if c.sides.len() > 2 {
                compare::Detail::KeyFigures
            } else {
                compare::Detail::Verdicts
            }
        };
        let stdout = if cfg.html == Some(HtmlTo::Stdout) {
            page()
        } else if cfg.format == CompareFormat::Json {
            compare::Detail::Full
        } else if cfg.format != CompareFormat::Text {
            // Markdown and CSV: the fleet table for more than two sides.
            page()
        } else if compare::shows_table(c, &style, cfg.table) {
            compare::Detail::KeyFigures
        } else {
            compare::Detail::Verdicts
        };
        match cfg.html {
            Some(HtmlTo::File(_)) => stdout.max(page()),
            _ => stdout,
        }
    });
    // Warnings go to stderr whatever the output (a document may repeat
    // them): stdout holds only the comparison.
    for w in &c.warnings {
        report::stderr_line(&format!("warning: {w}"));
    }
    if let Some(f) = page_file {
        let path = f.path.clone();
        if let Err(e) = f.write(&compare::html(&c)) {
            cannot(&path, e);
            return ExitCode::from(1);
        }
    }
    let text = if cfg.html == Some(HtmlTo::Stdout) {
        compare::html(&c)
    } else {
        match cfg.format {
            CompareFormat::Json => compare::render_json(&c),
            CompareFormat::Markdown => compare::render_markdown(&c),
            CompareFormat::Csv => compare::render_csv(&c),
            CompareFormat::Text => compare::render_text(&c, &style, cfg.table),
        }
    };
    print_stdout(text.as_bytes(), "the comparison")
}

/// The `--html` file, opened before any input is read, so that a path
/// that cannot be written stops the command at once; a file opened here
/// for the first time is removed again when no page comes.
struct PageFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    created: bool,
}

impl PageFile {
    fn open(path: &std::path::Path) -> io::Result<PageFile> {
        use std::fs::OpenOptions;
        let (file, created) = match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                (OpenOptions::new().write(true).open(path)?, false)
            }
            Err(e) => return Err(e),
        };
        Ok(PageFile {
            path: path.to_path_buf(),
            file,
            created,
        })
    }

    /// Replaces the file's content with `page` (a device or a pipe is
    /// written as it is).
    fn write(mut self, page: &str) -> io::Result<()> {
        if self.file.metadata()?.is_file() {
            self.file.set_len(0)?;
        }
        self.file.write_all(page.as_bytes())?;
        self.file.flush()
    }

    fn abandon(self) {
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
    }
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
            return ExitCode::from(2);
        }
    };
    let text = match quickbench::export::prometheus_textfile(&inputs) {
        Ok(t) => t,
        Err(e) => {
            report::stderr_line(&e);
            return ExitCode::from(2);
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

/// The comparison's style on stdout: whether it is a terminal, `NO_COLOR`,
/// `COLUMNS`, the terminal's width.
fn stdout_style() -> Style {
    let fd = libc::STDOUT_FILENO;
    Style::new(
        quickbench::progress::is_tty(fd),
        std::env::var_os("NO_COLOR")
            .map(|v| v.to_string_lossy().into_owned())
            .as_deref(),
        std::env::var("COLUMNS").ok().as_deref(),
        quickbench::progress::terminal_width(fd),
    )
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
            ExitCode::from(2)
        }
    }
}
