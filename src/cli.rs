//! The command line: clap lives here and nowhere else. [`parse`] turns the
//! arguments into a plain [`Config`] that the rest of the program reads.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Parser, ValueHint};

/// Smallest accepted loop delay, in seconds (tests run short).
pub const MIN_DELAY_S: f64 = 0.1;
/// Largest accepted loop delay, in seconds (one day).
pub const MAX_DELAY_S: f64 = 86_400.0;
/// Below this delay the original's README warns that results may be
/// unreliable (a warning on stderr).
pub const ADVISED_DELAY_S: f64 = 10.0;
/// The default loop delay, which the original's README also names as the
/// least for statistically meaningful results.
pub const DEFAULT_DELAY_S: f64 = 30.0;
use crate::compare::{CompareConfig, CompareFormat, HtmlTo};
use crate::dd_io::DEFAULT_MAX_SIZE_BYTES;

pub use crate::model::trials::MAX_REPEAT;
pub use crate::model::{BlockSize, Section};

/// Everything the program needs from the command line, clap-free.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long each step may run.
    pub loop_delay: Duration,
    /// The directory whose filesystem is benchmarked.
    pub dir: PathBuf,
    /// The sections to run, in report order.
    pub sections: Vec<Section>,
    /// Print the plan, measure and write nothing.
    pub dry_run: bool,
    /// Where `/proc`, `/sys` and `/dev` are read from (`/` when live).
    pub sysroot: Option<PathBuf>,
    /// Upper bound of the temporary file, in bytes.
    pub max_size_bytes: u64,
    /// A raw block device whose storage lines run instead of a file's
    /// (`--device`, `--destroy`).
    pub device: Option<Box<DeviceChoice>>,
    /// One JSON document instead of the text report.
    pub json: bool,
    /// Extra sections after the standard report.
    pub extended: bool,
    /// No progress display on stderr.
    pub quiet: bool,
    /// Job counts of the storage bandwidth lines (hidden; benches use it).
    pub io_jobs: Vec<u32>,
    /// Block sizes of the storage bandwidth sections (hidden).
    pub io_blocks: Vec<BlockSize>,
    /// Also write the text report to this file (with `--json`, one run
    /// gives both).
    pub text_out: Option<PathBuf>,
    /// Deterministic stand-in figures instead of measurements (hidden; the
    /// golden tests use it).
    pub stand_in: bool,
    /// Trials of each timed step of the standard report (`--repeat`, 1 to
    /// [`MAX_REPEAT`]), interleaved round by round.
    pub repeat: u32,
    /// Trials within each loop delay (`--trials K`); `None`: the planner
    /// chooses ([`crate::trials::plan`]).
    pub trials: Option<u32>,
    /// The whole run's time budget (`--budget`): after the first pass of
    /// each section's trials, more trials where the figures are noisiest.
    pub budget: Option<Duration>,
    /// Also write the Prometheus textfile to this file at the end of the
    /// run (atomically), for node_exporter's textfile collector.
    pub prometheus: Option<PathBuf>,
}

/// The raw device of `--device`, and whether `--destroy` consents to
/// writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceChoice {
    /// The device node, as given.
    pub path: PathBuf,
    /// `--destroy`'s device (which must be the same one), when given.
    pub destroy: Option<PathBuf>,
}

impl Config {
    /// True when `s` is selected.
    pub fn runs(&self, s: Section) -> bool {
        self.sections.contains(&s)
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "quickbench",
    version,
    about = "A one-command Linux host benchmark: CPU info, CPU loop, memory, storage info and storage bandwidth",
    long_about = None,
    allow_negative_numbers = true,
    after_help = "Compare reports: quickbench compare A B [C ...] (see 'quickbench compare --help').\n\
Export stored reports: quickbench export --prometheus FILE REPORT... (see 'quickbench export --help').\n\
Exit status: 0 every selected section ran; 1 a section could not run; \
2 bad usage (found before anything is measured); 130 aborted by Ctrl-C \
(129 SIGHUP, 143 SIGTERM); 141 stdout closed early (`| head`)."
)]
struct Args {
    /// Seconds each step may run (default 30; decimals allowed, >= 0.1)
    #[arg(value_name = "LOOP_DELAY", value_parser = parse_delay, value_hint = ValueHint::Other)]
    loop_delay: Option<f64>,

    /// Benchmark the filesystem holding DIR (default: the current directory)
    #[arg(short = 'd', long = "dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    dir: Option<PathBuf>,

    /// Run only these sections, comma separated: cpuinfo, cpu, memory, storage, io, work, latency (the last two with -x)
    #[arg(long, value_name = "LIST", value_parser = SectionListParser, hide_possible_values = true, conflicts_with = "skip")]
    only: Option<SectionList>,

    /// Run all but these sections (same names as --only)
    #[arg(long, value_name = "LIST", value_parser = SectionListParser, hide_possible_values = true)]
    skip: Option<SectionList>,

    /// Print the information sections and the storage plan; measure and write nothing
    #[arg(long)]
    dry_run: bool,

    /// Read every /proc, /sys and /dev path under DIR (implies --dry-run)
    #[arg(long, value_name = "DIR", value_parser = parse_sysroot, value_hint = ValueHint::DirPath)]
    sysroot: Option<PathBuf>,

    /// Upper bound of the temporary file (e.g. 512M, 4G; default 4G)
    #[arg(long, value_name = "SIZE", value_parser = parse_size, value_hint = ValueHint::Other)]
    max_size: Option<u64>,

    /// Measure the block device DEV itself (a disk or a partition), read only: the read lines only
    #[arg(long, value_name = "DEV", value_hint = ValueHint::FilePath, conflicts_with = "dir")]
    device: Option<PathBuf>,

    /// Also write DEV (the --device), destroying its data; refused if it is in use or holds data
    #[arg(long, value_name = "DEV", value_hint = ValueHint::FilePath, requires = "device")]
    destroy: Option<PathBuf>,

    /// One JSON document on stdout instead of the text report
    #[arg(long)]
    json: bool,

    /// The standard report, then extra sections
    #[arg(short = 'x', long)]
    extended: bool,

    /// No progress display on stderr
    #[arg(short, long)]
    quiet: bool,

    /// Also write the text report to FILE (e.g. with --json: one run, both reports)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    text_out: Option<PathBuf>,

    /// Measure each timed step N times, in N rounds of shuffled order (1 to 20, default 1): the
    /// text prints each step's rate over all its trials, the JSON keeps them all; the run takes N
    /// times as long
    #[arg(long, value_name = "N", value_parser = parse_repeat, value_hint = ValueHint::Other)]
    repeat: Option<u32>,

    /// Split each loop delay into K interleaved trials (1 to 20; default: 6, fewer when the
    /// delay is short, 1 under about 1.5 s): the text prints each step's rate over all its
    /// trials, compare reads their spread
    #[arg(long, value_name = "K", value_parser = parse_trials, value_hint = ValueHint::Other)]
    trials: Option<u32>,

    /// Spend a whole-run time budget (90s, 10m, 1h; at least the run's first pass): after each
    /// section's first pass, add trials to the steps whose intervals are widest against the 5 %
    /// margin of compare, until each is within 2 % or the budget is spent; the JSON says what
    /// stopped each step
    #[arg(long, value_name = "DURATION", value_parser = parse_budget, value_hint = ValueHint::Other)]
    budget: Option<Duration>,

    /// Also write the figures as a Prometheus textfile to FILE when the run ends (replaced
    /// atomically; for node_exporter's --collector.textfile.directory, name it *.prom)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    prometheus: Option<PathBuf>,

    /// Job counts of the storage bandwidth lines (for benchmark scripts)
    #[arg(long, value_name = "LIST", value_parser = parse_jobs, hide = true)]
    io_jobs: Option<JobList>,

    /// Block sizes of the storage bandwidth sections: 4k, 1M (for benchmark scripts)
    #[arg(long, value_name = "LIST", value_parser = parse_blocks, hide = true)]
    io_blocks: Option<BlockList>,

    /// Deterministic stand-in figures instead of measurements (for tests;
    /// `--fake-figures` is its older name)
    #[arg(long = "stand-in", alias = "fake-figures", hide = true, action = ArgAction::SetTrue)]
    stand_in: bool,

    /// Print the man page or a shell completion script (for packaging)
    #[arg(long, value_name = "KIND", value_parser = parse_generate, hide = true, exclusive = true)]
    generate: Option<Generate>,
}

/// What `--generate` prints ([`crate::generate`] renders it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generate {
    /// The man page, `quickbench.1` (roff).
    Man,
    /// The bash completion script.
    CompleteBash,
    /// The zsh completion script (`_quickbench`).
    CompleteZsh,
    /// The fish completion script.
    CompleteFish,
}

impl Generate {
    /// Every kind, in the order `--generate`'s error lists them.
    pub const ALL: [Generate; 4] = [
        Generate::Man,
        Generate::CompleteBash,
        Generate::CompleteZsh,
        Generate::CompleteFish,
    ];

    /// The name given to `--generate`.
    pub fn name(self) -> &'static str {
        match self {
            Generate::Man => "man",
            Generate::CompleteBash => "complete-bash",
            Generate::CompleteZsh => "complete-zsh",
            Generate::CompleteFish => "complete-fish",
        }
    }

    /// The kind named `s`, if any.
    pub fn from_name(s: &str) -> Option<Generate> {
        Generate::ALL.into_iter().find(|g| g.name() == s)
    }
}

/// Why the command line does not run a report: help or version text for
/// stdout, or a one-line reason for bad usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Usage {
    /// `--help` or `--version`: print this on stdout, exit 0.
    Info(String),
    /// Bad usage: the reason and the help that explains it, one line
    /// (exit 2).
    Bad(String),
}

/// Which help a usage error points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HelpFor {
    Run,
    Compare,
    Export,
}

impl HelpFor {
    /// `reason (see 'quickbench ... --help')`: the one line of bad usage.
    fn bad(self, reason: &str) -> Usage {
        let help = match self {
            HelpFor::Run => "quickbench --help",
            HelpFor::Compare => "quickbench compare --help",
            HelpFor::Export => "quickbench export --help",
        };
        Usage::Bad(format!("{reason} (see '{help}')"))
    }

    /// A clap error as help to print, or one line of bad usage: clap's
    /// first line, what is missing, and its suggestion when it has one.
    fn clap(self, e: clap::Error) -> Usage {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            return Usage::Info(e.render().to_string());
        }
        let strings = |kind| match e.get(kind) {
            Some(ContextValue::String(s)) => vec![s.clone()],
            Some(ContextValue::Strings(v)) => v.clone(),
            _ => Vec::new(),
        };
        let missing = strings(ContextKind::InvalidArg);
        if e.kind() == ErrorKind::MissingRequiredArgument && self == HelpFor::Compare {
            return self.bad(&needs_two_reports(0));
        }
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or("bad usage");
        let mut reason = first.strip_prefix("error: ").unwrap_or(first).to_string();
        if e.kind() == ErrorKind::MissingRequiredArgument && !missing.is_empty() {
            // clap lists them on the lines below; one line says them.
            reason = format!("missing {}", missing.join(", "));
        }
        let suggested = strings(ContextKind::SuggestedArg)
            .into_iter()
            .chain(strings(ContextKind::SuggestedValue))
            .chain(strings(ContextKind::SuggestedSubcommand))
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>();
        if !suggested.is_empty() {
            reason = format!(
                "{}: did you mean {}?",
                reason.trim_end_matches(" found"),
                suggested.join(" or ")
            );
        }
        self.bad(&reason)
    }
}

/// What `compare` says when it has fewer than two reports.
fn needs_two_reports(got: usize) -> String {
    let got = match got {
        0 => "none".to_string(),
        1 => "one".to_string(),
        n => n.to_string(),
    };
    format!("compare needs two or more reports (files, or - for standard input), got {got}")
}

/// The Damerau (optimal string alignment) distance of `a` and `b`: edits,
/// each one character inserted, deleted, replaced, or two neighbours
/// swapped (the usual typo `comapre`).
fn typo_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The commands, as the first word names them.
const COMMANDS: [&str; 2] = ["compare", "export"];

/// The command that a first word which is no loop delay misspells (at
/// most two typos, and not a number, an option or a command).
fn misspelt_command(word: &std::ffi::OsStr) -> Option<&'static str> {
    let w = word.to_str()?;
    if w.starts_with('-')
        || w.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        || COMMANDS.contains(&w)
        || w.len() < 4
    {
        return None;
    }
    let lower = w.to_ascii_lowercase();
    COMMANDS.into_iter().find(|c| typo_distance(&lower, c) <= 2)
}

/// What the command line asks for.
#[derive(Debug, Clone)]
pub enum Command {
    /// Run the benchmark and print its report.
    Run(Config),
    /// Compare reports (`quickbench compare A B ...`).
    Compare(CompareConfig),
    /// Export stored reports (`quickbench export --prometheus FILE R...`).
    Export(ExportConfig),
    /// Print the man page or a completion script (`--generate KIND`).
    Generate(Generate),
}

#[derive(Parser, Debug)]
#[command(
    name = "quickbench compare",
    version,
    about = "Compare Quickbench reports: ours in text or JSON, or the bash original's text",
    long_about = "Compare Quickbench reports: ours in text or JSON, or the bash original's text \
(any layout it printed, pasted or cut short).\n\n\
Reports of one host name form one side when the inputs name two or more \
hosts (a host run several times); with -- the reports before it are side A, \
those after it side B; two reports of a single host are two sides (before \
and after).\n\n\
Two sides: every figure of A and B side by side, B/A with its interval \
judged from the figures' own noise: \u{2248} when the whole interval is \
within 5 %, better or worse when it is all beyond (latency: lower is \
better), ~ when it straddles, with the runs a side that would decide. A \
report's trials measure its own spread (1M lines add a run-to-run floor \
with fewer than 3 reports a side); reports of one trial a step have the \
run-to-run spread assumed, 3 reports a side measure it. Reports with no samples (a text report or an older one) are \
read with the fixed 5 % band: compare JSON reports where you can. No ratio where it would mislead (the bash \
original's CPU loop against ours, its latency column, interrupted or stopped \
lines); the line says why. More sides: one column each against the first \
when they fit the terminal, else one row per side with the key figures, \
their median, and the outliers (robust z-score beyond 3.5 on the worse \
side, and more than 5 % worse than the median) marked with *.\n\n\
--html FILE also writes the comparison as one self-contained HTML page \
(inline SVG and CSS, no network access): for two reports, a bar of B/A per \
figure with its verdict; for more, one strip per key figure, every host a \
dot on a log scale, the median marked, the outliers named and listed. The \
text still goes to stdout; --html - puts the page on stdout instead of the \
text (not with --json).",
    after_help = "Exit status: 0 compared; 1 writing the page or stdout failed (the message \
names the file); 2 bad usage, an --html file that cannot be opened, or an \
input that cannot be read (the message names the file and line); 141 stdout \
closed early (`| head`)."
)]
struct CompareArgs {
    /// The reports (files, or - for standard input), at least two
    #[arg(value_name = "REPORT", required = true, num_args = 1.., value_hint = ValueHint::FilePath)]
    inputs: Vec<String>,

    /// After --: the reports of side B (those before it are side A)
    #[arg(value_name = "B-REPORT", last = true, value_hint = ValueHint::FilePath)]
    side_b: Vec<String>,

    /// One row per report with the key figures, whatever the width
    #[arg(long)]
    table: bool,

    /// The comparison as one JSON document (schema/compare.schema.json)
    #[arg(long, conflicts_with_all = ["markdown", "csv"])]
    json: bool,

    /// The comparison as GitHub-flavoured Markdown tables (for a ticket or a pull request)
    #[arg(long, conflicts_with = "csv")]
    markdown: bool,

    /// The comparison as CSV (RFC 4180): one row per line for two sides, one row per side
    /// for more, numbers without units in their own columns, a header row
    #[arg(long)]
    csv: bool,

    /// Also write the comparison as one self-contained HTML page to FILE
    /// (- : the page on stdout, instead of the text)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    html: Option<PathBuf>,
}

/// Parses the command line (`args` includes the program name): a run, or
/// `compare` (a first argument that no loop delay can be).
pub fn parse_command<I, T>(args: I) -> Result<Command, Usage>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if let Some(word) = args.get(1) {
        if let Some(cmd) = misspelt_command(word) {
            let help = if cmd == "export" {
                HelpFor::Export
            } else {
                HelpFor::Compare
            };
            return Err(help.bad(&format!(
                "unknown command '{}': did you mean '{cmd}'?",
                word.to_string_lossy()
            )));
        }
    }
    if args.get(1).is_some_and(|a| a == "compare") {
        let help = HelpFor::Compare;
        let a = CompareArgs::try_parse_from(
            std::iter::once(OsString::from("quickbench compare")).chain(args[2..].iter().cloned()),
        )
        .map_err(|e| help.clap(e))?;
        let split = (!a.side_b.is_empty()).then_some(a.inputs.len());
        let mut inputs = a.inputs;
        inputs.extend(a.side_b);
        if inputs.len() < 2 {
            return Err(help.bad(&needs_two_reports(inputs.len())));
        }
        if inputs.iter().filter(|i| *i == "-").count() > 1 {
            return Err(help.bad("standard input (-) can be read once only"));
        }
        let html = a.html.map(|p| {
            if p.as_os_str() == "-" {
                HtmlTo::Stdout
            } else {
                HtmlTo::File(p)
            }
        });
        let format = if a.json {
            Some(("--json", CompareFormat::Json))
        } else if a.markdown {
            Some(("--markdown", CompareFormat::Markdown))
        } else if a.csv {
            Some(("--csv", CompareFormat::Csv))
        } else {
            None
        };
        if let (Some((flag, _)), Some(HtmlTo::Stdout)) = (format, &html) {
            return Err(help.bad(&format!(
                "{flag} and --html - both write to stdout: give --html a file name"
            )));
        }
        return Ok(Command::Compare(CompareConfig {
            inputs,
            split,
            table: a.table,
            format: format.map_or(CompareFormat::Text, |(_, f)| f),
            html,
        }));
    }
    if args.get(1).is_some_and(|a| a == "export") {
        let a = ExportArgs::try_parse_from(
            std::iter::once(OsString::from("quickbench export")).chain(args[2..].iter().cloned()),
        )
        .map_err(|e| HelpFor::Export.clap(e))?;
        return export_config(a).map(Command::Export);
    }
    let a = Args::try_parse_from(args).map_err(|e| HelpFor::Run.clap(e))?;
    if a.prometheus.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(HelpFor::Run.bad(
            "the report goes to stdout: give --prometheus a file name (quickbench export --prometheus - REPORT prints a stored report's)",
        ));
    }
    match a.generate {
        Some(kind) => Ok(Command::Generate(kind)),
        None => Ok(Command::Run(checked(config(a))?)),
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "quickbench export",
    version,
    about = "Export stored reports (ours in text or JSON, or the bash original's text) for other tools",
    long_about = "Export stored reports (ours in text or JSON, or the bash original's text) \
for other tools.\n\n\
--prometheus FILE writes the figures in the Prometheus text format that node_exporter's \
textfile collector reads (--collector.textfile.directory; name the file *.prom): a \
temporary file in the same directory, then renamed over FILE, so that a scrape never \
reads half of it. - writes to standard output. One report gives its figures with no \
label added (the scrape's instance says which host); several reports, one per host, \
give each figure a host label (the report's host name); two reports of one host are \
refused: a textfile holds no history (samples carry no timestamp), Prometheus keeps it. \
A run writes the same file itself with 'quickbench 30 --prometheus FILE'.",
    after_help = "Exit status: 0 exported; 1 FILE or stdout cannot be written (the message \
names it); 2 bad usage, an input that cannot be read (the message names the file and line), \
or two reports of one host."
)]
struct ExportArgs {
    /// The reports (files, or - for standard input, once)
    #[arg(value_name = "REPORT", required = true, num_args = 1.., value_hint = ValueHint::FilePath)]
    inputs: Vec<String>,

    /// Write the Prometheus textfile to FILE, replaced atomically (- : standard output)
    #[arg(long, value_name = "FILE", required = true, value_hint = ValueHint::FilePath)]
    prometheus: PathBuf,
}

/// The plain [`ExportConfig`] of `quickbench export`'s arguments.
fn export_config(a: ExportArgs) -> Result<ExportConfig, Usage> {
    if a.inputs.iter().filter(|i| *i == "-").count() > 1 {
        return Err(HelpFor::Export.bad("standard input (-) can be read once only"));
    }
    let prometheus = if a.prometheus.as_os_str() == "-" {
        ExportTo::Stdout
    } else {
        ExportTo::File(a.prometheus)
    };
    Ok(ExportConfig {
        inputs: a.inputs,
        prometheus,
    })
}

/// What `quickbench export` is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The reports: files, or `-` for standard input (once).
    pub inputs: Vec<String>,
    /// Where the Prometheus textfile goes.
    pub prometheus: ExportTo,
}

/// Where `quickbench export` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportTo {
    /// Standard output (`-`).
    Stdout,
    /// This file, replaced atomically.
    File(PathBuf),
}

/// The clap definitions of a run, of `compare` and of `export`, for the
/// man page and the completion scripts ([`crate::generate`]).
pub fn definitions() -> (clap::Command, clap::Command, clap::Command) {
    use clap::CommandFactory;
    (
        Args::command(),
        CompareArgs::command(),
        ExportArgs::command(),
    )
}

/// Parses the command line of a run (`args` includes the program name).
pub fn parse<I, T>(args: I) -> Result<Config, Usage>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    checked(config(
        Args::try_parse_from(args).map_err(|e| HelpFor::Run.clap(e))?,
    ))
}

/// `cfg`, once what can be known before measuring is known good: a live
/// run's `--dir` is an existing directory, and one that the storage
/// bandwidth sections may write in when they will. A mistake there would
/// otherwise show only after minutes of CPU and memory steps.
fn checked(cfg: Config) -> Result<Config, Usage> {
    let bad = |why: String| HelpFor::Run.bad(&why);
    if let Some(dev) = &cfg.device {
        // Before anything is measured: a device that is not one, or one
        // that may not be written.
        let sys = match &cfg.sysroot {
            Some(root) => crate::sysroot::Sysroot::new(root),
            None => crate::sysroot::Sysroot::live(),
        };
        crate::blockdev::raw::check(&sys, &dev.path, dev.destroy.as_deref()).map_err(bad)?;
        return Ok(cfg);
    }
    if cfg.sysroot.is_some() {
        // The directory is a path inside the dump, never opened.
        return Ok(cfg);
    }
    let writes = cfg.runs(Section::Io) && !cfg.dry_run;
    check_dir(&cfg.dir, false).map_err(bad)?;
    if writes {
        // What would skip the storage sections after minutes of CPU and
        // memory steps: a pseudo-filesystem, a read-only mount, too little
        // space. The same checks run again when they start.
        let live = crate::sysroot::Sysroot::live();
        let mut io = crate::dd_io::IoConfig::new(cfg.dir.clone());
        io.max_size_bytes = cfg.max_size_bytes;
        io.target = crate::blockdev::resolve_dir(&live, &cfg.dir).ok();
        crate::dd_io::preflight(&io).map_err(|e| bad(format!("--dir {}", e.reason)))?;
        check_dir(&cfg.dir, true).map_err(bad)?;
    }
    Ok(cfg)
}

/// Why `dir` cannot be the benchmark directory, if it cannot: missing, not
/// a directory, or (when `writes`) not writable by this process
/// (`access(2)`).
pub fn check_dir(dir: &std::path::Path, writes: bool) -> Result<(), String> {
    use nix::unistd::{access, AccessFlags};
    let d = dir.display();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "--dir {d}: no such directory: give an existing directory on the filesystem to benchmark"
            ))
        }
        Err(e) => {
            return Err(format!(
                "--dir {d}: cannot reach it: {e}: give a directory you may read"
            ))
        }
        Ok(m) if !m.is_dir() => {
            return Err(format!(
                "--dir {d} is not a directory: give the directory whose filesystem to benchmark"
            ))
        }
        Ok(_) => {}
    }
    if !writes {
        return Ok(());
    }
    let why = match access(dir, AccessFlags::W_OK | AccessFlags::X_OK) {
        Ok(()) => return Ok(()),
        Err(nix::errno::Errno::EROFS) => "its filesystem is mounted read-only".to_string(),
        Err(nix::errno::Errno::EACCES) => "permission denied".to_string(),
        Err(e) => e.desc().to_string(),
    };
    Err(format!(
        "--dir {d}: {why}, and the storage bandwidth sections write a temporary file there: \
         use --dir on a directory you may write, or --skip io"
    ))
}

/// The plain [`Config`] of parsed arguments.
fn config(a: Args) -> Config {
    let sections: Vec<Section> = match (a.only.map(|l| l.0), a.skip.map(|l| l.0)) {
        (Some(only), _) => Section::ALL
            .into_iter()
            .filter(|s| only.contains(s))
            .collect(),
        (None, Some(skip)) => Section::ALL
            .into_iter()
            .filter(|s| !skip.contains(s))
            .collect(),
        (None, None) => Section::ALL.to_vec(),
    };
    let dry_run = a.dry_run || (a.sysroot.is_some() && !a.stand_in);
    Config {
        loop_delay: Duration::from_secs_f64(a.loop_delay.unwrap_or(DEFAULT_DELAY_S)),
        dir: a.dir.unwrap_or_else(|| PathBuf::from(".")),
        sections,
        dry_run,
        sysroot: a.sysroot,
        max_size_bytes: a.max_size.unwrap_or(DEFAULT_MAX_SIZE_BYTES),
        device: a.device.map(|path| {
            Box::new(DeviceChoice {
                path,
                destroy: a.destroy,
            })
        }),
        json: a.json,
        extended: a.extended,
        quiet: a.quiet,
        io_jobs: a.io_jobs.map(|l| l.0).unwrap_or_else(|| vec![1, 4, 16]),
        io_blocks: a
            .io_blocks
            .map(|l| l.0)
            .unwrap_or_else(|| BlockSize::ALL.to_vec()),
        text_out: a.text_out,
        stand_in: a.stand_in,
        repeat: a.repeat.unwrap_or(1),
        prometheus: a.prometheus,
        trials: a.trials,
        budget: a.budget,
    }
}

/// Longest `--budget`: a day.
pub const MAX_BUDGET_S: u64 = 24 * 3600;

/// A `--budget`: a whole number followed by `s`, `m` or `h` (`90s`,
/// `10m`, `1h`), more than 0 and at most a day.
pub fn parse_budget(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "'{s}' is not a duration: give a whole number of seconds, minutes or hours \
             followed by s, m or h (90s, 10m, 1h), at most 24h"
        )
    };
    match crate::model::forms::budget::parse(s) {
        Some(secs) if (1..=MAX_BUDGET_S).contains(&secs) => Ok(Duration::from_secs(secs)),
        _ => Err(bad()),
    }
}

/// A `--trials`: a whole number of trials from 1 to
/// [`crate::trials::MAX_TRIALS`].
pub fn parse_trials(s: &str) -> Result<u32, String> {
    let max = crate::trials::MAX_TRIALS;
    match s.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of trials from 1 to {max}")),
    }
}

/// A `--repeat`: a whole number of trials from 1 to [`MAX_REPEAT`].
pub fn parse_repeat(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=MAX_REPEAT).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a number of trials from 1 to {MAX_REPEAT}"
        )),
    }
}

/// A loop delay: a plain decimal number of seconds (`30`, `0.5`), within
/// [`MIN_DELAY_S`, `MAX_DELAY_S`]. No exponents, signs, `nan` or `inf`.
pub fn parse_delay(s: &str) -> Result<f64, String> {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_digit() || c == '.')
        && s.chars().filter(|&c| c == '.').count() <= 1
        && s.chars().any(|c| c.is_ascii_digit());
    if !plain {
        return Err(format!(
            "'{s}' is not a number of seconds (write e.g. 30 or 0.5)"
        ));
    }
    let v: f64 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds (write e.g. 30 or 0.5)"))?;
    if v < MIN_DELAY_S {
        return Err(format!(
            "{s} s is too short: the loop delay must be at least {MIN_DELAY_S} s"
        ));
    }
    if v > MAX_DELAY_S {
        return Err(format!(
            "{s} s is too long: the loop delay must be at most {MAX_DELAY_S} s (one day)"
        ));
    }
    Ok(v)
}

/// The value of `--only` / `--skip`.
#[derive(Debug, Clone)]
struct SectionList(Vec<Section>);

/// The value of `--io-blocks`.
#[derive(Debug, Clone)]
struct BlockList(Vec<BlockSize>);

fn parse_blocks(s: &str) -> Result<BlockList, String> {
    s.split(',')
        .map(|w| {
            BlockSize::from_label(w.trim())
                .ok_or_else(|| format!("'{}' is not a block size (4k or 1M)", w.trim()))
        })
        .collect::<Result<Vec<BlockSize>, String>>()
        .map(BlockList)
}

/// The value of `--io-jobs`.
#[derive(Debug, Clone)]
struct JobList(Vec<u32>);

fn parse_section_list(s: &str) -> Result<SectionList, String> {
    parse_sections(s).map(SectionList)
}

/// The parser of `--only` / `--skip`: [`parse_section_list`], and the
/// section names as possible values, which the completion scripts offer
/// (hidden from the help, whose line lists them already).
#[derive(Clone)]
struct SectionListParser;

impl clap::builder::TypedValueParser for SectionListParser {
    type Value = SectionList;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<SectionList, clap::Error> {
        parse_section_list.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Section::ALL
                .into_iter()
                .map(|s| clap::builder::PossibleValue::new(s.name())),
        ))
    }
}

/// A `--sysroot`: a directory holding `proc/` or `sys/` (a dump).
pub fn parse_sysroot(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    if !p.is_dir() {
        return Err(format!(
            "{s} is not a directory (give the root of a /proc + /sys dump)"
        ));
    }
    if !p.join("proc").is_dir() && !p.join("sys").is_dir() {
        return Err(format!(
            "{s} holds neither proc/ nor sys/: not a /proc + /sys dump"
        ));
    }
    Ok(p)
}

/// A comma-separated list of section names.
pub fn parse_sections(s: &str) -> Result<Vec<Section>, String> {
    let mut out = Vec::new();
    for word in s.split(',') {
        let word = word.trim();
        match Section::ALL.iter().find(|sec| sec.name() == word) {
            Some(sec) => out.push(*sec),
            None => {
                return Err(format!(
                    "unknown section '{word}' (known: cpuinfo, cpu, memory, storage, io, work, latency)"
                ))
            }
        }
    }
    Ok(out)
}

/// A size such as `4G`, `512M`, `1.5G`, `16777216`: binary units K, M, G, T
/// (an optional `iB` or `B` after the letter), at least 16 MiB (16 job
/// regions of whole 1 MiB blocks).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("'{s}' is not a size (write e.g. 512M or 4G)");
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (num, mult) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(bad()),
            };
            (&t[..t.len() - 1], m)
        }
        _ => (t, 1),
    };
    let plain = !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit() || c == '.')
        && num.chars().filter(|&c| c == '.').count() <= 1
        && num.chars().any(|c| c.is_ascii_digit());
    if !plain {
        return Err(bad());
    }
    let v: f64 = num.parse().map_err(|_| bad())?;
    let bytes = v * mult as f64;
    if !(bytes.is_finite()) || bytes > (1u64 << 60) as f64 {
        return Err(format!("'{s}' is too large"));
    }
    let bytes = bytes as u64;
    if bytes < crate::dd_io::region::SIZE_GRANULE_BYTES {
        return Err(format!(
            "'{s}' is too small: the temporary file needs at least {}M",
            crate::dd_io::region::SIZE_GRANULE_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// A `--generate` kind: `man`, `complete-bash`, `complete-zsh`, `complete-fish`.
fn parse_generate(s: &str) -> Result<Generate, String> {
    Generate::from_name(s).ok_or_else(|| {
        format!(
            "unknown kind '{s}' (known: {})",
            Generate::ALL.map(Generate::name).join(", ")
        )
    })
}

/// A comma-separated list of job counts (1 to 256).
fn parse_jobs(s: &str) -> Result<JobList, String> {
    s.split(',')
        .map(|w| match w.trim().parse::<u32>() {
            Ok(n) if (1..=256).contains(&n) => Ok(n),
            _ => Err(format!("'{w}' is not a job count from 1 to 256")),
        })
        .collect::<Result<Vec<u32>, String>>()
        .map(JobList)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Args::command().debug_assert();
        CompareArgs::command().debug_assert();
        ExportArgs::command().debug_assert();
    }

    #[test]
    fn compare_is_a_command_not_a_loop_delay() {
        match parse_command(["quickbench", "compare", "a.txt", "b.json"]) {
            Ok(Command::Compare(c)) => assert_eq!(c.inputs, ["a.txt", "b.json"]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_command(["quickbench", "compare", "a.txt"]),
            Err(Usage::Bad(_))
        ));
        assert!(matches!(
            parse_command(["quickbench", "compare", "-", "-"]),
            Err(Usage::Bad(_))
        ));
        assert!(matches!(
            parse_command(["quickbench", "30"]),
            Ok(Command::Run(c)) if c.loop_delay == Duration::from_secs(30)
        ));
        assert!(matches!(
            parse_command(["quickbench", "compare", "--help"]),
            Err(Usage::Info(_))
        ));
        match parse_command(["quickbench", "compare", "--html", "p.html", "a", "b"]) {
            Ok(Command::Compare(c)) => {
                assert_eq!(c.html, Some(HtmlTo::File("p.html".into())));
                assert_eq!(c.inputs, ["a", "b"]);
            }
            other => panic!("{other:?}"),
        }
        match parse_command(["quickbench", "compare", "a1", "a2", "--", "b1", "b2", "b3"]) {
            Ok(Command::Compare(c)) => {
                assert_eq!(c.inputs, ["a1", "a2", "b1", "b2", "b3"]);
                assert_eq!(c.split, Some(2));
            }
            other => panic!("{other:?}"),
        }
        match parse_command(["quickbench", "compare", "a", "--json", "--", "b"]) {
            Ok(Command::Compare(c)) => {
                assert_eq!((c.split, c.format), (Some(1), CompareFormat::Json))
            }
            other => panic!("{other:?}"),
        }
        match parse_command(["quickbench", "compare", "a", "b"]) {
            Ok(Command::Compare(c)) => assert_eq!(c.split, None),
            other => panic!("{other:?}"),
        }
        match parse_command(["quickbench", "compare", "a", "b", "--html", "-"]) {
            Ok(Command::Compare(c)) => assert_eq!(c.html, Some(HtmlTo::Stdout)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_command(["quickbench", "compare", "--json", "--html", "-", "a", "b"]),
            Err(Usage::Bad(why)) if why.contains("--html a file name")
        ));
    }

    #[test]
    fn defaults_are_the_originals() {
        let c = parse(["quickbench"]).unwrap();
        assert_eq!(c.loop_delay, Duration::from_secs(30));
        assert_eq!(c.dir, PathBuf::from("."));
        assert_eq!(c.sections, Section::ALL.to_vec());
        assert_eq!(c.max_size_bytes, 4 << 30);
        assert_eq!(c.io_jobs, vec![1, 4, 16]);
        assert!(!c.dry_run);
    }

    #[test]
    fn delay_accepts_plain_decimals_only() {
        assert_eq!(parse_delay("30"), Ok(30.0));
        assert_eq!(parse_delay("0.5"), Ok(0.5));
        assert_eq!(parse_delay("0.1"), Ok(0.1));
        for bad in [
            "abc", "0", "-1", "1e9", "nan", "inf", "", "0.05", "1.2.3", ".", "100000",
        ] {
            assert!(parse_delay(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn only_and_skip_keep_report_order() {
        let c = parse(["quickbench", "--only", "memory,cpuinfo"]).unwrap();
        assert_eq!(c.sections, vec![Section::Cpuinfo, Section::Memory]);
        let c = parse(["quickbench", "--skip", "io,storage"]).unwrap();
        // Every other section, in report order (the added ones too).
        let others = Section::ALL
            .iter()
            .filter(|s| ![Section::Io, Section::Storage].contains(s));
        assert_eq!(c.sections, others.copied().collect::<Vec<_>>());
        assert_eq!(
            c.sections[..3],
            [Section::Cpuinfo, Section::Cpu, Section::Memory]
        );
        assert!(parse(["quickbench", "--only", "gpu"]).is_err());
        assert!(parse(["quickbench", "--only", "cpu", "--skip", "io"]).is_err());
    }

    #[test]
    fn sizes_are_binary() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("16777216"), Ok(16 << 20));
        for bad in ["0", "garbage", "", "-1G", "1X", "1e3M", "512K", "1M", "15M"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn sysroot_implies_dry_run() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("proc")).unwrap();
        let root = d.path().to_str().unwrap();
        let c = parse(["quickbench", "--sysroot", root]).unwrap();
        assert!(c.dry_run);
        let c = parse(["quickbench", "--sysroot", root, "--stand-in"]).unwrap();
        assert!(!c.dry_run && c.stand_in);
        // The older name, which the integration tests still pass.
        let c = parse(["quickbench", "--sysroot", root, "--fake-figures"]).unwrap();
        assert!(!c.dry_run && c.stand_in);
    }

    #[test]
    fn sysroot_must_be_a_dump() {
        assert!(parse_sysroot("/nonexistent/dump").is_err());
        let d = tempfile::tempdir().unwrap();
        let e = parse_sysroot(d.path().to_str().unwrap()).unwrap_err();
        assert!(e.contains("neither proc/ nor sys/"), "{e}");
    }

    #[test]
    fn a_budget_is_a_whole_number_of_seconds_minutes_or_hours() {
        assert_eq!(parse(["quickbench"]).unwrap().budget, None);
        let cfg = parse(["quickbench", "--budget", "10m"]).unwrap();
        assert_eq!(cfg.budget, Some(Duration::from_secs(600)));
        assert_eq!(parse_budget("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_budget("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_budget("24h"), Ok(Duration::from_secs(86400)));
        for bad in [
            "5x",
            "10",
            "m",
            "0s",
            "1.5m",
            "-1m",
            "25h",
            " 10m",
            "99999999999999999999h",
        ] {
            let e = parse_budget(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
            assert!(e.contains("90s, 10m, 1h"), "{e}");
        }
    }

    #[test]
    fn repeat_is_a_whole_number_from_1_to_20() {
        assert_eq!(parse(["quickbench"]).unwrap().repeat, 1);
        assert_eq!(parse(["quickbench", "--repeat", "5"]).unwrap().repeat, 5);
        assert_eq!(parse_repeat("1"), Ok(1));
        assert_eq!(parse_repeat("20"), Ok(20));
        for bad in ["0", "21", "-1", "2.5", "", "x", "1e1", "4294967296"] {
            let e = parse_repeat(bad).unwrap_err();
            assert!(
                e.contains(&format!("'{bad}'")) && e.contains("1 to 20"),
                "{e}"
            );
        }
    }

    #[test]
    fn typo_distance_counts_edits_and_swaps() {
        // Optimal string alignment distances (Levenshtein, plus one edit
        // for two neighbours swapped), counted by hand.
        for (a, b, d) in [
            ("compare", "compare", 0),
            ("comapre", "compare", 1),
            ("compar", "compare", 1),
            ("cmopare", "compare", 1),
            ("kitten", "sitting", 3),
            ("", "abc", 3),
            ("ca", "abc", 3),
        ] {
            assert_eq!(typo_distance(a, b), d, "{a} / {b}");
            assert_eq!(typo_distance(b, a), d, "{b} / {a}");
        }
        for (word, meant) in [
            ("comapre", Some("compare")),
            ("COMPARE", Some("compare")),
            ("compose", Some("compare")),
            ("exprot", Some("export")),
            ("expert", Some("export")),
            ("30", None),
            ("0.5", None),
            ("--compare", None),
            ("cpu", None),
            ("compare", None),
            ("export", None),
        ] {
            assert_eq!(misspelt_command(word.as_ref()), meant, "{word}");
        }
    }

    #[test]
    fn two_positionals_are_refused() {
        assert!(parse(["quickbench", "1", "2"]).is_err());
    }
}
