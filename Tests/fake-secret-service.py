#!/usr/bin/python3
"""A Secret Service (org.freedesktop.secrets) for PasswordsTests that behaves as told,
printing one line per method call it receives.

    fake-secret-service.py silent
        owns the name and never answers any call
    fake-secret-service.py locked PROMPT URL USER PASSWORD
        one collection, the "default" alias, locked, holding one item with the
        attributes of a Chime calendar; Unlock returns a prompt, and the prompt
        PROMPT = complete   completes and unlocks the collection
        PROMPT = dismiss    completes as dismissed
        PROMPT = never      never completes (Dismiss is printed when called)
        CreateItem stores an item (printing its label) once the collection is unlocked.
    fake-secret-service.py empty
        no collection at all: no "default" alias, nothing found
"""
import sys

from gi.repository import Gio, GLib

mode = sys.argv[1]
SERVICE = "/org/freedesktop/secrets"
COLLECTION = "/org/freedesktop/secrets/collection/login"
ITEM = COLLECTION + "/1"
PROMPT = "/org/freedesktop/secrets/prompt/1"
SESSION = "/org/freedesktop/secrets/session/1"

bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
# What the pending prompt unlocks: the objects of the Unlock call that made it.
state = {"locked": True, "unlocking": []}
items = {}
if mode == "locked":
    prompt_mode, url, user, password = sys.argv[2:6]
    items[ITEM] = ({"xdg:schema": "io.github.chime.CalDAV", "url": url, "user": user}, password.encode())


def reply(message, signature=None, values=()):
    answer = Gio.DBusMessage.new_method_reply(message)
    if signature:
        answer.set_body(GLib.Variant(signature, values))
    bus.send_message(answer, Gio.DBusSendMessageFlags.NONE)


def fail(message, name, text):
    bus.send_message(Gio.DBusMessage.new_method_error_literal(message, name, text), Gio.DBusSendMessageFlags.NONE)


def complete(dismissed):
    if not dismissed:
        state["locked"] = False
    unlocked = [] if dismissed else state["unlocking"]
    bus.emit_signal(None, PROMPT, "org.freedesktop.Secret.Prompt", "Completed",
                    GLib.Variant("(bv)", (dismissed, GLib.Variant("ao", unlocked))))
    return False


def handle(message):
    member = message.get_member()
    body = message.get_body()
    args = body.unpack() if body is not None else ()
    print(member, flush=True)
    if member == "OpenSession":
        if args[0] != "plain":
            fail(message, "org.freedesktop.DBus.Error.NotSupported", "Only plain sessions are faked.")
            return False
        reply(message, "(vo)", (GLib.Variant("s", ""), SESSION))
    elif member == "SearchItems":
        found = [path for path, (attributes, _) in items.items()
                 if all(attributes.get(key) == value for key, value in args[0].items())]
        reply(message, "(aoao)", ([], found) if state["locked"] else (found, []))
    elif member == "Unlock":
        if state["locked"]:
            state["unlocking"] = list(args[0])
            reply(message, "(aoo)", ([], PROMPT))
        else:
            reply(message, "(aoo)", (list(args[0]), "/"))
    elif member == "Prompt":
        reply(message)
        if prompt_mode in ("complete", "dismiss"):
            GLib.timeout_add(100, complete, prompt_mode == "dismiss")
    elif member == "Dismiss":
        reply(message)
    elif member == "GetSecrets":
        if state["locked"]:
            fail(message, "org.freedesktop.Secret.Error.IsLocked", "The collection is locked.")
            return False
        secrets = {path: (SESSION, b"", items[path][1], "text/plain") for path in args[0] if path in items}
        reply(message, "(a{o(oayays)})", (secrets,))
    elif member == "ReadAlias":
        reply(message, "(o)", (COLLECTION if args[0] == "default" and mode == "locked" else "/",))
    elif member == "CreateItem":
        if state["locked"]:
            fail(message, "org.freedesktop.Secret.Error.IsLocked", "The collection is locked.")
            return False
        properties, secret, replace = args
        attributes = properties["org.freedesktop.Secret.Item.Attributes"]
        print("label", properties["org.freedesktop.Secret.Item.Label"], flush=True)
        path = next((path for path, (known, _) in items.items() if replace and known == attributes),
                    f"{COLLECTION}/{len(items) + 1}")
        items[path] = (attributes, bytes(secret[2]))
        reply(message, "(oo)", (path, "/"))
    elif member == "Close":
        reply(message)
    else:
        fail(message, "org.freedesktop.DBus.Error.UnknownMethod", f"{member} is not faked.")
    return False


def incoming(connection, message, is_incoming):
    if not is_incoming or message.get_message_type() != Gio.DBusMessageType.METHOD_CALL:
        return message
    if mode == "silent":
        print(message.get_member(), flush=True)
        return None
    # Filters run on GDBus's worker thread: the state is kept by the main loop only.
    GLib.idle_add(handle, message)
    return None


bus.add_filter(incoming)
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
              GLib.Variant("(su)", ("org.freedesktop.secrets", 4)), None, Gio.DBusCallFlags.NONE, -1, None)
GLib.MainLoop().run()
