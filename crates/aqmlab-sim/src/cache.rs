//! Software prefetch: ask the processor to start loading a cache line that the simulation will
//! read shortly, so that the wait for memory overlaps with work instead of stalling it.
//!
//! At thousands of flows the per-connection state does not fit in the caches, and each cache line a
//! delivered segment touches is a likely miss (docs/performance.md, steps 3 and 5). Where the
//! simulation knows what the next events will read before it reads it (a segment reaching the
//! router in front of its host is delivered to its connection a link's transmission later), it
//! prefetches those lines here. A prefetch is a hint with no effect on any result: it reads no
//! value, cannot fault, and may be ignored by the processor.

/// Start loading the cache line that holds `at` into all cache levels (x86-64 `prefetcht0`; a
/// no-op on other targets).
#[inline(always)]
pub fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of every x86-64 processor, and a prefetch never dereferences its
        // address (any address is allowed, none can fault).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// The size of a cache line on the machines the engine runs on (x86-64 and most others).
pub const LINE: usize = 64;

/// Prefetch the first `bytes` of `value`, line by line (`value` aligned to a line, as the laid-out
/// structures that use this are).
#[inline(always)]
pub fn prefetch_bytes<T>(value: &T, bytes: usize) {
    let start = (value as *const T).cast::<u8>();
    for offset in (0..bytes).step_by(LINE) {
        prefetch(start.wrapping_add(offset));
    }
}
