// The two C library functions the web build gives stand-ins for, so the module imports nothing.
// Linked before libc.a, so libc's members (which import WASI calls) are never pulled in.
//
// arc4random_buf: Embedded Swift's SystemRandomNumberGenerator calls arc4random_buf; the kernel uses it once per
// bank, for the random 32-bit tag that tells one bank's handles from another's (SpringBankCore).
// wasi-libc's arc4random_buf reads the host's entropy through the WASI import `random_get`; a page
// has no such host. Here the bytes come from SplitMix64 over a counter: a different tag for every
// bank a module makes, which is all the tag needs (it is no secret and guards against mistakes,
// not attacks).
#include <stddef.h>
#include <stdint.h>

static uint64_t stand_in_state = 0x5EED5EED5EED5EEDull;

void arc4random_buf(void *buffer, size_t count) {
    unsigned char *bytes = buffer;
    while (count > 0) {
        uint64_t z = (stand_in_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        for (int i = 0; i < 8 && count > 0; i++, count--) *bytes++ = (unsigned char)(z >> (8 * i));
    }
}

// sched_yield: the C interface's registry lock (Sources/SpringKernelC/RegistryLock.swift) yields
// while another thread holds it; wasi-libc's imports the WASI call. A page's module has no shared
// memory, so one thread runs it and the lock is never held when it is asked for: nothing to yield to.
int sched_yield(void) { return 0; }
