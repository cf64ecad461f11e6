import Foundation

/// xfce4-notifyd (GTK 3) on a private X server, with xfconf's defaults: no xfconfd runs,
/// and the private bus cannot start one, so the user's settings are never read or written.
/// It draws the default action as a button of its own; a click elsewhere on the popup only
/// dismisses it. Buttons are found by their label through AT-SPI (``GtkPopup``).
public final class XfceNotifydServer: GtkPopupServer {
    public static let name = "xfce4-notifyd"
    public static let packages = ["xfce4-notifyd", "xvfb", "xdotool", "at-spi2-core", "gir1.2-atspi-2.0", "python3-gi"]

    public let popup: GtkPopup

    public init(session: TestSession) throws {
        popup = try GtkPopup(session: session, command: ["/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"])
    }

    public func click(notification id: UInt32) throws {
        try popup.pressDefault(notification: id)
    }
}
