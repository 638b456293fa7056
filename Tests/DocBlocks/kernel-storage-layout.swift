// StorageLayout's example: a bank of four springs far from their targets (all still moving after
// one step), with user values 10...13, and buffers of the layout's length.
import SpringKernel

let bank = SpringBank<Float32Lanes>()
let springs = try (0..<4).map { i in try bank.add(value: 0, target: 1000, tolerance: 0.5, userValue: UInt64(10 + i)) }
let dt = 1.0 / 60
var ids = [UInt64](repeating: 0, count: springs.count)
var values = [Float](repeating: 0, count: springs.count)
// DOC BLOCK
let expected = try ids.map { id in try bank.value(of: springs[Int(id) - 10]) }
precondition(moved.count == 4 && values == expected && values.allSatisfy { $0 > 0 }, "values \(values), ids \(ids)")
