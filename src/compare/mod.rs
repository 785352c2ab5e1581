//! `quickbench compare`: reports side by side.
//!
//! Each input (our text, our JSON, the bash original's text) is read into
//! the report model ([`load`]); [`facts`] lists what a report says, section
//! by section in report order (figures with their direction, information
//! lines); [`compare`] lines them up by key across reports, the first one
//! being the reference, and [`verdict`] decides each cell: within ±5 % equal
//! (the original's README warns not to over-interpret ±5 %), else better or
//! worse by the figure's direction, or *not comparable* with the reason
//! (the bash original's CPU loop against ours, or another loop definition;
//! its latency column; a line interrupted or stopped in either report), or
//! missing. With more than two reports, [`fleet`] gives the key figures of
//! each, their median and the outliers (more than 15 % worse than the
//! median). The comparison is data ([`Comparison`], serialized as the
//! `--json` document); [`render`] writes it as text in the [`Style`] of the
//! terminal, as JSON, or as one HTML page ([`html`]). Writing it and the exit status are the binary's.

pub mod comparison;
pub mod facts;
pub mod facts_extended;
pub mod fleet;
pub mod load;
pub mod render;
pub mod style;
pub mod verdict;

pub use comparison::{compare, Comparison, ReportInfo, Row, COMPARE_SCHEMA_VERSION};
pub use facts::{facts, Better, Fact};
pub use fleet::{fleet_table, FleetColumn, FleetRow, FleetTable, OUTLIER_BEYOND};
pub use load::{load, Input};
pub use render::html::html;
pub use render::render_json;
pub use render::table::render_table;
pub use render::text::render_text;
pub use style::Style;
pub use verdict::{Verdict, EQUAL_WITHIN};

/// What `quickbench compare` is asked for (the command line builds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareConfig {
    /// The reports: files, or `-` for standard input (once).
    pub inputs: Vec<String>,
    /// One row per report (the fleet table), whatever the width.
    pub table: bool,
    /// The comparison as one JSON document.
    pub json: bool,
    /// Where the HTML page goes, if asked for.
    pub html: Option<HtmlTo>,
}

/// Where `--html` writes the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HtmlTo {
    /// Standard output, instead of the text (`--html -`).
    Stdout,
    /// This file, besides the text or JSON on stdout.
    File(std::path::PathBuf),
}
