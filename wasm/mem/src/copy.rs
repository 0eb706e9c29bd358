//! [`copy`]: `memmove` (and so `memcpy`) eight bytes per step.
use crate::{load, store};

/// Copies `n` bytes from `src` to `dst`; the regions may overlap (C's
/// `memmove`). Up to 32 bytes are read whole before any is written; longer
/// copies move a word per step, forwards when `dst` is below `src` and
/// backwards otherwise, so no byte is overwritten before it is read.
///
/// # Safety
/// `src` must be readable and `dst` writable for `n` bytes.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY (every block below): offsets stay below `n`, within both
    // regions, and every read of a range happens before any write that
    // could overlap it (argued per branch).
    unsafe {
        if n <= 32 {
            copy_short(dst, src, n);
        } else if (dst as usize) <= (src as usize) {
            // Forwards: the write of each word ends at or before the end of
            // the word just read, so the words still to read are intact. The
            // last word is read first: the loop may overwrite its source.
            let last = load::<u64>(src.add(n - 8));
            let mut at = 0;
            while at + 8 <= n {
                store(dst.add(at), load::<u64>(src.add(at)));
                at += 8;
            }
            store(dst.add(n - 8), last);
        } else {
            // Backwards, mirrored: the first word is read first.
            let first = load::<u64>(src);
            let mut end = n;
            while end >= 8 {
                store(dst.add(end - 8), load::<u64>(src.add(end - 8)));
                end -= 8;
            }
            store(dst, first);
        }
    }
}

/// Copies `n <= 32` bytes: every read before the first write, so any
/// overlap is fine. The ranges of the two or four reads overlap in the
/// middle instead of looping over a tail.
///
/// # Safety
/// As [`copy`], with `n <= 32`.
#[inline(always)]
unsafe fn copy_short(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: each read and write lies within `[0, n)` (n >= its width in
    // its branch).
    unsafe {
        match n {
            0 => {}
            1..=3 => {
                let (first, middle, last) = (*src, *src.add(n / 2), *src.add(n - 1));
                *dst = first;
                *dst.add(n / 2) = middle;
                *dst.add(n - 1) = last;
            }
            4..=8 => {
                let (head, tail) = (load::<u32>(src), load::<u32>(src.add(n - 4)));
                store(dst, head);
                store(dst.add(n - 4), tail);
            }
            9..=16 => {
                let (head, tail) = (load::<u64>(src), load::<u64>(src.add(n - 8)));
                store(dst, head);
                store(dst.add(n - 8), tail);
            }
            _ => {
                let (a, b) = (load::<u64>(src), load::<u64>(src.add(8)));
                let (c, d) = (load::<u64>(src.add(n - 16)), load::<u64>(src.add(n - 8)));
                store(dst, a);
                store(dst.add(8), b);
                store(dst.add(n - 16), c);
                store(dst.add(n - 8), d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `copy` within one buffer from `from` to `to`, against `copy_within`.
    fn check_within(buffer: &[u8], from: usize, to: usize, n: usize) {
        let mut expected = buffer.to_vec();
        expected.copy_within(from..from + n, to);
        let mut actual = buffer.to_vec();
        let base = actual.as_mut_ptr();
        // SAFETY: both ranges lie inside `actual` (the callers keep them there).
        unsafe { copy(base.add(to), base.add(from), n) };
        assert_eq!(actual, expected, "from {from} to {to}, {n} bytes");
    }

    #[test]
    fn every_length_to_80_and_every_overlap_match_copy_within() {
        let buffer: Vec<u8> = (0..=255u8).cycle().take(200).collect();
        for n in 0..=80 {
            for from in [0, 1, 7, 40] {
                for to in [0, 1, 3, 8, 9, 40, 41, 47, 100] {
                    check_within(&buffer, from, to, n);
                }
            }
        }
    }

    proptest! {
        /// Any length and any two offsets of one buffer, overlapping or not.
        #[test]
        fn agrees_with_copy_within(
            buffer in proptest::collection::vec(any::<u8>(), 1..300),
            from in 0usize..300, to in 0usize..300, n in 0usize..300,
        ) {
            let len = buffer.len();
            let (from, to) = (from % len, to % len);
            let n = n % (len - from.max(to) + 1);
            check_within(&buffer, from, to, n);
        }
    }
}
