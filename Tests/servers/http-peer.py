"""An HTTP peer for HTTPClientTests: serves a few test routes on a port of its own.

Prints "PORT <n>" once listening, then one JSON line per request it receives (method, path,
header fields, body length, the client's port), so a test can see what reached it.

Routes (query parameters as noted):
  /echo                  200, the body sent back; X-Method, X-Test-Seen and two Multi fields
  /basic                 needs Basic alice:secret, else 401 with a Basic challenge
  /digest                needs Digest alice:secret (RFC 7616, MD5, qop=auth), else 401 with a
                         Digest challenge only
  /big?bytes=N           N zero bytes, with Content-Length
  /gzip?bytes=N          N zero bytes gzip-compressed (Content-Encoding: gzip), close-delimited
  /trickle?every=S       claims a large body, then sends one byte every S seconds
  /slow?seconds=S        answers 200 "late" after S seconds
  /redirect?to=URL&status=N   a redirect (302 unless N) to URL
  /loop                  redirects to itself
  /status?code=N         an empty answer with status N

Usage: http-peer.py [--host HOST] [--tls CERT KEY]
"""
import base64
import hashlib
import json
import os
import ssl
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

USER, PASSWORD, REALM = "alice", "secret", "peer"
output = threading.Lock()
nonces = set()


def record(entry):
    with output:
        sys.stdout.write(json.dumps(entry) + "\n")
        sys.stdout.flush()


def md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def digest_parameters(field):
    """The name=value pairs of a Digest Authorization field (values quoted or not)."""
    result, rest = {}, field[len("Digest "):]
    while rest:
        rest = rest.lstrip(" ,")
        name, _, rest = rest.partition("=")
        if rest.startswith('"'):
            value, _, rest = rest[1:].partition('"')
        else:
            value, _, rest = rest.partition(",")
        result[name.strip()] = value.strip()
    return result


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        if isinstance(self.connection, ssl.SSLSocket):
            self.connection.do_handshake()

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        record({
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body_length": len(body),
            "client_port": self.client_address[1],
        })
        route = getattr(self, "route_" + url.path.strip("/"), None)
        try:
            if route is None:
                self.answer(404, b"no such route\n")
            else:
                route(body, query)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_OPTIONS = do_PROPFIND = do_REPORT = handle_any

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route_echo(self, body, query):
        headers = [("X-Method", self.command), ("X-Test-Seen", self.headers.get("X-Test", "")),
                   ("Multi", "one"), ("Multi", "two"),
                   ("Content-Type", self.headers.get("Content-Type", "application/octet-stream"))]
        self.answer(200, body, headers)

    def route_basic(self, body, query):
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if self.headers.get("Authorization") == expected:
            self.answer(200, b"welcome\n")
        else:
            self.answer(401, b"who are you?\n", [("WWW-Authenticate", f'Basic realm="{REALM}"')])

    def route_digest(self, body, query):
        field = self.headers.get("Authorization", "")
        if field.startswith("Digest "):
            p = digest_parameters(field)
            ha1 = md5(f"{USER}:{REALM}:{PASSWORD}")
            ha2 = md5(f"{self.command}:{p.get('uri', '')}")
            expected = md5(f"{ha1}:{p.get('nonce')}:{p.get('nc')}:{p.get('cnonce')}:{p.get('qop')}:{ha2}")
            if p.get("username") == USER and p.get("nonce") in nonces and p.get("response") == expected:
                self.answer(200, b"welcome\n")
                return
        nonce = base64.b64encode(os.urandom(12)).decode()
        nonces.add(nonce)
        challenge = f'Digest realm="{REALM}", nonce="{nonce}", qop="auth", algorithm=MD5'
        self.answer(401, b"who are you?\n", [("WWW-Authenticate", challenge)])

    def route_big(self, body, query):
        remaining = int(query["bytes"])
        self.send_response(200)
        self.send_header("Content-Length", str(remaining))
        self.end_headers()
        chunk = bytes(65536)
        while remaining > 0:
            part = chunk[:min(remaining, len(chunk))]
            self.wfile.write(part)
            remaining -= len(part)

    def route_gzip(self, body, query):
        remaining = int(query["bytes"])
        self.send_response(200)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        chunk = bytes(1 << 20)
        while remaining > 0:
            part = chunk[:min(remaining, len(chunk))]
            self.wfile.write(compressor.compress(part))
            remaining -= len(part)
        self.wfile.write(compressor.flush())

    def route_trickle(self, body, query):
        every = float(query.get("every", "2"))
        self.send_response(200)
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        self.wfile.flush()
        while True:
            time.sleep(every)
            self.wfile.write(b"x")
            self.wfile.flush()

    def route_slow(self, body, query):
        time.sleep(float(query.get("seconds", "5")))
        self.answer(200, b"late\n")

    def route_redirect(self, body, query):
        self.answer(int(query.get("status", "302")), b"", [("Location", query["to"])])

    def route_loop(self, body, query):
        self.answer(302, b"", [("Location", "/loop")])

    def route_status(self, body, query):
        self.answer(int(query.get("code", "200")))


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


def main():
    arguments = sys.argv[1:]
    host, tls = "127.0.0.1", None
    while arguments:
        option = arguments.pop(0)
        if option == "--host":
            host = arguments.pop(0)
        elif option == "--tls":
            tls = (arguments.pop(0), arguments.pop(0))
        else:
            sys.exit(f"unknown option {option}")
    server = Server((host, 0), Handler)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        # The handshake runs in the request's thread (Handler.setup), not in accept.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    record_port = f"PORT {server.server_address[1]}\n"
    with output:
        sys.stdout.write(record_port)
        sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
