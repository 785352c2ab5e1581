//! The CPU info's printed form: lscpu's `Label:  value` lines, the labels
//! padded to one column. The text report prints them, the JSON stores them
//! (`cpu_info.lines`), and the readers take them back: [`render`] and
//! [`parse`] are the one definition of them, and `parse(&render(i)) == i`
//! for every info without a summary whose column holds its labels.

use crate::model::{CpuInfo, CpuInfoLine};

/// The `[ CPU info ]` lines, padded as lscpu pads them: the label column is
/// as wide as the widest label of lscpu's whole summary, then one space.
pub fn render(info: &CpuInfo) -> Vec<String> {
    let w = info.label_width_chars;
    info.lines
        .iter()
        .map(|l| format!("{:<w$} {}", l.label, l.value))
        .collect()
}

/// One `[ CPU info ]` line: the label (with its colon), the value, and the
/// label column width the padding shows.
pub fn parse_line(text: &str) -> Result<(CpuInfoLine, usize), String> {
    let colon = text.find(':').ok_or_else(|| {
        format!("expected a CPU info line like `Model name:   AMD EPYC`, found {text:?}")
    })?;
    let label = &text[..=colon];
    let after = &text[colon + 1..];
    let value = after.trim_start();
    // Values start one space after the column: the width is the value's
    // column less one (in characters).
    let value_col = text[..text.len() - value.len()].chars().count();
    let width = value_col.saturating_sub(1).max(label.chars().count());
    Ok((
        CpuInfoLine {
            label: label.to_string(),
            value: value.to_string(),
        },
        width,
    ))
}

/// `[ CPU info ]` from its printed lines (the summary is not in them).
pub fn parse(lines: &[String]) -> Result<CpuInfo, String> {
    let mut info = CpuInfo {
        label_width_chars: 0,
        lines: Vec::new(),
        summary: None,
    };
    for l in lines {
        let (line, width) = parse_line(l)?;
        info.label_width_chars = info.label_width_chars.max(width);
        info.lines.push(line);
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(width: usize, lines: &[(&str, &str)]) -> CpuInfo {
        CpuInfo {
            label_width_chars: width,
            lines: lines
                .iter()
                .map(|(label, value)| CpuInfoLine {
                    label: label.to_string(),
                    value: value.to_string(),
                })
                .collect(),
            summary: None,
        }
    }

    #[test]
    fn labels_are_padded_to_the_column() {
        assert_eq!(
            render(&info(
                19,
                &[("Socket(s):", "1"), ("Model name:", "AMD EPYC 7543P")]
            )),
            vec![
                "Socket(s):          1",
                "Model name:         AMD EPYC 7543P"
            ]
        );
    }

    /// Widths wider than every label, exactly as wide as the widest,
    /// values with colons, spaces and non-ASCII text, an empty value, and
    /// no line at all read back as they were.
    #[test]
    fn parse_reads_back_what_render_writes() {
        let cases = [
            info(
                37,
                &[
                    ("Architecture:", "x86_64"),
                    ("CPU op-mode(s):", "32-bit, 64-bit"),
                    ("Vendor ID:", "AuthenticAMD"),
                    ("Model name:", "AMD EPYC: 7543P  32-Core"),
                    ("NUMA node0 CPU(s):", "0-63"),
                    (
                        "Vulnerability Spec rstack overflow:",
                        "Mitigation; SMT disabled",
                    ),
                ],
            ),
            info(11, &[("Model name:", "Cortex-A72 µ"), ("Flags:", "")]),
            info(0, &[]),
        ];
        for i in cases {
            let lines = render(&i);
            assert_eq!(parse(&lines), Ok(i.clone()), "{lines:#?}");
        }
    }

    #[test]
    fn a_line_without_a_label_is_refused() {
        let e = parse(&["no colon here".to_string()]).unwrap_err();
        assert!(e.contains("no colon here"), "{e}");
    }
}
