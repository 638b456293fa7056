// The heap in use, for Tests/CrossFootprint: the C library's own count (mallinfo), the blocks'
// sizes with their headers and alignment padding, mmapped blocks included (glibc serves blocks of
// 128 KB and more with mmap; newlib has none).
#include <malloc.h>
#include <stddef.h>

size_t footprint_heap_in_use(void);

size_t footprint_heap_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
#else
    struct mallinfo info = mallinfo();
#endif
    return (size_t)info.uordblks + (size_t)info.hblkhd;
}
