// *Engine integration*'s frame over the storage layout, inside an engine's frame loop: sixteen
// entities, each with a spring whose user value is the entity's index; one goal moves at frame 10.
import SpringKernel

struct Entity { var x: Float, goal: Float }
var entities = (0..<16).map { Entity(x: 0, goal: Float(10 * $0)) }
let bank = SpringBank<Float32Lanes>()
for (index, entity) in entities.enumerated() {
    try bank.add(value: entity.x, target: entity.goal, tolerance: 0.5, userValue: UInt64(index))
}
var ids = [UInt64](repeating: 0, count: bank.count)
var xs = [Float](repeating: 0, count: bank.count)
let frameDuration = 1.0 / 60
for frame in 0..<120 {
    if frame == 10 { entities[7].goal = 500 }
// DOC BLOCK
}
precondition(entities.allSatisfy { $0.x == $0.goal }, "entities off their goals: \(entities)")
print("16 entities on their goals after 120 frames")
