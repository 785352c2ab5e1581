//! File layout: the size bound, each job's region, and the map of the byte
//! ranges this run has written (so that reads never touch a hole or an
//! unwritten extent).
//!
//! Layout rule: a line with `J` jobs splits the file into `J` contiguous
//! regions of equal length (a multiple of the block size); job `j` owns
//! region `j`. A write job goes sequentially from its region's start and
//! wraps to the start at the end. Every completed block is added to the
//! run's [`ExtentSet`]. A read job reads, sequentially and wrapping, the
//! block-aligned parts of its region that the set marks as written (by any
//! earlier write line of the run, any block size).
//! What a read line finds, and when it is refused: docs/METHOD.md "Storage
//! file layout: what a read line finds".

/// Below this much free space the storage bandwidth sections are skipped.
pub const MIN_AVAILABLE_BYTES: u64 = 64 << 20;
/// The file size is a multiple of this: 16 regions of whole 1 MiB blocks.
pub const SIZE_GRANULE_BYTES: u64 = 16 << 20;

/// Why no file size fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeRefusal {
    /// Less than [`MIN_AVAILABLE_BYTES`] free.
    TooLittleSpace {
        /// Bytes available to an unprivileged user at start.
        available_bytes: u64,
    },
    /// `--max-size` is below one [`SIZE_GRANULE_BYTES`].
    CapTooSmall {
        /// The cap that was asked for.
        max_size_bytes: u64,
    },
}

/// The file size for `available_bytes` free and a cap of `max_size_bytes`:
/// the smaller of the cap and half the free space, rounded down to a
/// multiple of [`SIZE_GRANULE_BYTES`].
pub fn file_size_bound(available_bytes: u64, max_size_bytes: u64) -> Result<u64, SizeRefusal> {
    if available_bytes < MIN_AVAILABLE_BYTES {
        return Err(SizeRefusal::TooLittleSpace { available_bytes });
    }
    let size = max_size_bytes.min(available_bytes / 2);
    let size = size - size % SIZE_GRANULE_BYTES;
    if size == 0 {
        return Err(SizeRefusal::CapTooSmall { max_size_bytes });
    }
    Ok(size)
}

/// A half-open byte range `[start_byte, end_byte)` of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start_byte: u64,
    /// One past the last byte.
    pub end_byte: u64,
}

impl Span {
    /// Length in bytes.
    pub fn len_bytes(&self) -> u64 {
        self.end_byte - self.start_byte
    }
}

/// The region of job `job` among `jobs` in a file of `file_size_bytes`,
/// its length a multiple of `block_size_bytes`; `None` when a region would
/// hold no whole block.
pub fn job_region(
    file_size_bytes: u64,
    jobs: u32,
    job: u32,
    block_size_bytes: u64,
) -> Option<Span> {
    if jobs == 0 || block_size_bytes == 0 || job >= jobs {
        return None;
    }
    let len = file_size_bytes / jobs as u64 / block_size_bytes * block_size_bytes;
    if len == 0 {
        return None;
    }
    let start = job as u64 * len;
    Some(Span {
        start_byte: start,
        end_byte: start + len,
    })
}

/// The byte range a write job covered in `region` after `blocks` whole
/// blocks, wrapping included.
pub fn written_by_job(region: Span, block_size_bytes: u64, blocks: u64) -> Option<Span> {
    if blocks == 0 {
        return None;
    }
    let bytes = blocks.saturating_mul(block_size_bytes);
    let end = if bytes >= region.len_bytes() {
        region.end_byte
    } else {
        region.start_byte + bytes
    };
    Some(Span {
        start_byte: region.start_byte,
        end_byte: end,
    })
}

/// The set of written byte ranges: sorted, disjoint, non-adjacent spans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtentSet {
    spans: Vec<Span>,
}

impl ExtentSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The spans, sorted.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// Total bytes in the set.
    #[cfg(test)]
    pub fn total_bytes(&self) -> u64 {
        self.spans.iter().map(Span::len_bytes).sum()
    }

    /// Adds a span, merging it with those it overlaps or touches.
    pub fn insert(&mut self, s: Span) {
        if s.start_byte >= s.end_byte {
            return;
        }
        let mut merged = s;
        let mut out = Vec::with_capacity(self.spans.len() + 1);
        let mut placed = false;
        for &t in &self.spans {
            if t.end_byte < merged.start_byte {
                out.push(t);
            } else if t.start_byte > merged.end_byte {
                if !placed {
                    out.push(merged);
                    placed = true;
                }
                out.push(t);
            } else {
                merged.start_byte = merged.start_byte.min(t.start_byte);
                merged.end_byte = merged.end_byte.max(t.end_byte);
            }
        }
        if !placed {
            out.push(merged);
        }
        self.spans = out;
    }

    /// The parts of the set inside `within`, shrunk to whole blocks of
    /// `block_size_bytes` (block boundaries at multiples of it in the file).
    pub fn aligned_within(&self, within: Span, block_size_bytes: u64) -> Vec<Span> {
        let bs = block_size_bytes.max(1);
        self.spans
            .iter()
            .filter_map(|t| {
                let lo = t.start_byte.max(within.start_byte);
                let hi = t.end_byte.min(within.end_byte);
                let lo = lo.div_ceil(bs) * bs;
                let hi = hi / bs * bs;
                (lo < hi).then_some(Span {
                    start_byte: lo,
                    end_byte: hi,
                })
            })
            .collect()
    }
}

/// What a read job reads: whole-block segments of written data, visited in
/// order and wrapped around.
pub fn read_segments(
    written: &ExtentSet,
    file_size_bytes: u64,
    region: Span,
    block_size_bytes: u64,
    job: u32,
) -> Vec<Span> {
    let own = written.aligned_within(region, block_size_bytes);
    if !own.is_empty() {
        return own;
    }
    let whole = Span {
        start_byte: 0,
        end_byte: file_size_bytes,
    };
    let mut all = written.aligned_within(whole, block_size_bytes);
    if !all.is_empty() {
        let k = job as usize % all.len();
        all.rotate_left(k);
    }
    all
}

/// A sequential cursor over segments, wrapping at the end of the last one.
#[derive(Debug, Clone)]
pub struct Cursor {
    segments: Vec<Span>,
    index: usize,
    offset_byte: u64,
    block_size_bytes: u64,
}

impl Cursor {
    /// A cursor at the start of the first segment; `None` when no segment
    /// holds a whole block.
    pub fn new(segments: Vec<Span>, block_size_bytes: u64) -> Option<Self> {
        let segments: Vec<Span> = segments
            .into_iter()
            .filter(|s| s.len_bytes() >= block_size_bytes)
            .collect();
        let first = segments.first()?.start_byte;
        Some(Cursor {
            segments,
            index: 0,
            offset_byte: first,
            block_size_bytes,
        })
    }

    /// The offset of the next block.
    #[inline]
    pub fn offset_byte(&self) -> u64 {
        self.offset_byte
    }

    /// Moves to the next block, wrapping as needed.
    #[inline]
    pub fn advance(&mut self) {
        self.offset_byte += self.block_size_bytes;
        if self.offset_byte + self.block_size_bytes > self.segments[self.index].end_byte {
            self.index += 1;
            if self.index == self.segments.len() {
                self.index = 0;
            }
            self.offset_byte = self.segments[self.index].start_byte;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    fn span(a: u64, b: u64) -> Span {
        Span {
            start_byte: a,
            end_byte: b,
        }
    }

    #[test]
    fn size_bound_is_cap_or_half_free_rounded_down() {
        assert_eq!(file_size_bound(100 * GIB, 4 * GIB), Ok(4 * GIB));
        assert_eq!(file_size_bound(GIB, 4 * GIB), Ok(512 * MIB));
        assert_eq!(file_size_bound(100 * MIB, 4 * GIB), Ok(48 * MIB));
        assert_eq!(file_size_bound(64 * MIB, 4 * GIB), Ok(32 * MIB));
        assert_eq!(file_size_bound(100 * GIB, 40 * MIB), Ok(32 * MIB));
    }

    #[test]
    fn size_bound_refuses_under_64_mib_free_or_a_tiny_cap() {
        assert_eq!(
            file_size_bound(64 * MIB - 1, 4 * GIB),
            Err(SizeRefusal::TooLittleSpace {
                available_bytes: 64 * MIB - 1
            })
        );
        assert_eq!(
            file_size_bound(GIB, 15 * MIB),
            Err(SizeRefusal::CapTooSmall {
                max_size_bytes: 15 * MIB
            })
        );
    }

    #[test]
    fn size_bound_never_exceeds_half_the_free_space() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let avail = x % (8 * GIB);
            let cap = x.rotate_left(17) % (8 * GIB);
            if let Ok(s) = file_size_bound(avail, cap) {
                assert!(s <= avail / 2 && s <= cap && s % SIZE_GRANULE_BYTES == 0 && s > 0);
            }
        }
    }

    #[test]
    fn regions_tile_the_file_in_whole_blocks() {
        let f = 64 * MIB;
        for jobs in [1u32, 4, 16, 3, 7] {
            for bs in [4096u64, MIB] {
                let mut prev_end = 0;
                for j in 0..jobs {
                    let r = job_region(f, jobs, j, bs).unwrap();
                    assert_eq!(r.start_byte, prev_end);
                    assert_eq!(r.len_bytes() % bs, 0);
                    assert_eq!(r.start_byte % bs, 0);
                    prev_end = r.end_byte;
                }
                assert!(prev_end <= f && f - prev_end < jobs as u64 * bs);
            }
        }
        assert_eq!(job_region(MIB, 2, 0, MIB), None);
        assert_eq!(job_region(MIB, 2, 2, 4096), None);
    }

    #[test]
    fn write_extent_wraps_to_the_whole_region() {
        let r = span(10 * MIB, 20 * MIB);
        assert_eq!(written_by_job(r, MIB, 0), None);
        assert_eq!(written_by_job(r, MIB, 3), Some(span(10 * MIB, 13 * MIB)));
        assert_eq!(written_by_job(r, MIB, 10), Some(r));
        assert_eq!(written_by_job(r, MIB, 1_000_000), Some(r));
    }

    #[test]
    fn extent_set_merges_overlapping_and_touching_spans() {
        let mut s = ExtentSet::new();
        s.insert(span(10, 20));
        s.insert(span(30, 40));
        s.insert(span(0, 5));
        assert_eq!(s.spans(), &[span(0, 5), span(10, 20), span(30, 40)]);
        s.insert(span(20, 30));
        assert_eq!(s.spans(), &[span(0, 5), span(10, 40)]);
        s.insert(span(3, 12));
        assert_eq!(s.spans(), &[span(0, 40)]);
        s.insert(span(50, 50));
        assert_eq!(s.total_bytes(), 40);
    }

    #[test]
    fn aligned_within_keeps_only_whole_written_blocks() {
        let mut s = ExtentSet::new();
        s.insert(span(0, 3 * MIB + 4096));
        s.insert(span(5 * MIB, 6 * MIB));
        let r = span(MIB, 8 * MIB);
        assert_eq!(
            s.aligned_within(r, MIB),
            vec![span(MIB, 3 * MIB), span(5 * MIB, 6 * MIB)]
        );
        assert_eq!(
            s.aligned_within(r, 4096),
            vec![span(MIB, 3 * MIB + 4096), span(5 * MIB, 6 * MIB)]
        );
        assert!(s.aligned_within(span(3 * MIB, 5 * MIB), MIB).is_empty());
    }

    /// A 1-job write line wrote 3 MiB at the file's start; the 16-job read
    /// line follows: job 0 reads its own region, the others (nothing
    /// written in their regions) read the written data, never a hole.
    #[test]
    fn read_jobs_never_leave_written_data() {
        let f = 64 * MIB;
        let mut w = ExtentSet::new();
        w.insert(written_by_job(job_region(f, 1, 0, MIB).unwrap(), MIB, 3).unwrap());
        for j in 0..16 {
            let region = job_region(f, 16, j, 4096).unwrap();
            let segs = read_segments(&w, f, region, 4096, j);
            let mut c = Cursor::new(segs, 4096).unwrap();
            for _ in 0..5000 {
                let o = c.offset_byte();
                assert!(o + 4096 <= 3 * MIB, "job {j} read at {o}");
                if j == 0 {
                    assert!(o + 4096 <= region.end_byte);
                }
                c.advance();
            }
        }
    }

    #[test]
    fn cursor_wraps_within_its_segments() {
        let segs = vec![span(0, 8192), span(16384, 20480)];
        let mut c = Cursor::new(segs, 4096).unwrap();
        let mut seen = Vec::new();
        for _ in 0..7 {
            seen.push(c.offset_byte());
            c.advance();
        }
        assert_eq!(seen, vec![0, 4096, 16384, 0, 4096, 16384, 0]);
        assert!(Cursor::new(vec![span(0, 4095)], 4096).is_none());
        assert!(Cursor::new(vec![], 4096).is_none());
    }

    #[test]
    fn nothing_written_means_nothing_to_read() {
        let w = ExtentSet::new();
        let r = job_region(64 * MIB, 4, 1, 4096).unwrap();
        assert!(read_segments(&w, 64 * MIB, r, 4096, 1).is_empty());
    }
}
