// Bare-metal start for Cortex-M (ARMv6-M and ARMv7E-M), as `.ci/cross` runs the kernel under QEMU:
// the vector table, the reset handler (.data copied, .bss zeroed, the FPU enabled and started in
// the mode the command line asks for), and the end of the program through semihosting. The C
// library's needs (newlib) are in board_support.c; the memory is the linker script's
// (mps2.ld, microbit.ld, with sections.ld).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "semihosting.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_top[];
extern void (*__init_array_start[])(void), (*__init_array_end[])(void);
int main(int argc, char **argv);

// The starting floating-point mode, from the semihosting command line (QEMU's -append): words
// "round-toward-zero" and "flush-to-zero" set FPSCR's RMode (bits 22-23 = 0b11) and FZ (bit 24)
// before main, as a caller's thread might have them; the kernel must give the same bits anyway.
// Anything else (or no command line) leaves the reset value: round to nearest, no flush.
#if defined(__ARM_FP)
/// Whether `word` occurs in `line`: a plain scan, where newlib's strstr would link a kilobyte of
/// two-way matching into every program's text.
static int contains(const char *line, const char *word) {
    for (; *line; line++) {
        const char *l = line, *w = word;
        while (*w && *l == *w) l++, w++;
        if (!*w) return 1;
    }
    return 0;
}

static void start_floating_point_mode(void) {
    char line[128];
    if (sh_command_line(line, sizeof line) < 0) return;
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    if (contains(line, "round-toward-zero")) fpscr |= UINT32_C(3) << 22;
    if (contains(line, "flush-to-zero")) fpscr |= UINT32_C(1) << 24;
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr));
}
#endif

/// What crti.o would bring (the link has no start files): exit() runs __libc_fini_array, which
/// calls _fini after the .fini_array functions.
void _fini(void) { }

__attribute__((noreturn, used)) void Reset_Handler(void) {
    memcpy(__data_start, __data_load, (uintptr_t)__data_end - (uintptr_t)__data_start);
    memset(__bss_start, 0, (uintptr_t)__bss_end - (uintptr_t)__bss_start);
#if defined(__ARM_FP)
    // CPACR: full access to CP10 and CP11 (the FPU), then the barriers ARM asks for.
    *(volatile uint32_t *)0xE000ED88u |= UINT32_C(0xF) << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    start_floating_point_mode();
#endif
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++) (*f)();
    exit(main(0, 0));
}

/// Any fault ends the run with a failure status, so that a crash is never mistaken for a pass, and
/// says where: the faulting instruction's address (the PC the exception stacked) and the fault
/// status registers (CFSR, HFSR; ARMv6-M has neither, and they read 0 there).
__attribute__((noreturn, used)) static void report_fault(const uint32_t *frame) {
    char message[] = "fault: a processor exception at pc 0x........, cfsr 0x........, hfsr 0x........\n";
    uint32_t values[3] = {frame[6], 0, 0};
#if !defined(__ARM_ARCH_6M__)
    values[1] = *(volatile uint32_t *)0xE000ED28u;
    values[2] = *(volatile uint32_t *)0xE000ED2Cu;
#endif
    // The three runs of dots, in order, take the three values' hex digits.
    char *digit = message;
    for (int v = 0; v < 3; v++) {
        while (*digit != '.') digit++;
        for (int i = 0; i < 8; i++) *digit++ = "0123456789abcdef"[(values[v] >> (28 - 4 * i)) & 15];
    }
    sh_write_console(message, sizeof message - 1);
    sh_exit(70);
}

/// The exception's stack frame (MSP: this program never switches to PSP) to report_fault.
__attribute__((naked, noreturn)) static void Fault_Handler(void) {
    __asm__ volatile("mrs r0, msp\n\tb report_fault");
}

/// The vector table: the initial stack pointer and the handlers (QEMU boots from address 0).
__attribute__((section(".vectors"), used)) static void (*const vector_table[16])(void) = {
    (void (*)(void))__stack_top, Reset_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,  // NMI, HardFault, MemManage, BusFault, UsageFault
    0, 0, 0, 0,
    Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,  // SVC, DebugMon, -, PendSV, SysTick
};
