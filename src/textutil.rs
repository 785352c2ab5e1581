//! Small text scanners shared by the parsers of kernel files and the
//! readers of reports. Pure functions over `&str`; nothing here reads a
//! file.

/// Splits a parenthesised group off the start of `text`: for
/// `(gcc (GCC) 14.3.1) #1 SMP` it gives `("gcc (GCC) 14.3.1", " #1 SMP")`,
/// the group's inside and what follows its closing parenthesis. Inner
/// parentheses nest. `None` when `text` does not start with `(` or the
/// group never closes.
pub fn paren_group(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('(')?;
    let mut depth = 1usize;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&inner[..i], &inner[i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_groups_of_a_proc_version_line() {
        // The compiler group of a Debian 12 /proc/version.
        let rest = "(gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC";
        assert_eq!(
            paren_group(rest),
            Some((
                "gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40",
                " #1 SMP PREEMPT_DYNAMIC"
            ))
        );
        assert_eq!(
            paren_group("(8 independent multiply-xorshift chains), not comparable"),
            Some(("8 independent multiply-xorshift chains", ", not comparable"))
        );
        assert_eq!(paren_group("()"), Some(("", "")));
    }

    #[test]
    fn no_group_or_an_unclosed_one() {
        assert_eq!(paren_group("#1 SMP (x)"), None);
        assert_eq!(paren_group(""), None);
        assert_eq!(paren_group("(gcc (oops #2 SMP"), None);
        assert_eq!(paren_group("(a))"), Some(("a", ")")));
        // Multi-byte characters inside do not upset the byte offsets.
        assert_eq!(paren_group("(é (ü)) ü"), Some(("é (ü)", " ü")));
    }
}
