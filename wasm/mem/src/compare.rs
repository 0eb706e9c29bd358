//! [`compare`]: `memcmp` eight bytes per step.
use crate::load;
use core::cmp::Ordering;

/// Compares the `n` bytes at `a` and `b` as C's `memcmp` does: by the first
/// byte that differs, read as unsigned. Whole words are compared while at
/// least eight bytes are left; the first differing word tells the byte.
///
/// # Safety
/// `a` and `b` must be readable for `n` bytes.
pub unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> Ordering {
    let mut at = 0;
    // SAFETY: every read lies within `[0, n)` of both regions.
    unsafe {
        while at + 8 <= n {
            let (x, y) = (load::<u64>(a.add(at)), load::<u64>(b.add(at)));
            if x != y {
                // Memory order is little-endian: as big-endian numbers, the
                // words order by their first differing byte.
                return x.swap_bytes().cmp(&y.swap_bytes());
            }
            at += 8;
        }
        while at < n {
            let (x, y) = (*a.add(at), *b.add(at));
            if x != y {
                return x.cmp(&y);
            }
            at += 1;
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn compare_slices(a: &[u8], b: &[u8]) -> Ordering {
        assert_eq!(a.len(), b.len());
        // SAFETY: both slices hold `a.len()` bytes.
        unsafe { compare(a.as_ptr(), b.as_ptr(), a.len()) }
    }

    #[test]
    fn words_and_tails_order_by_their_first_differing_byte() {
        assert_eq!(compare_slices(b"", b""), Ordering::Equal);
        assert_eq!(
            compare_slices(b"credential:main", b"credential:main"),
            Ordering::Equal
        );
        // A difference in a word's last byte, in its first byte, and in the
        // tail after a whole word.
        assert_eq!(compare_slices(b"abcdefgh", b"abcdefgi"), Ordering::Less);
        assert_eq!(compare_slices(b"bbcdefgh", b"abcdefgz"), Ordering::Greater);
        assert_eq!(
            compare_slices(b"credential:b", b"credential:a"),
            Ordering::Greater
        );
        // Bytes above 0x7f are unsigned: 0x80 sorts after 0x7f.
        assert_eq!(compare_slices(&[0x7f; 9], &[0x80; 9]), Ordering::Less);
        assert_eq!(
            compare_slices(
                &[1, 2, 3, 4, 5, 6, 7, 0x80, 0],
                &[1, 2, 3, 4, 5, 6, 7, 0x7f, 9]
            ),
            Ordering::Greater
        );
    }

    proptest! {
        /// Equal-length regions compare as `Ord for [u8]` does.
        #[test]
        fn agrees_with_slice_order(
            common in proptest::collection::vec(any::<u8>(), 0..40),
            a in proptest::collection::vec(any::<u8>(), 0..40),
            b in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            let length = a.len().min(b.len());
            let a: Vec<u8> = common.iter().chain(&a[..length]).copied().collect();
            let b: Vec<u8> = common.iter().chain(&b[..length]).copied().collect();
            prop_assert_eq!(compare_slices(&a, &b), a.cmp(&b));
            prop_assert_eq!(compare_slices(&a, &a), Ordering::Equal);
        }
    }
}
