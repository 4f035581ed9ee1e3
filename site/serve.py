"""Serve the built book with live pages: `make serve`.

Starts two servers, both on the loopback interface only, and stops both on Ctrl-C / SIGTERM:

* the book site (``_build/html``) on ``--port`` (default 8000), a multi-threaded static file server;
* a Jupyter server (``jupyter_server`` from the book's environment) on ``--jupyter-port`` (default: a free
  port), with a random token, its root at the repository (a chapter's kernel runs in ``chapters/``),
  ``PYTHONPATH`` set to this checkout's ``src/`` so ``import rebalance`` is this book's package, and
  cross-origin requests (CORS, websockets) allowed from the site's own origin only
  (``http://127.0.0.1:PORT`` and ``http://localhost:PORT``).

The site learns where the Jupyter server is from ``/rebalance-live.json``: the static build ships
``{"live": false}`` there, and this server answers that one URL with ``{"live": true, "url": ..., "token":
..., "kernelName": "python3"}`` only to the reader's browser: the Jupyter token runs code as the reader, and any
process on the machine (another user of a shared machine) can send requests to 127.0.0.1.  So, as Jupyter
prints its own URL with the token, ``make serve`` prints a one-time link (``/rebalance-live/open?key=...``,
a random key known only to the terminal that started it); the first request with that key gets a session
cookie (random, ``HttpOnly``, ``SameSite=Strict``) and is sent to the book, the key is then spent, and
``/rebalance-live.json`` gives the token only to requests that carry the cookie and are addressed to
127.0.0.1/localhost (never cached).  Every other request learns ``{"live": false}``: the pages stay static.  Each
chapter page then offers "Make interactive" (site/theme/app/components/LivePage.tsx): thebe-core, served
from the site itself, connects to the kernel, the cells run there, and ipywidgets come alive.

User and system Jupyter configuration is ignored (``JUPYTER_NO_CONFIG``, a private config and runtime
folder), so no server extension (JupyterLab, ...) is loaded and nothing is written outside a temporary
folder, which is removed on exit.

Usage: python site/serve.py [--port 8000] [--jupyter-port 0] [--site _build/html] [--no-kernel]
When started, prints ``[serve] ready site=<url> jupyter=<url> jupyter_pgid=<process group> open=<one-time
link>`` (``jupyter=none``, ``jupyter_pgid=0`` and ``open=none`` with --no-kernel).
"""

from __future__ import annotations

import argparse
import functools
import http.cookies
import http.server
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIVE_PATH = "/rebalance-live.json"
OPEN_PATH = "/rebalance-live/open"
COOKIE = "rebalance_live"
HOST = "127.0.0.1"
KERNEL = "python3"


def log(message: str) -> None:
    print(f"[serve] {message}", flush=True)


def free_port() -> int:
    """A port nobody listens on right now (the Jupyter server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files of the built site, plus the live-server announcement at ``/rebalance-live.json``."""

    live: dict = {"live": False}
    allowed_hosts: frozenset = frozenset()
    verbose = False
    #: the one-time link's key (None once spent) and the session cookie's value it hands out
    open_key: str | None = None
    session: str = ""
    _open_lock = threading.Lock()

    def _has_session(self) -> bool:
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except http.cookies.CookieError:
            return False
        got = jar.get(COOKIE)
        return bool(self.session) and got is not None and secrets.compare_digest(got.value, self.session)

    def _announce(self, head_only: bool) -> None:
        # Only to the browser that opened the one-time link (its session cookie), on requests addressed to
        # this machine by name (no DNS-rebinding page can read it), and without any
        # Access-Control-Allow-Origin header (no other origin's page can read it).
        ok = self.headers.get("Host", "") in self.allowed_hosts and self._has_session()
        body = self.live if ok else {"live": False}
        data = (json.dumps(body) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head_only:
            self.wfile.write(data)

    def _open(self) -> None:
        """The one-time link: the right key, once, sets the session cookie and sends the reader to the book."""
        query = urllib.parse.parse_qs(self.path.split("?", 1)[1] if "?" in self.path else "")
        key = (query.get("key") or [""])[0]
        with self._open_lock:
            cls = type(self)
            ok = (cls.open_key is not None and secrets.compare_digest(key, cls.open_key)
                  and self.headers.get("Host", "") in self.allowed_hosts)
            if ok:
                cls.open_key = None  # spent
        if not ok:
            data = ("This link is not valid (a one-time link works once). Stop `make serve` and start it "
                    "again for a new one.\n").encode()
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(303)
        self.send_header("Set-Cookie", f"{COOKIE}={self.session}; Path=/; HttpOnly; SameSite=Strict")
        self.send_header("Location", "/")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - name from the base class
        path = self.path.split("?", 1)[0]
        if path == LIVE_PATH:
            self._announce(head_only=False)
        elif path == OPEN_PATH:
            self._open()
        else:
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if self.path.split("?", 1)[0] == LIVE_PATH:
            self._announce(head_only=True)
        else:
            super().do_HEAD()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature of the base class
        if self.verbose:
            super().log_message(format, *args)


class JupyterServer:
    """The book's Jupyter server, in its own process group, with a private config/runtime folder."""

    def __init__(self, port: int, site_port: int, workdir: Path) -> None:
        self.port = port
        self.token = secrets.token_hex(24)
        self.url = f"http://{HOST}:{port}/"
        self.workdir = workdir
        origin = rf"^http://(127\.0\.0\.1|localhost):{site_port}$"
        self.cmd = [
            sys.executable, "-m", "jupyter_server",
            f"--ServerApp.ip={HOST}",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_remote_access=False",
            f"--ServerApp.root_dir={REPO}",
            f"--ServerApp.allow_origin_pat={origin}",
            f"--IdentityProvider.token={self.token}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            self.cmd.append("--ServerApp.allow_root=True")  # containers and CI run as root
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH")) if p)
        env["PYTHONHASHSEED"] = "0"
        env["JUPYTER_NO_CONFIG"] = "1"
        env["JUPYTER_CONFIG_DIR"] = str(workdir / "config")
        env["JUPYTER_RUNTIME_DIR"] = str(workdir / "runtime")
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        self.env = env
        self.log = workdir / "jupyter.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> None:
        (self.workdir / "config").mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                self.cmd, cwd=REPO, env=self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Jupyter server exited with status {self.proc.returncode}:\n{self.tail()}")
            if self._get("api/kernelspecs") is not None:
                return
            time.sleep(0.3)
        raise RuntimeError(f"the Jupyter server did not answer within {timeout:.0f} s:\n{self.tail()}")

    def _get(self, path: str, method: str = "GET"):
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=3) as response:
                return json.loads(response.read() or b"null") if method == "GET" else True
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def kernel_names(self) -> list[str]:
        specs = self._get("api/kernelspecs") or {}
        return sorted((specs.get("kernelspecs") or {}).keys())

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Shut the server down through its API (it stops its kernels), then end its process group."""
        if self.proc is None:
            return
        if self.alive():
            self._get("api/shutdown", method="POST")
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                continue
        self.proc = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="port of the site (0: a free port)")
    parser.add_argument("--jupyter-port", type=int, default=0, help="port of the Jupyter server (0: a free port)")
    parser.add_argument("--site", type=Path, default=REPO / "_build" / "html", help="the built site")
    parser.add_argument("--no-kernel", action="store_true", help="serve the static site only")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)

    site = args.site.resolve()
    if not (site / "index.html").is_file():
        log(f"no built site in {site}: run `make book` (or `make site`) first")
        return 1
    try:
        httpd = http.server.ThreadingHTTPServer((HOST, args.port), functools.partial(SiteHandler, directory=str(site)))
    except OSError as exc:
        log(f"cannot serve on {HOST}:{args.port} ({exc.strerror}); choose another port: make serve PORT=8001")
        return 1
    httpd.daemon_threads = True
    port = httpd.server_address[1]
    site_url = f"http://{HOST}:{port}/"
    SiteHandler.allowed_hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})
    SiteHandler.verbose = args.verbose

    # A plain list, not a threading.Event: Event.set() from a signal handler can deadlock with the main
    # thread's own Event.wait() (both take the same non-reentrant lock).
    stop: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: stop.append(signum))

    workdir = Path(tempfile.mkdtemp(prefix="rebalance-serve-"))
    jupyter: JupyterServer | None = None
    thread: threading.Thread | None = None
    try:
        if not args.no_kernel:
            jupyter = JupyterServer(args.jupyter_port or free_port(), port, workdir)
            log(f"starting the Jupyter server on {jupyter.url} (kernel: this checkout's src/ on PYTHONPATH)")
            t0 = time.monotonic()
            jupyter.start()
            kernels = jupyter.kernel_names()
            if KERNEL not in kernels:
                raise RuntimeError(f"no '{KERNEL}' kernel in the Jupyter server (has {kernels}); run `make setup`")
            log(f"Jupyter server up in {time.monotonic() - t0:.1f} s; it accepts the site's origin only")
            SiteHandler.live = {"live": True, "url": jupyter.url, "token": jupyter.token, "kernelName": KERNEL}
            SiteHandler.session = secrets.token_hex(24)
            SiteHandler.open_key = secrets.token_urlsafe(24)
        open_url = f"{site_url}{OPEN_PATH.lstrip('/')}?key={SiteHandler.open_key}" if jupyter else "none"
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        log(f"the book: {site_url}  (serving {site})")
        if jupyter:
            log(f"live pages: open this one-time link in your browser (it works once): {open_url}")
            log('then open a chapter and press "Make interactive", then "Run all cells"')
        else:
            log("static pages only (--no-kernel): widgets show their static twins")
        log("stop with Ctrl-C")
        jupyter_pid = jupyter.proc.pid if jupyter and jupyter.proc else 0
        log(f"ready site={site_url} jupyter={jupyter.url if jupyter else 'none'} jupyter_pgid={jupyter_pid} "
            f"open={open_url}")
        while not stop:
            time.sleep(0.3)
            if jupyter and not jupyter.alive():
                log(f"the Jupyter server stopped unexpectedly:\n{jupyter.tail()}")
                return 1
        return 0
    except RuntimeError as exc:
        log(f"ERROR: {exc}")
        return 1
    finally:
        log("stopping")
        if thread is not None:
            httpd.shutdown()  # returns once serve_forever has stopped
        httpd.server_close()
        if jupyter:
            jupyter.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
