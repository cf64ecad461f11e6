"""A CalDAV server that misbehaves on command, for CalDAVHostileTests.

One calendar collection, /cal/, held in memory, for the user alice (password secret, Basic):
enough of RFC 4791 and RFC 6578 for chimed's sync (PROPFIND Depth 0 and 1, REPORT
sync-collection and calendar-multiget, GET, PUT with If-Match). Prints "PORT <n>" once
listening, and appends one JSON line per request to the --log file (method, path, header
fields, body up to 64 KiB, the kind of request and the fault it was answered with), written
before the answer goes out.

Driven by POST /_control with a JSON object (never logged; answers JSON):
  {"put": {"name": N, "text": T, "padTo": BYTES, "alarms": COUNT}}
        stores item N (a new ETag, a change sync-collection reports). padTo adds X-PAD
        lines before the item's last END until the text is that large; alarms adds that
        many VALARMs there.
  {"delete": N}        removes item N
  {"get": N}           answers {"text": ..., "etag": ...} (null when there is no such item)
  {"faults": [F, ...]} replaces the faults
  {"privileges": [P, ...]}
                       the collection's current-user-privilege-set (local names of DAV:
                       privileges, such as "read"); a PUT without "write", "write-content"
                       or "all" among them answers 403. Absent: none is given, and every
                       PUT may write.
Each fault F: {"on": KIND, "do": ACTION, "times": COUNT (default: every time), ...}; a request
takes the first fault of its kind with times left. KIND is sync (REPORT sync-collection),
multiget (REPORT calendar-multiget), propfind, get, put or any. ACTION:
  laughs     a 207 whose body declares nested entities (billion laughs)
  huge       a 207 of "bytes" bytes (default 1 GiB), streamed in chunks, never held whole
  trickle    a 207 that claims a large body and sends one byte a second, for ever
  redirect   a "status" (default 307) to "to" + the request's path
  status     answers "status" with "headers" ({name: value}) and "body"
  slow       waits "seconds", then answers as usual
  token      403 with the DAV:valid-sync-token precondition, to a sync that sends a token
  edit       (put) stores the item changed first ("summary" replaces SUMMARY, "add" is a
             line added to the item), then answers 412
  empty      the collection answers as if it held no item (sync: each item reported removed)
  forget     (sync) answers a token as if none were sent: every item, no deletion (as
             DAViCal answers a token it does not know)

Usage: hostile-caldav.py --log FILE [--host HOST]
"""
import base64
import json
import re
import sys
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape

USER, PASSWORD = "alice", "secret"
COLLECTION = "/cal/"
TOKEN_PREFIX = "http://hostile.invalid/sync/"
DAV, CALDAV = "DAV:", "urn:ietf:params:xml:ns:caldav"

lock = threading.Lock()
items = {}        # name -> (text, etag)
changes = []      # (sequence, name), in order
sequence = 0
faults = []
privileges = None  # None: not given
log_file = None


def change(name):
    """Records a change of item `name`; its new ETag."""
    global sequence
    sequence += 1
    changes.append((sequence, name))
    return '"%d"' % sequence


def inside(text):
    """Where a line goes into the item of `text`: before its first alarm or its end."""
    found = [i for i in (text.find("BEGIN:VALARM"), text.find("END:VTODO"), text.find("END:VEVENT")) if i >= 0]
    return min(found) if found else -1


def padded(text, pad_to, alarms):
    """`text` with `alarms` VALARMs and X-PAD lines up to `pad_to` bytes inside its item."""
    end = inside(text)
    if end < 0:
        return text
    extra = "".join("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:%d\r\nTRIGGER:-PT%dM\r\nEND:VALARM\r\n"
                    % (i, i % 600 + 1) for i in range(alarms))
    missing = pad_to - len(text.encode()) - len(extra)
    line = "X-PAD:" + "x" * 66 + "\r\n"
    if missing > 0:
        extra += line * (missing // len(line) + 1)
    return text[:end] + extra + text[end:]


def multistatus(responses, token=None):
    body = '<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">'
    body += "".join(responses)
    if token is not None:
        body += "<d:sync-token>%s</d:sync-token>" % escape(token)
    return (body + "</d:multistatus>\n").encode()


def propstat(href, props):
    return ("<d:response><d:href>%s</d:href><d:propstat><d:prop>%s</d:prop>"
            "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>" % (escape(href), props))


def gone(href):
    return "<d:response><d:href>%s</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>" % escape(href)


def xml_text(text):
    # XML reads a raw CR as LF: written as a reference, iCalendar's CRLF arrives whole.
    return escape(text).replace("\r", "&#13;")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.read_body()
        if self.path != "/_control":
            return self.answer(405, b"")
        self.control(json.loads(body or b"{}"))

    def do_GET(self):
        self.handle_dav()

    def do_PUT(self):
        self.handle_dav()

    def do_PROPFIND(self):
        self.handle_dav()

    def do_REPORT(self):
        self.handle_dav()

    def do_DELETE(self):
        self.handle_dav()

    def do_OPTIONS(self):
        self.handle_dav()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answer_json(self, value):
        self.answer(200, json.dumps(value).encode(), [("Content-Type", "application/json")])

    # MARK: - Control

    def control(self, command):
        global faults
        with lock:
            if "put" in command:
                put = command["put"]
                text = padded(put["text"], put.get("padTo", 0), put.get("alarms", 0))
                items[put["name"]] = (text, change(put["name"]))
                return self.answer_json({"etag": items[put["name"]][1], "bytes": len(text.encode())})
            if "delete" in command:
                items.pop(command["delete"], None)
                change(command["delete"])
                return self.answer_json({})
            if "get" in command:
                found = items.get(command["get"])
                return self.answer_json(found and {"text": found[0], "etag": found[1]})
            if "faults" in command:
                faults = [dict(fault) for fault in command["faults"]]
                return self.answer_json({})
            if "privileges" in command:
                global privileges
                privileges = list(command["privileges"])
                return self.answer_json({})
        self.answer(400, b"unknown command")

    # MARK: - CalDAV

    def kind(self, body):
        if self.command == "REPORT":
            if b"sync-collection" in body:
                return "sync"
            if b"calendar-multiget" in body:
                return "multiget"
            return "report"
        return self.command.lower()

    def take_fault(self, kind, body):
        with lock:
            for fault in faults:
                if fault.get("on") not in (kind, "any") or fault.get("times", -1) == 0:
                    continue
                if fault["do"] in ("token", "forget") and not self.sent_token(body):
                    continue
                if fault.get("times", -1) > 0:
                    fault["times"] -= 1
                return dict(fault)
        return None

    @staticmethod
    def sent_token(body):
        found = re.search(rb"<[^>]*sync-token[^>]*>([^<]+)<", body)
        return found.group(1).decode().strip() if found else None

    def record(self, kind, body, fault):
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {name: value for name, value in self.headers.items()},
            "body": body[:65536].decode("utf-8", "replace"),
            "kind": kind,
            "fault": fault and fault["do"],
            "time": time.time(),
        }
        with lock:
            log_file.write(json.dumps(entry) + "\n")
            log_file.flush()

    def handle_dav(self):
        body = self.read_body()
        kind = self.kind(body)
        fault = self.take_fault(kind, body)
        self.record(kind, body, fault)
        if self.headers.get("Authorization") != "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode():
            return self.answer(401, b"", [("WWW-Authenticate", 'Basic realm="hostile"')])
        if fault:
            action = fault["do"]
            if action == "slow":
                time.sleep(fault.get("seconds", 5))
            elif action != "empty":
                return getattr(self, "fault_" + action)(fault)
        empty = fault is not None and fault["do"] == "empty"
        if self.command == "PROPFIND":
            return self.propfind(empty)
        if kind == "sync":
            return self.sync(body, empty)
        if kind == "multiget":
            return self.multiget(body)
        if self.command == "GET":
            return self.get()
        if self.command == "PUT":
            return self.put(body)
        self.answer(405, b"")

    def item_name(self):
        if not self.path.startswith(COLLECTION):
            return None
        name = self.path[len(COLLECTION):]
        return name if name and "/" not in name else None

    def propfind(self, empty):
        if self.path != COLLECTION:
            return self.answer(404, b"")
        with lock:
            token = TOKEN_PREFIX + str(sequence)
            listed = [] if empty else sorted(items.items())
            granted = privileges
        given = "" if granted is None else "<d:current-user-privilege-set>%s</d:current-user-privilege-set>" % "".join(
            "<d:privilege><d:%s/></d:privilege>" % name for name in granted)
        responses = [propstat(COLLECTION, "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>"
                                          "<d:displayname>Hostile</d:displayname><d:sync-token>%s</d:sync-token>%s" % (token, given))]
        if self.headers.get("Depth") == "1":
            for name, (_, etag) in listed:
                responses.append(propstat(COLLECTION + name, "<d:resourcetype/><d:getetag>%s</d:getetag>" % escape(etag)))
        self.answer(207, multistatus(responses), [("Content-Type", "application/xml; charset=utf-8")])

    def sync(self, body, empty):
        sent = self.sent_token(body)
        with lock:
            if sent is None:
                names = sorted(items)
            else:
                number = sent[len(TOKEN_PREFIX):] if sent.startswith(TOKEN_PREFIX) else ""
                if not number.isdigit() or int(number) > sequence:
                    names = None
                else:
                    names = sorted({name for seen, name in changes if seen > int(number)})
            if names is not None:
                if empty:
                    names = sorted(set(names) | set(items))
                responses = [gone(COLLECTION + name) if empty or name not in items
                             else propstat(COLLECTION + name, "<d:getetag>%s</d:getetag>" % escape(items[name][1]))
                             for name in names]
                token = TOKEN_PREFIX + str(sequence)
        if names is None:
            return self.fault_token({})
        self.answer(207, multistatus(responses, token), [("Content-Type", "application/xml; charset=utf-8")])

    def multiget(self, body):
        hrefs = [element.text or "" for element in ET.fromstring(body).iter("{DAV:}href")]
        responses = []
        with lock:
            for href in hrefs:
                name = href[len(COLLECTION):] if href.startswith(COLLECTION) else None
                if name not in items:
                    responses.append(gone(href))
                    continue
                text, etag = items[name]
                responses.append(propstat(href, "<d:getetag>%s</d:getetag><c:calendar-data>%s</c:calendar-data>"
                                          % (escape(etag), xml_text(text))))
        self.answer(207, multistatus(responses), [("Content-Type", "application/xml; charset=utf-8")])

    def get(self):
        with lock:
            found = items.get(self.item_name())
        if found is None:
            return self.answer(404, b"")
        self.answer(200, found[0].encode(), [("Content-Type", "text/calendar; charset=utf-8"), ("ETag", found[1])])

    def put(self, body):
        name = self.item_name()
        if name is None:
            return self.answer(403, b"")
        with lock:
            if privileges is not None and not {"write", "write-content", "all"} & set(privileges):
                return self.answer(403, b"")
            current = items.get(name)
            match = self.headers.get("If-Match")
            if match is not None and (current is None or current[1] != match):
                return self.answer(412, b"")
            if self.headers.get("If-None-Match") == "*" and current is not None:
                return self.answer(412, b"")
            items[name] = (body.decode("utf-8", "replace"), change(name))
            etag = items[name][1]
        self.answer(201 if current is None else 204, b"", [("ETag", etag)])

    # MARK: - Faults

    def fault_forget(self, fault):
        self.sync(b"", False)

    def fault_laughs(self, fault):
        entities = '<!ENTITY lol0 "lol">' + "".join(
            '<!ENTITY lol%d "%s">' % (level, ("&lol%d;" % (level - 1)) * 10) for level in range(1, 10))
        body = ('<?xml version="1.0"?>\n<!DOCTYPE d:multistatus [%s]>\n'
                '<d:multistatus xmlns:d="DAV:"><d:response><d:href>%scalled.ics</d:href><d:propstat><d:prop>'
                '<d:getetag>&lol9;</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>'
                '<d:sync-token>&lol9;</d:sync-token></d:multistatus>\n' % (entities, COLLECTION))
        self.answer(207, body.encode(), [("Content-Type", "application/xml; charset=utf-8")])

    def fault_huge(self, fault):
        total = fault.get("bytes", 1 << 30)
        head = ('<?xml version="1.0"?>\n<d:multistatus xmlns:d="DAV:"><d:response><d:href>%sbig.ics</d:href>'
                '<d:propstat><d:prop><d:getetag>"big"</d:getetag><d:displayname>' % COLLECTION).encode()
        self.send_response(207)
        self.send_header("Content-Type", "application/xml; charset=utf-8")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        chunk = b"x" * (1 << 20)
        try:
            self.wfile.write(head)
            left = total - len(head)
            while left > 0:
                self.wfile.write(chunk[:min(left, len(chunk))])
                left -= len(chunk)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def fault_trickle(self, fault):
        self.send_response(207)
        self.send_header("Content-Type", "application/xml; charset=utf-8")
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        try:
            self.wfile.flush()
            for byte in (b"<" + b" " * 999999):
                time.sleep(fault.get("every", 1))
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def fault_redirect(self, fault):
        self.answer(fault.get("status", 307), b"", [("Location", fault["to"] + self.path)])

    def fault_status(self, fault):
        self.answer(fault["status"], fault.get("body", "").encode(), list(fault.get("headers", {}).items()))

    def fault_token(self, fault):
        body = ('<?xml version="1.0" encoding="utf-8"?>\n'
                '<d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>\n').encode()
        self.answer(403, body, [("Content-Type", "application/xml; charset=utf-8")])

    def fault_edit(self, fault):
        name = self.item_name()
        with lock:
            if name in items:
                text = items[name][0]
                if "summary" in fault:
                    text = re.sub(r"(?m)^SUMMARY:[^\r\n]*", "SUMMARY:" + fault["summary"], text, count=1)
                if "add" in fault:
                    end = inside(text)
                    text = text[:end] + fault["add"] + "\r\n" + text[end:]
                items[name] = (text, change(name))
        self.answer(412, b"")


def main():
    global log_file
    host, log = "127.0.0.1", None
    arguments = sys.argv[1:]
    while arguments:
        option = arguments.pop(0)
        if option == "--host":
            host = arguments.pop(0)
        elif option == "--log":
            log = arguments.pop(0)
    if log is None:
        sys.exit("usage: hostile-caldav.py --log FILE [--host HOST]")
    log_file = open(log, "a", encoding="utf-8")
    server = ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
