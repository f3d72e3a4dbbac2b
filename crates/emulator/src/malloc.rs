//! glibc's allocator, told to keep freed memory for reuse.
//!
//! By default glibc adapts its mmap threshold to the largest block freed so
//! far and hands the top of a heap back to the kernel once more than twice
//! that is free. HTTP/2 read buffers of about a frame each are freed as fast
//! as they are filled, so every upload allocated fresh pages: a page fault and
//! a page cleared by the kernel per 4 KiB received, about half the
//! emulator's CPU per GiB of gRPC (perf: exc_page_fault, clear_page_erms,
//! madvise from heap_trim). With blocks up to 32 MiB taken from the heaps and
//! the heaps never trimmed, freed buffers are reused as they are. Peak memory
//! is unchanged: only memory that was in use is kept.

/// Largest block served from a heap (glibc's own maximum for this setting).
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory a heap keeps before trimming: above a thread heap's 64 MiB
/// size, so thread heaps are never trimmed.
const TRIM_THRESHOLD: i32 = 128 << 20;

/// Sets both thresholds, once per process. Setting either one alone turns
/// glibc's adaptation off and is worse than the defaults: both, or neither.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only changes allocator parameters, under its own lock.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        });
    }
}
