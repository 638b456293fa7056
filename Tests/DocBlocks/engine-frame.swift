// *Engine integration*'s frame: eight springs following a dragged target, four of them visible.
import SpringKernel

let bank = SpringBank<Float32Lanes>()
let followers = try (0..<8).map { i in try bank.add(value: Float(i), target: 0, tolerance: 0.5, userValue: UInt64(100 + i)) }
let targets = [Float](repeating: 50, count: followers.count)
let visible = Array(followers.prefix(4))
var positions = [Float](repeating: 0, count: visible.count)
let frameDuration = 1.0 / 60
// DOC BLOCK
let values = try visible.map { try bank.value(of: $0) }
precondition(positions == values && positions.allSatisfy { $0 > 0 }, "the rendered positions are not the springs' values: \(positions)")
