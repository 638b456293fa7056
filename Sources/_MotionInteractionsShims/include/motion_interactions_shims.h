// What the interaction layer asks of the CPU that Swift cannot say: a prefetch. Static inline, so
// it compiles into the Swift code that calls it (no call, no object file to link).
#ifndef MOTION_INTERACTIONS_SHIMS_H
#define MOTION_INTERACTIONS_SHIMS_H

/// Asks for the cache line holding `address` to be brought in for reading, without waiting for
/// it: the frame's walk over its streams names the objects a few streams ahead, so their cache
/// misses overlap instead of following one another. A hint: it never faults, whatever `address`.
static inline __attribute__((always_inline)) void mi_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
