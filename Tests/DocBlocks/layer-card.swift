// A doc comment's example in MotionInteractions that makes its own elements: a runtime only.
import Foundation
import MotionInteractions

let runtime = MotionRuntime()
// DOC BLOCK
