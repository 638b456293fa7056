import Testing
import SpringKernel

/// The README's kernel example, as written there.
@Test("the README example runs as written")
func readmeExample() throws {
    let bank = SpringBank<Float32Lanes>()
    let x = try bank.add(value: 0, target: 100, tolerance: 0.5)
    let fade = try bank.add(value: 1, target: 0, configuration: try SpringConfiguration(tension: 1323, friction: 91),
                            tolerance: 1.0 / 256)
    var rested: [SpringHandle] = []
    var generator = SplitMix64(seed: 1)
    while bank.awakeCount > 0 {
        let measuredFrameTime = 1.0 / 60 * (1 + Double.random(in: -0.15...0.15, using: &generator))
        try bank.step(dt: measuredFrameTime)
        for spring in bank.restedInLastStep { rested.append(spring) }
    }
    #expect(try bank.value(of: x) == 100)
    #expect(Set(rested) == [x, fade])

    let drag = try bank.makePauseMask([x])
    try bank.pause(drag)
    try bank.retarget(x, to: 200)
    try bank.resume(drag) { _ in (value: 140, velocity: 900) }
    #expect(try bank.value(of: x) == 140 && bank.velocity(of: x) == 900)
    let followers = [x, fade], newTargets: [Float] = [150, 0.5]
    try bank.retarget(followers, to: newTargets)
    #expect(try bank.target(of: fade) == 0.5 && bank.restTime(of: x) > 0)

    let physics = SpringBank<Float32Lanes>()
    try physics.setFrameClock(.fixed(frameDuration: 1.0 / 60))
    try physics.step(dt: 1.0 / 60)
    #expect(throws: SpringKernelError.self) { try physics.step(dt: 1.0 / 59) }
}
