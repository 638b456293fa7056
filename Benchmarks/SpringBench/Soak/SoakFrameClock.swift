@_spi(KernelInternals) import SpringKernel

/// The frame durations of a soak run: what a display link delivers to an engine over a long
/// session. Steady stretches at 60, 120 or 144 Hz (a display changing mode), with a jittered frame
/// now and then (±10 %) and an occasional hitch of 0.25 to 2 s (the app in the background, a
/// blocking load).
///
/// Every change of duration makes the kernel predict every moving spring again, and a hitch is one
/// exact step of up to two seconds: both are paths a steady benchmark never takes.
struct SoakFrameClock {
    /// The refresh rates a stretch runs at.
    static let rates: [Double] = [60, 120, 144]
    /// The largest relative change of a jittered frame.
    static let jitter = 0.1
    /// The shortest frame the clock ever gives: 144 Hz shortened by the whole jitter. The drift
    /// bound counts steps at this spacing (see ``SoakDriftBound``).
    static let shortestFrame = (1 - jitter) / 144
    /// The longest hitch.
    static let longestHitch = 2.0

    private var random: SplitMix64
    /// The average length of a steady stretch, in frames.
    private let stretchFrames: Int
    /// Frames left in the current steady stretch, and its frame duration.
    private var stretchLeft = 0
    private var steady = 1.0 / 60
    /// How often a frame is jittered, and how often it is a hitch.
    private let jitterChance: Double
    private let hitchChance: Double

    /// Frames given so far: jittered, hitches, and changes of duration from the previous frame.
    private(set) var jitteredFrames = 0
    private(set) var hitches = 0
    private(set) var durationChanges = 0
    private var previous: Double?

    /// A clock whose stretches last `stretchFrames` frames on average; a hitch comes about once in
    /// `framesPerHitch` frames and a jittered frame once in 50.
    init(seed: UInt64, stretchFrames: Int, framesPerHitch: Int) {
        random = SplitMix64(seed: seed)
        self.stretchFrames = max(2, stretchFrames)
        jitterChance = 1.0 / 50
        hitchChance = 1.0 / Double(max(1, framesPerHitch))
    }

    /// The next frame's duration, in seconds.
    mutating func next() -> Double {
        if stretchLeft == 0 {
            steady = 1 / Self.rates[random.integer(in: 0...(Self.rates.count - 1))]
            stretchLeft = random.integer(in: (stretchFrames / 2)...(stretchFrames * 3 / 2))
        }
        stretchLeft -= 1
        var dt = steady
        let roll = random.unit()
        if roll < hitchChance {
            dt = 0.25 + random.unit() * (Self.longestHitch - 0.25)
            hitches += 1
        } else if roll < hitchChance + jitterChance {
            dt = max(Self.shortestFrame, steady * (1 + Self.jitter * (2 * random.unit() - 1)))
            jitteredFrames += 1
        }
        if let previous, previous != dt { durationChanges += 1 }
        previous = dt
        return dt
    }
}
