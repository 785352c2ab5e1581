//! `quickbench compare`: reports side by side.
//!
//! Each input (our text, our JSON, the bash original's text) is read into
//! the report model ([`load`]); [`facts`] lists what a report says, section
//! by section; [`sides`] groups the reports into sides (one host's, or the
//! groups split by `--`); [`compare`] lines them up by key across sides,
//! the first being the reference; [`verdict`] decides each cell from the
//! figure's own noise ([`crate::stats::judge_all`]), or says why it is not
//! comparable. With more than two sides, [`fleet`] gives each side's key
//! figures, their median and the outliers. The comparison is data
//! ([`Comparison`], the `--json` document); [`render`] writes it, one
//! [`Render`] per output. Writing it and the exit status are the binary's.

pub mod comparison;
pub mod fact;
pub mod facts;
pub mod facts_added;
pub mod facts_extended;
pub mod fleet;
pub mod load;
pub mod render;
pub mod sides;
pub mod style;
pub mod verdict;

pub use comparison::{
    compare, compare_for, compare_grouped, Comparison, Row, RowKind, COMPARE_SCHEMA_VERSION,
};
pub use fact::{Better, Fact, Figure, FigureKind, Info, RowSection, Unit};
pub use facts::facts;
pub use fleet::{fleet_table, outlier_rule, FleetColumn, FleetRow, FleetTable};
pub use load::{load, load_for_compare, Input};
pub use render::csv::render_csv;
pub use render::html::{html, PageFile};
pub use render::markdown::render_markdown;
pub use render::table::render_table;
pub use render::text::{render_text, shows_table};
pub use render::{render_json, Render};
pub use sides::{Grouping, ReportInfo, Side};
pub use style::Style;
pub use verdict::{assumed_run_cv, Detail, Judged, Verdict, EQUAL_WITHIN};

/// What `quickbench compare` is asked for (the command line builds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareConfig {
    /// The reports: files, or `-` for standard input (once).
    pub inputs: Vec<String>,
    /// With `--`: how many of `inputs` are side A (the rest are side B).
    pub split: Option<usize>,
    /// One row per report (the fleet table), whatever the width.
    pub table: bool,
    /// What goes to stdout: the text, JSON, Markdown or CSV.
    pub format: CompareFormat,
    /// Where the HTML page goes, if asked for.
    pub html: Option<HtmlTo>,
}

/// What `quickbench compare` writes on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFormat {
    /// The text, for a terminal.
    Text,
    /// One JSON document (`--json`).
    Json,
    /// GitHub-flavoured Markdown tables (`--markdown`).
    Markdown,
    /// CSV, RFC 4180 (`--csv`).
    Csv,
}

/// Where `--html` writes the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HtmlTo {
    /// Standard output, instead of the text (`--html -`).
    Stdout,
    /// This file, besides the text or JSON on stdout.
    File(std::path::PathBuf),
}
