// A doc comment's example that uses a bank.
import SpringKernel

let bank = SpringBank<Float32Lanes>()
// DOC BLOCK
