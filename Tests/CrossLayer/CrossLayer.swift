// The interaction layer's program for `.ci/cross check`: built as Embedded Swift with the kernel
// and the layer for every target (aarch64, riscv64 and wasm32 under emulation, x86-64 baseline,
// AVX2 and AVX-512), its lines must be equal on all of them. Four of the seeds' interactions,
// driven by scripted input through the public API only, at 60 Hz:
// - a Tossable dragged by a scripted pan gesture and released toward its destination;
// - an AttachWithSpring whose target moves every frame for a second, then stops;
// - the PausesSpring specification's drag to open (a drag past the boundary, released);
// - a springSource spring of a Float.
// Each prints the frame it came to rest on, where it rests, and a hash (FNV-1a) of the bits of
// every value delivered on the way: integers and hashes only, never a Double's description.
import MotionInteractions
import SpringKernel

@main
struct CrossLayer {
    static func main() {
        tossable()
        attachWithSpring()
        dragToOpen()
        springSourceOfFloat()
    }

    /// A card dragged 120 pt right and 40 down over 10 frames, released, tossed toward (300, 0).
    static func tossable() {
        let runtime = MotionRuntime(threading: .single)
        let container = MotionElement()
        let card = MotionElement(position: CGPoint(x: 0, y: 0))
        let slot = MotionElement(position: CGPoint(x: 300, y: 0))
        let tossable = Tossable(position: card.position, to: slot.position, containerView: container, springSource: springSource)
        var hash = Hash()
        let observation = card.position.observe { hash.add($0) }
        do throws(MotionRuntimeError) {
            try runtime.add(tossable)
            let drag = tossable.panGestureRecognizer
            var time = 0.0
            drag.handle(.began(timestamp: time))
            for frame in 1...10 {
                time += 1.0 / 60
                drag.handle(.changed(translation: CGPoint(x: CGFloat(12 * frame), y: CGFloat(4 * frame)), timestamp: time))
                try runtime.advance(by: 1.0 / 60)
            }
            drag.handle(.ended(translation: CGPoint(x: 120, y: 40), timestamp: time))
            let frames = try settle(runtime)
            print("tossable: at rest after \(frames) frames at \(bits(card.position.value)), state \(tossable.state.value == .atRest ? "at rest" : "active"), values \(hash.text)")
        } catch {
            print("tossable: \(name(of: error))")
        }
        observation.cancel()
    }

    /// An element attached to a target that moves along a square path every frame for 60 frames.
    static func attachWithSpring() {
        let runtime = MotionRuntime(threading: .single)
        let element = MotionElement(position: CGPoint(x: 0, y: 0))
        let target = MotionElement(position: CGPoint(x: 50, y: 50))
        let attach = AttachWithSpring(position: element.position, to: target.position, springSource: springSource)
        var hash = Hash()
        let observation = element.position.observe { hash.add($0) }
        do throws(MotionRuntimeError) {
            try runtime.add(attach)
            for frame in 0..<60 {
                let step = CGFloat(frame % 15) * 8
                let side = frame / 15
                target.position.value = side == 0 ? CGPoint(x: 50 + step, y: 50) : side == 1 ? CGPoint(x: 170, y: 50 + step)
                    : side == 2 ? CGPoint(x: 170 - step, y: 170) : CGPoint(x: 50, y: 170 - step)
                try runtime.advance(by: 1.0 / 60)
            }
            let moving = runtime.activeSpringStreamCount
            let frames = try settle(runtime)
            print("attach with spring: \(moving) stream moving when the target stopped, at rest after \(frames) more frames at \(bits(element.position.value)) (target \(bits(target.position.value))), values \(hash.text)")
        } catch {
            print("attach with spring: \(name(of: error))")
        }
        observation.cancel()
    }

    /// The PausesSpring specification's drag to open: dragged 150 pt down (past the 100 pt
    /// boundary), released; the sheet springs open to (0, 200).
    static func dragToOpen() {
        let runtime = MotionRuntime(threading: .single)
        let sheet = MotionElement(position: CGPoint(x: 0, y: 0))
        let drag = GestureRecognizer()
        sheet.addGestureRecognizer(drag)
        let open = CGPoint(x: 0, y: 200), closed = CGPoint(x: 0, y: 0)
        var willOpen = false
        var retargets = 0
        runtime.addPlan(Draggable(withGestureRecognizer: drag), to: sheet)
        runtime.addPlan(SpringTo(.position, destination: closed), to: sheet)
        runtime.addPlan(PausesSpring(.position, whileActive: drag), to: sheet)
        let crossing = gestureSource(drag).translated(from: sheet.position, in: nil).subscribe(in: runtime, next: { location in
            let crossed = location.y > 100
            guard crossed != willOpen else { return }
            willOpen = crossed
            retargets += 1
            runtime.addPlan(SpringTo(.position, destination: crossed ? open : closed), to: sheet)
        })
        var hash = Hash()
        let observation = sheet.position.observe { hash.add($0) }
        do throws(MotionRuntimeError) {
            var time = 0.0
            drag.handle(.began(timestamp: time))
            for frame in 1...10 {
                time += 1.0 / 60
                drag.handle(.changed(translation: CGPoint(x: 0, y: CGFloat(15 * frame)), timestamp: time))
                try runtime.advance(by: 1.0 / 60)
            }
            drag.handle(.ended(translation: CGPoint(x: 0, y: 150), timestamp: time))
            let frames = try settle(runtime)
            print("drag to open: \(retargets) destination change, at rest after \(frames) frames at \(bits(sheet.position.value)), values \(hash.text)")
        } catch {
            print("drag to open: \(name(of: error))")
        }
        crossing.cancel()
        observation.cancel()
    }

    /// A Float spring from 0 to 100 (tension 170, friction 26), subscribed through springSource.
    static func springSourceOfFloat() {
        let runtime = MotionRuntime(threading: .single)
        let value = ReactiveProperty<Float>(0)
        let spring = Spring(to: ReactiveProperty<Float>(100), initialValue: value, threshold: 0.01)
        var hash = Hash()
        var states = 0
        var restFrame = -1
        var frame = 0
        do throws(SpringKernelError) {
            spring.configuration.value = try SpringConfiguration(tension: 170, friction: 26, mass: 1)
        } catch {
            print("spring source: the configuration was refused")
        }
        let subscription = springSource(spring).subscribe(in: runtime, next: { next in
            value.value = next
            hash.add(next)
        }, state: { state in
            states += 1
            if state == .atRest { restFrame = frame }
        })
        do throws(MotionRuntimeError) {
            while restFrame < 0, frame < 10_000 {
                frame += 1
                try runtime.advance(by: 1.0 / 60)
            }
            print("spring source: at rest on frame \(restFrame) at \(hex(UInt64(value.value.bitPattern))), \(states) states, values \(hash.text)")
        } catch {
            print("spring source: \(name(of: error))")
        }
        subscription.cancel()
    }

    /// Frames advanced (at 60 Hz) until every spring of the runtime rests.
    static func settle(_ runtime: MotionRuntime) throws(MotionRuntimeError) -> Int {
        var frames = 0
        while !runtime.isAllAtRest, frames < 10_000 {
            try runtime.advance(by: 1.0 / 60)
            frames += 1
        }
        return frames
    }

    /// The error's case (Embedded Swift has no reflection to print it).
    static func name(of error: MotionRuntimeError) -> String {
        switch error {
        case .invalidFrameDuration: "invalidFrameDuration"
        case .invalidTimestamp: "invalidTimestamp"
        case .reentrantAdvance: "reentrantAdvance"
        case .interactionBelongsToAnotherRuntime: "interactionBelongsToAnotherRuntime"
        case .invalidCapacity: "invalidCapacity"
        }
    }

    /// A point's coordinates as their float32 bits (the kernel's values are float32).
    static func bits(_ point: CGPoint) -> String {
        "(\(hex(UInt64(Float(point.x).bitPattern), digits: 8)), \(hex(UInt64(Float(point.y).bitPattern), digits: 8)))"
    }

    static func hex(_ value: UInt64, digits: Int = 16) -> String {
        let symbols = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for shift in stride(from: 4 * (digits - 1), through: 0, by: -4) { text.append(symbols[Int((value >> UInt64(shift)) & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }
}

/// FNV-1a over the float32 bits of every value delivered, and how many.
struct Hash {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325
    var count = 0

    mutating func add(_ value: Float) {
        var bits = value.bitPattern
        for _ in 0..<4 {
            state = (state ^ UInt64(bits & 0xff)) &* 0x100_0000_01b3
            bits >>= 8
        }
        count += 1
    }

    mutating func add(_ point: CGPoint) {
        add(Float(point.x))
        add(Float(point.y))
    }

    var text: String { "\(count) hashed \(CrossLayer.hex(state))" }
}
