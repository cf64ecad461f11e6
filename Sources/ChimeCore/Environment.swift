#if canImport(Glibc)
import Glibc
#endif

/// The environment variable `name` as the process has it now, or nil when it is unset.
///
/// One `getenv`, where `ProcessInfo.environment` copies the whole environment into a
/// new dictionary on every read.
public func environmentValue(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
