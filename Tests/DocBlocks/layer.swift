// A doc comment's example in MotionInteractions: the module (and Foundation, for CGPoint) imported.
import Foundation
import MotionInteractions
// DOC BLOCK
