/// What one worker's log says about a round: the key states every acknowledged operation leads
/// to, the change in flight when the worker died (if any), counts, and the worker's own findings.
struct WorkerLog {
    /// The state of each key after the last acknowledged change.
    var states: [KeyState]
    /// The change that was logged as begun but not acknowledged: the worker was killed during it
    /// (or it threw), so it may or may not have taken effect.
    var inFlight: (key: Int, state: KeyState)?
    var acknowledged = 0
    var reads = 0
    var compactions = 0
    var collections = 0
    var finished = false
    /// Where the log ends: `open` (opening the store: no line yet), an operation's name (`put`,
    /// `rm`, `get`, `compact`, `gc`), `close`, `between` (between operations) or `exit` (after
    /// `done`).
    var stage = "open"
    var findings: [Finding] = []
    /// Lines that are not `WorkerEvent`s (a worker's line cut short can only be the last one).
    var garbled: [String] = []

    /// Replays `text` (the worker's standard output) over `states`, the states the round began
    /// with.
    init(_ text: String, states: [KeyState]) {
        self.states = states
        for line in text.split(separator: "\n") {
            guard let event = WorkerEvent(line: line) else {
                garbled.append(String(line))
                continue
            }
            switch event {
            case .opened: stage = "between"
            case .will(let operation):
                stage = operation.name
                if case .put(let key, let version) = operation { inFlight = (key, .version(version)) }
                if case .remove(let key) = operation { inFlight = (key, .absent) }
            case .put(let key, let version): acknowledge(key, .version(version))
            case .removed(let key, _): acknowledge(key, .absent)
            case .read: reads += 1
            case .compacted: compactions += 1
            case .collected: collections += 1
            case .found(let finding): findings.append(finding)
            case .closing: stage = "close"
            case .done:
                finished = true
                stage = "exit"
            }
            if event.isAcknowledgement { stage = "between" }
        }
    }

    private mutating func acknowledge(_ key: Int, _ state: KeyState) {
        states[key] = state
        inFlight = nil
        acknowledged += 1
    }
}
