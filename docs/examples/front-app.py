#!/usr/bin/python3
"""An app in front, for Chime: it takes its own notifications instead of a popup.

It owns the bus name of its desktop entry id, org.example.Front, and exports
io.github.chime.Presenter1 at /org/example/Front (the org.freedesktop.Application
path). When a notification whose desktopEntry is org.example.Front fires, chimed calls
WillPresent(id, notification) and does only what the answer lists: alert, sound,
badge. This app prints the notification and answers with the words on its command
line; none means it handled the notification itself: no popup, no sound, no badge.

    docs/examples/front-app.py          # handles them all itself
    docs/examples/front-app.py sound    # no popup, but Chime plays the sound
"""
import sys

from gi.repository import Gio, GLib

APP_ID = "org.example.Front"
INTERFACE = Gio.DBusNodeInfo.new_for_xml("""<node>
  <interface name="io.github.chime.Presenter1">
    <method name="WillPresent">
      <arg name="id" type="s" direction="in"/>
      <arg name="notification" type="a{sv}" direction="in"/>
      <arg name="options" type="as" direction="out"/>
    </method>
  </interface>
</node>""").interfaces[0]
still_do = sys.argv[1:]


def will_present(connection, sender, path, interface, method, parameters, invocation):
    notification_id, notification = parameters.unpack()
    print(f"In front, so shown here: {notification['title']} ({notification_id})", flush=True)
    invocation.return_value(GLib.Variant("(as)", (still_do,)))


def in_front(connection, name):
    print(f"{name} is in front; Chime still does: {' '.join(still_do) or 'nothing'}", flush=True)


bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.register_object("/" + APP_ID.replace(".", "/"), INTERFACE, will_present)
Gio.bus_own_name_on_connection(bus, APP_ID, Gio.BusNameOwnerFlags.NONE, in_front, None)
GLib.MainLoop().run()
