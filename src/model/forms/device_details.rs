//! One device's details, as `-x` prints them in `[ Extended: Storage ]`:
//! `nvme0n1: non-rotational, scheduler none, nr_requests 1023, blocks
//! 512/4096 B (logical/physical), write cache write back, 4 hw queue(s)`.
//! [`render`] and [`parse`] are the one definition of it: the text
//! report, its reader and compare call them, and `parse(&render(d)) == d`.

use crate::blockdev::details::DeviceDetails;

/// The line of one device's details.
pub fn render(d: &DeviceDetails) -> String {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "?".into());
    format!(
        "{}: {}, scheduler {}, nr_requests {}, blocks {}/{} B (logical/physical), write cache {}, {} hw queue(s)",
        d.name,
        match d.rotational {
            Some(true) => "rotational",
            Some(false) => "non-rotational",
            None => "rotational ?",
        },
        opt(d.scheduler.clone()),
        opt(d.nr_requests.map(|v| v.to_string())),
        opt(d.logical_block_size_bytes.map(|v| v.to_string())),
        opt(d.physical_block_size_bytes.map(|v| v.to_string())),
        opt(d.write_cache.clone()),
        opt(d.hw_queues.map(|v| v.to_string())),
    )
}

/// `vda: non-rotational, scheduler none, nr_requests 256, blocks 512/4096 B
/// (logical/physical), write cache write back, 4 hw queue(s)`, `?` for
/// what was not read: the details [`render`] printed, `None` for any
/// other text.
pub fn parse(text: &str) -> Option<DeviceDetails> {
    let (name, rest) = text.split_once(": ")?;
    let (rot, rest) = rest.split_once(", scheduler ")?;
    let (scheduler, rest) = rest.split_once(", nr_requests ")?;
    let (nr, rest) = rest.split_once(", blocks ")?;
    let (blocks, rest) = rest.split_once(" B (logical/physical), write cache ")?;
    let (logical, physical) = blocks.split_once('/')?;
    let (cache, queues) = rest.strip_suffix(" hw queue(s)")?.rsplit_once(", ")?;
    let word = |w: &str| (w != "?").then(|| w.to_string());
    let num = |w: &str| -> Option<Option<u64>> {
        match w {
            "?" => Some(None),
            n => n.parse().ok().map(Some),
        }
    };
    Some(DeviceDetails {
        name: name.to_string(),
        rotational: match rot {
            "rotational" => Some(true),
            "non-rotational" => Some(false),
            "rotational ?" => None,
            _ => return None,
        },
        scheduler: word(scheduler),
        nr_requests: num(nr)?,
        logical_block_size_bytes: num(logical)?,
        physical_block_size_bytes: num(physical)?,
        write_cache: word(cache),
        hw_queues: num(queues)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_details_read_as_one_line_and_back() {
        let mut d = DeviceDetails {
            name: "nvme0n1".into(),
            rotational: Some(false),
            scheduler: Some("none".into()),
            nr_requests: Some(1023),
            logical_block_size_bytes: Some(512),
            physical_block_size_bytes: Some(4096),
            write_cache: Some("write back".into()),
            hw_queues: Some(4),
        };
        assert_eq!(
            render(&d),
            "nvme0n1: non-rotational, scheduler none, nr_requests 1023, blocks 512/4096 B (logical/physical), write cache write back, 4 hw queue(s)"
        );
        assert_eq!(parse(&render(&d)), Some(d.clone()));
        d = DeviceDetails {
            name: "sdz".into(),
            rotational: None,
            scheduler: None,
            nr_requests: None,
            logical_block_size_bytes: None,
            physical_block_size_bytes: None,
            write_cache: None,
            hw_queues: None,
        };
        assert_eq!(
            render(&d),
            "sdz: rotational ?, scheduler ?, nr_requests ?, blocks ?/? B (logical/physical), write cache ?, ? hw queue(s)"
        );
        assert_eq!(parse(&render(&d)), Some(d));
        assert_eq!(parse("sdz: rotational ?"), None);
    }
}
