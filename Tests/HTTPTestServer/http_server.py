#!/usr/bin/env python3
"""The HTTP server the BlobStoreHTTP tests talk to.

Listens on 127.0.0.1, on the port given as the first argument (0 or none: any free port),
prints the port on standard output, and exits when standard input closes (so it never outlives
the test that started it).

Any path except /_count and /_release answers with headers chosen by the query:

  cc=<Cache-Control>   etag=<ETag>        lm=<Last-Modified>   expires=<Expires>
  vary=<Vary>          age=<Age>          status=<code>        body=<text>
  location=<Location>  (with status=302: a redirect the client follows)
  loop=1               (with status=302: a redirect to this same target, forever)
  size=<n>             (a body of n deterministic bytes instead of `body`)
  chunk=<n>            (send the body with Transfer-Encoding: chunked, n bytes a chunk)
  gzip=1               (send the body gzip-compressed, with Content-Encoding: gzip)
  cc304=<Cache-Control> etag304=<ETag>  (sent instead of `cc`, `etag` on a 304)
  gate=1               (hold a 304, counted, until GET /_release)
  delay=<seconds>      (wait this long before answering)
  hold=1               (hold the response, counted, until GET /_release, at most 300 s)
  interim=<code>       (send an interim response, e.g. 103 with a Link field, before the final one)
  failafter=<n>        (answer 503 once this exact target has had n requests)
  stream=<n>           (a body of n deterministic bytes, generated as it is sent: any size)
  echo=1               (the body lists the request's header fields, one `Name: value` a line)
  header=<Name: value> (one more response field, sent as given)

If-None-Match equal to `etag`, or If-Modified-Since equal to `lm`, answers 304 Not Modified.
With `vary`, the body ends with the values of the named request headers, so variants differ.

POST, PUT, PATCH, DELETE and OPTIONS answer 200 with the request body (read by Content-Length
or chunked), `X-Method: <the method>`, and the fields `location`, `cl` (Content-Location) and `cc`
name; with a 3xx `status` and `location`, they answer that redirect instead, with no body.

GET /_count?path=<path and query> answers JSON {"requests": n, "notModified": m}: how many
requests that exact target received, and how many were answered 304.
"""

import gzip
import json
import sys
import time
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

counts = {}
not_modified = {}
lock = threading.Lock()
released = threading.Event()


def pattern(size):
    """`size` bytes of a repeating, position-dependent pattern."""
    block = bytes((i * 7 + i // 251) % 256 for i in range(65536))
    return (block * (size // len(block) + 1))[:size]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.count(False)
        query = {name: values[0] for name, values in parse_qs(urlsplit(self.path).query).items()}
        if query.get("status", "").startswith("3") and "location" in query:
            self.send_body(int(query["status"]), [("Location", query["location"])], b"")
            return
        headers = [(header, query[name]) for name, header in [("location", "Location"), ("cl", "Content-Location"),
                                                               ("cc", "Cache-Control")] if name in query]
        self.send_body(200, headers + [("X-Method", self.command)], body)

    do_PUT = do_POST
    do_PATCH = do_POST
    do_DELETE = do_POST
    do_OPTIONS = do_POST

    def count(self, was_not_modified):
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
            if was_not_modified:
                not_modified[self.path] = not_modified.get(self.path, 0) + 1

    def do_GET(self):
        parts = urlsplit(self.path)
        query = {name: values[0] for name, values in parse_qs(parts.query, keep_blank_values=True).items()}
        if parts.path == "/_count":
            target = query.get("path", "")
            with lock:
                answer = {"requests": counts.get(target, 0), "notModified": not_modified.get(target, 0)}
            self.send_body(200, [("Content-Type", "application/json")], json.dumps(answer).encode())
            return
        if parts.path == "/_release":
            released.set()
            self.send_body(200, [], b"released")
            return

        headers = []
        for name, header in [("cc", "Cache-Control"), ("etag", "ETag"), ("lm", "Last-Modified"),
                             ("expires", "Expires"), ("vary", "Vary"), ("age", "Age"),
                             ("location", "Location")]:
            if name in query:
                headers.append((header, query[name]))
        if "loop" in query:
            headers.append(("Location", self.path))

        etag = query.get("etag")
        last_modified = query.get("lm")
        if (etag is not None and self.headers.get("If-None-Match") == etag) or (
                last_modified is not None and self.headers.get("If-Modified-Since") == last_modified):
            self.count(True)
            if "gate" in query:
                released.wait(30)
            self.send_response(304)
            overrides = {"Cache-Control": query.get("cc304"), "ETag": query.get("etag304")}
            for name, value in headers:
                self.send_header(name, overrides.get(name) or value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return

        if "delay" in query:
            time.sleep(float(query["delay"]))
        if "failafter" in query and counts.get(self.path, 0) >= int(query["failafter"]):
            self.count(False)
            self.send_body(503, [], b"failing")
            return
        self.count(False)
        if "hold" in query:
            released.wait(300)
        if "header" in query:
            name, _, value = query["header"].partition(":")
            headers.append((name.strip(), value.strip()))
        if "interim" in query:
            self.send_response_only(int(query["interim"]))
            self.send_header("Link", "</style.css>; rel=preload")
            self.end_headers()
        if "stream" in query:
            self.send_stream(int(query["status"]) if "status" in query else 200, headers, int(query["stream"]))
            return
        if "echo" in query:
            body = "".join("%s: %s\n" % (name, value) for name, value in self.headers.items()).encode()
        elif "size" in query:
            body = pattern(int(query["size"]))
        else:
            body = query.get("body", "hello").encode()
        if "vary" in query:
            for name in query["vary"].split(","):
                body += b" " + name.strip().encode() + b"=" + (self.headers.get(name.strip()) or "-").encode()
        if "gzip" in query:
            body = gzip.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        status = int(query.get("status", "200"))
        if "chunk" in query:
            self.send_chunked(status, headers, body, int(query["chunk"]))
        else:
            self.send_body(status, headers, body)

    def send_body(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_stream(self, status, headers, size):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        if self.command == "HEAD":
            return
        block = pattern(1 << 20)
        sent = 0
        while sent < size:
            piece = block[:min(len(block), size - sent)]
            self.wfile.write(piece)
            sent += len(piece)

    def send_chunked(self, status, headers, body, chunk):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(body), chunk):
            piece = body[start:start + chunk]
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
