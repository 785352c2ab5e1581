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
