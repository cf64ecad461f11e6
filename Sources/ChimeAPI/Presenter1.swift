import DBus

/// The interface an app exports to be asked before its notification shows: iOS's
/// `application:didReceiveLocalNotification:` for the app in front.
///
/// chimed calls `WillPresent(s id, a{sv} notification) → as` on the bus name that equals
/// the notification's `desktopEntry`, at the object path `org.freedesktop.Application`
/// uses (`org.example.App` → `/org/example/App`), never starting the app. The answer
/// lists what Chime still does (``words``); `[]` means the app handled it itself.
public enum Presenter1 {
    public static let name = try! InterfaceName("io.github.chime.Presenter1")
    public static let willPresent = try! MemberName("WillPresent")
    /// What an answer may list: the popup, its sound, its badge.
    public static let words = ["alert", "sound", "badge"]
    /// How long an app has to answer before the notification shows as usual: an app in
    /// front is running and answers in about a millisecond, and a popup later than a
    /// quarter of a second reads as late.
    public static let timeoutMilliseconds: Int32 = 250
}
