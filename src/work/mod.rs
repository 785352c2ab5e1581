//! CPU work: fixed workloads of what servers spend their CPU on (zstd
//! compression and decompression, SHA-256), each run by 1 or more jobs
//! for a given time, as bytes per second of one job.
//!
//! The input is generated in-process from a fixed seed, so every host
//! works on the same bytes. Each job works in batches of one pass over
//! its own copy of the input; only the library calls are timed, and every
//! pass's output is checked against the reference made once before the
//! jobs start (the compressed bytes, the round trip, the digests), so a
//! compiler cannot drop the work and a wrong result fails the step. A
//! batch stores the job's running byte count in its
//! [`crate::samples::Counter`], where its stop flag is read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::samples::Counter;

/// The workloads' definition version: bumped whenever an input, a level
/// or what a pass does changes, since the figures then change too.
pub const WORK_VERSION: u32 = 1;

/// Bytes of input each job works on: larger than a core's L2, smaller
/// than most last-level caches, as a request's working set often is.
pub const INPUT_BYTES: usize = 4 << 20;

/// zstd's level: its CLI's default (`zstd -b3`).
pub const ZSTD_LEVEL: i32 = 3;

/// SHA-256's message size: `openssl speed`'s largest block.
pub const SHA_MESSAGE: usize = 16 << 10;

/// The sha2 crate's version, from Cargo.lock (build.rs).
pub const SHA2_VERSION: &str = env!("QB_SHA2_VERSION");

/// A workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// zstd at [`ZSTD_LEVEL`], the whole input as one frame.
    ZstdCompress,
    /// Its frame decompressed back to the input.
    ZstdDecompress,
    /// SHA-256 of each [`SHA_MESSAGE`] bytes of the input.
    Sha256,
}

impl Workload {
    /// Every workload, in report order.
    pub const ALL: [Workload; 3] = [
        Workload::ZstdCompress,
        Workload::ZstdDecompress,
        Workload::Sha256,
    ];

    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Workload::ZstdCompress => "zstd-3 compress",
            Workload::ZstdDecompress => "zstd-3 decompress",
            Workload::Sha256 => "sha256 16k",
        }
    }

    /// The workload of `name`.
    pub fn from_name(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The library that does the work, with its version.
    pub fn library(self) -> String {
        match self {
            Workload::ZstdCompress | Workload::ZstdDecompress => {
                format!("zstd {}", zstd::zstd_safe::version_string())
            }
            Workload::Sha256 => format!("sha2 {SHA2_VERSION}"),
        }
    }

    /// What makes two figures of it comparable: our definition and the
    /// library's version (`work v1, zstd 1.6.0`).
    pub fn version(self) -> String {
        format!("work v{WORK_VERSION}, {}", self.library())
    }
}

/// The input and the references every pass is checked against.
pub struct Prepared {
    /// The generated input.
    pub input: Vec<u8>,
    /// It, compressed at [`ZSTD_LEVEL`].
    pub compressed: Vec<u8>,
    /// The digests of its messages, folded ([`fold_digests`]).
    pub digests: [u8; 32],
}

impl Prepared {
    /// Generates the input and its references; fails when SHA-256 does
    /// not give FIPS 180-2's digest of `abc`, or zstd's round trip fails.
    pub fn new() -> anyhow::Result<Prepared> {
        let abc: [u8; 32] = Sha256::digest(b"abc").into();
        if hex(&abc) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
            anyhow::bail!("SHA-256 of \"abc\" is {}, not FIPS 180-2's", hex(&abc));
        }
        let input = input(INPUT_BYTES);
        let compressed = zstd::bulk::compress(&input, ZSTD_LEVEL)?;
        let back = zstd::bulk::decompress(&compressed, INPUT_BYTES)?;
        check(&back, &input, "zstd's round trip")?;
        let digests = sha_pass(&input);
        Ok(Prepared {
            input,
            compressed,
            digests,
        })
    }

    /// The input's size over its compressed size.
    pub fn ratio(&self) -> f64 {
        self.input.len() as f64 / self.compressed.len().max(1) as f64
    }
}

/// Text-like input of a middling compressibility (zstd-3 makes about a
/// third of it): words of a made-up vocabulary drawn with a skew, as in
/// logs and documents, with numbers between them. Deterministic.
pub fn input(bytes: usize) -> Vec<u8> {
    let mut rng = crate::stats::rng::SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    let vocab: Vec<Vec<u8>> = (0..4096)
        .map(|_| {
            let len = 2 + (rng.next_u64() % 9) as usize;
            (0..len)
                .map(|_| b'a' + (rng.next_u64() % 26) as u8)
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(bytes + 32);
    while out.len() < bytes {
        let r = rng.next_u64();
        // The product of two uniform draws favours the first words.
        let i = (((r & 0xffff) * ((r >> 16) & 0xffff)) >> 20) as usize % vocab.len();
        out.extend_from_slice(&vocab[i]);
        match (r >> 40) % 16 {
            0 => out.push(b'\n'),
            1 => out.extend_from_slice(format!(" {} ", (r >> 44) % 100_000).as_bytes()),
            _ => out.push(b' '),
        }
    }
    out.truncate(bytes);
    out
}

/// SHA-256 of each message of `input`, the digests XORed together: one
/// wrong digest changes the fold.
pub fn sha_pass(input: &[u8]) -> [u8; 32] {
    fold_digests(input.chunks(SHA_MESSAGE).map(|m| Sha256::digest(m).into()))
}

/// The XOR of `digests`.
pub fn fold_digests(digests: impl Iterator<Item = [u8; 32]>) -> [u8; 32] {
    let mut acc = [0u8; 32];
    for d in digests {
        acc.iter_mut().zip(d).for_each(|(a, b)| *a ^= b);
    }
    acc
}

/// `Ok` when `got` is `want`; else what differs, for `what`.
pub fn check(got: &[u8], want: &[u8], what: &str) -> anyhow::Result<()> {
    if got == want {
        return Ok(());
    }
    let at = got.iter().zip(want).position(|(a, b)| a != b);
    match at {
        Some(i) => anyhow::bail!("{what}: wrong output at byte {i} of {}", want.len()),
        None => anyhow::bail!("{what}: {} bytes, not {}", got.len(), want.len()),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One run of a workload: its jobs' mean rate over their timed calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkRun {
    /// Bytes of input per second of one job (the mean of the jobs).
    pub bytes_per_s: f64,
    /// The same, of each job's fastest pass: what a codec's own benchmark
    /// (`zstd -b`) prints, for `benches/work-latency.sh`.
    pub best_bytes_per_s: f64,
    /// The run's wall time, ns.
    pub elapsed_ns: u64,
}

/// One job's state: its copy of the input and references, its codec
/// contexts (made once, as a server keeps them) and its output buffer.
struct Job {
    input: Vec<u8>,
    compressed: Vec<u8>,
    digests: [u8; 32],
    out: Vec<u8>,
}

impl Job {
    /// One batch: one pass of `w` over the input, its library call timed;
    /// the output checked after the clock stops.
    fn pass(
        &mut self,
        w: Workload,
        cctx: &mut zstd::bulk::Compressor<'_>,
        dctx: &mut zstd::bulk::Decompressor<'_>,
    ) -> anyhow::Result<Duration> {
        let t0 = Instant::now();
        match w {
            Workload::ZstdCompress => {
                let n = cctx.compress_to_buffer(&self.input, &mut self.out)?;
                let spent = t0.elapsed();
                check(&self.out[..n], &self.compressed, "zstd compression")?;
                Ok(spent)
            }
            Workload::ZstdDecompress => {
                let n = dctx.decompress_to_buffer(&self.compressed, &mut self.out)?;
                let spent = t0.elapsed();
                check(&self.out[..n], &self.input, "zstd decompression")?;
                Ok(spent)
            }
            Workload::Sha256 => {
                let d = sha_pass(&self.input);
                let spent = t0.elapsed();
                check(&d, &self.digests, "SHA-256")?;
                Ok(spent)
            }
        }
    }
}

/// Runs `w` on `jobs` jobs for `duration`, or until `poll()` returns true
/// (called every 10 ms by this thread, which also samples the host).
pub fn run(
    prepared: &Prepared,
    w: Workload,
    jobs: u32,
    duration: Duration,
    poll: &dyn Fn() -> bool,
) -> anyhow::Result<WorkRun> {
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(jobs as usize + 1));
    let counters: Arc<Vec<Counter>> = Arc::new((0..jobs).map(|_| Counter::default()).collect());
    let out_len = zstd::zstd_safe::compress_bound(INPUT_BYTES).max(INPUT_BYTES);
    let handles: Vec<_> = (0..jobs as usize)
        .map(|i| {
            let mut job = Job {
                input: prepared.input.clone(),
                compressed: prepared.compressed.clone(),
                digests: prepared.digests,
                out: vec![0; out_len],
            };
            let (stop, barrier, counters) = (stop.clone(), barrier.clone(), counters.clone());
            thread::spawn(move || -> anyhow::Result<(u64, Duration, Duration)> {
                let cctx = zstd::bulk::Compressor::new(ZSTD_LEVEL);
                let dctx = zstd::bulk::Decompressor::new();
                barrier.wait();
                let (mut cctx, mut dctx) = (cctx?, dctx?);
                let (mut bytes, mut spent, mut best) = (0u64, Duration::ZERO, Duration::MAX);
                // At least one pass, so a short run still has a figure.
                loop {
                    let pass = job.pass(w, &mut cctx, &mut dctx)?;
                    (spent, best) = (spent + pass, best.min(pass));
                    bytes += job.input.len() as u64;
                    counters[i].set(bytes);
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Ok((bytes, spent, best))
            })
        })
        .collect();
    barrier.wait();
    let t0 = Instant::now();
    while t0.elapsed() < duration {
        if poll() {
            break;
        }
        thread::sleep(Duration::from_millis(10).min(duration.saturating_sub(t0.elapsed())));
    }
    stop.store(true, Ordering::Relaxed);
    let (mut rates, mut bests) = (Vec::new(), Vec::new());
    let mut first_error = None;
    for h in handles {
        match h.join() {
            Ok(Ok((bytes, spent, best))) if !best.is_zero() => {
                rates.push(bytes as f64 / spent.as_secs_f64());
                bests.push(INPUT_BYTES as f64 / best.as_secs_f64());
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(_) => {
                first_error.get_or_insert(anyhow::anyhow!("a {} job panicked", w.name()));
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let elapsed_ns = t0.elapsed().as_nanos() as u64;
    anyhow::ensure!(
        rates.len() == jobs as usize,
        "{}: a job did no timed work",
        w.name()
    );
    Ok(WorkRun {
        bytes_per_s: rates.iter().sum::<f64>() / rates.len() as f64,
        best_bytes_per_s: bests.iter().sum::<f64>() / bests.len() as f64,
        elapsed_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_is_deterministic_and_of_the_stated_compressibility() {
        let p = Prepared::new().unwrap();
        assert_eq!(p.input, input(INPUT_BYTES));
        assert_eq!(p.input.len(), INPUT_BYTES);
        let r = p.ratio();
        assert!((2.0..5.0).contains(&r), "{r}");
    }

    #[test]
    fn each_workloads_check_fails_on_a_corrupted_output() {
        let p = Prepared::new().unwrap();
        let mut job = Job {
            input: p.input.clone(),
            compressed: p.compressed.clone(),
            digests: p.digests,
            out: vec![0; zstd::zstd_safe::compress_bound(INPUT_BYTES)],
        };
        let mut cctx = zstd::bulk::Compressor::new(ZSTD_LEVEL).unwrap();
        let mut dctx = zstd::bulk::Decompressor::new().unwrap();
        for w in Workload::ALL {
            job.pass(w, &mut cctx, &mut dctx).unwrap();
        }
        // A reference one byte off: each pass's check catches it.
        job.compressed[100] ^= 1;
        let e = job.pass(Workload::ZstdCompress, &mut cctx, &mut dctx);
        assert!(e.unwrap_err().to_string().contains("byte 100"));
        job.compressed = p.compressed.clone();
        job.input[7] ^= 0x20;
        for w in Workload::ALL {
            let e = job.pass(w, &mut cctx, &mut dctx).unwrap_err().to_string();
            assert!(e.contains("wrong output"), "{w:?}: {e}");
        }
        // One digest wrong changes the fold.
        let mut d: Vec<[u8; 32]> = p
            .input
            .chunks(SHA_MESSAGE)
            .map(|m| Sha256::digest(m).into())
            .collect();
        assert_eq!(fold_digests(d.iter().copied()), p.digests);
        d[3][0] ^= 1;
        assert_ne!(fold_digests(d.into_iter()), p.digests);
    }

    #[test]
    fn a_run_of_two_jobs_gives_a_rate_per_job() {
        let p = Prepared::new().unwrap();
        let r = run(&p, Workload::Sha256, 2, Duration::from_millis(50), &|| {
            false
        })
        .unwrap();
        assert!(r.bytes_per_s > 1e6, "{r:?}");
        assert!(r.best_bytes_per_s >= r.bytes_per_s * 0.999, "{r:?}");
        assert!(r.elapsed_ns >= 50_000_000, "{r:?}");
        assert!(Workload::Sha256.version().starts_with("work v1, sha2 0."));
        assert!(Workload::ZstdCompress
            .version()
            .starts_with("work v1, zstd 1."));
    }
}
