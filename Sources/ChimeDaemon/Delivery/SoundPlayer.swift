import CDesktopLibs
import ChimeAPI
import ChimeCore
import Glibc
import Logging

/// Plays a notification's sound when the server cannot (no `sound` capability: dunst,
/// KDE Plasma, mako), through libcanberra and the freedesktop sound theme.
///
/// libcanberra is loaded at the first sound, not at start-up (see CDesktopLibs), and
/// played through its property-list call (the usual one is variadic, which Swift cannot
/// call). Playback is asynchronous inside libcanberra: nothing here waits.
final class SoundPlayer {
    private var context: UnsafeMutableRawPointer?
    private var opened = false
    private let logger: Logger
    /// How many sounds were handed to libcanberra, for tests and logs.
    private(set) var played = 0
    /// How the last sound went: "played", or why not (for `chime doctor`: libcanberra
    /// sets up fine on a machine without an audio device, and fails only when it plays).
    private(set) var lastResult: String?
    /// The sound file handed over last, kept open until the next one (see ``play(_:for:)``).
    private var lastFile: Int32 = -1

    /// The largest sound file played: a notification sound is seconds long, a few
    /// hundred KiB as Ogg, under 2 MiB as WAV.
    static let fileSizeLimit = 16 * 1024 * 1024

    init(logger: Logger) {
        self.logger = logger
    }

    deinit {
        chime_sound_close(context)
        if lastFile >= 0 { close(lastFile) }
    }

    /// Whether libcanberra can be set up: without it, local sounds stay silent.
    var isAvailable: Bool { open() != nil }

    /// The libcanberra context, set up on first use; nil (said once in the log) when
    /// libcanberra cannot be.
    private func open() -> UnsafeMutableRawPointer? {
        guard !opened else { return context }
        opened = true
        var status: Int32 = 0
        context = chime_sound_open("Chime", ChimeBus.name.rawValue, &status)
        if context == nil {
            logger.warning("libcanberra is unavailable (\(Self.describe(status))); sounds the server cannot play stay silent.")
        }
        return context
    }

    /// Plays `sound` unless it is silence or the server's own default.
    func play(_ sound: Sound, for id: String) {
        switch sound {
        case .serverDefault, .none: return
        case .themed, .file: break
        }
        var file: Int32 = -1
        if case .file(let path) = sound {
            switch BoundedFile.open(path, limit: Self.fileSizeLimit) {
            case .success(let fd): file = fd
            case .failure(let refusal):
                logger.warning("The sound file \(path) of \(id) \(refusal); no sound.")
                return
            }
        }
        guard let context = open() else {
            if file >= 0 { close(file) }
            lastResult = "libcanberra is unavailable"
            return
        }
        let property: (key: String, value: String)
        switch sound {
        case .serverDefault, .none: return
        case .themed(let name): property = ("event.id", name)
        // libcanberra opens the file itself, on this thread and so on the loop: given the
        // name, it would open whatever has the name by then, a FIFO as well. Given the
        // descriptor checked above (through /proc), it opens that very file. The
        // descriptor stays open until the next sound, for a backend that opens it later
        // from its own thread (GStreamer).
        case .file: property = ("media.filename", "/proc/self/fd/\(file)")
        }
        if file >= 0 {
            if lastFile >= 0 { close(lastFile) }
            lastFile = file
        }
        let status = chime_sound_play(context, property.key, property.value, "Chime notification \(id)")
        if status == 0 {
            played += 1
            lastResult = "played"
            logger.info("Played the sound of \(id) through libcanberra.")
        } else {
            lastResult = Self.describe(status)
            logger.warning("libcanberra could not play the sound of \(id): \(Self.describe(status)).")
        }
    }

    private static func describe(_ status: Int32) -> String {
        chime_sound_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }
}
