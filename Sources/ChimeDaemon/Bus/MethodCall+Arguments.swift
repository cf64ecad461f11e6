import DBus

/// The arguments of a call, whose types the dispatcher has already checked against the
/// method's declaration.
extension MethodCall {
    /// The string argument at `index`.
    func string(_ index: Int) -> String { arguments[index].stringValue ?? "" }

    /// The `a{sv}` argument at `index`.
    func entries(_ index: Int) throws(DBusError) -> [(key: String, value: Value)] {
        guard let entries = arguments[index].stringKeyedEntries else { throw .invalidArgs("Expected a{sv}.") }
        return entries
    }

    /// The `a{ss}` argument at `index`.
    func stringEntries(_ index: Int) throws(DBusError) -> [(key: String, value: String)] {
        guard let entries = arguments[index].stringKeyedEntries else { throw .invalidArgs("Expected a{ss}.") }
        return entries.compactMap { entry in entry.value.stringValue.map { (key: entry.key, value: $0) } }
    }
}
