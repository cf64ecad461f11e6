import FoundationEssentials
import Glibc

/// A circle on the Earth (CLCircularRegion): a centre, a radius in metres and a name.
public struct Region: Hashable, Sendable, Codable {
    /// The largest radius accepted, in metres.
    ///
    /// 100 km: past it a "place" is a part of a country, not somewhere a person means by
    /// "near"; and the distance is computed on a sphere (haversine), whose error against
    /// the real ellipsoid (up to 0.5 %) stays under the accuracy of the fixes GeoClue
    /// gives from Wi-Fi and IP addresses only while the circle is this small.
    public static let maximumRadius: Double = 100_000
    /// The Earth's mean radius (IUGG), in metres.
    static let earthRadius: Double = 6_371_008.8

    /// Degrees north, -90 to 90.
    public var latitude: Double
    /// Degrees east, -180 to 180.
    public var longitude: Double
    /// Metres, more than 0 and at most ``maximumRadius``.
    public var radius: Double
    /// The caller's name for it (CLRegion's `identifier`); may be empty.
    public var identifier: String

    /// A circle, checked: each bad value is named by its key in the `region` dictionary.
    public init(latitude: Double, longitude: Double, radius: Double, identifier: String = "") throws(FieldError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw FieldError("region.latitude", "\(latitude) is outside -90 to 90 degrees.")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw FieldError("region.longitude", "\(longitude) is outside -180 to 180 degrees.")
        }
        guard radius.isFinite, radius > 0 else { throw FieldError("region.radius", "must be more than 0 metres, not \(radius).") }
        guard radius <= Self.maximumRadius else {
            throw FieldError("region.radius", "\(radius) m is more than the limit of \(Int(Self.maximumRadius / 1000)) km.")
        }
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.identifier = identifier
    }

    /// The great-circle distance in metres from the centre to a point (haversine).
    public func distance(toLatitude latitude: Double, longitude: Double) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (latitude - self.latitude) * radians
        let dLongitude = (longitude - self.longitude) * radians
        let a = pow(sin(dLatitude / 2), 2)
            + cos(self.latitude * radians) * cos(latitude * radians) * pow(sin(dLongitude / 2), 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }

    /// Where a fix puts the user, with hysteresis.
    ///
    /// The fix is a circle too (its accuracy is a radius): only when that whole circle is
    /// inside the region (distance + accuracy ≤ radius) is the user inside, and only when
    /// it lies wholly outside (distance − accuracy > radius) outside. A fix whose circle
    /// straddles the edge keeps `previous`, so one that wobbles across the boundary does
    /// not fire twice; a coarse fix (a city-level guess) decides nothing.
    public func presence(of fix: Fix, previous: Presence?) -> Presence? {
        let distance = distance(toLatitude: fix.latitude, longitude: fix.longitude)
        let accuracy = fix.accuracy.isFinite ? max(0, fix.accuracy) : .infinity
        if distance + accuracy <= radius { return .inside }
        if distance - accuracy > radius { return .outside }
        return previous
    }
}

/// A position from GeoClue: where, and how far off it may be.
public struct Fix: Hashable, Sendable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// The radius in metres the true position lies within (GeoClue's `Accuracy`).
    public var accuracy: Double

    /// A fix at a point, good to `accuracy` metres.
    public init(latitude: Double, longitude: Double, accuracy: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }
}
