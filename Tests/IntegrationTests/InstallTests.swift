import Foundation
import Testing
import TestSupport

/// Runs make in the package root, with `NO_BUILD=1` unless `build`: `make test` built what
/// is installed, and a nested swift build would wait for the build folder this test run
/// holds. The folder of `tools` (or `pathFirst`) goes first on PATH.
func make(_ arguments: [String], asUser user: String? = nil, build: Bool = false,
          tools: RecordingTools? = nil, pathFirst: URL? = nil) throws -> ProcessResult {
    var environment = ProcessInfo.processInfo.environment
    // The test run may itself be under make; its job server is not for this one.
    for key in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"] { environment[key] = nil }
    var command = ["make", "--no-print-directory", "-C", packageRoot.path] + (build ? [] : ["NO_BUILD=1"]) + arguments
    if let folder = tools?.folder ?? pathFirst {
        command = ["env", "PATH=\(folder.path):\(environment["PATH"] ?? "/usr/bin:/bin")"] + command
    }
    return try Spawned(user.map { ["runuser", "-u", $0, "--"] + command } ?? command, environment: environment)
        .finish(timeout: 300)
}

/// A folder to put first on PATH in which sudo, apt-get and swift only note that they were
/// run (and fail), and dpkg-query finds no package installed.
struct RecordingTools {
    let folder: URL
    var calls: URL { folder.appendingPathComponent("calls") }

    init() throws {
        folder = try temporaryDirectory("tools")
        chmod(folder.path, 0o755)
        try Data().write(to: calls)
        // Written by whichever user make runs as.
        chmod(calls.path, 0o666)
        var scripts = ["dpkg-query": "#!/bin/sh\nexit 1\n"]
        for name in ["sudo", "apt-get", "swift"] {
            scripts[name] = "#!/bin/sh\necho \"\(name) $*\" >>'\(calls.path)'\nexit 1\n"
        }
        for (name, script) in scripts {
            let tool = folder.appendingPathComponent(name)
            try script.write(to: tool, atomically: true, encoding: .utf8)
            chmod(tool.path, 0o755)
        }
    }

    /// What was run, one line each.
    var recorded: String { (try? String(contentsOf: calls, encoding: .utf8)) ?? "(calls unreadable)" }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// Runs a command outside any test bus.
func runCommand(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProcessResult {
    try Spawned(arguments, environment: environment).finish(timeout: 120)
}

/// Every regular file and link under `root`, as paths relative to it.
func filesUnder(_ root: URL) -> Set<String> {
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
    var files: Set<String> = []
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true {
        files.insert(String(url.path.dropFirst(root.path.count)))
    }
    return files
}

func temporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("chime-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What `make install` and `make uninstall` do to a machine, and the installed files
/// used the way a session uses them.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct InstallTests {
    /// The paths scripts/install.sh installs for `prefix`.
    static func manifest(prefix: String) throws -> Set<String> {
        var environment = ProcessInfo.processInfo.environment
        environment["PREFIX"] = prefix
        let result = try runCommand([packageRoot.appendingPathComponent("scripts/install.sh").path, "list"], environment: environment)
        guard result.status == 0 else { throw TestFailure.failed("install.sh list: \(result)") }
        return Set(result.stdout.split(separator: "\n").map(String.init))
    }

    @Test func stagedInstallWritesTheListAndUninstallRemovesExactlyThat() throws {
        let root = try temporaryDirectory("destdir")
        defer { try? FileManager.default.removeItem(at: root) }
        // Someone else's file in a folder Chime shares must survive uninstall.
        let foreign = root.appendingPathComponent("usr/local/share/man/man1/other.1")
        try FileManager.default.createDirectory(at: foreign.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "other\n".write(to: foreign, atomically: true, encoding: .utf8)

        let install = try make(["install", "DESTDIR=\(root.path)", "PREFIX=/usr/local"])
        #expect(install.status == 0, "\(install)")
        let expected = try Self.manifest(prefix: "/usr/local")
        #expect(expected.contains("/usr/local/bin/chimed"))
        #expect(expected.contains("/usr/local/share/man/man1/chimed.1"))
        #expect(expected.contains("/etc/xdg/autostart/chimed.desktop"))
        #expect(expected.contains("/usr/local/share/locale/de/LC_MESSAGES/chime.mo"))
        #expect(expected.contains("/etc/geoclue/conf.d/90-chime.conf"))
        #expect(expected.contains("/usr/local/share/applications/io.github.chime.Chime.desktop"))
        #expect(filesUnder(root) == expected.union(["/usr/local/share/man/man1/other.1"]))

        // The files name where chimed will be, not where it was staged.
        let activation = try String(contentsOf: root.appendingPathComponent("usr/local/share/dbus-1/services/io.github.chime.Chime.service"), encoding: .utf8)
        #expect(activation.contains("\nExec=/usr/local/bin/chimed\n"), "\(activation)")
        #expect(activation.contains("\nSystemdService=chimed.service"), "\(activation)")
        let unit = try String(contentsOf: root.appendingPathComponent("usr/local/lib/systemd/user/chimed.service"), encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/local/bin/chimed\n"), "\(unit)")
        #expect(!activation.contains("@") && !unit.contains("@"))

        let uninstall = try make(["uninstall", "DESTDIR=\(root.path)", "PREFIX=/usr/local"])
        #expect(uninstall.status == 0, "\(uninstall)")
        #expect(filesUnder(root) == ["/usr/local/share/man/man1/other.1"])
    }

    /// `make install-strip` installs the same files, with the two binaries stripped of
    /// their symbols (a third of chimed's size), still working; the build keeps its own.
    /// Where glibc runs packed relative relocations (2.36) and the toolchain has lld,
    /// chimed carries them (2 MB less), and it runs, which says glibc takes them.
    @Test func installStripInstallsStrippedBinariesThatRun() throws {
        let root = try temporaryDirectory("destdir-strip")
        defer { try? FileManager.default.removeItem(at: root) }
        let install = try make(["install-strip", "DESTDIR=\(root.path)", "PREFIX=/usr/local"])
        #expect(install.status == 0, "\(install)")
        #expect(filesUnder(root) == (try Self.manifest(prefix: "/usr/local")))
        let built = packageRoot.appendingPathComponent(".build/release")
        for name in ["chime", "chimed"] {
            let installed = root.appendingPathComponent("usr/local/bin/\(name)").path
            let sections = try runCommand(["readelf", "-S", "-W", installed])
            #expect(sections.status == 0 && !sections.stdout.contains(".symtab"), "\(name): \(sections.stdout.suffix(400))")
            // chime is linked static, at a fixed address: it has no relocations to pack.
            if name == "chimed" {
                #expect(sections.stdout.contains(".relr.dyn") == Self.packsRelocations, "\(name): \(sections.stdout.suffix(1200))")
            }
            let size = try FileManager.default.attributesOfItem(atPath: installed)[.size] as? Int ?? 0
            let builtSize = try FileManager.default.attributesOfItem(atPath: built.appendingPathComponent(name).path)[.size] as? Int ?? 0
            #expect(size > 0 && size < builtSize, "\(name): \(size) bytes installed, \(builtSize) built")
            let version = try runCommand([installed, "--version"])
            #expect(version.status == 0 && version.stdout.contains("0."), "\(version)")
        }
        #expect(try runCommand(["readelf", "-S", "-W", built.appendingPathComponent("chimed").path]).stdout.contains(".symtab"))
    }

    /// Whether the Makefile links with packed relative relocations here: glibc 2.36 or
    /// later, and ld.lld beside the `swift` on the PATH.
    static var packsRelocations: Bool {
        var text = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
        // "glibc 2.36"
        let bytes = text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        let version = String(decoding: bytes, as: UTF8.self).split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
        guard version.count >= 2, (version[0], version[1]) >= (2, 36) else { return false }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let folder = path.split(separator: ":").map(String.init)
            .first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/swift") }) else { return false }
        return FileManager.default.isExecutableFile(atPath: folder + "/ld.lld")
    }

    /// A strip that fails (binutils missing, say) stops install-strip before it writes
    /// anything, with one sentence.
    @Test func installStripThatCannotStripWritesNothing() throws {
        let root = try temporaryDirectory("destdir-nostrip")
        defer { try? FileManager.default.removeItem(at: root) }
        let tools = try RecordingTools()
        defer { tools.remove() }
        let strip = tools.folder.appendingPathComponent("strip")
        try "#!/bin/sh\necho 'strip: cannot run' >&2\nexit 1\n".write(to: strip, atomically: true, encoding: .utf8)
        chmod(strip.path, 0o755)
        let install = try make(["install-strip", "DESTDIR=\(root.path)", "PREFIX=/usr/local"], tools: tools)
        #expect(install.status != 0, "\(install)")
        #expect(install.stderr.contains("cannot strip") && install.stderr.contains("nothing was installed"), "\(install)")
        #expect(filesUnder(root).isEmpty)
    }

    @Test func installedChimedStartsThroughActivationAndFires() throws {
        let prefix = try temporaryDirectory("prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let install = try make(["install", "PREFIX=\(prefix.path)"])
        #expect(install.status == 0, "\(install)")
        let chime = prefix.appendingPathComponent("bin/chime").path
        let chimed = prefix.appendingPathComponent("bin/chimed").path

        // The Swift runtime and libdbus are linked in: nothing of the toolchain is loaded,
        // nor the seven libraries libdbus-1.so brings. chime is linked fully static: it
        // loads nothing at all.
        let libraries = try runCommand(["ldd", chimed])
        #expect(libraries.status == 0 && libraries.stdout.contains("libsqlite3.so.0"), "\(libraries)")
        #expect(!libraries.stdout.contains("libdbus") && !libraries.stdout.contains("libsystemd"), "\(libraries)")
        // Nor libstdc++, the Swift runtime's, where its archive is installed (the Makefile says how).
        let archive = try runCommand(["cc", "-print-file-name=libstdc++.a"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if archive.hasPrefix("/") { #expect(!libraries.stdout.contains("libstdc++"), "\(libraries)") }
        #expect(!libraries.stdout.contains("swift") && !libraries.stdout.contains("not found"), "\(libraries)")
        let header = try runCommand(["readelf", "--program-headers", "--dynamic", "-W", chime])
        #expect(header.status == 0 && !header.stdout.contains("INTERP") && !header.stdout.contains("NEEDED"), "\(header)")

        let session = try TestSession(serviceDirectory: prefix.appendingPathComponent("share/dbus-1/services"))
        let added = try session.run([chime, "add", "Installed reminder", "--in", "1s", "--category", "reminder"])
        #expect(added.status == 0, "\(added)")
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.first?.contains("'Installed reminder'") == true, "\(calls)")
        #expect(calls.first?.contains("'complete'") == true, "\(calls)")
        let pid = try session.daemonPID()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(executable == chimed)
    }

    @Test func unitAutostartEntryManPagesAndCompletionsAreValid() throws {
        let prefix = try temporaryDirectory("prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let install = try make(["install", "PREFIX=\(prefix.path)"])
        #expect(install.status == 0, "\(install)")

        let entryPath = prefix.appendingPathComponent("etc/xdg/autostart/chimed.desktop")
        let entry = try runCommand(["desktop-file-validate", entryPath.path])
        #expect(entry.status == 0 && entry.stdout.isEmpty && entry.stderr.isEmpty, "\(entry)")
        let entryLines = try String(contentsOf: entryPath, encoding: .utf8).split(separator: "\n")
        #expect(entryLines.contains("X-systemd-skip=true"))
        // GeoClue knows chimed by the desktop id it gives (io.github.chime.Chime): an entry
        // of that name for its agent, and a drop-in allowing it.
        let appEntry = prefix.appendingPathComponent("share/applications/io.github.chime.Chime.desktop")
        let appCheck = try runCommand(["desktop-file-validate", appEntry.path])
        #expect(appCheck.status == 0 && appCheck.stdout.isEmpty && appCheck.stderr.isEmpty, "\(appCheck)")
        let dropIn = try String(contentsOf: prefix.appendingPathComponent("etc/geoclue/conf.d/90-chime.conf"), encoding: .utf8)
        #expect(dropIn.contains("\n[io.github.chime.Chime]\nallowed=true\nsystem=false\nusers=\n"), "\(dropIn)")
        // Under systemd the user unit starts chimed: the generator that makes units of
        // autostart entries must make none of this one, or the two race at login.
        let generator = "/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator"
        if FileManager.default.isExecutableFile(atPath: generator) {
            let units = try temporaryDirectory("generated-units")
            defer { try? FileManager.default.removeItem(at: units) }
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_DIRS"] = prefix.appendingPathComponent("etc/xdg").path
            environment["XDG_CONFIG_HOME"] = units.appendingPathComponent("no-config").path
            environment["SYSTEMD_LOG_LEVEL"] = "debug"
            let generated = try runCommand([generator, units.path], environment: environment)
            #expect(generated.status == 0 && generated.stderr.contains(entryPath.path), "\(generated)")
            #expect(filesUnder(units).isEmpty, "\(filesUnder(units)) \(generated)")
        }

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            // --user needs a runtime folder; the man pages are checked below, not in the
            // system's man path.
            let runtime = try temporaryDirectory("runtime")
            defer { try? FileManager.default.removeItem(at: runtime) }
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime.path
            let verify = try runCommand(["systemd-analyze", "--user", "verify", "--man=no",
                                         prefix.appendingPathComponent("lib/systemd/user/chimed.service").path],
                                        environment: environment)
            #expect(verify.status == 0 && verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify)")
        }

        for (page, name) in [("share/man/man1/chime.1", "chime"), ("share/man/man1/chimed.1", "chimed")] {
            let path = prefix.appendingPathComponent(page).path
            let lint = try runCommand(["groff", "-mdoc", "-ww", "-z", path])
            #expect(lint.status == 0 && lint.stderr.isEmpty, "\(page): \(lint)")
            let text = try runCommand(["groff", "-mdoc", "-Tutf8", "-P-cbou", path]).stdout
            #expect(text.contains("NAME") && text.contains(name) && text.contains("EXIT STATUS"), "\(page)")
            // Dated by the build (the last commit's day), in mdoc's form.
            let lines = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8).split(separator: "\n")
            #expect(lines.contains { $0.wholeMatch(of: /\.Dd [A-Z][a-z]+ [1-9][0-9]?, [0-9]{4}/) != nil }, "\(page)")
            // Section 1: both are a user's programs (chimed is a per-user daemon).
            #expect(lines.contains(".Dt \(name.uppercased()) 1"), "\(page)")
        }
        // chimed's page is written by hand, but not its date.
        let source = try String(contentsOf: packageRoot.appendingPathComponent("packaging/man/chimed.1.in"), encoding: .utf8)
        #expect(source.contains("\n.Dd @DATE@\n"))

        let bash = try runCommand(["bash", "-n", prefix.appendingPathComponent("share/bash-completion/completions/chime").path])
        #expect(bash.status == 0, "\(bash)")
        // The completion knows the subcommands: it came from the built chime.
        let completion = try String(contentsOf: prefix.appendingPathComponent("share/bash-completion/completions/chime"), encoding: .utf8)
        for subcommand in ["notify", "add", "list", "cancel"] { #expect(completion.contains(subcommand)) }
        // bash-completion sources it: a #! line would claim it is run (lintian warns of it).
        #expect(!completion.hasPrefix("#!"), "\(completion.prefix(40))")
    }

    @Test func installIntoAFolderThatIsNotWritableSaysSoAndWritesNothing() throws {
        let parent = try temporaryDirectory("readonly")
        defer {
            chmod(parent.path, 0o755)
            try? FileManager.default.removeItem(at: parent)
        }
        chmod(parent.path, 0o555)
        let tools = try RecordingTools()
        defer { tools.remove() }
        // root writes anywhere: the install runs as an ordinary user then.
        let user = geteuid() == 0 ? "nobody" : nil
        let install = try make(["install", "PREFIX=\(parent.path)/usr"], asUser: user, tools: tools)
        #expect(install.status != 0, "\(install)")
        let sentences = install.stderr.split(separator: "\n").filter { !$0.hasPrefix("make: ***") }
        #expect(sentences.count == 1, "\(install)")
        #expect(sentences.first?.contains("cannot write to \(parent.path)") == true, "\(install)")
        #expect(sentences.first?.contains("sudo make install") == true, "\(install)")
        #expect(filesUnder(parent).isEmpty)
        #expect(tools.recorded.isEmpty, "\(tools.recorded)")
    }

    /// `make install` never runs sudo (or apt) by itself: an ordinary user whose release
    /// build is out of date and whose machine lacks its Debian packages is told what to
    /// run, and one who owns the prefix gets the files.
    @Test func installAsAnOrdinaryUserRunsNoSudo() throws {
        let tools = try RecordingTools()
        defer { tools.remove() }
        let user = geteuid() == 0 ? "nobody" : nil

        // -W: as if Package.swift had just changed (a pull), so the build must run again.
        let stale = try make(["-W", "Package.swift", "install", "PREFIX=/usr/local"], asUser: user, build: true, tools: tools)
        #expect(stale.status != 0, "\(stale)")
        let sentences = stale.stderr.split(separator: "\n").filter { !$0.hasPrefix("make: ***") }
        #expect(sentences.count == 1, "\(stale)")
        #expect(sentences.first?.contains("apt-get install libdbus-1-dev") == true, "\(stale)")
        #expect(tools.recorded.isEmpty, "run by make install: \(tools.recorded)")

        let prefix = try temporaryDirectory("own-prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        if let user {
            let owner = try runCommand(["chown", user, prefix.path])
            #expect(owner.status == 0, "\(owner)")
        }
        let install = try make(["install", "PREFIX=\(prefix.path)"], asUser: user, tools: tools)
        #expect(install.status == 0, "\(install)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/chimed").path))
        #expect(tools.recorded.isEmpty, "run by make install: \(tools.recorded)")
    }
}
