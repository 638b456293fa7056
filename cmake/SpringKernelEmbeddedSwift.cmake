# Builds SpringKernel's C interface as Embedded Swift into one relocatable object, with
# add_custom_command (CMake's Swift language support does not build Embedded Swift across modules
# or for the bare-metal triples the Embedded standard library is shipped for).
#
# Cache variables (a toolchain file, cmake/aarch64-linux-gnu.cmake, sets the targets):
#   SPRINGKERNEL_SWIFTC          swiftc (default: from PATH); clang, ld.lld and llvm-objcopy are
#                                taken from the same directory
#   SPRINGKERNEL_SWIFT_TARGET    the Embedded Swift target: x86_64-unknown-linux-gnu on x86-64,
#                                aarch64-none-none-elf on aarch64 (the kernel imports no C library)
#   SPRINGKERNEL_CLANG_TARGET    clang's target for the shims (C): x86_64-linux-gnu, aarch64-linux-gnu
#   SPRINGKERNEL_CLANG_SYSROOT   clang's sysroot for the shims when cross-compiling (libc headers)
#   SPRINGKERNEL_SWIFT_FLAGS     extra swiftc flags, e.g. "-Xcc -march=x86-64-v3" (default: none,
#                                plain x86-64 / armv8-a code, which runs everywhere)
#   SPRINGKERNEL_SHIMS_FLAGS     extra clang flags for the shims (pair them with the Swift flags)

set(SPRINGKERNEL_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "")

find_program(SPRINGKERNEL_SWIFTC NAMES swiftc DOC "The Swift compiler (with Embedded Swift)")
if(NOT SPRINGKERNEL_SWIFTC)
    message(FATAL_ERROR "SpringKernel: swiftc not found. Put a Swift 6.2+ toolchain (swift.org) on PATH, or set SPRINGKERNEL_SWIFTC.")
endif()
get_filename_component(springkernel_swift_bin "${SPRINGKERNEL_SWIFTC}" REALPATH)
get_filename_component(springkernel_swift_bin "${springkernel_swift_bin}" DIRECTORY)
foreach(tool clang ld.lld llvm-objcopy)
    string(TOUPPER "${tool}" variable)
    string(REGEX REPLACE "[^A-Z]" "_" variable "SPRINGKERNEL_${variable}")
    find_program(${variable} NAMES ${tool} HINTS "${springkernel_swift_bin}" NO_DEFAULT_PATH)
    if(NOT ${variable})
        message(FATAL_ERROR "SpringKernel: ${tool} not found beside ${SPRINGKERNEL_SWIFTC} (the swift.org toolchains have it).")
    endif()
endforeach()

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(springkernel_default_swift_target x86_64-unknown-linux-gnu)
    set(springkernel_default_clang_target x86_64-linux-gnu)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
    set(springkernel_default_swift_target aarch64-none-none-elf)
    set(springkernel_default_clang_target aarch64-linux-gnu)
else()
    set(springkernel_default_swift_target "")
    set(springkernel_default_clang_target "")
endif()
set(SPRINGKERNEL_SWIFT_TARGET "${springkernel_default_swift_target}" CACHE STRING "Embedded Swift target triple")
set(SPRINGKERNEL_CLANG_TARGET "${springkernel_default_clang_target}" CACHE STRING "clang target for the shims")
set(SPRINGKERNEL_CLANG_SYSROOT "" CACHE PATH "clang sysroot for the shims (cross builds)")
set(SPRINGKERNEL_SWIFT_FLAGS "" CACHE STRING "Extra swiftc flags")
set(SPRINGKERNEL_SHIMS_FLAGS "" CACHE STRING "Extra clang flags for the shims")
# Bare metal (a toolchain file with CMAKE_SYSTEM_NAME Generic, cmake/cortex-m4f.cmake) names its
# targets itself; the C library is then static only, and the board brings what Linux's C library
# would (arc4random_buf: Platforms/CortexM/board_support.c).
if(CMAKE_SYSTEM_NAME STREQUAL "Generic" AND SPRINGKERNEL_SWIFT_TARGET AND SPRINGKERNEL_CLANG_TARGET)
    set(SPRINGKERNEL_BARE_METAL ON CACHE INTERNAL "")
elseif(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT SPRINGKERNEL_SWIFT_TARGET OR NOT SPRINGKERNEL_CLANG_TARGET)
    message(FATAL_ERROR "SpringKernel: the CMake build makes the C library for Linux on x86-64 or aarch64, "
        "or for bare metal with a toolchain file (cmake/cortex-m4f.cmake) "
        "(this is ${CMAKE_SYSTEM_NAME} on ${CMAKE_SYSTEM_PROCESSOR}); set SPRINGKERNEL_SWIFT_TARGET and "
        "SPRINGKERNEL_CLANG_TARGET to try another.")
else()
    set(SPRINGKERNEL_BARE_METAL OFF CACHE INTERNAL "")
endif()
set(springkernel_unicode_tables
    "${springkernel_swift_bin}/../lib/swift/embedded/${SPRINGKERNEL_SWIFT_TARGET}/libswiftUnicodeDataTables.a")
if(NOT EXISTS "${springkernel_unicode_tables}")
    message(FATAL_ERROR "SpringKernel: ${SPRINGKERNEL_SWIFTC} has no Embedded Swift standard library for "
        "${SPRINGKERNEL_SWIFT_TARGET} (${springkernel_unicode_tables} is missing).")
endif()

# springkernel_exports(HEADER <header> LIST <file> MAP <file>): the functions spring_kernel.h
# declares, one a line in LIST (llvm-objcopy --keep-global-symbols) and as a
# version script in MAP (the shared library's exports). Re-run when the header changes.
function(springkernel_exports)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "HEADER;LIST;MAP" "")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${arg_HEADER}")
    # Every declaration starts a line with SPRING_KERNEL_NODISCARD (.ci/c_header.py writes them so).
    file(READ "${arg_HEADER}" header)
    string(REGEX MATCHALL "\nSPRING_KERNEL_NODISCARD [^(\n]*\\(" declarations "${header}")
    set(names "")
    foreach(declaration IN LISTS declarations)
        string(REGEX REPLACE ".*[ *](sk_[a-z0-9_]+)\\($" "\\1" name "${declaration}")
        list(APPEND names "${name}")
    endforeach()
    list(REMOVE_DUPLICATES names)
    list(SORT names)
    list(LENGTH names count)
    if(count EQUAL 0)
        message(FATAL_ERROR "SpringKernel: no sk_ function found in ${arg_HEADER}")
    endif()
    list(JOIN names "\n" list_text)
    list(JOIN names ";\n        " map_text)
    # file(CONFIGURE) leaves a file whose content is unchanged untouched: no relink.
    file(CONFIGURE OUTPUT "${arg_LIST}" CONTENT "${list_text}\n" @ONLY)
    file(CONFIGURE OUTPUT "${arg_MAP}" CONTENT "/* libSpringKernelC.so exports the functions of spring_kernel.h and nothing else. */\n{\n    global:\n        ${map_text};\n    local: *;\n};\n" @ONLY)
endfunction()

# springkernel_embedded_object(OUTPUT <object> WORK_DIRECTORY <dir> EXPORTS <list>): the custom commands that
# compile the kernel (module SpringKernel) and the C interface (module SpringKernelC) with swiftc,
# the shims (and cmake/embedded_support.c) with clang, and link them (ld.lld -r) with the Unicode
# tables into <object>, whose only global symbols are the header's functions, named in <list>
# (llvm-objcopy), so the library carries no Swift runtime or shims symbol that could clash with
# another library's. Functions and data are in sections of their
# own, so a linker's --gc-sections drops what a program does not call.
function(springkernel_embedded_object)
    cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUTPUT;WORK_DIRECTORY;EXPORTS" "")
    set(source "${SPRINGKERNEL_SOURCE_DIR}/Sources")
    set(work "${arg_WORK_DIRECTORY}")
    file(MAKE_DIRECTORY "${work}")
    file(GLOB_RECURSE kernel_sources CONFIGURE_DEPENDS "${source}/SpringKernel/*.swift")
    file(GLOB c_sources CONFIGURE_DEPENDS "${source}/SpringKernelC/*.swift")
    file(GLOB shims_headers CONFIGURE_DEPENDS "${source}/_SpringKernelShims/include/*")
    set(shims_include "${source}/_SpringKernelShims/include")
    separate_arguments(extra_swift UNIX_COMMAND "${SPRINGKERNEL_SWIFT_FLAGS}")
    separate_arguments(extra_shims UNIX_COMMAND "${SPRINGKERNEL_SHIMS_FLAGS}")
    set(swift_flags
        -target "${SPRINGKERNEL_SWIFT_TARGET}" -enable-experimental-feature Embedded
        -enable-experimental-feature Extern -wmo -O -parse-as-library -Xfrontend -function-sections
        -package-name SpringKernel -I "${shims_include}" ${extra_swift})
    # x86-64: every innermost loop starts on a 64-byte boundary. Where LLVM's default (16 bytes)
    # puts a loop depends on all the code above it in its function, and the step's loop at 32
    # bytes past a line ran a 1M-spring frame 8 % slower than the same instructions at 0 or 48 on
    # an AMD EPYC (Zen 3): frame_parity.c read this library at 1.07-1.09x SwiftPM's, and at
    # 1.00-1.02x with the loop aligned. (The loops grow by at most 63 bytes of padding each.)
    if(SPRINGKERNEL_SWIFT_TARGET MATCHES "^x86_64")
        list(APPEND swift_flags -Xllvm -x86-experimental-pref-innermost-loop-alignment=6)
    endif()
    set(clang_flags --target=${SPRINGKERNEL_CLANG_TARGET} -O2 -ffunction-sections -fdata-sections)
    if(NOT SPRINGKERNEL_BARE_METAL)
        list(APPEND clang_flags -fPIC)
    endif()
    if(SPRINGKERNEL_CLANG_SYSROOT)
        list(APPEND clang_flags "--sysroot=${SPRINGKERNEL_CLANG_SYSROOT}")
    endif()

    add_custom_command(
        OUTPUT "${work}/SpringKernel.o" "${work}/SpringKernel.swiftmodule"
        COMMAND "${SPRINGKERNEL_SWIFTC}" ${swift_flags} -module-name SpringKernel
            -emit-module -emit-module-path "${work}/SpringKernel.swiftmodule"
            -c ${kernel_sources} -o "${work}/SpringKernel.o"
        DEPENDS ${kernel_sources} ${shims_headers}
        COMMENT "SpringKernel: the kernel as Embedded Swift (${SPRINGKERNEL_SWIFT_TARGET})"
        VERBATIM)
    add_custom_command(
        OUTPUT "${work}/SpringKernelC.swift.o"
        COMMAND "${SPRINGKERNEL_SWIFTC}" ${swift_flags} -module-name SpringKernelC -I "${work}"
            -c ${c_sources} -o "${work}/SpringKernelC.swift.o"
        DEPENDS ${c_sources} "${work}/SpringKernel.swiftmodule" "${work}/SpringKernel.o"
        COMMENT "SpringKernel: the C interface as Embedded Swift (${SPRINGKERNEL_SWIFT_TARGET})"
        VERBATIM)
    add_custom_command(
        OUTPUT "${work}/shims.o"
        COMMAND "${SPRINGKERNEL_CLANG}" ${clang_flags} ${extra_shims} -I "${shims_include}"
            -c "${source}/_SpringKernelShims/shims.c" -o "${work}/shims.o"
        DEPENDS "${source}/_SpringKernelShims/shims.c" ${shims_headers}
        COMMENT "SpringKernel: the shims (C, ${SPRINGKERNEL_CLANG_TARGET})"
        VERBATIM)
    set(support "${SPRINGKERNEL_SOURCE_DIR}/cmake/embedded_support.c")
    set(support_object "${work}/embedded_support.o")
    if(SPRINGKERNEL_BARE_METAL)
        set(support_object "")
    else()
    add_custom_command(
        OUTPUT "${work}/embedded_support.o"
        COMMAND "${SPRINGKERNEL_CLANG}" ${clang_flags} ${extra_shims} -c "${support}" -o "${work}/embedded_support.o"
        DEPENDS "${support}"
        COMMENT "SpringKernel: arc4random_buf for glibc before 2.36 (C, ${SPRINGKERNEL_CLANG_TARGET})"
        VERBATIM)
    endif()
    add_custom_command(
        OUTPUT "${arg_OUTPUT}"
        COMMAND "${SPRINGKERNEL_LD_LLD}" -r -o "${work}/SpringKernelC.linked.o"
            "${work}/SpringKernel.o" "${work}/SpringKernelC.swift.o" "${work}/shims.o" ${support_object}
            "${springkernel_unicode_tables}"
        COMMAND "${SPRINGKERNEL_LLVM_OBJCOPY}" "--keep-global-symbols=${arg_EXPORTS}"
            "${work}/SpringKernelC.linked.o" "${arg_OUTPUT}"
        DEPENDS "${work}/SpringKernel.o" "${work}/SpringKernelC.swift.o" "${work}/shims.o" ${support_object}
            "${arg_EXPORTS}"
        COMMENT "SpringKernel: one object, the header's functions its only global symbols"
        VERBATIM)
endfunction()
