//! One [`Render`] per output of `quickbench compare`, picked once from
//! the command line ([`for_stdout`]): each says how much of the
//! judgement it shows ([`Detail`]), so compare computes that and no more.

use super::csv::render_csv;
use super::html::html;
use super::markdown::render_markdown;
use super::render_json;
use super::table::render_table;
use super::text::{render_text, shows_table};
use crate::compare::comparison::Comparison;
use crate::compare::style::Style;
use crate::compare::verdict::Detail;
use crate::compare::{CompareConfig, CompareFormat, HtmlTo};

/// An output of a comparison.
pub trait Render {
    /// How much of a pair's judgement it shows, read from `c` before any
    /// verdict is decided (its sides and rows are there).
    fn detail(&self, c: &Comparison) -> Detail;
    /// The output of `c`, whole.
    fn render(&self, c: &Comparison) -> String;
}

/// The text, side by side or one column per side; the fleet table when
/// the columns do not fit the width.
pub struct TextRenderer {
    /// The terminal's colours and width.
    pub style: Style,
}

/// The fleet table (`--table`), one row per side, whatever the width.
pub struct TableRenderer {
    /// The terminal's colours and width.
    pub style: Style,
}

/// The `--json` document.
pub struct JsonRenderer;

/// The `--markdown` tables.
pub struct MarkdownRenderer;

/// The `--csv` rows.
pub struct CsvRenderer;

/// The `--html` page.
pub struct HtmlRenderer;

/// The verdicts for two sides; the key figures (the fleet table or strip)
/// for more.
fn pair_or_fleet(c: &Comparison) -> Detail {
    if c.sides.len() > 2 {
        Detail::KeyFigures
    } else {
        Detail::Verdicts
    }
}

impl Render for TextRenderer {
    fn detail(&self, c: &Comparison) -> Detail {
        if shows_table(c, &self.style, false) {
            Detail::KeyFigures
        } else {
            Detail::Verdicts
        }
    }
    fn render(&self, c: &Comparison) -> String {
        render_text(c, &self.style, false)
    }
}

impl Render for TableRenderer {
    fn detail(&self, _: &Comparison) -> Detail {
        Detail::KeyFigures
    }
    fn render(&self, c: &Comparison) -> String {
        render_table(c, &self.style)
    }
}

impl Render for JsonRenderer {
    fn detail(&self, _: &Comparison) -> Detail {
        Detail::Full
    }
    fn render(&self, c: &Comparison) -> String {
        render_json(c)
    }
}

impl Render for MarkdownRenderer {
    fn detail(&self, c: &Comparison) -> Detail {
        pair_or_fleet(c)
    }
    fn render(&self, c: &Comparison) -> String {
        render_markdown(c)
    }
}

impl Render for CsvRenderer {
    fn detail(&self, c: &Comparison) -> Detail {
        pair_or_fleet(c)
    }
    fn render(&self, c: &Comparison) -> String {
        render_csv(c)
    }
}

impl Render for HtmlRenderer {
    fn detail(&self, c: &Comparison) -> Detail {
        pair_or_fleet(c)
    }
    fn render(&self, c: &Comparison) -> String {
        html(c)
    }
}

/// What goes to stdout: the page with `--html -`, else the format asked
/// for, the text in `style`.
pub fn for_stdout(cfg: &CompareConfig, style: Style) -> Box<dyn Render> {
    if cfg.html == Some(HtmlTo::Stdout) {
        return Box::new(HtmlRenderer);
    }
    match cfg.format {
        CompareFormat::Text if cfg.table => Box::new(TableRenderer { style }),
        CompareFormat::Text => Box::new(TextRenderer { style }),
        CompareFormat::Json => Box::new(JsonRenderer),
        CompareFormat::Markdown => Box::new(MarkdownRenderer),
        CompareFormat::Csv => Box::new(CsvRenderer),
    }
}
