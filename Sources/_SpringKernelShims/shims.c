// Header-only: see include/spring_kernel_shims.h. SwiftPM builds a C target from at least one source.
