import MotionInteractions
import Testing

@Test("the state channel distinguishes active from at rest")
func stateChannel() {
    #expect(MotionState.active != MotionState.atRest)
}
