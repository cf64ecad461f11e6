extension Array where Element == String {
    /// The strings of a C array that ends with a null pointer, such as GLib's `gchar **`
    /// and GIO's `const char *const *`; the array stays its owner's to free.
    init(nullTerminated array: UnsafePointer<UnsafePointer<CChar>?>) {
        self = []
        var index = 0
        while let item = array[index] {
            append(String(cString: item))
            index += 1
        }
    }
}
