import ChimeCore

extension Presenter {
    /// The alert as the server is to show it: the buttons of its context, destructive last.
    ///
    /// No server is known to mark a destructive button: GNOME Shell, KDE Plasma, dunst,
    /// mako and xfce4-notifyd draw every action alike (the spec defines no hint for it), and
    /// a server that shows fewer buttons than it is sent drops the last ones (GNOME Shell
    /// keeps three: `MAX_NOTIFICATION_BUTTONS` in its messageTray.js), so a destructive one
    /// going last is what can be done.
    func shownOnServer(_ alert: Alert) -> Alert {
        let alert = settings.texts.translate(alert)
        return alert.shown(in: ActionContext(for: alert), category: settings.shownCategory(of: alert))
    }
}
