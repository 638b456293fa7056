// What the Embedded Swift standard library asks of the C library beyond what glibc has had for
// long: arc4random_buf (glibc 2.36, 2022), which seeds its hashing. Defined here from getrandom
// (glibc 2.25), so libSpringKernelC runs on older distributions too (Ubuntu 22.04, Debian 11).
// Like every symbol of the library but the sk_ functions it is made local
// (cmake/SpringKernelEmbeddedSwift.cmake), so it never stands in for the C library's.
//
// The kernel's results never depend on hashing order, so a seed that is not random (getrandom
// unavailable: a kernel before Linux 3.17) changes nothing but the seed.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>

void arc4random_buf(void *buffer, size_t count);

void arc4random_buf(void *buffer, size_t count) {
    unsigned char *bytes = buffer;
    while (count > 0) {
        ssize_t got = getrandom(bytes, count, 0);
        if (got > 0) {
            bytes += got;
            count -= (size_t)got;
        } else if (got < 0 && errno != EINTR) {
            uint64_t state = (uint64_t)(uintptr_t)buffer ^ 0x9E3779B97F4A7C15u;
            for (; count > 0; count--) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                *bytes++ = (unsigned char)(state >> 56);
            }
        }
    }
}
