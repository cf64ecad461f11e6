// swift-tools-version: 6.1
import PackageDescription

// Chime is Linux only: it is built on libdbus, GLib, timerfd, signalfd and pidfd, and
// serves the freedesktop notification specification. `platforms:` cannot say so: it
// sets minimum versions of Apple systems whose standard library ships with them and
// bars none (a platform it does not name gets its oldest version), so the manifest
// refuses to load anywhere else.
#if !os(Linux)
#error("Chime builds only on Linux: it needs libdbus, GLib and Linux's timerfd, signalfd and pidfd.")
#endif

// libdbus's headers, where Debian, Ubuntu and Fedora put them: CDBus is declared without
// pkg-config, whose -ldbus-1 would bind the shared library (see CDBus's module map).
#if arch(x86_64)
let multiarch = "x86_64-linux-gnu"
#elseif arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "unknown"
#endif
let dbusHeaders: [SwiftSetting] = [
    .unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0", "-Xcc", "-I/usr/lib/\(multiarch)/dbus-1.0/include",
                  "-Xcc", "-I/usr/lib64/dbus-1.0/include"]),
]

let package = Package(
    name: "chime",
    products: [
        .executable(name: "chimed", targets: ["chimed"]),
        .executable(name: "chime", targets: ["chime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CDBus",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // The store's file; through SQLite's C API (ChimeCore's Database).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libical for .ics files (chimed's ImportICalendar/ExportICalendar, which chime import/export call), opened with dlopen when first needed.
        .target(name: "CICal"),
        // iCalendar text to Schedule requests and back, for chimed's ImportICalendar/ExportICalendar.
        .target(name: "ICS", dependencies: ["CICal", "DBus", "ChimeAPI", "Localization"]),
        // The system's ICU, for month and year steps in the calendars Chime does not count
        // itself (chinese, islamic, persian, …), opened with dlopen when one is first used.
        .target(name: "CICU"),
        // GLib's GKeyFile, GIO's GDesktopAppInfo and libcanberra, opened with dlopen when first needed.
        .target(name: "CDesktopLibs"),
        .target(name: "CLinux"),
        // libcurl and libxml2 for CalDAV calendars, opened with dlopen when a CalDAV calendar is
        // first synced: a chimed without one loads neither.
        .target(name: "CCurl"),
        .target(name: "CXML", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
        // HTTP on chimed's loop (libcurl's multi interface) and WebDAV/CalDAV bodies (libxml2).
        .target(name: "WebDAV", dependencies: ["CCurl", "CXML", "EventLoop"]),
        // gettext (part of glibc) for Chime's own words and apps' texts; without Foundation.
        .target(name: "CGettext"),
        .target(name: "Localization", dependencies: ["CGettext"]),
        .target(name: "EventLoop", dependencies: ["CLinux"]),
        .target(name: "DBus", dependencies: ["CDBus", "EventLoop", "CSystemdStubs"], swiftSettings: dbusHeaders),
        // Without Foundation: chime's start-up does not pay for it.
        .target(name: "JSON"),
        // Did-you-mean for chimed's time words and chime's commands; without Foundation too.
        .target(name: "Spelling"),
        // The D-Bus contract, once: names, methods, signals, keys, errors, limits, version.
        .target(name: "ChimeAPI", dependencies: ["DBus"]),
        // Writes dbus/io.github.chime.Scheduler1.xml from ChimeAPI (make api-xml).
        .executableTarget(name: "chime-api-xml", dependencies: ["ChimeAPI"]),
        .target(
            name: "ChimeCore",
            dependencies: [
                "Localization", "CSQLite", "CICU", "Spelling",
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "ChimeDaemon",
            dependencies: [
                "DBus", "EventLoop", "ChimeCore", "ChimeAPI", "CDesktopLibs", "ICS", "JSON", "Localization", "Spelling", "WebDAV",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "chimed",
            dependencies: ["ChimeDaemon", "ChimeAPI", .product(name: "Logging", package: "swift-log")]
        ),
        // What libdbus-1.a asks of libsystemd (Debian has no libsystemd.a).
        .target(name: "CSystemdStubs"),
        // The release chime is linked fully static, glibc and libdbus-1.a too: it loads no
        // library (import and export go through chimed), and the dynamic loader's work was
        // most of what each command cost over make bench's Notify floor.
        .executableTarget(
            name: "chime",
            dependencies: [
                "DBus", "ChimeAPI", "JSON", "Localization", "Spelling",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]
        ),
        // Load generators for scripts/bench.sh; CDBus for the bus monitor, which must only read.
        .executableTarget(
            name: "chime-bench", dependencies: ["DBus", "EventLoop", "CDBus", "ChimeAPI"], path: "Benchmarks/chime-bench",
            swiftSettings: dbusHeaders
        ),
        // make bench's floor with chimed's libraries: a trivial service that links FoundationEssentials
        // and opens an SQLite store first.
        .executableTarget(
            name: "chime-store-floor",
            dependencies: ["CDBus", "CSQLite", "CSystemdStubs"],
            path: "Benchmarks/floor/store-service",
            swiftSettings: dbusHeaders
        ),
        // Starts private buses, notification servers and the built binaries for tests.
        .target(name: "TestSupport", dependencies: ["CLinux"], path: "Tests/TestSupport"),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "CDBus", "EventLoop", "TestSupport"], swiftSettings: dbusHeaders),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "CLinux"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "WebDAVTests", dependencies: ["WebDAV", "EventLoop", "TestSupport"]),
        .testTarget(name: "SpellingTests", dependencies: ["Spelling"]),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization", "TestSupport"]),
        .testTarget(name: "ChimeAPITests", dependencies: ["ChimeAPI", "DBus"]),
        .testTarget(name: "ICSTests", dependencies: ["ICS", "DBus", "TestSupport"]),
        .testTarget(name: "ChimeCoreTests", dependencies: ["ChimeCore", "TestSupport"]),
        .testTarget(name: "ChimeDaemonTests", dependencies: ["ChimeDaemon", "ChimeAPI", "DBus", "CDBus", "TestSupport"],
                    swiftSettings: dbusHeaders),
        .testTarget(name: "chimeTests", dependencies: ["chime", "ChimeAPI"]),
        .testTarget(name: "IntegrationTests", dependencies: ["TestSupport", "DBus", "EventLoop"]),
    ],
    swiftLanguageModes: [.v6]
)
