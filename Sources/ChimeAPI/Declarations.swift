import DBus

/// One method of ``Scheduler1``: its name, its arguments and what it does.
public struct MethodDeclaration: Sendable {
    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    /// What it does, as the contract file says it.
    public var summary: String { summaryText() }
    // Written only for the contract file, so composed only when read: chimed builds its
    // table of methods before it answers its first call.
    private let summaryText: @Sendable () -> String

    init(_ name: String, in inputs: KeyValuePairs<String, Signature> = [:], out outputs: KeyValuePairs<String, Signature> = [:],
         _ summary: @autoclosure @escaping @Sendable () -> String) {
        // The names are literals of this module, checked by its tests.
        self.name = try! MemberName(name)
        self.inputs = inputs.map { Argument($0.key, $0.value) }
        self.outputs = outputs.map { Argument($0.key, $0.value) }
        summaryText = summary
    }

    /// The types a call carries, in order: `sssa{ss}` for ScheduleSimple.
    public var inputSignature: String { inputs.map(\.signature.rawValue).joined() }

    /// A call of this method on chimed; `arguments` must match ``inputs``.
    public func call(_ arguments: [Value]) throws(DBusError) -> Message {
        assert(arguments.map(\.signature.rawValue).joined() == inputSignature, "\(name) takes (\(inputSignature))")
        return try Message.methodCall(destination: ChimeBus.name, path: ChimeBus.path, interface: Scheduler1.name,
                                      member: name, arguments: arguments)
    }
}

/// One signal of ``Scheduler1``: its name, its arguments and when it comes.
public struct SignalDeclaration: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    /// When chimed emits it, as the contract file says it.
    public var summary: String { summaryText() }
    private let summaryText: @Sendable () -> String

    init(_ name: String, _ arguments: KeyValuePairs<String, Signature>, _ summary: @autoclosure @escaping @Sendable () -> String) {
        self.name = try! MemberName(name)
        self.arguments = arguments.map { Argument($0.key, $0.value) }
        summaryText = summary
    }

    /// The signal as an exported interface lists it.
    public var signal: SignalDescription { SignalDescription(name, arguments: arguments) }

    /// The rule for this signal from chimed. The bus sends only the current owner's, but
    /// a signal sent straight to a subscriber bypasses the rule: compare the sender with
    /// the unique name of the chimed you talk to.
    public var matchRule: MatchRule {
        MatchRule(sender: ChimeBus.name, path: ChimeBus.path, interface: Scheduler1.name, member: name)
    }

    /// Emits this signal from chimed's object; `arguments` must match ``arguments``.
    public func emit(on connection: Connection, _ values: [Value]) throws(DBusError) {
        assert(values.map(\.signature.rawValue).joined() == arguments.map(\.signature.rawValue).joined(), "\(name) carries other types")
        try connection.emit(path: ChimeBus.path, interface: Scheduler1.name, member: name, arguments: values)
    }
}

/// One read-only property of ``Scheduler1``, whose value never changes while chimed runs.
public struct PropertyDeclaration: Sendable {
    public let name: String
    public let value: Value
    /// What it holds, as the contract file says it.
    public let summary: String

    /// The property as an exported interface serves it.
    public var property: Property { Property(name, value.signature) { [value] in value } }
}

extension Method {
    /// The method `declaration` declares, answered by `handler`.
    public init(_ declaration: MethodDeclaration, handler: Handler) {
        self.init(declaration.name, inputs: declaration.inputs, outputs: declaration.outputs, handler: handler)
    }
}
