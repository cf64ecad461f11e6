import CDesktopLibs
import ChimeCore
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

    init(logger: Logger) {
        self.logger = logger
    }

    deinit {
        chime_sound_close(context)
    }

    /// Whether libcanberra can be set up: without it, local sounds stay silent.
    var isAvailable: Bool { open() != nil }

    /// The libcanberra context, set up on first use; nil (said once in the log) when
    /// libcanberra cannot be.
    private func open() -> UnsafeMutableRawPointer? {
        guard !opened else { return context }
        opened = true
        var status: Int32 = 0
        context = chime_sound_open("Chime", "io.github.chime.Chime", &status)
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
        guard let context = open() else { return }
        let property: (key: String, value: String)
        switch sound {
        case .serverDefault, .none: return
        case .themed(let name): property = ("event.id", name)
        case .file(let path): property = ("media.filename", path)
        }
        let status = chime_sound_play(context, property.key, property.value, "Chime notification \(id)")
        if status == 0 {
            played += 1
            logger.info("Played the sound of \(id) through libcanberra.")
        } else {
            logger.warning("libcanberra could not play the sound of \(id): \(Self.describe(status)).")
        }
    }

    private static func describe(_ status: Int32) -> String {
        chime_sound_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }
}
