//! The modules' allocator: a cache of small freed blocks in front of talc.
//!
//! A client call through the driver allocates and frees about eighty small
//! blocks (strings, vectors, boxed records), nearly all under 256 bytes.
//! talc is a general allocator that splits and coalesces on every call;
//! here a freed block of up to [`LARGEST`] bytes goes onto a free list of
//! its size class instead (a singly linked list threaded through the freed
//! blocks), and the next allocation of that class takes it back in a few
//! instructions. Larger blocks, and any alignment above [`ALIGN`], go to
//! talc unchanged. A class's list holds at most [`MAX_CACHED`] blocks; past
//! that, frees go back to talc, so the cache's own hold on memory is bounded.
//!
//! [`SmallBlocks`] is generic over the allocator behind it so that the
//! native tests can run it over the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// Size classes are multiples of this many bytes, and so is every class
/// block's alignment.
pub const ALIGN: usize = 16;
/// The largest size served from the free lists.
pub const LARGEST: usize = 512;
const CLASSES: usize = LARGEST / ALIGN;
/// The most blocks one class's free list keeps.
pub const MAX_CACHED: u32 = 4096;

/// The free lists: one head and one length per size class.
struct Lists {
    heads: [*mut u8; CLASSES],
    lengths: [u32; CLASSES],
}

/// A [`GlobalAlloc`] that keeps freed small blocks for reuse before handing
/// anything to `inner`. For single-threaded use only (wasm32 without
/// atomics): it takes no lock.
pub struct SmallBlocks<A> {
    inner: A,
    lists: UnsafeCell<Lists>,
}

// SAFETY: a wasm32 module without atomics has one thread, so the lists are
// never reached from two threads at once. Elsewhere the type is not `Sync`
// (the native tests use one instance per test, on its thread).
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for SmallBlocks<A> {}

impl<A> SmallBlocks<A> {
    /// A cache in front of `inner`, with every list empty.
    pub const fn new(inner: A) -> Self {
        SmallBlocks {
            inner,
            lists: UnsafeCell::new(Lists {
                heads: [ptr::null_mut(); CLASSES],
                lengths: [0; CLASSES],
            }),
        }
    }
}

/// The class of `layout` (block size `(class + 1) * ALIGN`), or `None` when
/// the free lists do not serve it.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() == 0 || layout.size() > LARGEST || layout.align() > ALIGN {
        return None;
    }
    Some((layout.size() - 1) / ALIGN)
}

/// The layout talc sees for every block of `class`.
fn class_layout(class: usize) -> Layout {
    // (class + 1) * ALIGN ≤ LARGEST and ALIGN is a power of two.
    match Layout::from_size_align((class + 1) * ALIGN, ALIGN) {
        Ok(layout) => layout,
        Err(_) => Layout::new::<[u8; ALIGN]>(),
    }
}

// SAFETY: every block handed out is either talc's own (large or
// over-aligned) or a class block, which talc allocated with the class's
// layout: at least `layout.size()` bytes and aligned to ALIGN ≥
// `layout.align()`. A class block is on at most one list at a time, and a
// block on a list is not in use, so its first word may hold the link.
unsafe impl<A: GlobalAlloc> GlobalAlloc for SmallBlocks<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return self.inner.alloc(layout);
        };
        let lists = &mut *self.lists.get();
        let head = lists.heads[class];
        if head.is_null() {
            return self.inner.alloc(class_layout(class));
        }
        lists.heads[class] = head.cast::<*mut u8>().read();
        lists.lengths[class] -= 1;
        head
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else {
            return self.inner.dealloc(block, layout);
        };
        let lists = &mut *self.lists.get();
        if lists.lengths[class] >= MAX_CACHED {
            return self.inner.dealloc(block, class_layout(class));
        }
        block.cast::<*mut u8>().write(lists.heads[class]);
        lists.heads[class] = block;
        lists.lengths[class] += 1;
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old_class = class_of(layout);
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new_class = class_of(new_layout);
        match (old_class, new_class) {
            // The block already has room: keep it.
            (Some(old), Some(new)) if old == new => block,
            // Neither is a class block: talc resizes in place when it can.
            (None, None) => self.inner.realloc(block, layout, new_size),
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::alloc::System;

    /// Allocates `size` bytes aligned to `align`, fills them with `fill`.
    fn filled(
        cache: &SmallBlocks<System>,
        size: usize,
        align: usize,
        fill: u8,
    ) -> (*mut u8, Layout) {
        let layout = Layout::from_size_align(size, align).unwrap();
        let block = unsafe { cache.alloc(layout) };
        assert!(!block.is_null());
        assert_eq!(block as usize % align, 0, "block aligned to {align}");
        unsafe { ptr::write_bytes(block, fill, size) };
        (block, layout)
    }

    fn holds(block: *mut u8, size: usize, fill: u8) -> bool {
        (0..size).all(|offset| unsafe { block.add(offset).read() } == fill)
    }

    #[test]
    fn a_freed_small_block_is_handed_out_again_for_its_class() {
        let cache = SmallBlocks::new(System);
        let (first, layout) = filled(&cache, 24, 8, 1);
        unsafe { cache.dealloc(first, layout) };
        // 17..=32 bytes share a class: the freed block comes back.
        let (again, layout) = filled(&cache, 30, 4, 2);
        assert_eq!(again, first);
        // Another class does not take it.
        let (other, other_layout) = filled(&cache, 40, 8, 3);
        assert_ne!(other, first);
        unsafe {
            cache.dealloc(again, layout);
            cache.dealloc(other, other_layout);
        }
    }

    #[test]
    fn large_and_over_aligned_blocks_bypass_the_lists() {
        let cache = SmallBlocks::new(System);
        let (large, layout) = filled(&cache, LARGEST + 1, 8, 7);
        let (aligned, aligned_layout) = filled(&cache, 32, 64, 8);
        unsafe {
            cache.dealloc(large, layout);
            cache.dealloc(aligned, aligned_layout);
            assert!((*cache.lists.get())
                .lengths
                .iter()
                .all(|&length| length == 0));
        }
    }

    #[test]
    fn a_full_list_returns_blocks_to_the_allocator_behind() {
        let cache = SmallBlocks::new(System);
        let blocks: Vec<_> = (0..MAX_CACHED + 10)
            .map(|_| filled(&cache, 16, 8, 0))
            .collect();
        for (block, layout) in blocks {
            unsafe { cache.dealloc(block, layout) };
        }
        assert_eq!(unsafe { (*cache.lists.get()).lengths[0] }, MAX_CACHED);
    }

    #[derive(Debug, Clone)]
    enum Step {
        Alloc { size: usize, align: usize },
        Free { index: usize },
        Grow { index: usize, size: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (
                1usize..700,
                prop::sample::select(vec![1usize, 2, 4, 8, 16, 32])
            )
                .prop_map(|(size, align)| Step::Alloc { size, align }),
            any::<usize>().prop_map(|index| Step::Free { index }),
            (any::<usize>(), 1usize..700).prop_map(|(index, size)| Step::Grow { index, size }),
        ]
    }

    proptest! {
        /// Live blocks never overlap and keep their contents across other
        /// blocks' allocations, frees and reallocations.
        #[test]
        fn live_blocks_keep_their_bytes(steps in prop::collection::vec(step(), 1..200)) {
            let cache = SmallBlocks::new(System);
            let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
            for (number, step) in steps.into_iter().enumerate() {
                let fill = (number % 251) as u8 + 1;
                match step {
                    Step::Alloc { size, align } => {
                        let (block, layout) = filled(&cache, size, align, fill);
                        live.push((block, layout, fill));
                    }
                    Step::Free { index } if !live.is_empty() => {
                        let (block, layout, old) = live.swap_remove(index % live.len());
                        prop_assert!(holds(block, layout.size(), old));
                        unsafe { cache.dealloc(block, layout) };
                    }
                    Step::Grow { index, size } if !live.is_empty() => {
                        let at = index % live.len();
                        let (block, layout, old) = live[at];
                        let moved = unsafe { cache.realloc(block, layout, size) };
                        prop_assert!(!moved.is_null());
                        prop_assert!(holds(moved, layout.size().min(size), old));
                        let layout = Layout::from_size_align(size, layout.align()).unwrap();
                        unsafe { ptr::write_bytes(moved, fill, size) };
                        live[at] = (moved, layout, fill);
                    }
                    _ => {}
                }
                for &(block, layout, fill) in &live {
                    prop_assert!(holds(block, layout.size(), fill));
                }
            }
            for (block, layout, _) in live {
                unsafe { cache.dealloc(block, layout) };
            }
        }
    }
}
