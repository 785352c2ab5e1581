//! How a timed step ended: it ran its full time, Ctrl-C cut it short, or
//! an error stopped it. The measuring modules set it on their figures (a
//! CPU loop step, the dd-like memory step, a storage line); the renderer
//! says it after the line (`(interrupted)`, `(stopped: ENOSPC)`), the
//! reader reads it back, and `quickbench compare` judges it.
//!
//! In the JSON it keeps the keys the figures always had: `cut_short`, and
//! on storage lines `error` and `error_errno` ([`End`]'s own serde form,
//! flattened into the line; [`cut_short`] for the steps that cannot stop
//! on an error).

use serde::{Deserialize, Serialize};

/// How a step ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "EndWire", from = "EndWire")]
pub enum End {
    /// It ran the whole loop delay.
    #[default]
    Complete,
    /// Ctrl-C ended it early; its figures cover the time it ran.
    Interrupted,
    /// An error ended it (ENOSPC, EIO...); its figures are what was
    /// measured until then.
    Stopped {
        /// What went wrong, naming the path (read back from text:
        /// `stopped: EIO`).
        error: String,
        /// The OS error number, when there is one.
        errno: Option<i32>,
        /// Ctrl-C also cut some of its jobs.
        interrupted: bool,
    },
}

impl End {
    /// `Interrupted` when `cut`, else `Complete`.
    pub fn cut_if(cut: bool) -> End {
        if cut {
            End::Interrupted
        } else {
            End::Complete
        }
    }

    /// True when the step ran its whole time.
    pub fn is_complete(&self) -> bool {
        *self == End::Complete
    }

    /// True when Ctrl-C cut it (alone or beside an error).
    pub fn interrupted(&self) -> bool {
        matches!(
            self,
            End::Interrupted
                | End::Stopped {
                    interrupted: true,
                    ..
                }
        )
    }

    /// What stopped it, when an error did.
    pub fn error(&self) -> Option<&str> {
        match self {
            End::Stopped { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The OS error number of the error that stopped it, when known.
    pub fn errno(&self) -> Option<i32> {
        match self {
            End::Stopped { errno, .. } => *errno,
            _ => None,
        }
    }

    /// Ctrl-C cut (part of) the step.
    pub fn interrupt(&mut self) {
        match self {
            End::Complete => *self = End::Interrupted,
            End::Interrupted => {}
            End::Stopped { interrupted, .. } => *interrupted = true,
        }
    }

    /// The words after a line that did not run its whole time:
    /// `interrupted`, `stopped: EIO` (the errno's name, [`errno_name`]),
    /// `stopped`; `None` when it did. The renderers print them between
    /// parentheses, compare beside its figures.
    pub fn text(&self) -> Option<String> {
        match self {
            End::Complete => None,
            End::Interrupted => Some("interrupted".into()),
            End::Stopped { errno: Some(e), .. } => Some(format!("stopped: {}", errno_name(*e))),
            End::Stopped { errno: None, .. } => Some("stopped".into()),
        }
    }

    /// How a step ended, from the words [`End::text`] prints (the error
    /// read back is those words; the errno is the one [`ERRNO_NAMES`]
    /// names so, if any). `None` for any other text.
    pub fn parse(text: &str) -> Option<End> {
        let stopped = |errno| End::Stopped {
            error: text.to_string(),
            errno,
            interrupted: false,
        };
        match text {
            "interrupted" => Some(End::Interrupted),
            "stopped" => Some(stopped(None)),
            _ => text.strip_prefix("stopped: ").map(|name| {
                stopped(
                    ERRNO_NAMES
                        .iter()
                        .find(|(_, n)| *n == name)
                        .map(|(e, _)| *e),
                )
            }),
        }
    }

    /// An error stopped the step; the first error is the one kept.
    pub fn stop(&mut self, error: String, errno: Option<i32>) {
        if self.error().is_none() {
            *self = End::Stopped {
                error,
                errno,
                interrupted: self.interrupted(),
            };
        }
    }
}

/// The errnos the storage engine meets and names in a report
/// (`stopped: ENOSPC`); any other prints as `error`.
pub const ERRNO_NAMES: [(i32, &str); 10] = [
    (libc::ENOSPC, "ENOSPC"),
    (libc::EIO, "EIO"),
    (libc::EROFS, "EROFS"),
    (libc::EACCES, "EACCES"),
    (libc::EPERM, "EPERM"),
    (libc::EDQUOT, "EDQUOT"),
    (libc::EINVAL, "EINVAL"),
    (libc::EFBIG, "EFBIG"),
    (libc::ENOENT, "ENOENT"),
    (libc::ENOTDIR, "ENOTDIR"),
];

/// The symbolic name of `errno` ([`ERRNO_NAMES`]), `error` for another.
pub fn errno_name(errno: i32) -> &'static str {
    ERRNO_NAMES
        .iter()
        .find(|(e, _)| *e == errno)
        .map_or("error", |(_, n)| n)
}

/// The JSON form of an [`End`]: the storage line's keys.
#[derive(Serialize, Deserialize)]
struct EndWire {
    cut_short: bool,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    error_errno: Option<i32>,
}

impl From<End> for EndWire {
    fn from(e: End) -> Self {
        EndWire {
            cut_short: e.interrupted(),
            error_errno: e.errno(),
            error: match e {
                End::Stopped { error, .. } => Some(error),
                _ => None,
            },
        }
    }
}

impl From<EndWire> for End {
    fn from(w: EndWire) -> Self {
        End::from_keys(w.cut_short, w.error, w.error_errno)
    }
}

impl End {
    /// The end its JSON keys say: `cut_short`, `error`, `error_errno`.
    pub fn from_keys(cut_short: bool, error: Option<String>, error_errno: Option<i32>) -> End {
        match error {
            Some(error) => End::Stopped {
                error,
                errno: error_errno,
                interrupted: cut_short,
            },
            None => End::cut_if(cut_short),
        }
    }
}

/// The JSON form of the end of a step that cannot stop on an error (a
/// CPU loop step, the memory step): `cut_short` alone,
/// `#[serde(rename = "cut_short", with = "crate::end::cut_short")]`.
pub mod cut_short {
    use super::End;
    use serde::{Deserialize, Deserializer, Serializer};

    /// `true` when Ctrl-C cut the step.
    pub fn serialize<S: Serializer>(end: &End, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(end.interrupted())
    }

    /// `Interrupted` or `Complete`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<End, D::Error> {
        bool::deserialize(d).map(End::cut_if)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_error_is_kept_and_a_cut_is_not_lost() {
        let mut e = End::Complete;
        e.interrupt();
        assert_eq!(e, End::Interrupted);
        e.stop(
            "/d: write at offset 0: No space left on device".into(),
            Some(28),
        );
        e.stop("/d: fdatasync: EIO".into(), Some(5));
        assert_eq!(
            e.error(),
            Some("/d: write at offset 0: No space left on device")
        );
        assert_eq!(e.errno(), Some(28));
        assert!(e.interrupted() && !e.is_complete());
        let mut e = End::Complete;
        e.stop("x".into(), None);
        assert!(!e.interrupted());
        e.interrupt();
        assert!(e.interrupted(), "a cut after the error still counts");
    }

    #[test]
    fn its_words_read_back() {
        let stopped = |errno| End::Stopped {
            error: "/d: write at offset 0: EIO".into(),
            errno,
            interrupted: false,
        };
        assert_eq!(End::Complete.text(), None);
        assert_eq!(End::Interrupted.text().as_deref(), Some("interrupted"));
        assert_eq!(stopped(Some(5)).text().as_deref(), Some("stopped: EIO"));
        assert_eq!(
            stopped(Some(4242)).text().as_deref(),
            Some("stopped: error")
        );
        assert_eq!(stopped(None).text().as_deref(), Some("stopped"));
        for (errno, name) in ERRNO_NAMES {
            assert_eq!(errno_name(errno), name);
            let back = End::parse(&format!("stopped: {name}")).unwrap();
            assert_eq!(back.errno(), Some(errno), "{name}");
            assert_eq!(back.text(), stopped(Some(errno)).text());
        }
        assert_eq!(End::parse("interrupted"), Some(End::Interrupted));
        assert_eq!(End::parse("stopped").unwrap().errno(), None);
        assert_eq!(End::parse("stopped: error").unwrap().errno(), None);
        assert_eq!(End::parse("busy"), None);
    }

    #[test]
    fn json_keeps_the_keys_the_lines_had() {
        let cases = [
            (
                End::Complete,
                json!({"cut_short": false, "error": null, "error_errno": null}),
            ),
            (
                End::Interrupted,
                json!({"cut_short": true, "error": null, "error_errno": null}),
            ),
            (
                End::Stopped {
                    error: "x".into(),
                    errno: Some(5),
                    interrupted: true,
                },
                json!({"cut_short": true, "error": "x", "error_errno": 5}),
            ),
            (
                End::Stopped {
                    error: "stopped".into(),
                    errno: None,
                    interrupted: false,
                },
                json!({"cut_short": false, "error": "stopped", "error_errno": null}),
            ),
        ];
        for (end, j) in cases {
            assert_eq!(serde_json::to_value(&end).unwrap(), j);
            assert_eq!(serde_json::from_value::<End>(j).unwrap(), end);
        }
        // A step that cannot stop on an error: `cut_short` alone.
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Step {
            #[serde(rename = "cut_short", with = "cut_short")]
            end: End,
        }
        let s = Step {
            end: End::Interrupted,
        };
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            json!({"cut_short": true})
        );
        assert_eq!(
            serde_json::from_value::<Step>(json!({"cut_short": false})).unwrap(),
            Step { end: End::Complete }
        );
    }
}
