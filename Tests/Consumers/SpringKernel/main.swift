// A Swift user's first program with the kernel: it imports SpringKernel and nothing else (no
// Foundation, no Glibc), so it links with only what the product itself brings. .ci/consumers builds
// it in a fresh package outside the checkout that depends on the checkout by path, debug and
// release, runs both, and compares their lines (the same bits in debug and release is a promise).
import SpringKernel

let frame = 1.0 / 60

// float32: a position and an opacity, stepped to rest; each rests on the frame predicted when it
// was added, and lands exactly on its target.
let bank = SpringBank<Float32Lanes>()
let x = try bank.add(value: 0, target: 100, tolerance: 0.5)
let fade = try bank.add(value: 1, target: 0, configuration: try SpringConfiguration(tension: 1323, friction: 91),
                        tolerance: 1.0 / 256)
let predicted = [try bank.predictRest(of: x, dt: frame), try bank.predictRest(of: fade, dt: frame)]
var restFrames = [-1, -1]
while bank.awakeCount > 0 && bank.frame < 600 {
    try bank.step(dt: frame)
    for spring in bank.restedInLastStep { restFrames[spring == x ? 0 : 1] = bank.frame }
}
for (name, index) in [("position", 0), ("opacity", 1)] {
    precondition(predicted[index].isFinal && restFrames[index] == predicted[index].frames,
                 "\(name): rested at frame \(restFrames[index]), predicted \(predicted[index])")
}
let landed = (try bank.value(of: x), try bank.value(of: fade))
precondition(landed == (100, 0), "not exactly on target: \(landed)")
print("float32: position rests at frame \(restFrames[0]), opacity at frame \(restFrames[1]) (as predicted); position \(try bank.value(of: x))")

// A SwiftUI-style configuration, a pause mask and a hand-off with velocity, under a jittered clock.
let door = try bank.add(value: 0, target: 1, configuration: try SpringConfiguration(duration: 0.4, bounce: 0.2),
                        tolerance: 1.0 / 256, userValue: 42)
let drag = try bank.makePauseMask([door])
try bank.pause(drag)
try bank.step(dt: frame)
try bank.resume(drag) { _ in (value: 0.8, velocity: -1.5) }
var seed: UInt64 = 1
var steps = 0
while bank.awakeCount > 0 && steps < 600 {
    seed = seed &* 6364136223846793005 &+ 1442695040888963407
    try bank.step(dt: frame * (0.85 + 0.3 * Double(seed >> 11) / Double(1 << 53)))
    steps += 1
}
print("float32: the door (user value \(try bank.userValue(of: door))) rests after \(steps) jittered frames at \(try bank.value(of: door)); rest time now \(try bank.restTime(of: door))")

// Q16.16: bit-exact fixed point, many springs added in bulk; the state hash is the same in debug and release.
let fixed = FixedSpringBank()
let springs = try (0..<64).map { i in
    try fixed.add(value: Q16(Double(i))!, target: Q16(Double(100 - i))!, tolerance: Q16(0.5)!)
}
while fixed.awakeCount > 0 && fixed.frame < 600 { try fixed.step(dt: frame) }
let offTarget = try springs.filter { try fixed.value(of: $0) != fixed.target(of: $0) }
precondition(offTarget.isEmpty, "fixed-point springs off target: \(offTarget)")
print("q16.16: 64 springs at rest after \(fixed.frame) frames, state hash \(String(fixed.stateHash(), radix: 16))")
