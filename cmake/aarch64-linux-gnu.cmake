# Cross-compiles SpringKernel's C library for aarch64 Linux (glibc) on an x86-64 Linux host:
#
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Needs Debian's (or Ubuntu's) cross gcc and libc (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross): gcc links the library and any C client; the Swift toolchain's swiftc
# compiles the Swift as Embedded Swift for aarch64-none-none-elf (the kernel imports no C library,
# and the code is position independent), its clang the shims against the cross libc's headers.
# Run the programs with qemu-aarch64 -L /usr/aarch64-linux-gnu (package qemu-user).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(SPRINGKERNEL_SWIFT_TARGET aarch64-none-none-elf CACHE STRING "Embedded Swift target triple")
set(SPRINGKERNEL_CLANG_TARGET aarch64-linux-gnu CACHE STRING "clang target for the shims")
set(SPRINGKERNEL_CLANG_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "clang sysroot for the shims")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
