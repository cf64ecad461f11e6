/// A named, typed argument of a method or signal.
public struct Argument: Sendable, Equatable {
    public let name: String
    public let signature: Signature
    public init(_ name: String, _ signature: Signature) {
        self.name = name
        self.signature = signature
    }
}

/// A method call as a handler sees it.
public struct MethodCall {
    /// The arguments, already checked against the method's declared input types.
    public let arguments: [Value]
    /// The caller's unique bus name.
    public let sender: String
    /// The raw message, for anything else.
    public let message: Message
}

/// One method: its name, argument types and handler.
public struct Method {
    /// How a method answers.
    public enum Handler {
        /// Returns the reply values at once, or throws the error to reply with.
        case immediate((MethodCall) throws(DBusError) -> [Value])
        /// Answers later through the ``Responder`` (after a commit, say); throwing answers at once.
        case deferred((MethodCall, Responder) throws(DBusError) -> Void)
    }

    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    public let handler: Handler

    public init(
        _ name: MemberName, inputs: [Argument] = [], outputs: [Argument] = [],
        handler: @escaping (MethodCall) throws(DBusError) -> [Value]
    ) {
        self.init(name, inputs: inputs, outputs: outputs, handler: .immediate(handler))
    }

    public init(_ name: MemberName, inputs: [Argument] = [], outputs: [Argument] = [], handler: Handler) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.handler = handler
    }

    var inputSignature: String { inputs.map(\.signature.rawValue).joined() }
    var outputSignature: String { outputs.map(\.signature.rawValue).joined() }
}

/// Sends the one answer to a method call whose handler replies later.
///
/// Dropping a responder without answering replies with an error, so a caller never
/// waits for a reply that cannot come.
public final class Responder {
    private weak var connection: Connection?
    private let message: Message
    private let member: String
    private let outputSignature: String
    private var answered = false

    init(connection: Connection, message: Message, member: String, outputSignature: String) {
        self.connection = connection
        self.message = message
        self.member = member
        self.outputSignature = outputSignature
    }

    /// Replies with `values`, which must match the method's declared outputs.
    public func reply(_ values: [Value]) {
        let produced = values.map(\.signature.rawValue).joined()
        guard produced == outputSignature else {
            fail(.failed("Internal error: \(member) produced (\(produced)) instead of (\(outputSignature))."))
            return
        }
        send((try? message.makeReply(values)) ?? message.makeErrorReply(.failed("Cannot build the reply to \(member).")))
    }

    /// Replies with `error`.
    public func fail(_ error: DBusError) {
        send(message.makeErrorReply(error))
    }

    private func send(_ reply: Message?) {
        guard !answered else { return }
        answered = true
        guard !message.noReplyExpected, let connection, let reply else { return }
        try? connection.send(reply)
    }

    deinit {
        if !answered { fail(.failed("\(member) was dropped without an answer.")) }
    }
}

/// One signal an interface emits.
public struct SignalDescription: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    public init(_ name: MemberName, arguments: [Argument]) {
        self.name = name
        self.arguments = arguments
    }
}

/// One read-only property, read through `org.freedesktop.DBus.Properties`.
public struct Property {
    public let name: String
    public let signature: Signature
    public let value: () -> Value
    public init(_ name: String, _ signature: Signature, value: @escaping () -> Value) {
        self.name = name
        self.signature = signature
        self.value = value
    }
}

/// The table of one exported interface: reading it tells the whole API, and the
/// introspection document is generated from it, so the two cannot drift apart.
public struct Interface {
    public let name: InterfaceName
    public let methods: [Method]
    public let signals: [SignalDescription]
    public let properties: [Property]

    public init(_ name: InterfaceName, methods: [Method], signals: [SignalDescription] = [], properties: [Property] = []) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }

    /// This interface's `<interface>` element, indented for a `<node>`.
    public var introspectionXML: String {
        var lines = ["  <interface name=\"\(name)\">"]
        for method in methods {
            lines.append("    <method name=\"\(method.name)\">")
            lines += method.inputs.map { Introspection.element($0, direction: "in") }
            lines += method.outputs.map { Introspection.element($0, direction: "out") }
            lines.append("    </method>")
        }
        for signal in signals {
            lines.append("    <signal name=\"\(signal.name)\">")
            lines += signal.arguments.map { Introspection.element($0, direction: nil) }
            lines.append("    </signal>")
        }
        for property in properties {
            lines.append("    <property name=\"\(Introspection.escape(property.name))\" type=\"\(property.signature)\" access=\"read\"/>")
        }
        lines.append("  </interface>")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The introspection document format.
public enum Introspection {
    static let interfaceName = "org.freedesktop.DBus.Introspectable"
    static let propertiesName = "org.freedesktop.DBus.Properties"

    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    static let standardInterfaces = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    /// The full document for a node with `interfaces` and child nodes `children`.
    public static func document(interfaces: [Interface], children: [String]) -> String {
        var xml = doctype + "<node>\n"
        if !interfaces.isEmpty { xml += standardInterfaces }
        for interface in interfaces { xml += interface.introspectionXML }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    /// An `<arg>` element, indented for its method or signal.
    static func element(_ argument: Argument, direction: String?) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "      <arg name=\"\(escape(argument.name))\" type=\"\(argument.signature)\"\(direction)/>"
    }

    /// What an attribute value needs escaped: `"` would end it, `&` and `<` start markup.
    private static let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", "\"": "&quot;"]

    /// An attribute value for free text: argument and property names. Member and
    /// interface names, signatures and path elements are validated and hold none of these.
    fileprivate static func escape(_ text: String) -> String {
        text.reduce(into: "") { $0 += entities[$1] ?? String($1) }
    }
}

/// Routes one method call to an exported object's interfaces.
struct ObjectDispatcher {
    let interfaces: [Interface]
    let children: [String]
    weak var connection: Connection?

    /// The reply to send now, or nil when a deferred handler will answer.
    func dispatch(_ message: Message) -> Result<[Value], DBusError>? {
        let member = message.member ?? ""
        let interfaceName = message.interface
        do throws(DBusError) {
            switch (interfaceName, member) {
            case (Introspection.interfaceName, "Introspect"), (nil, "Introspect"):
                return .success([.string(Introspection.document(interfaces: interfaces, children: children))])
            case (Introspection.propertiesName, _):
                return .success(try properties(member, message))
            default:
                break
            }
            let candidates = interfaces.filter { interfaceName == nil || $0.name.rawValue == interfaceName }
            guard !candidates.isEmpty else {
                throw DBusError(name: "org.freedesktop.DBus.Error.UnknownInterface",
                                message: "No interface '\(interfaceName ?? "")' at \(message.path ?? "").")
            }
            guard let method = candidates.lazy.flatMap(\.methods).first(where: { $0.name.rawValue == member }) else {
                throw DBusError(name: DBusError.unknownMethodName,
                                message: "No method '\(member)' in interface '\(interfaceName ?? candidates[0].name.rawValue)'.")
            }
            let signature = message.signature
            guard signature == method.inputSignature else {
                throw .invalidArgs("\(member) takes arguments of type (\(method.inputSignature)), not (\(signature)).")
            }
            let call = MethodCall(arguments: try message.arguments(), sender: message.sender ?? "", message: message)
            let outputs: [Value]
            switch method.handler {
            case .immediate(let handler):
                outputs = try handler(call)
            case .deferred(let handler):
                guard let connection else { throw .disconnected("Not connected.") }
                let responder = Responder(connection: connection, message: message, member: member,
                                          outputSignature: method.outputSignature)
                do { try handler(call, responder) } catch { responder.fail(error) }
                return nil
            }
            let produced = outputs.map(\.signature.rawValue).joined()
            guard produced == method.outputSignature else {
                throw .failed("Internal error: \(member) produced (\(produced)) instead of (\(method.outputSignature)).")
            }
            return .success(outputs)
        } catch {
            return .failure(error)
        }
    }

    private func properties(_ member: String, _ message: Message) throws(DBusError) -> [Value] {
        let arguments = try message.arguments()
        let names = arguments.compactMap(\.stringValue)
        func find(_ interface: String) throws(DBusError) -> Interface {
            guard let found = interfaces.first(where: { $0.name.rawValue == interface }) else {
                throw DBusError(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "No interface '\(interface)'.")
            }
            return found
        }
        switch (member, message.signature) {
        case ("Get", "ss"):
            let interface = try find(names[0])
            guard let property = interface.properties.first(where: { $0.name == names[1] }) else {
                throw DBusError(name: DBusError.unknownPropertyName, message: "No property '\(names[1])' in '\(names[0])'.")
            }
            return [.variant(property.value())]
        case ("GetAll", "s"):
            let interface = try find(names[0])
            return [.variantDictionary(interface.properties.map { ($0.name, $0.value()) })]
        case ("Set", "ssv"):
            throw DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "Property '\(names[1])' is read-only.")
        default:
            throw .invalidArgs("No method '\(member)' with arguments (\(message.signature)) in \(Introspection.propertiesName).")
        }
    }
}
