"""The same service as trivial-service.c in Python (dbus-python on a GLib loop, as
python-dbusmock runs): the activation benchmark's figure for an interpreted service."""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(sys.argv[1], bus, do_not_queue=True)
GLib.MainLoop().run()
