// *Engine integration*'s bank, as its first example makes it: a door's opacity spring.
import SpringKernel

let bank = SpringBank<Float32Lanes>(threading: .automatic)
let door = try bank.add(value: 0, target: 1, configuration: try SpringConfiguration(duration: 0.4, bounce: 0),
                        tolerance: 1.0 / 256, userValue: 42)
// DOC BLOCK
let paused = try bank.isPaused(door)
precondition(!paused, "the door is still paused")
