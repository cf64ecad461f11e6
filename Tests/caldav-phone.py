#!/usr/bin/env python3
"""The "phone" of the CalDAV tests: another device on the same account, through the PyPI
caldav client (a client nobody on this project wrote).

    caldav-phone.py URL USER PASSWORD make NAME [COMPONENT,...]  -> prints the new calendar's URL
    caldav-phone.py URL USER PASSWORD put CALENDAR_URL   (an iCalendar text on stdin)
    caldav-phone.py URL USER PASSWORD get CALENDAR_URL UID
    caldav-phone.py URL USER PASSWORD complete CALENDAR_URL UID
    caldav-phone.py URL USER PASSWORD delete CALENDAR_URL UID
"""
import sys

import caldav


def main():
    url, user, password, command, *rest = sys.argv[1:]
    client = caldav.DAVClient(url=url, username=user, password=password, require_tls=False)
    if command == "make":
        components = rest[1].split(",") if len(rest) > 1 else None
        calendar = client.principal().make_calendar(name=rest[0], cal_id=rest[0], supported_calendar_component_set=components)
        print(str(calendar.url))
        return
    calendar = client.calendar(url=rest[0])
    if command == "put":
        text = sys.stdin.read()
        if "BEGIN:VTODO" in text:
            calendar.add_todo(text)
        else:
            calendar.add_event(text)
        return
    item = calendar.object_by_uid(rest[1])
    if command == "get":
        sys.stdout.write(item.data)
    elif command == "complete":
        item.load()
        item.complete()
    elif command == "delete":
        item.delete()
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
