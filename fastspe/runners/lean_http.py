"""A lighter HTTP/1.1 transport for the official SDKs' httpx client, for plain-HTTP servers (vLLM, Ollama, a
loopback mock): pooled keep-alive ``http.client`` connections instead of httpcore's pool and h11.

At 64 connections httpcore and h11 cost about a third of the client's CPU per request, enough to make fastspe
its own bottleneck against a fast local server (issue 21). The SDK still builds every request, sends its headers
and maps every failure (httpx's timeout and transport exceptions, raised here as httpcore's would be, become the
SDK's ``APITimeoutError`` and ``APIConnectionError``). Used only where it changes nothing a user relies on: an
``http://`` base URL and no proxy in the environment; TLS, proxies and everything else keep the SDK's own client.
"""

from __future__ import annotations

import http.client
import select
import socket
import sys
import threading
import urllib.parse
import urllib.request


def httpx_of(sdk):
    """The httpx module the SDK ``sdk`` (openai or anthropic) is built on (``httpx``, or a successor)."""
    client = next(c for c in sdk.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    return sys.modules[client.__module__.split(".")[0]]


def lean_http_client(sdk, base_url: str, timeout: float):
    """An httpx client for ``sdk`` on the lean transport, or None (the SDK's own client) unless ``base_url``
    is plain HTTP with no proxy set in the environment."""
    proxies = urllib.request.getproxies()
    if urllib.parse.urlsplit(base_url).scheme != "http" or "http" in proxies or "all" in proxies:
        return None
    return sdk.DefaultHttpxClient(transport=transport_class(httpx_of(sdk))(), timeout=timeout)


_CLASSES: dict = {}


def transport_class(httpx):
    """The transport class for the httpx module ``httpx`` (made once per module: it subclasses its
    ``BaseTransport``)."""
    if httpx not in _CLASSES:
        _CLASSES[httpx] = type("LeanTransport", (LeanTransport, httpx.BaseTransport), {"httpx": httpx})
    return _CLASSES[httpx]


def readable(sock) -> bool:
    """Whether ``sock`` has something to read now (on an idle connection: the server closed it)."""
    if hasattr(select, "poll"):  # (select.select takes no descriptor above 1023)
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([sock], [], [], 0)[0])


class LeanTransport:
    """``handle_request`` over pooled keep-alive ``http.client.HTTPConnection`` s: a request takes the idle
    connection to its host freed last (as httpcore's pool does, so a connection carries one request after another
    and there are no more connections than requests at once), or opens one; ``close`` closes them all."""

    httpx = None  # set by transport_class

    def __init__(self):
        self._lock = threading.Lock()
        self._idle: dict[tuple, list] = {}
        self._open: set = set()

    def _take(self, host: str, port: int) -> http.client.HTTPConnection:
        with self._lock:
            idle = self._idle.setdefault((host, port), [])
            while idle:
                conn = idle.pop()
                if conn.sock is not None and not readable(conn.sock):
                    return conn
                conn.close()  # readable while idle: the server closed it (or sent junk); httpcore would not reuse it
                self._open.discard(conn)
            conn = http.client.HTTPConnection(host, port)
            self._open.add(conn)
            return conn

    def _give_back(self, conn: http.client.HTTPConnection, host: str, port: int) -> None:
        with self._lock:
            if conn.sock is None:  # the server said Connection: close
                self._open.discard(conn)
            elif conn in self._open:  # (not closed meanwhile by close())
                self._idle.setdefault((host, port), []).append(conn)

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        conn.close()  # half a request or answer on it: never reused
        with self._lock:
            self._open.discard(conn)

    def handle_request(self, request):
        httpx, url = self.httpx, request.url
        timeouts = request.extensions.get("timeout", {})
        host, port = url.host, url.port or 80
        conn = self._take(host, port)
        body, connecting = request.read(), conn.sock is None
        try:
            if connecting:
                conn.timeout = timeouts.get("connect")
                conn.connect()
                connecting = False
            conn.sock.settimeout(timeouts.get("read"))
            conn.putrequest(request.method, url.raw_path.decode("ascii"), skip_host=True, skip_accept_encoding=True)
            for name, value in request.headers.raw:
                conn.putheader(name, value)
            conn.endheaders(body)  # headers and body in one send
            response = conn.getresponse()
            content = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self._drop(conn)
            # http.client's own exception is not chained where its words were replaced: the SDK quotes the
            # innermost OSError of the chain, and RemoteDisconnected is one (httpcore chains none either)
            raise self.httpx_error(exc, connecting, request) from (
                None if isinstance(exc, http.client.HTTPException) else exc)
        except BaseException:
            self._drop(conn)
            raise
        self._give_back(conn, host, port)
        return httpx.Response(response.status, headers=response.getheaders(), stream=httpx.ByteStream(content),
                              extensions={"http_version": b"HTTP/1.1",
                                          "reason_phrase": response.reason.encode("latin-1", "replace")})

    def httpx_error(self, exc: BaseException, connecting: bool, request):
        """The httpx exception httpcore raises for the socket or ``http.client`` failure ``exc``, with the text
        httpcore gives it where ``http.client``'s differs (the Anthropic SDK quotes it in its error)."""
        httpx = self.httpx
        if isinstance(exc, http.client.HTTPException):  # (RemoteDisconnected is an OSError too)
            return httpx.RemoteProtocolError(protocol_error_text(exc), request=request)
        if isinstance(exc, socket.timeout):
            kind = httpx.ConnectTimeout if connecting else httpx.ReadTimeout
        else:
            kind = httpx.ConnectError if connecting else httpx.ReadError
        return kind(str(exc) or type(exc).__name__, request=request)

    def close(self) -> None:
        with self._lock:
            conns, self._open, self._idle = self._open, set(), {}
        for conn in conns:
            conn.close()


def protocol_error_text(exc: http.client.HTTPException) -> str:
    """What h11 (httpcore's parser) says of the malformed or cut-short answer that ``http.client`` raised ``exc``
    for, so that a log reads the same whichever transport carried the request."""
    if isinstance(exc, http.client.RemoteDisconnected):
        return "Server disconnected without sending a response."
    if isinstance(exc, http.client.IncompleteRead):
        if exc.expected is None:
            return "peer closed connection without sending complete message body: incomplete chunked read"
        got = len(exc.partial)
        return (f"peer closed connection without sending complete message body "
                f"(received {got} bytes, expected {got + exc.expected})")
    if isinstance(exc, http.client.BadStatusLine):
        return f"illegal status line: {str(exc).strip()!r}"  # (an empty one is RemoteDisconnected)
    return f"{type(exc).__name__}: {exc}"
