import Localization

extension Diagnosis {
    /// Warns when chimed plays sounds itself for this server and the last one failed:
    /// libcanberra sets up without an audio device and fails only when it plays.
    mutating func noteSilentSounds(serverCapabilities: [String]) {
        guard !serverCapabilities.contains("sound"), let result = daemon?.lastLocalSound, result != "played" else { return }
        // TRANSLATORS: %1$s is libcanberra's error message, in English (such as "IO error").
        warnings.append(Note { localized("The last sound chimed played itself failed (%1$s): sounds stay silent while the notification server plays none; check the audio device.", result) })
    }
}
