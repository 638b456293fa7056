#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

// A malloc interposer for spring-bench only: the executable defines malloc, calloc, realloc,
// free, posix_memalign, aligned_alloc, memalign, valloc and pvalloc, so the dynamic linker binds
// every shared library's calls (the Swift runtime's swift_slowAlloc included) to them. Each
// forwards to glibc's own __libc_* entry point and, while counting is on, bumps a relaxed atomic
// counter. Nothing here is linked into the libraries.

#include <stdbool.h>
#include <stdint.h>

/// Starts or stops counting (off by default, so the rest of the benchmark pays one load per call).
void allocation_counter_set_enabled(bool enabled);

/// Heap allocations counted so far (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign, valloc, pvalloc), from any thread.
uint64_t allocation_counter_allocations(void);

/// Frees counted so far (free of a non-null pointer; realloc to size 0).
uint64_t allocation_counter_frees(void);

/// Bytes the heap has handed out and not had back (glibc's mallinfo2: arena and mmapped blocks).
uint64_t allocation_counter_heap_bytes_in_use(void);

#endif
