import Foundation

/// GNOME's notification-daemon (GTK 3) on a private X server. A click on the popup's text
/// invokes the default action (the popup draws no button for it); buttons are found by
/// their label through AT-SPI and clicked with the pointer (``GtkPopup``).
public final class NotificationDaemonServer: GtkPopupServer {
    public static let name = "notification-daemon"
    public static let packages = ["notification-daemon", "xvfb", "xdotool", "at-spi2-core", "gir1.2-atspi-2.0", "python3-gi"]

    public let popup: GtkPopup

    public init(session: TestSession) throws {
        popup = try GtkPopup(session: session, command: ["/usr/lib/notification-daemon/notification-daemon"])
    }

    public func click(notification id: UInt32) throws {
        try popup.clickSummary(notification: id)
    }
}
