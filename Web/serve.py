"""Serves the built page (.ci/web serve): 127.0.0.1 only, cross-origin isolated (COOP/COEP, so
performance.now() and requestAnimationFrame's timestamps are 5 us precise, not 100 us), .mjs as
JavaScript and .wasm as application/wasm (streaming compile), nothing cached.

    python3 Web/serve.py SITE [PORT]      (PORT 0: any free port; the URL is printed)
"""
import functools
import http.server
import sys
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                      ".ts": "text/plain", ".html": "text/html; charset=utf-8"}

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def start(site, port=0):
    """Starts serving `site` on a thread; returns (server, url)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: serve.py SITE [PORT]")
    server, url = start(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 8036)
    print("serving %s on %s (cross-origin isolated); Ctrl-C stops" % (sys.argv[1], url), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
