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
    while bank.awakeCount > 0 {
        try bank.step(dt: 1.0 / 60)
        for spring in bank.restedInLastStep { rested.append(spring) }
    }
    #expect(try bank.value(of: x) == 100)
    #expect(Set(rested) == [x, fade])

    let drag = try bank.makePauseMask([x])
    try bank.pause(drag)
    try bank.retarget(x, to: 200)
    try bank.resume(drag) { _ in (value: 140, velocity: 900) }
    #expect(try bank.value(of: x) == 140 && bank.velocity(of: x) == 900)
}
