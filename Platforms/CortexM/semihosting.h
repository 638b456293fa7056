// ARM semihosting (the debugger's, or QEMU's with -semihosting-config enable=on): the console,
// the command line and the exit status of a program with no operating system.
#ifndef SPRINGKERNEL_SEMIHOSTING_H
#define SPRINGKERNEL_SEMIHOSTING_H
#include <stddef.h>
#include <stdint.h>

/// One semihosting call (`bkpt 0xab` on M-profile): operation in r0, argument block in r1.
static inline uintptr_t sh_call(uintptr_t operation, const void *argument) {
    register uintptr_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/// The console's handle (":tt" opened for writing), opened at the first write.
static inline uintptr_t sh_console(void) {
    static uintptr_t handle = (uintptr_t)-1;
    if (handle == (uintptr_t)-1) {
        uintptr_t block[3] = {(uintptr_t)":tt", 4 /* "w" */, 3 /* strlen(":tt") */};
        handle = sh_call(0x01 /* SYS_OPEN */, block);
    }
    return handle;
}

/// Writes `count` bytes to the console; returns the bytes written.
static inline size_t sh_write_console(const void *bytes, size_t count) {
    uintptr_t block[3] = {sh_console(), (uintptr_t)bytes, count};
    return count - sh_call(0x05 /* SYS_WRITE: the bytes not written */, block);
}

/// The command line (QEMU: -append) into `line`, NUL-terminated; its length, or -1.
static inline int sh_command_line(char *line, size_t capacity) {
    uintptr_t block[2] = {(uintptr_t)line, capacity};
    return sh_call(0x15 /* SYS_GET_CMDLINE */, block) == 0 ? (int)block[1] : -1;
}

/// Ends the program with `status` (QEMU exits with it).
__attribute__((noreturn)) static inline void sh_exit(int status) {
    // SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit and the status.
    uintptr_t block[2] = {0x20026, (uintptr_t)status};
    sh_call(0x20, block);
    for (;;) { }
}
#endif
