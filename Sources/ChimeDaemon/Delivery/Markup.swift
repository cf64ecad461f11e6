extension String {
    /// The text as notification-body markup that shows it as it is.
    ///
    /// A server with the `body-markup` capability reads the body as the Desktop
    /// Notifications specification's subset of XML, where `&`, `<` and `>` must be
    /// written as entities; `"` is written as one too, which every such server reads.
    var xmlEscaped: String {
        reduce(into: "") { $0 += Self.markupEntities[$1] ?? String($1) }
    }

    private static let markupEntities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]
}
