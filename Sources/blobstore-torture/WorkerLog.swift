/// What one worker's log says about a round: the key states every acknowledged operation leads
/// to, the change in flight when the worker died (if any), the worker's evictions and the
/// absences they must explain, counts, and the worker's own findings.
///
/// Each line is `<time> <event>`: nanoseconds on the monotonic clock, then a `WorkerEvent`.
struct WorkerLog {
    /// A read or remove that found nothing where the worker's key held an acknowledged version:
    /// only an eviction that ran between the version's put and that moment explains it.
    struct Absence {
        var key: Int
        var expected: KeyState
        /// When the put of `expected` began (0: in an earlier round).
        var putBegan: UInt64
        /// When the read or remove that found nothing returned (`UInt64.max`: the check after
        /// the round).
        var seen: UInt64
    }

    /// When an evicting collection began and returned (or, when it never did, when its worker
    /// was reaped). A collection that returned having evicted nothing is none.
    struct Eviction {
        var began: UInt64
        var ended: UInt64

        /// Whether this collection may have evicted a version whose put began at `putBegan`
        /// before a read returned at `seen`: the eviction decision falls after the put's record
        /// and before that read's lookup.
        func explains(putBegan: UInt64, seen: UInt64) -> Bool { began < seen && ended > putBegan }
    }

    /// The state of each key after the last acknowledged change (or the last read that found it
    /// absent).
    var states: [KeyState]
    /// When the put behind each key's state began (0: in an earlier round), or when a later read
    /// that found it began: an eviction that ended before then did not remove it.
    var putBegan: [UInt64]
    /// The change that was logged as begun but not acknowledged: the worker was killed during it
    /// (or it threw), so it may or may not have taken effect.
    var inFlight: (key: Int, state: KeyState)?
    var absences: [Absence] = []
    var evictions: [Eviction] = []
    /// Evicting collections that returned having evicted something.
    var evictionsReturned = 0
    var acknowledged = 0
    var reads = 0
    var compactions = 0
    var collections = 0
    var finished = false
    /// Where the log ends: `open` (opening the store: no line yet), an operation's name (`put`,
    /// `rm`, `get`, `compact`, `gc`, `evict`), `close`, `between` (between operations) or `exit`
    /// (after `done`).
    var stage = "open"
    var findings: [Finding] = []
    /// Lines that are not `WorkerEvent`s (a worker's line cut short can only be the last one).
    var garbled: [String] = []

    /// Replays `text` (the worker's standard output) over `states`, the states the round began
    /// with; `ended` is when the worker was reaped.
    init(_ text: String, states: [KeyState], ended: UInt64) {
        self.states = states
        putBegan = [UInt64](repeating: 0, count: states.count)
        var putInFlightBegan: UInt64 = 0
        var readBegan: UInt64 = 0
        var evictionBegan: UInt64?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let time = UInt64(parts[0]), let event = WorkerEvent(line: parts[1]) else {
                garbled.append(String(line))
                continue
            }
            switch event {
            case .opened: stage = "between"
            case .will(let operation):
                stage = operation.name
                switch operation {
                case .put(let key, let version):
                    inFlight = (key, .version(version))
                    putInFlightBegan = time
                case .remove(let key): inFlight = (key, .absent)
                case .evict: evictionBegan = time
                case .read: readBegan = time
                case .compact, .collect: break
                }
            case .put(let key, let version):
                putBegan[key] = putInFlightBegan
                acknowledge(key, .version(version))
            case .removed(let key, let existed):
                if !existed { noteAbsence(of: key, at: time) }
                acknowledge(key, .absent)
            case .read(let key, let hit):
                reads += 1
                if hit { putBegan[key] = readBegan } else { noteAbsence(of: key, at: time) }
            case .compacted: compactions += 1
            case .collected: collections += 1
            case .evicted(let entries):
                collections += 1
                if entries > 0 {
                    evictions.append(Eviction(began: evictionBegan ?? 0, ended: time))
                    evictionsReturned += 1
                }
                evictionBegan = nil
            case .found(let finding): findings.append(finding)
            case .closing: stage = "close"
            case .done:
                finished = true
                stage = "exit"
            }
            if event.isAcknowledgement { stage = "between" }
        }
        if let evictionBegan { evictions.append(Eviction(began: evictionBegan, ended: max(ended, evictionBegan))) }
    }

    private mutating func acknowledge(_ key: Int, _ state: KeyState) {
        states[key] = state
        inFlight = nil
        acknowledged += 1
    }

    /// Records that `key` was found absent at `time`; from then on it is.
    private mutating func noteAbsence(of key: Int, at time: UInt64) {
        guard states[key] != .absent else { return }
        absences.append(Absence(key: key, expected: states[key], putBegan: putBegan[key], seen: time))
        states[key] = .absent
    }
}
