import Localization

extension Diagnosis {
    /// What a known notification server does differently from what the specification
    /// lets a client expect, and what chimed does about it: the server matrix
    /// (`make test-servers`, the compatibility table of docs/troubleshooting.md) saw each
    /// of these, and `ServerMatrixTests` checks the popup ones against what each server
    /// really does.
    struct Quirk {
        /// A stable name for scripts (`chime doctor --json`).
        var key: String
        var note: Note
    }

    /// The quirks of the server that calls itself `name` in GetServerInformation; none for
    /// a server the matrix has not run (its capabilities still say what it lacks).
    static func quirks(ofServerNamed name: String?) -> [Quirk] {
        let keptAfterButton = Quirk(key: "keeps-popup-after-button", note: Note {
            localized("it keeps a popup on screen after a button: chimed closes it, and ignores a second press on it")
        })
        let keptAfterClick = Quirk(key: "keeps-popup-after-click", note: Note {
            localized("it keeps a popup on screen after a click: chimed closes it")
        })
        let closedComesBack = Quirk(key: "shows-closed-popup-again", note: Note {
            localized("a popup closed while chimed was stopped comes back when chimed starts: the server shows a closed popup again when asked to replace it")
        })
        switch name {
        case "dunst":
            return [
                Quirk(key: "buttons-in-menu", note: Note {
                    localized("it shows buttons in its context menu ('dunstctl context', or a middle click), not on the popup")
                }),
                keptAfterButton,
            ]
        case "mako":
            return [
                Quirk(key: "buttons-in-menu", note: Note {
                    localized("it draws no buttons: they are chosen with 'makoctl menu' or a binding in its configuration")
                }),
                keptAfterButton, keptAfterClick,
            ]
        case "gnome-shell":
            return [
                Quirk(key: "ignores-expire-timeout", note: Note {
                    localized("it ignores expire_timeout: chimed closes an expiring notification itself when its time is up")
                }),
                Quirk(key: "at-most-three-buttons", note: Note {
                    localized("it shows at most three buttons: chimed sends a destructive button last, where it is the one left out")
                }),
                Quirk(key: "update-loses-buttons", note: Note {
                    localized("a popup updated in place loses its buttons: a chimed started again posts the popups it takes over afresh")
                }),
            ]
        case "Notification Daemon":
            return [Quirk(key: "default-action-on-text", note: Note {
                localized("it draws no button for the default action: a click on the popup's text invokes it")
            })]
        case "Xfce Notify Daemon":
            return [
                Quirk(key: "default-action-as-button", note: Note {
                    localized("it draws the default action as a button of its own; a click elsewhere only dismisses the popup")
                }),
                Quirk(key: "closes-resident-popup", note: Note {
                    localized("it takes a popup away after a press even when it is resident")
                }),
                closedComesBack,
            ]
        case "lxqt-notificationd":
            return [
                keptAfterButton, keptAfterClick,
                Quirk(key: "drops-duplicates", note: Note {
                    localized("it does not show a notification whose summary and body equal one on screen, though it answers with a new id")
                }),
                Quirk(key: "buttons-as-list", note: Note {
                    localized("it shows four or more buttons as a drop-down list with an OK button")
                }),
                closedComesBack,
            ]
        case "Plasma":
            return [keptAfterButton, keptAfterClick, closedComesBack]
        default:
            return []
        }
    }
}
