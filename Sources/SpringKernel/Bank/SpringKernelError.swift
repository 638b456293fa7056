/// Why the kernel refused a call.
///
/// Every public operation of a ``SpringBank`` either succeeds completely or throws one of these
/// and leaves the bank exactly as it was: no spring is changed, lost or half-updated.
public enum SpringKernelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A value, target, velocity or tolerance was NaN or infinite.
    case nonFinite(SpringQuantity)
    /// A finite value lies outside what the lane format stores (see ``SpringLaneArithmetic``).
    case outOfRange(SpringQuantity)
    /// A spring configuration parameter was non-finite or outside its documented range.
    case invalidConfiguration(SpringConfiguration.Parameter)
    /// A step's duration was NaN, infinite, zero or negative.
    case invalidTimeStep(Double)
    /// A step's duration differs from the fixed timestep the bank's ``FrameClock`` declares.
    case timeStepMismatch(declared: Double, given: Double)
    /// Two buffers of a bulk call differ in length (handles and their values).
    case countMismatch(expected: Int, given: Int)
    /// A tolerance was zero or negative: a spring with no tolerance never comes to rest.
    case nonPositiveTolerance
    /// The handle names a spring that has been removed from this bank.
    case staleHandle(SpringHandle)
    /// The handle or pause mask was made by another bank.
    case foreignHandle
    /// The pause mask has been removed from this bank.
    case stalePauseMask(PauseMaskID)
    /// Pausing would hold a spring under more than ``SpringBank/maximumPauseDepth`` masks at once.
    case pauseDepthExceeded(SpringHandle)
    /// The bank already holds ``SpringBank/maximumConfigurationCount`` configuration batches (a
    /// configuration at one lane scale: see there).
    case tooManyConfigurations
    /// The bank already holds ``SpringBank/maximumSpringCount`` springs.
    case tooManySprings
    /// A closure the bank was running (a resume's restart values) tried to change the bank.
    case reentrantMutation
    /// A capacity to reserve was negative or above ``SpringBank/maximumSpringCount``.
    case invalidCapacity(Int)
    /// The spring is not in the pause mask it was to be taken out of.
    case notInMask(SpringHandle, PauseMaskID)
    /// A ``StorageLayout`` the bank no longer has (a spring changed slot or region since it was
    /// taken) or another bank's.
    case staleLayout
    /// The system could not give the memory a capacity asked for (``SpringBank/init(threading:capacity:)``),
    /// or the growth an add or a change of configuration needs: of the record table and the rest
    /// schedule, or of a batch's lanes (or its size in bytes does not fit in an `Int`: past 2^24
    /// springs on a 32-bit target). Nothing is added or moved then.
    case outOfMemory

    public var description: String {
        switch self {
        case .nonFinite(let quantity): "\(quantity) is not finite"
        case .outOfRange(let quantity): "\(quantity) is outside the range the lane format stores"
        case .invalidConfiguration(let parameter): "\(parameter) is outside its valid range"
        case .invalidTimeStep(let dt): "time step \(dt) is not a finite positive duration"
        case .timeStepMismatch(let declared, let given): "time step \(given) differs from the declared fixed timestep \(declared)"
        case .countMismatch(let expected, let given): "a bulk call got \(given) values for \(expected) springs"
        case .nonPositiveTolerance: "tolerance must be positive"
        case .staleHandle(let handle): "\(handle) names a spring that was removed"
        case .foreignHandle: "handle or mask belongs to another bank"
        case .stalePauseMask(let mask): "\(mask) was removed"
        case .pauseDepthExceeded(let handle): "\(handle) is already held by the maximum number of pause masks"
        case .tooManyConfigurations: "too many distinct spring configurations in one bank"
        case .tooManySprings: "too many springs in one bank"
        case .reentrantMutation: "the bank cannot be changed from inside one of its own callbacks"
        case .invalidCapacity(let capacity): "capacity \(capacity) is outside 0...\(BankLimits.maximumSpringCount)"
        case .notInMask(let handle, let mask): "\(handle) is not in \(mask)"
        case .staleLayout: "the storage layout is out of date: springs moved since it was taken"
        case .outOfMemory: "the system could not give the memory the bank asks for"
        }
    }
}

/// The input a ``SpringKernelError`` is about.
public enum SpringQuantity: String, Hashable, Sendable {
    /// The spring's current value (position).
    case value
    /// The value the spring pulls toward.
    case target
    /// The spring's velocity, in value units per second.
    case velocity
    /// The settle tolerance, in value units.
    case tolerance
    /// The distance from the value to the target (value − target), which the bank stores.
    case displacement
}
