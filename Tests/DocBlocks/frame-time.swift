// The README's Swift example: a frame loop with the frame's measured duration (here 1/60 s).
let measuredFrameTime = 1.0 / 60
// DOC BLOCK
