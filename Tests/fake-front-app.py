#!/usr/bin/python3
"""A misbehaving app in front, for AppInFrontTests: owns NAME, exports
io.github.chime.Presenter1 and answers WillPresent as told, printing one line per call.

    fake-front-app.py NAME answer WORD...   answers (as) with the words
    fake-front-app.py NAME late SECONDS     answers ['alert'] that much later
    fake-front-app.py NAME string           answers (s) 'alert' instead of (as)
    fake-front-app.py NAME error            answers with an error
    fake-front-app.py NAME kill             kills the caller with SIGKILL at the first
                                            call, without answering; answers the next
                                            ones ['alert', 'sound', 'badge']
"""
import os
import signal
import sys

from gi.repository import Gio, GLib

name, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
XML = """<node><interface name="io.github.chime.Presenter1"><method name="WillPresent">
<arg type="s" direction="in"/><arg type="a{sv}" direction="in"/><arg type="as" direction="out"/>
</method></interface></node>"""
calls = 0


def will_present(connection, sender, path, interface, method, parameters, invocation):
    global calls
    calls += 1
    notification_id, notification = parameters.unpack()
    print(f"WillPresent {notification_id} {notification['title']}", flush=True)
    if mode == "answer":
        invocation.return_value(GLib.Variant("(as)", (args,)))
    elif mode == "late":
        GLib.timeout_add(int(float(args[0]) * 1000),
                         lambda: invocation.return_value(GLib.Variant("(as)", (["alert"],))) and False)
    elif mode == "string":
        # GDBus checks replies against the introspection; send the raw message instead.
        reply = Gio.DBusMessage.new_method_reply(invocation.get_message())
        reply.set_body(GLib.Variant("(s)", ("alert",)))
        connection.send_message(reply, Gio.DBusSendMessageFlags.NONE)
    elif mode == "error":
        invocation.return_dbus_error("org.example.Front.Error.Broken", "Something broke.")
    elif mode == "kill" and calls == 1:
        pid = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                   "GetConnectionUnixProcessID", GLib.Variant("(s)", (sender,)),
                                   GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        os.kill(pid, signal.SIGKILL)
        print(f"killed {pid}", flush=True)
    else:
        invocation.return_value(GLib.Variant("(as)", (["alert", "sound", "badge"],)))


bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.register_object("/" + name.replace(".", "/").replace("-", "_"),
                    Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], will_present)
Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE,
                               lambda *_: print("owned", flush=True), None)
GLib.MainLoop().run()
