/// How places are written as text: `chime add --near LAT,LON --radius 150m` and
/// `ScheduleSimple`'s `region` option `LAT,LON,RADIUS`. One reader for both, so the CLI
/// and the daemon agree on what a radius means.
public enum PlaceText {
    /// The radius `chime add --near` uses without `--radius`, in metres: a shop or an
    /// office block, larger than the error of a typical Wi-Fi fix (20 to 50 m).
    public static let defaultRadius = 100.0

    /// The largest radius chimed takes, in metres (ChimeCore's `Region.maximumRadius`,
    /// which says why), for chime to refuse a larger one in the words the user typed.
    public static let maximumRadius = 100_000.0

    /// What to do when GeoClue refuses Chime, in one sentence: chimed logs it and
    /// `chime doctor` says it.
    public static let geoClueDenial = "GeoClue denied Chime its location, so region notifications wait: turn Location Services "
        + "on and allow Chime in GNOME Settings › Privacy › Location, or install GeoClue's drop-in for io.github.chime.Chime "
        + "(/etc/geoclue/conf.d/90-chime.conf, installed with Chime)."

    /// Metres from `150`, `150m`, `1.5km` (any case); nil when it is none of these.
    public static func metres(_ text: String) -> Double? {
        let lowered = text.lowercased().filter { $0 != " " }
        let (number, scale): (Substring, Double) =
            lowered.hasSuffix("km") ? (lowered.dropLast(2), 1000) : lowered.hasSuffix("m") ? (lowered.dropLast(), 1) : (lowered[...], 1)
        guard let value = Double(number), value.isFinite else { return nil }
        return value * scale
    }

    /// Latitude and longitude from `52.52,13.405`; nil when it is not two numbers.
    public static func coordinates(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.filter { $0 != " " } }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else { return nil }
        return (latitude, longitude)
    }

    /// `LAT,LON,RADIUS` (radius as ``metres(_:)`` reads it); nil when malformed.
    public static func region(_ text: String) -> (latitude: Double, longitude: Double, radius: Double)? {
        guard let comma = text.lastIndex(of: ","), let point = coordinates(String(text[..<comma])),
              let radius = metres(String(text[text.index(after: comma)...])) else { return nil }
        return (point.latitude, point.longitude, radius)
    }
}
