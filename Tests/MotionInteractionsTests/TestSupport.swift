@_spi(KernelInternals) import SpringKernel
import Foundation
import MotionInteractions

/// One 60 Hz frame.
let frame60: Double = 1.0 / 60

/// Everything a stream sent, in order.
final class StreamRecorder<T> {
    var values: [T] = []
    var states: [MotionState] = []
    /// The kernel frame on which each state arrived.
    var stateFrames: [Int] = []

    /// Subscribes to `stream` in `runtime`, recording values, states and the kernel frame of each state.
    @discardableResult
    func record(_ stream: MotionObservable<T>, in runtime: MotionRuntime) -> Subscription {
        stream.subscribe(in: runtime, next: { [unowned self] in self.values.append($0) }, state: { [unowned self, unowned runtime] in
            self.states.append($0)
            self.stateFrames.append(runtime.kernel.frame)
        })
    }
}

extension MotionRuntime {
    /// Advances `count` frames of 1/60 s.
    func advanceFrames(_ count: Int) throws {
        for _ in 0..<count { try advance(by: frame60) }
    }

    /// Advances 1/60 s frames until no spring moves; returns how many, or nil past `limit`.
    @discardableResult
    func advanceUntilAllAtRest(limit: Int = 600) throws -> Int? {
        var frames = 0
        while !isAllAtRest {
            guard frames < limit else { return nil }
            try advance(by: frame60)
            frames += 1
        }
        return frames
    }
}

/// A drag scripted as timestamped events at 60 Hz from `start` seconds.
struct ScriptedDrag {
    var time: Double
    let recognizer: GestureRecognizer

    init(_ recognizer: GestureRecognizer, startingAt time: Double = 0) {
        self.recognizer = recognizer
        self.time = time
    }

    mutating func begin() {
        recognizer.handle(.began(timestamp: time))
    }

    mutating func move(to translation: CGPoint, after seconds: Double = frame60) {
        time += seconds
        recognizer.handle(.changed(translation: translation, timestamp: time))
    }

    mutating func end(at translation: CGPoint, after seconds: Double = frame60) {
        time += seconds
        recognizer.handle(.ended(translation: translation, timestamp: time))
    }
}

extension SpringBankReader {
    /// The frame on which a moving spring rests if every frame from now lasts `dt` and nothing
    /// changes it: the first frame whose end reaches its rest time (at least the next one). Nil at rest.
    func restFrame(of spring: SpringHandle, dt: Double = frame60) throws -> Int? {
        guard try !isAtRest(spring) else { return nil }
        let due = time + (try restTime(of: spring))
        var clock = time, frames = 0
        repeat {
            clock += dt
            frames += 1
        } while clock < due
        return frame + frames
    }
}
