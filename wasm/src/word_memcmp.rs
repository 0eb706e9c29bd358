//! `memcmp` for the speed-first module: eight bytes per step instead of one.
//!
//! Every string and byte-slice comparison in Rust (`==`, `Ord`, map and
//! catalogue lookups, header names) ends in a call to `memcmp`. On wasm32
//! there is no C library, so the one linked is compiler-builtins' portable
//! loop, which reads and compares one byte per iteration; in the driver's
//! client call that loop was about a tenth of the module's time, against a
//! vectorised routine in native builds. This module defines `memcmp` itself
//! (compiler-builtins marks its own weak, so the linker takes this one):
//! whole 64-bit words are compared while at least eight bytes are left, and
//! the first differing word tells the first differing byte. The result has
//! the C contract: negative, zero or positive as the first differing byte
//! (as `unsigned char`) of `a` is below, equal to or above that of `b`.
//!
//! The comparison itself ([`compare`]) is safe code over slices, tested
//! natively against `Ord for [u8]`. It must not compare slices with `==` or
//! `cmp` (those call `memcmp`): it reads words with `from_le_bytes`.
//! Built only with the `word-memcmp` feature (the speed-first module).
//! Like every `no_mangle` function of a cdylib, it is also an export of the
//! module (`memcmp` in `pkg/acd_wasm_bg.wasm.d.ts`); the package's
//! JavaScript never calls it.
#![allow(unsafe_code)]

use std::cmp::Ordering;

/// Compares `a` and `b` (of equal length) byte by byte, in memory order, as
/// `memcmp` does: `Less`, `Equal` or `Greater` at the first byte that
/// differs, read as unsigned.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let length = a.len().min(b.len());
    let (a, b) = (
        a.get(..length).unwrap_or(&[]),
        b.get(..length).unwrap_or(&[]),
    );
    let mut words_a = a.chunks_exact(8);
    let mut words_b = b.chunks_exact(8);
    for (word_a, word_b) in words_a.by_ref().zip(words_b.by_ref()) {
        let (x, y) = (little_endian_word(word_a), little_endian_word(word_b));
        if x != y {
            // The lowest differing byte of a little-endian word is the first
            // in memory; compare the words from that byte on as big-endian.
            return x.swap_bytes().cmp(&y.swap_bytes());
        }
    }
    for (x, y) in words_a.remainder().iter().zip(words_b.remainder()) {
        if x != y {
            return x.cmp(y);
        }
    }
    Ordering::Equal
}

/// An eight-byte chunk as a little-endian `u64` (0 for any other length,
/// which `chunks_exact(8)` never yields).
fn little_endian_word(chunk: &[u8]) -> u64 {
    <[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes)
}

/// The C library's `memcmp`, which the compiler calls for slice and string
/// comparisons: [`compare`] over the two `n`-byte regions.
///
/// # Safety
/// `a` and `b` must each point to `n` readable bytes, as for C's `memcmp`
/// (the compiler only calls it on live slices).
#[cfg(all(target_family = "wasm", feature = "word-memcmp"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    if n == 0 {
        return 0;
    }
    // SAFETY: the caller passes two regions of `n` readable bytes, which
    // nothing writes during the call.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, n),
            std::slice::from_raw_parts(b, n),
        )
    };
    match compare(a, b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn words_and_tails_order_by_their_first_differing_byte() {
        assert_eq!(compare(b"", b""), Ordering::Equal);
        assert_eq!(
            compare(b"credential:main", b"credential:main"),
            Ordering::Equal
        );
        // The difference in the first word's last byte, in its first byte,
        // and in the tail after a whole word.
        assert_eq!(compare(b"abcdefgh", b"abcdefgi"), Ordering::Less);
        assert_eq!(compare(b"bbcdefgh", b"abcdefgz"), Ordering::Greater);
        assert_eq!(compare(b"credential:b", b"credential:a"), Ordering::Greater);
        // Bytes above 0x7f are unsigned: 0x80 sorts after 0x7f.
        assert_eq!(compare(&[0x7f; 9], &[0x80; 9]), Ordering::Less);
        assert_eq!(
            compare(
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
            prop_assert_eq!(compare(&a, &b), a.cmp(&b));
            prop_assert_eq!(compare(&a, &a), Ordering::Equal);
        }
    }
}
