//! [`fill`]: `memset` eight bytes per step.
use crate::store;

/// Sets `n` bytes at `dst` to `byte` (C's `memset`). Up to 16 bytes by two
/// overlapping stores, longer fills a word per step and a last word that
/// may overlap the one before.
///
/// # Safety
/// `dst` must be writable for `n` bytes.
pub unsafe fn fill(dst: *mut u8, byte: u8, n: usize) {
    let word = u64::from(byte) * 0x0101_0101_0101_0101;
    // SAFETY: every write lies within `[0, n)` (n >= its width in its branch).
    unsafe {
        match n {
            0 => {}
            1..=3 => {
                *dst = byte;
                *dst.add(n / 2) = byte;
                *dst.add(n - 1) = byte;
            }
            4..=8 => {
                let half = word as u32;
                store(dst, half);
                store(dst.add(n - 4), half);
            }
            _ => {
                let mut at = 0;
                while at + 8 <= n {
                    store(dst.add(at), word);
                    at += 8;
                }
                store(dst.add(n - 8), word);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Exactly `[at, at + n)` takes the byte; the rest is untouched.
        #[test]
        fn sets_exactly_the_range(
            buffer in proptest::collection::vec(any::<u8>(), 1..200),
            byte: u8, at in 0usize..200, n in 0usize..200,
        ) {
            let at = at % buffer.len();
            let n = n % (buffer.len() - at + 1);
            let mut expected = buffer.clone();
            expected[at..at + n].fill(byte);
            let mut actual = buffer;
            // SAFETY: `[at, at + n)` lies inside `actual`.
            unsafe { fill(actual.as_mut_ptr().add(at), byte, n) };
            prop_assert_eq!(actual, expected);
        }
    }

    #[test]
    fn every_length_to_40() {
        for n in 0..=40 {
            let mut buffer = [7u8; 48];
            // SAFETY: `[4, 4 + n)` lies inside the 48 bytes.
            unsafe { fill(buffer.as_mut_ptr().add(4), 0xa5, n) };
            let expected: Vec<u8> = (0..48)
                .map(|i| if (4..4 + n).contains(&i) { 0xa5 } else { 7 })
                .collect();
            assert_eq!(buffer.to_vec(), expected, "{n} bytes");
        }
    }
}
