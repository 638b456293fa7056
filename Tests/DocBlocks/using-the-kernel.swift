// *Using the kernel*'s tour: the frame's measured duration, and the springs and values its bulk
// calls take (followers: two of the block's own springs).
let measuredFrameTime = 1.0 / 60
var followers: [SpringHandle] { [x, fade] }
let newTargets: [Float] = [150, 0.5]
let starts: [Float] = [0, 10, 20], ends: [Float] = [100, 110, 120], kicks: [Float] = [0, -50, 50]
// DOC BLOCK
precondition(bank.count == 2 && physics.frame == 1, "the tour's banks are not as it left them")
