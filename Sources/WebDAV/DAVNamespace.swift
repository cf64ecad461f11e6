/// The XML namespaces of WebDAV, CalDAV and the extensions calendar servers share.
public enum DAVNamespace {
    /// WebDAV (RFC 4918), sync-collection (RFC 6578) and current-user-principal (RFC 5397).
    public static let dav = "DAV:"
    /// CalDAV (RFC 4791).
    public static let calDAV = "urn:ietf:params:xml:ns:caldav"
    /// CardDAV (RFC 6352), whose preconditions an error body may name.
    public static let cardDAV = "urn:ietf:params:xml:ns:carddav"
    /// Apple's CalendarServer extensions: getctag.
    public static let calendarServer = "http://calendarserver.org/ns/"
    /// Apple's iCal properties: calendar-color, calendar-order.
    public static let appleICal = "http://apple.com/ns/ical/"
}
