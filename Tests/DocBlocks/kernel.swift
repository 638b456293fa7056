// A doc comment's example in SpringKernel: the module imported, nothing else.
import SpringKernel
// DOC BLOCK
