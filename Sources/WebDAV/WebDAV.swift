// HTTP and WebDAV for CalDAV calendars.
