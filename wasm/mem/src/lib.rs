//! # acd-wasm-mem
//!
//! `memcpy`, `memmove`, `memset` and `memcmp` for acd's speed-first wasm
//! module (`acd`, feature `mem-routines` of acd-wasm), each working eight
//! bytes per step.
//!
//! wasm32 has no C library. With the bulk-memory feature, which Rust
//! enables for wasm32 by default, every copy or fill of a length known only
//! at run time becomes a `memory.copy` or `memory.fill` instruction, and V8
//! (Node 20) runs those as a call out of the module into C++: about a
//! hundred such calls per client call through the driver, each costing
//! more than the few bytes it moves. Without bulk memory, the compiler
//! calls `memcpy`, `memmove` and `memset` instead, and compiler-builtins'
//! portable ones move one to four bytes per step; its `memcmp` compares one
//! byte per step, under every string comparison. The speed-first module is
//! built without bulk memory (`scripts/lib/build-wasm.sh`) and links these
//! (compiler-builtins marks its own weak, so the linker takes these).
//!
//! * [`copy`]: copies of up to 32 bytes as at most four loads then four
//!   stores (overlapping in the middle), longer ones a word per step, in
//!   the direction that keeps overlapping regions right.
//! * [`fill`]: the same for filling.
//! * [`compare`]: words compared until the first that differs.
//!
//! The crate is `no_builtins`, as compiler-builtins is: the compiler must
//! not turn these loops back into calls to the functions they implement.
//! The C entry points exist only on wasm; natively the tests run the same
//! functions on buffers against the standard library's.
#![no_builtins]
#![cfg_attr(not(test), no_std)]
#![allow(unsafe_code)]
#![deny(missing_docs)]

mod compare;
mod copy;
mod fill;

pub use compare::compare;
pub use copy::copy;
pub use fill::fill;

/// Reads a `T` (`u32` or `u64`) at `at`, of any alignment.
///
/// # Safety
/// `at` must point to `size_of::<T>()` readable bytes.
#[inline(always)]
unsafe fn load<T: Copy>(at: *const u8) -> T {
    // SAFETY: the caller guarantees the bytes are readable; the read is unaligned.
    unsafe { at.cast::<T>().read_unaligned() }
}

/// Writes `value` (a `u32` or `u64`) at `at`, of any alignment.
///
/// # Safety
/// `at` must point to `size_of::<T>()` writable bytes.
#[inline(always)]
unsafe fn store<T: Copy>(at: *mut u8, value: T) {
    // SAFETY: the caller guarantees the bytes are writable; the write is unaligned.
    unsafe { at.cast::<T>().write_unaligned(value) }
}

/// The C library's entry points, on wasm only (natively the system's stay).
#[cfg(target_family = "wasm")]
mod c_entry_points {
    /// C's `memcpy`: [`copy`](crate::copy) (which also allows overlap).
    ///
    /// # Safety
    /// As C's: `src` readable and `dst` writable for `n` bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `copy`'s.
        unsafe { crate::copy(dst, src, n) };
        dst
    }

    /// C's `memmove`: [`copy`](crate::copy).
    ///
    /// # Safety
    /// As C's: `src` readable and `dst` writable for `n` bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `copy`'s.
        unsafe { crate::copy(dst, src, n) };
        dst
    }

    /// C's `memset`: [`fill`](crate::fill) with the low byte of `byte`.
    ///
    /// # Safety
    /// As C's: `dst` writable for `n` bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memset(dst: *mut u8, byte: i32, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `fill`'s. C converts to unsigned char.
        unsafe { crate::fill(dst, byte as u8, n) };
        dst
    }

    /// C's `memcmp`: [`compare`](crate::compare), as -1, 0 or 1.
    ///
    /// # Safety
    /// As C's: `a` and `b` readable for `n` bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: the caller's contract is `compare`'s.
        match unsafe { crate::compare(a, b, n) } {
            core::cmp::Ordering::Less => -1,
            core::cmp::Ordering::Equal => 0,
            core::cmp::Ordering::Greater => 1,
        }
    }

    /// C's `bcmp` (equality only): [`compare`](crate::compare).
    ///
    /// # Safety
    /// As C's: `a` and `b` readable for `n` bytes.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: as `memcmp`.
        unsafe { memcmp(a, b, n) }
    }
}
