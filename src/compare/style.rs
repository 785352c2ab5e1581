//! ANSI style of the comparison text: colours (only on a terminal without
//! `NO_COLOR`) and the width available.

use super::verdict::Verdict;

/// How the comparison is written: colours, and the terminal's width.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// ANSI colours (a terminal, `NO_COLOR` unset).
    pub color: bool,
    /// Columns available.
    pub width: usize,
}

impl Style {
    /// The style of an output: colours on a terminal (`tty`) unless
    /// `NO_COLOR` is set and not empty; the width from `COLUMNS`, else the
    /// terminal's (`terminal_width`), else 100. The caller probes the
    /// output and the environment.
    pub fn new(
        tty: bool,
        no_color: Option<&str>,
        columns: Option<&str>,
        terminal_width: Option<usize>,
    ) -> Style {
        let width = columns
            .and_then(|c| c.trim().parse().ok())
            .filter(|&w: &usize| w > 0)
            .or(terminal_width)
            .unwrap_or(100);
        Style {
            color: tty && no_color.is_none_or(str::is_empty),
            width,
        }
    }

    /// The style of stdout: whether it is a terminal, `NO_COLOR`,
    /// `COLUMNS`, the terminal's width.
    pub fn of_stdout() -> Style {
        let fd = libc::STDOUT_FILENO;
        Style::new(
            crate::progress::is_tty(fd),
            std::env::var_os("NO_COLOR")
                .map(|v| v.to_string_lossy().into_owned())
                .as_deref(),
            std::env::var("COLUMNS").ok().as_deref(),
            crate::progress::terminal_width(fd),
        )
    }

    /// `text` in the colour of verdict `v`: green better, red worse,
    /// yellow not comparable or missing; the words carry the meaning.
    pub(super) fn paint(&self, text: &str, v: &Verdict) -> String {
        let code = match v {
            Verdict::Better => "32",
            Verdict::Worse => "31",
            Verdict::NotComparable { .. } | Verdict::Distorted { .. } | Verdict::Missing => "33",
            _ => return text.to_string(),
        };
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_on_a_terminal_without_no_color() {
        assert!(Style::new(true, None, None, None).color);
        assert!(Style::new(true, Some(""), None, None).color);
        assert!(!Style::new(true, Some("1"), None, None).color);
        assert!(!Style::new(false, None, None, None).color);
        let s = Style::new(true, None, None, None);
        assert_eq!(
            s.paint("x1.20 worse", &Verdict::Worse),
            "\x1b[31mx1.20 worse\x1b[0m"
        );
        assert_eq!(s.paint("same", &Verdict::Same), "same");
        let plain = Style::new(false, None, None, None);
        assert_eq!(plain.paint("x1.20 worse", &Verdict::Worse), "x1.20 worse");
    }

    #[test]
    fn width_from_columns_else_the_terminal_else_100() {
        assert_eq!(Style::new(false, None, Some(" 60 "), Some(80)).width, 60);
        assert_eq!(Style::new(false, None, Some("0"), Some(80)).width, 80);
        assert_eq!(Style::new(false, None, Some("wide"), None).width, 100);
        assert_eq!(Style::new(false, None, None, None).width, 100);
    }
}
