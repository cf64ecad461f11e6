import Testing
@testable import WebDAV
