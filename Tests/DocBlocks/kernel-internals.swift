// A doc comment's example of the kernel's SPI (the benchmark's and the tests' own types).
@_spi(KernelInternals) import SpringKernel
// DOC BLOCK
