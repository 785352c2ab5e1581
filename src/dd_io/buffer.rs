//! Aligned I/O buffers filled with pseudo-random bytes, and the per-block
//! stamp that makes every written sector unique.
//!
//! The PRNG is splitmix64 (no `rand` crate). A stamp is 16 bytes written
//! at the start of every 4 KiB chunk of a block (every block, if smaller):
//! the chunk's file offset and the run nonce. With random filling, no two
//! written chunks are equal and none compresses, so neither deduplication
//! (whose granularity is 4 KiB or more: VDO, ZFS, btrfs) nor compression
//! can flatter the figures. A 1 MiB block takes 256 stamps.

use std::alloc::{alloc_zeroed, dealloc, Layout};

use crate::stats::rng::SplitMix64;

/// Stamp granularity: the smallest unit deduplicating layers share (this
/// is not an alignment: I/O alignment comes from the filesystem).
pub const STAMP_UNIT_BYTES: usize = 4096;

/// A heap buffer aligned for O_DIRECT; freed on drop.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// The buffer is plain owned memory; moving it to a job thread is safe.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len_bytes` aligned to `align_bytes` (a power of
    /// two); `None` if the allocation fails or the layout is invalid.
    pub fn new(len_bytes: usize, align_bytes: usize) -> Option<Self> {
        let layout = Layout::from_size_align(len_bytes.max(1), align_bytes).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        Some(AlignedBuf { ptr, layout })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false (a buffer has at least one byte).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The start address, for `pread`/`pwrite`.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes, initialised (zeroed at alloc).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len()) }
    }

    /// The bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len()) }
    }

    /// Fills the whole buffer with pseudo-random bytes from `seed`.
    pub fn fill_random(&mut self, seed: u64) {
        let mut rng = SplitMix64::new(seed);
        for chunk in self.as_mut_slice().chunks_mut(8) {
            let r = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    /// Stamps every 4 KiB chunk (or the whole buffer, if smaller) with its
    /// file offset (the block starts at `offset_byte`) and the run nonce.
    #[inline]
    pub fn stamp(&mut self, offset_byte: u64, nonce: u64) {
        let buf = self.as_mut_slice();
        let mut off = offset_byte;
        for sector in buf.chunks_mut(STAMP_UNIT_BYTES).filter(|c| c.len() >= 16) {
            sector[..8].copy_from_slice(&off.to_le_bytes());
            sector[8..16].copy_from_slice(&nonce.to_le_bytes());
            off += STAMP_UNIT_BYTES as u64;
        }
    }
}

/// What a chunk read back held instead of its stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// All zeros: never written, or discarded.
    Zeros,
    /// Another chunk's stamp of this run: the data of that offset.
    Offset(u64),
    /// Anything else: its first two words.
    Other(u64, u64),
}

/// A chunk read back that does not carry the stamp written there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// The chunk's offset, bytes (what its stamp should say).
    pub offset_byte: u64,
    /// What it held.
    pub found: Found,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the block read at offset {} is not the one written there: expected its stamp \
             (offset {}, this run's nonce), found ",
            self.offset_byte, self.offset_byte
        )?;
        match self.found {
            Found::Zeros => f.write_str("zeros (lost or discarded)"),
            Found::Offset(o) => write!(f, "the block written at offset {o}"),
            Found::Other(a, b) => write!(f, "other data ({a:#018x} {b:#018x})"),
        }
    }
}

/// Whether `chunk` is all zeros. Random data fails on its first bytes; a
/// zero chunk is scanned in 64-byte steps that the compiler vectorises.
#[inline]
fn is_zero(chunk: &[u8]) -> bool {
    let mut words = chunk.chunks_exact(64);
    words.all(|w| w.iter().fold(0u8, |a, &b| a | b) == 0)
        && chunk.chunks_exact(64).remainder().iter().all(|&b| b == 0)
}

/// The two stamp words of a chunk.
#[inline]
fn stamp_of(chunk: &[u8]) -> (u64, u64) {
    let word = |i: usize| u64::from_le_bytes(chunk[i..i + 8].try_into().expect("8 bytes"));
    (word(0), word(8))
}

impl AlignedBuf {
    /// Checks a block read back from `offset_byte` that this run wrote:
    /// every chunk must carry the stamp [`AlignedBuf::stamp`] put there.
    /// Only the two stamp words are compared, so the check costs nothing
    /// beside the I/O.
    #[inline]
    pub fn verify(&self, offset_byte: u64, nonce: u64) -> Result<(), Mismatch> {
        let mut off = offset_byte;
        for chunk in self
            .as_slice()
            .chunks(STAMP_UNIT_BYTES)
            .filter(|c| c.len() >= 16)
        {
            let (o, n) = stamp_of(chunk);
            if o != off || n != nonce {
                let found = if is_zero(chunk) {
                    Found::Zeros
                } else if n == nonce {
                    Found::Offset(o)
                } else {
                    Found::Other(o, n)
                };
                return Err(Mismatch {
                    offset_byte: off,
                    found,
                });
            }
            off += STAMP_UNIT_BYTES as u64;
        }
        Ok(())
    }

    /// The chunks of a block read back (stamp units, as [`AlignedBuf::stamp`]
    /// counts them) and how many of them are all zeros.
    #[inline]
    pub fn zero_chunks(&self) -> (u64, u64) {
        let mut zeros = 0;
        let mut all = 0;
        for chunk in self.as_slice().chunks(STAMP_UNIT_BYTES) {
            all += 1;
            zeros += u64::from(is_zero(chunk));
        }
        (all, zeros)
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned() {
        for align in [512usize, 4096, 65536] {
            let mut b = AlignedBuf::new(4096, align).unwrap();
            assert_eq!(b.as_mut_ptr() as usize % align, 0);
            assert_eq!(b.len(), 4096);
        }
    }

    #[test]
    fn stamped_sectors_are_all_distinct() {
        let mut b = AlignedBuf::new(1 << 20, 4096).unwrap();
        b.fill_random(42);
        b.stamp(1 << 30, 7);
        let mut sectors: Vec<&[u8]> = b.as_slice().chunks(STAMP_UNIT_BYTES).collect();
        assert_eq!(&sectors[1][..8], &((1u64 << 30) + 4096).to_le_bytes());
        assert_eq!(&sectors[1][8..16], &7u64.to_le_bytes());
        sectors.sort();
        sectors.dedup();
        assert_eq!(sectors.len(), (1 << 20) / STAMP_UNIT_BYTES);
    }

    #[test]
    fn a_block_smaller_than_the_stamp_unit_is_stamped_once() {
        let mut b = AlignedBuf::new(512, 512).unwrap();
        b.stamp(1024, 9);
        assert_eq!(&b.as_slice()[..8], &1024u64.to_le_bytes());
        assert_eq!(&b.as_slice()[8..16], &9u64.to_le_bytes());
    }

    #[test]
    fn a_stamped_block_verifies_and_a_changed_one_says_what_it_found() {
        let mut b = AlignedBuf::new(16384, 4096).unwrap();
        b.fill_random(3);
        b.stamp(8192, 5);
        assert_eq!(b.verify(8192, 5), Ok(()));
        assert_eq!(b.zero_chunks(), (4, 0));
        // the block of another offset: the third chunk says where it was
        let e = b.verify(4096, 5).unwrap_err();
        assert_eq!(e.offset_byte, 4096);
        assert_eq!(e.found, Found::Offset(8192));
        // another run's data
        let e = b.verify(8192, 6).unwrap_err();
        assert!(matches!(e.found, Found::Other(8192, 5)), "{e:?}");
        // a chunk lost (zeros) in the middle: its own offset is named
        b.as_mut_slice()[8192..12288].fill(0);
        let e = b.verify(8192, 5).unwrap_err();
        assert_eq!(e.offset_byte, 16384);
        assert_eq!(e.found, Found::Zeros);
        assert!(e.to_string().contains("offset 16384"), "{e}");
        assert_eq!(b.zero_chunks(), (4, 1));
        // one stray byte at the end of a chunk: not zeros
        b.as_mut_slice()[12287] = 1;
        assert_eq!(b.zero_chunks(), (4, 0));
    }

    #[test]
    fn random_fill_does_not_compress_to_a_pattern() {
        let mut b = AlignedBuf::new(65536, 4096).unwrap();
        b.fill_random(1);
        let mut counts = [0u32; 256];
        for &x in b.as_slice() {
            counts[x as usize] += 1;
        }
        // Every byte value appears, none dominates (uniform: 256 each).
        assert!(counts.iter().all(|&c| c > 150 && c < 380), "{counts:?}");
    }
}
