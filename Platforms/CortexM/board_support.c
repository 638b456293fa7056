// What newlib leaves to the board, for Embedded Swift and the kernel on Cortex-M: the system calls
// stdio and exit reach (_write to the semihosting console, _exit with the status), the heap
// (_sbrk, between the linker script's __heap_start and __heap_end), posix_memalign (Embedded
// Swift allocates with it; newlib has memalign), arc4random_buf (Hasher's seed), sched_yield (the
// C interface's registry lock), and on ARMv6-M
// the __atomic_*_4 calls (that architecture has no exclusive loads and stores, and arm-none-eabi
// has no libatomic: done here with interrupts off, which is atomic on a single core).
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include "semihosting.h"

extern char __heap_start[], __heap_end[];

void *_sbrk(ptrdiff_t increment) {
    static char *brk = __heap_start;
    if (increment > __heap_end - brk || increment < __heap_start - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *previous = brk;
    brk += increment;
    return previous;
}

int posix_memalign(void **pointer, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *memory = memalign(alignment, size);
    if (!memory) return ENOMEM;
    *pointer = memory;
    return 0;
}

int _write(int file, const char *bytes, int count) {
    if (file != 1 && file != 2) {
        errno = EBADF;
        return -1;
    }
    return (int)sh_write_console(bytes, (size_t)count);
}

__attribute__((noreturn)) void _exit(int status) { sh_exit(status); }

int _read(int file, char *bytes, int count) { (void)file; (void)bytes; (void)count; return 0; }
int _close(int file) { (void)file; return -1; }
int _lseek(int file, int offset, int whence) { (void)file; (void)offset; (void)whence; return 0; }
int _isatty(int file) { return file >= 0 && file <= 2; }
int _fstat(int file, struct stat *status) { (void)file; memset(status, 0, sizeof *status); status->st_mode = S_IFCHR; return 0; }
int _getpid(void) { return 1; }
/// One thread on one core: the C interface's registry lock, which yields while another thread
/// holds it, never finds it held.
int sched_yield(void) { return 0; }
int _kill(int pid, int signal) { (void)pid; (void)signal; errno = EINVAL; return -1; }

/// Hasher's seed: a board under QEMU has no entropy source, so a fixed sequence (SplitMix64 from
/// a constant). Hashing in this program is then not randomized; on a real board read its TRNG here.
void arc4random_buf(void *buffer, size_t count) {
    static uint64_t state = 0x5350524b5345454bull;
    unsigned char *bytes = buffer;
    while (count > 0) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        size_t n = count < 8 ? count : 8;
        memcpy(bytes, &z, n);
        bytes += n;
        count -= n;
    }
}

#if defined(__ARM_ARCH_6M__)
// The 4-byte atomics LLVM and GCC call on ARMv6-M, with PRIMASK set for their duration. Defined
// under their library names through asm labels (the compilers reserve the names for builtins).
static inline uint32_t interrupts_off(void) {
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}
static inline void interrupts_restore(uint32_t primask) { __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory"); }

#define SK_ATOMIC_FETCH(name, op) \
    uint32_t sk_atomic_##name(volatile uint32_t *p, uint32_t v, int order) __asm__("__atomic_" #name "_4"); \
    uint32_t sk_atomic_##name(volatile uint32_t *p, uint32_t v, int order) { \
        (void)order; uint32_t s = interrupts_off(), old = *p; *p = op; interrupts_restore(s); return old; }
SK_ATOMIC_FETCH(fetch_add, old + v)
SK_ATOMIC_FETCH(fetch_sub, old - v)
SK_ATOMIC_FETCH(fetch_and, old & v)
SK_ATOMIC_FETCH(fetch_or, old | v)
SK_ATOMIC_FETCH(fetch_xor, old ^ v)
SK_ATOMIC_FETCH(exchange, v)

uint32_t sk_atomic_load(const volatile uint32_t *p, int order) __asm__("__atomic_load_4");
uint32_t sk_atomic_load(const volatile uint32_t *p, int order) {
    (void)order; uint32_t s = interrupts_off(), v = *p; interrupts_restore(s); return v;
}
void sk_atomic_store(volatile uint32_t *p, uint32_t v, int order) __asm__("__atomic_store_4");
void sk_atomic_store(volatile uint32_t *p, uint32_t v, int order) {
    (void)order; uint32_t s = interrupts_off(); *p = v; interrupts_restore(s);
}
_Bool sk_atomic_compare_exchange(volatile uint32_t *p, uint32_t *expected, uint32_t desired, _Bool weak, int success, int failure)
    __asm__("__atomic_compare_exchange_4");
_Bool sk_atomic_compare_exchange(volatile uint32_t *p, uint32_t *expected, uint32_t desired, _Bool weak, int success, int failure) {
    (void)weak; (void)success; (void)failure;
    uint32_t s = interrupts_off(), current = *p;
    _Bool equal = current == *expected;
    if (equal) *p = desired; else *expected = current;
    interrupts_restore(s);
    return equal;
}
#endif
