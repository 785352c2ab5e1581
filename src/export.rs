//! `quickbench export`: stored reports (ours in text or JSON, the bash
//! original's text, read by [`crate::report::read`]) turned into formats
//! that other tools read. Today the Prometheus textfile
//! ([`crate::report::prometheus`]); writing it is the binary's.

use crate::compare::load::Input;
use crate::report::prometheus;

/// The Prometheus textfile of `inputs`. One report: its figures, no label
/// added (the scrape's `instance` names the host). Several: each
/// report's figures with a `host` label, its host name (else its file
/// name); two reports of one host are refused, since a textfile holds one
/// value per series and no timestamp: history is Prometheus's to keep.
pub fn prometheus_textfile(inputs: &[Input]) -> Result<String, String> {
    if let [only] = inputs {
        return Ok(prometheus::render(&only.report));
    }
    let hosts: Vec<String> = inputs.iter().map(host).collect();
    for (i, h) in hosts.iter().enumerate() {
        if let Some(j) = hosts[..i].iter().position(|x| x == h) {
            return Err(format!(
                "{} and {} are both reports of host {h:?}: a textfile holds one report per host \
                 (export the newest one; Prometheus keeps the history)",
                inputs[j].file, inputs[i].file
            ));
        }
    }
    let labelled: Vec<_> = inputs
        .iter()
        .zip(hosts)
        .map(|(i, h)| (vec![("host", h)], &i.report))
        .collect();
    Ok(prometheus::render_many(&labelled))
}

/// The `host` label of a report: its host name, else its file name.
fn host(i: &Input) -> String {
    let h = i.report.hostname.trim();
    if h.is_empty() || h == "unknown" {
        std::path::Path::new(&i.file)
            .file_name()
            .map_or_else(|| i.file.clone(), |n| n.to_string_lossy().into_owned())
    } else {
        h.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Report;

    fn input(file: &str, host: &str) -> Input {
        Input::new(file, Report::new("Linux".into(), host.into()))
    }

    #[test]
    fn one_report_has_no_host_label_and_several_have_theirs() {
        let one = prometheus_textfile(&[input("a.json", "a")]).unwrap();
        assert!(!one.contains("host="), "{one}");
        let two = prometheus_textfile(&[input("a.json", "a"), input("x/b.txt", "")]).unwrap();
        assert!(two.contains("quickbench_info{host=\"a\","), "{two}");
        assert!(two.contains("quickbench_info{host=\"b.txt\","), "{two}");
    }

    #[test]
    fn two_reports_of_one_host_are_refused_by_name() {
        let e =
            prometheus_textfile(&[input("old.json", "db1"), input("new.json", "db1")]).unwrap_err();
        assert!(
            e.contains("old.json and new.json") && e.contains("\"db1\""),
            "{e}"
        );
    }
}
