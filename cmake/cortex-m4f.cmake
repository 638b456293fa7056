# Cross-compiles SpringKernel's C library for a Cortex-M4F (ARMv7E-M, FPv4-SP, hard float), bare
# metal with newlib, on an x86-64 or aarch64 Linux host:
#
#   cmake -S . -B build-cortex-m4f -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/cortex-m4f.cmake
#   cmake --build build-cortex-m4f          # build-cortex-m4f/libSpringKernelC.a
#
# Needs Debian's (or Ubuntu's) gcc-arm-none-eabi and libnewlib-arm-none-eabi: gcc links the
# library into a firmware image; the Swift toolchain's swiftc compiles the Swift as Embedded Swift
# for armv7em-none-none-eabi, its clang the shims against newlib's headers. Only the static
# library is built (no shared libraries on bare metal). A program links it with the board's start
# file, linker script and the stand-ins newlib leaves to the board (posix_memalign, _sbrk, _write,
# _exit, arc4random_buf, sched_yield): Platforms/CortexM has them for QEMU's MPS2 boards, and
# .ci/cortex-m builds and runs such a program (Tests/CClients/scenarios.c).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
# No start files or linker script here: the compiler checks build a static library, not a program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(SPRINGKERNEL_SWIFT_TARGET armv7em-none-none-eabi CACHE STRING "Embedded Swift target triple")
set(SPRINGKERNEL_CLANG_TARGET armv7em-none-eabi CACHE STRING "clang target for the shims")
set(SPRINGKERNEL_CLANG_SYSROOT /usr/lib/arm-none-eabi CACHE PATH "clang sysroot for the shims (newlib's headers)")
# The CPU for the Swift code (through its clang importer) and the shims alike; -Osize for code
# size (a microcontroller's flash), the stack protector off (newlib has no __stack_chk_guard).
set(SPRINGKERNEL_SWIFT_FLAGS
    "-Osize -Xfrontend -disable-stack-protector -Xcc -mcpu=cortex-m4 -Xcc -mthumb -Xcc -mfloat-abi=hard -Xcc -mfpu=fpv4-sp-d16"
    CACHE STRING "Extra swiftc flags")
set(SPRINGKERNEL_SHIMS_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" CACHE STRING "Extra clang flags for the shims")
