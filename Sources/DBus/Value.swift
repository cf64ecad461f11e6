/// One D-Bus value of any type the project exchanges.
///
/// Containers carry their element signature explicitly, so an empty array or dictionary
/// still has a type on the wire (`dbus-send` cannot send those; we must).
public indirect enum Value: Hashable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// An array whose elements all have the single complete type `element`.
    case array(element: Signature, [Value])
    /// A dictionary `a{KV}`: an array of entries, in wire order.
    case dictionary(key: Signature, value: Signature, [DictionaryEntry])
    case structure([Value])
    case variant(Value)

    /// The type signature of this value.
    public var signature: Signature {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): Signature(unchecked: "a" + element.rawValue)
        case .dictionary(let key, let value, _): Signature(unchecked: "a{\(key.rawValue)\(value.rawValue)}")
        case .structure(let fields): Signature(unchecked: "(" + fields.map(\.signature.rawValue).joined() + ")")
        case .variant: "v"
        }
    }
}

/// One `{key, value}` entry of a ``Value/dictionary(key:value:_:)``.
public struct DictionaryEntry: Hashable, Sendable {
    public var key: Value
    public var value: Value
    public init(key: Value, value: Value) {
        self.key = key
        self.value = value
    }
}

// MARK: - Building

extension Value {
    /// An `a{sv}` dictionary, the usual "options" or "hints" argument, in the given order.
    public static func variantDictionary(_ entries: [(String, Value)]) -> Value {
        .dictionary(key: "s", value: "v", entries.map { DictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    /// An `a{ss}` dictionary in the given order.
    public static func stringDictionary(_ entries: [(String, String)]) -> Value {
        .dictionary(key: "s", value: "s", entries.map { DictionaryEntry(key: .string($0.0), value: .string($0.1)) })
    }

    /// An `as` array.
    public static func stringArray(_ strings: [String]) -> Value {
        .array(element: "s", strings.map(Value.string))
    }
}

// MARK: - Reading

extension Value {
    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Any integer type, widened, so a caller's choice of `i`, `u` or `x` does not matter.
    public var integerValue: Int64? {
        switch self {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The value inside a variant (nested variants unwrapped); other values as they are.
    public var unwrapped: Value {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The elements of an array.
    public var arrayElements: [Value]? {
        if case .array(_, let elements) = self { return elements }
        return nil
    }

    /// The entries of a dictionary with string keys, in wire order.
    public var stringKeyedEntries: [(key: String, value: Value)]? {
        guard case .dictionary(let key, _, let entries) = self, key == "s" else { return nil }
        return entries.compactMap { entry in entry.key.stringValue.map { (key: $0, value: entry.value) } }
    }

    /// The fields of a struct.
    public var structureFields: [Value]? {
        if case .structure(let fields) = self { return fields }
        return nil
    }
}

// MARK: - Validation

extension Value {
    /// Checks what libdbus would otherwise abort on or truncate: embedded NULs, and
    /// container elements whose type differs from the declared one.
    public func validate() throws(DBusError) {
        switch self {
        case .string(let s):
            if s.utf8.contains(0) { throw .invalidArgs("A string value contains a NUL character.") }
        case .array(let element, let elements):
            guard element.isSingleCompleteType else {
                throw .invalidArgs("Array element type '\(element)' is not a single complete type.")
            }
            for value in elements {
                guard value.signature == element else {
                    throw .invalidArgs("An array of '\(element)' holds a value of type '\(value.signature)'.")
                }
                try value.validate()
            }
        case .dictionary(let key, let valueType, let entries):
            guard Signature(rawValue: "a{\(key.rawValue)\(valueType.rawValue)}") != nil else {
                throw .invalidArgs("'a{\(key)\(valueType)}' is not a valid dictionary type.")
            }
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == valueType else {
                    throw .invalidArgs("A dictionary 'a{\(key)\(valueType)}' holds an entry of another type.")
                }
                try entry.key.validate()
                try entry.value.validate()
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("A struct must have at least one field.") }
            for field in fields { try field.validate() }
        case .variant(let inner):
            try inner.validate()
        default:
            break
        }
    }
}
