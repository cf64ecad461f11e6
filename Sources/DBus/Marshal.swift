import CDBus
import Glibc

/// Moves ``Value``s in and out of libdbus message iterators.
enum Marshal {
    /// Appends `value` (already validated); false only when libdbus is out of memory.
    static func write(_ value: Value, into iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_BYTE, &v) != 0
        case .bool(let b):
            var v: dbus_bool_t = b ? 1 : 0
            return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_BOOLEAN, &v) != 0
        case .int16(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT16, &v) != 0
        case .uint16(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT16, &v) != 0
        case .int32(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT32, &v) != 0
        case .uint32(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT32, &v) != 0
        case .int64(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT64, &v) != 0
        case .uint64(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT64, &v) != 0
        case .double(var v): return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_DOUBLE, &v) != 0
        case .string(let s): return appendString(s, type: CDBUS_TYPE_STRING, into: &iter)
        case .objectPath(let p): return appendString(p.rawValue, type: CDBUS_TYPE_OBJECT_PATH, into: &iter)
        case .signature(let g): return appendString(g.rawValue, type: CDBUS_TYPE_SIGNATURE, into: &iter)
        case .array(let element, let elements):
            return container(CDBUS_TYPE_ARRAY, element.rawValue, &iter) { sub in
                elements.allSatisfy { write($0, into: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            return container(CDBUS_TYPE_ARRAY, "{\(key.rawValue)\(valueType.rawValue)}", &iter) { sub in
                entries.allSatisfy { entry in
                    container(CDBUS_TYPE_DICT_ENTRY, nil, &sub) { pair in
                        write(entry.key, into: &pair) && write(entry.value, into: &pair)
                    }
                }
            }
        case .structure(let fields):
            return container(CDBUS_TYPE_STRUCT, nil, &iter) { sub in fields.allSatisfy { write($0, into: &sub) } }
        case .variant(let inner):
            return container(CDBUS_TYPE_VARIANT, inner.signature.rawValue, &iter) { sub in write(inner, into: &sub) }
        }
    }

    private static func appendString(_ string: String, type: Int32, into iter: inout DBusMessageIter) -> Bool {
        string.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &p) != 0
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    // MARK: - Reading

    /// Reads every remaining value at this level.
    static func readAll(_ iter: inout DBusMessageIter, budget: inout ReadBudget) throws(DBusError) -> [Value] {
        var values: [Value] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            values.append(try read(&iter, budget: &budget))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    /// Reads the value at the iterator's position, spending `budget` as it goes: the
    /// first limit crossed ends the reading before anything more is built.
    static func read(_ iter: inout DBusMessageIter, budget: inout ReadBudget) throws(DBusError) -> Value {
        try budget.spendValue()
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case CDBUS_TYPE_BYTE: return .byte(try basic(&iter, UInt8(0), &budget))
        case CDBUS_TYPE_BOOLEAN: return .bool(try basic(&iter, dbus_bool_t(0), &budget) != 0)
        case CDBUS_TYPE_INT16: return .int16(try basic(&iter, Int16(0), &budget))
        case CDBUS_TYPE_UINT16: return .uint16(try basic(&iter, UInt16(0), &budget))
        case CDBUS_TYPE_INT32: return .int32(try basic(&iter, Int32(0), &budget))
        case CDBUS_TYPE_UINT32: return .uint32(try basic(&iter, UInt32(0), &budget))
        case CDBUS_TYPE_INT64: return .int64(try basic(&iter, Int64(0), &budget))
        case CDBUS_TYPE_UINT64: return .uint64(try basic(&iter, UInt64(0), &budget))
        case CDBUS_TYPE_DOUBLE: return .double(try basic(&iter, Double(0), &budget))
        case CDBUS_TYPE_STRING: return .string(try readString(&iter, &budget))
        // libdbus validated these on receipt, so the unchecked forms are safe here.
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(ObjectPath(validated: try readString(&iter, &budget)))
        case CDBUS_TYPE_SIGNATURE: return .signature(Signature(unchecked: try readString(&iter, &budget)))
        case CDBUS_TYPE_VARIANT, CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            try budget.enter()
            defer { budget.leave() }
            return type == CDBUS_TYPE_VARIANT ? .variant(try read(&sub, budget: &budget)) : .structure(try readAll(&sub, budget: &budget))
        case CDBUS_TYPE_ARRAY:
            let full = currentSignature(&iter)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            // The array's length on the wire is known before a single element is read:
            // one too large for what is left is refused without walking it.
            try budget.check(bytes: Int(cdbus_message_iter_get_array_byte_length(&sub)))
            try budget.enter()
            defer { budget.leave() }
            if dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY {
                // "a{KV}": the key is one basic type code, the value the rest.
                let inner = full.dropFirst(2).dropLast()
                let key = Signature(unchecked: String(inner.prefix(1)))
                let value = Signature(unchecked: String(inner.dropFirst()))
                var entries: [DictionaryEntry] = []
                while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                    try budget.spendValue()
                    try budget.enter()
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &pair)
                    let k = try read(&pair, budget: &budget)
                    guard dbus_message_iter_next(&pair) != 0 else { throw .invalidArgs("A dictionary entry has no value.") }
                    entries.append(DictionaryEntry(key: k, value: try read(&pair, budget: &budget)))
                    budget.leave()
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(key: key, value: value, entries)
            }
            return .array(element: Signature(unchecked: String(full.dropFirst())), try readAll(&sub, budget: &budget))
        case CDBUS_TYPE_UNIX_FD:
            throw .invalidArgs("File descriptors are not accepted here.")
        default:
            throw .invalidArgs("Unsupported D-Bus type code \(type).")
        }
    }

    private static func basic<T: BitwiseCopyable>(
        _ iter: inout DBusMessageIter, _ initial: T, _ budget: inout ReadBudget
    ) throws(DBusError) -> T {
        try budget.spend(bytes: MemoryLayout<T>.size)
        var value = initial
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func readString(_ iter: inout DBusMessageIter, _ budget: inout ReadBudget) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iter, &pointer)
        guard let pointer else { return "" }
        // The length is measured in libdbus's buffer before a Swift string is made of it.
        let length = strlen(pointer)
        try budget.spend(string: length)
        return String(cString: pointer)
    }

    private static func currentSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
