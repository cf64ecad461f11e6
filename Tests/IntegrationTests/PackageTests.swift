import Foundation
import Testing
import TestSupport

/// How to run a command as root here: directly, or through sudo that asks nothing.
let rootPrefix: [String] = geteuid() == 0 ? [] : ["sudo", "-n"]

func mayInstallPackages() -> Bool {
    guard let rootOK = try? runCommand(rootPrefix + ["true"]), rootOK.status == 0 else { return false }
    let status = try? runCommand(["dpkg-query", "-W", "-f", "${Status}", "chime"])
    return status?.stdout.contains("install ok installed") != true
}

/// `make deb` installed with dpkg on this machine, used through activation, and removed.
///
/// It changes the system, so it runs only where it may: as root (or with sudo that asks
/// no password) and where no chime package is installed already, which it would replace.
@Suite(.serialized, .timeLimit(.minutes(10)),
       .enabled(if: mayInstallPackages(), "needs root or password-less sudo, and no chime package installed"))
struct PackageTests {
    static let asRoot = rootPrefix

    /// Runs dpkg as root with the XDG data folders at their defaults: another test of this
    /// process may have pointed XDG_DATA_DIRS at a folder since removed, and the package's
    /// desktop entries run desktop-file-utils' trigger, which updates every folder named there.
    static func dpkg(_ arguments: [String]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_DIRS"] = nil
        environment["XDG_DATA_HOME"] = nil
        return try runCommand(asRoot + ["dpkg"] + arguments, environment: environment)
    }

    static let unitLink = "/etc/systemd/user/graphical-session.target.wants/chimed.service"
    static let copyright = "/usr/share/doc/chime/copyright"

    /// The installed copyright file is in Debian's machine-readable form and gives every
    /// file the licence of LICENSE, word for word.
    static func expectCopyrightSaysLicence() {
        guard let copyright = try? String(contentsOfFile: Self.copyright, encoding: .utf8),
              let licence = try? String(contentsOf: packageRoot.appendingPathComponent("LICENSE"), encoding: .utf8) else {
            Issue.record("\(Self.copyright) or LICENSE cannot be read")
            return
        }
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"), "\(copyright)")
        #expect(copyright.contains("\nFiles: *\nCopyright: 2026 The Chime authors\nLicense: Expat\n"), "\(copyright)")
        #expect(licence.hasPrefix("MIT License\n\nCopyright (c) 2026 The Chime authors\n"), "\(licence)")
        // A continuation line in the file starts with a space, and an empty one is " .".
        let terms = licence.range(of: "Permission is hereby granted").map { licence[$0.lowerBound...] } ?? ""
        let indented = terms.split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map { $0.isEmpty ? " ." : " " + $0 }.joined(separator: "\n")
        #expect(!indented.isEmpty && copyright.contains("\nLicense: Expat\n" + indented + "\n"), "\(copyright)")
    }

    @Test func packageInstallsFiresThroughActivationAndRemovesCleanly() throws {
        let build = try make(["deb"])
        #expect(build.status == 0, "\(build)")
        let deb = try #require(build.stdout.split(separator: "\n").last.map(String.init), "\(build)")
        #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), "\(build)")
        // The README tells people which file to give dpkg, without a second copy of the version.
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("sudo dpkg -i .build/chime_*.deb\n"))
        #expect(fnmatch("chime_*.deb", URL(fileURLWithPath: deb).lastPathComponent, 0) == 0, "\(deb)")
        #expect(URL(fileURLWithPath: deb).deletingLastPathComponent().lastPathComponent == ".build", "\(deb)")
        // Debian's checks find no error and no warning (the reasons for the exceptions are in
        // debian/chime.lintian-overrides). make deb ran them too; run again here, so that a
        // make deb that skipped them would not pass.
        let lint = try runCommand(["lintian", "--allow-root", "--fail-on", "error,warning", deb])
        let faults = lint.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        #expect(lint.status == 0 && faults.isEmpty, "\(lint)")

        let depends = try runCommand(["dpkg-deb", "--field", deb, "Depends"]).stdout
        for library in ["libglib2.0-0", "libsqlite3-0", "libc6"] {
            #expect(depends.contains(library + " ("), "Depends: \(depends)")
        }
        // libdbus is linked in from its archive, and nothing it would bring is needed.
        #expect(!depends.contains("libdbus") && !depends.contains("libsystemd"), "Depends: \(depends)")
        // Opened only when a server cannot play sounds: without it chimed stays silent.
        let recommends = try runCommand(["dpkg-deb", "--field", deb, "Recommends"]).stdout
        #expect(recommends.contains("libcanberra0"), "Recommends: \(recommends)")
        #expect(recommends.contains("libical3"), "chime import and export open it with dlopen: \(recommends)")
        #expect(recommends.contains("libicu72"), "chimed opens ICU for calendars such as the Chinese one: \(recommends)")
        #expect(!depends.contains("swift"), "Depends: \(depends)")
        // Packed relative relocations need glibc 2.36, which dh_shlibdeps does not see.
        if InstallTests.packsRelocations {
            #expect(depends.contains("libc6 (>= 2.36)"), "Depends: \(depends)")
        }

        // The package holds what `make install` installs for /usr, man pages compressed.
        let expected = try InstallTests.manifest(prefix: "/usr").map { $0.hasPrefix("/usr/share/man/") ? $0 + ".gz" : $0 }
        let listing = try runCommand(["dpkg-deb", "--contents", deb]).stdout
        let packaged = Set(listing.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("-") else { return nil }
            return line.split(separator: " ").last.map { String($0.dropFirst()) }
        })
        #expect(packaged.contains(Self.copyright), "the licence is shipped with the package")
        // lintian reads a package's overrides from the package itself.
        let debianFiles = ["/usr/share/doc/chime/README.md.gz", "/usr/share/doc/chime/changelog.gz", Self.copyright,
                           "/usr/share/lintian/overrides/chime"]
        #expect(packaged == Set(expected).union(debianFiles))
        // The package's version is chimed's; its changelog is made for it, not kept by hand.
        let version = try runCommand(["dpkg-deb", "--field", deb, "Version"]).stdout
        let built = try runCommand([binDirectory.appendingPathComponent("chimed").path, "--version"]).stdout
        #expect(built.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) == version.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(version) \(built)")

        let install = try Self.dpkg(["-i", deb])
        #expect(install.status == 0, "\(install)")
        defer { _ = try? Self.dpkg(["--purge", "chime"]) }
        let systemd = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemctl")
        if systemd {
            #expect(FileManager.default.fileExists(atPath: Self.unitLink), "the user unit is enabled for every user")
        }
        Self.expectCopyrightSaysLicence()

        do {
            let session = try TestSession(serviceDirectory: URL(fileURLWithPath: "/usr/share/dbus-1/services"))
            let version = try session.run(["/usr/bin/chime", "--version"])
            let built = try session.run(["chime", "--version"])
            #expect(version.status == 0 && version.stdout == built.stdout, "\(version)")
            let added = try session.run(["/usr/bin/chime", "add", "Packaged reminder", "--in", "1s"])
            #expect(added.status == 0, "\(added)")
            let calls = try session.waitForNotifyCalls(1)
            #expect(calls.first?.contains("'Packaged reminder'") == true, "\(calls)")
            let pid = try session.daemonPID()
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") == "/usr/bin/chimed")
        }

        let remove = try Self.dpkg(["--remove", "chime"])
        #expect(remove.status == 0, "\(remove)")
        // Only the conffiles (everything under /etc) stay until purge (Debian policy), inert without chimed.
        for path in expected where !path.hasPrefix("/etc/") {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) left after dpkg --remove")
        }
        // The user unit is gone; whether it was enabled is kept (under /etc) until purge.
        #expect(!FileManager.default.fileExists(atPath: Self.unitLink))
        let purge = try Self.dpkg(["--purge", "chime"])
        #expect(purge.status == 0, "\(purge)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/xdg/autostart/chimed.desktop"))
        #expect(!FileManager.default.fileExists(atPath: "/etc/geoclue/conf.d/90-chime.conf"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: Self.unitLink)) == nil, "\(Self.unitLink) left after purge")
        let status = try runCommand(["dpkg-query", "-W", "-f", "${Status}", "chime"])
        #expect(!status.stdout.contains("installed") || status.stdout.contains("not-installed"), "\(status)")
    }

    /// A package lintian finds a warning in fails make deb with lintian's words, and is not
    /// put where `dpkg -i` would take it.
    @Test func lintianWarningFailsMakeDeb() throws {
        let tools = try temporaryDirectory("lintian")
        defer { try? FileManager.default.removeItem(at: tools) }
        let lintian = tools.appendingPathComponent("lintian")
        try "#!/bin/sh\necho 'W: chime: bash-completion-with-hashbang'\nexit 2\n".write(to: lintian, atomically: true, encoding: .utf8)
        chmod(lintian.path, 0o755)
        let out = try temporaryDirectory("deb-out")
        defer { try? FileManager.default.removeItem(at: out) }

        let build = try make(["deb", "OUT_DIR=\(out.path)"], pathFirst: tools)
        #expect(build.status != 0, "\(build)")
        #expect(build.stderr.contains("W: chime: bash-completion-with-hashbang"), "\(build)")
        #expect(build.stderr.contains("lintian does not pass the package"), "\(build)")
        #expect(filesUnder(out).isEmpty, "\(filesUnder(out))")
    }
}
