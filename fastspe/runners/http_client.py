"""The SDKs' own HTTP client (httpx), as a run needs it: a pool sized to the run's connections, redirects not
followed, and the timeout one deadline for a whole attempt (connect, send and the whole answer).

httpx bounds each connect, read and write, not a request: a server that sends a byte within every read timeout
holds an attempt as long as it likes. So the client's ``send`` sets a deadline, and its connection pool's network
backend (httpcore's own, wrapped: httpx has no overall timeout and takes no backend of its own) gives each
connect, read and write only the time left, raising httpcore's own timeout once none is; httpx and the SDK map
that as any timeout (``APITimeoutError``). Nothing polls and no thread watches.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time

# (monotonic deadline, seconds it was set for) of the request this thread is sending; None outside ``send``
_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("fastspe_attempt_deadline", default=None)


def httpx_of(sdk):
    """The httpx module the SDK ``sdk`` (openai or anthropic) is built on (``httpx``, or a successor)."""
    client = next(c for c in sdk.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    return sys.modules[client.__module__.split(".")[0]]


def sdk_http_client(sdk, timeout: float, max_connections: int):
    """The SDK's default httpx client for ``sdk`` with at most ``max_connections`` connections (all kept alive
    between requests), redirects not followed, and ``timeout`` seconds for each request from start to end."""
    httpx = httpx_of(sdk)
    client = _deadline_class(sdk)(
        timeout=timeout,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
    )
    client.deadline_s = timeout
    transports = [client._transport, *client._mounts.values()]  # (the mounts: proxies from the environment)
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if pool is not None:
            pool._network_backend = DeadlineBackend(
                pool._network_backend, sys.modules[type(pool).__module__.split(".")[0]]
            )
    if not isinstance(client._transport._pool._network_backend, DeadlineBackend):  # an httpx we do not know
        raise RuntimeError("the SDK's HTTP client has no connection pool to bound requests in")
    return client


_CLASSES: dict = {}


def _deadline_class(sdk):
    """``sdk.DefaultHttpxClient`` whose ``send`` runs under a deadline of ``deadline_s`` seconds (one class per SDK)."""
    if sdk not in _CLASSES:
        _CLASSES[sdk] = type("DeadlineHttpxClient", (_DeadlineSend, sdk.DefaultHttpxClient), {})
    return _CLASSES[sdk]


class _DeadlineSend:
    deadline_s: float | None = None

    def send(self, request, **kwargs):
        if self.deadline_s is None or _DEADLINE.get() is not None:
            return super().send(request, **kwargs)
        token = _DEADLINE.set((time.monotonic() + self.deadline_s, self.deadline_s))
        try:
            return super().send(request, **kwargs)  # (not streamed: the whole answer is read in here)
        finally:
            _DEADLINE.reset(token)


def time_left(timeout: float | None, expired):
    """``timeout`` shortened to the time left before this request's deadline; raise ``expired`` (an httpcore
    timeout class) when none is left."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline[0] - time.monotonic()
    if left <= 0:
        raise expired(f"no complete answer within the timeout of {deadline[1]:g} s")
    return left if timeout is None else min(timeout, left)


@contextlib.contextmanager
def told_as_deadline(expired):
    """A timeout raised inside, told as the deadline's when the deadline is what cut it short."""
    try:
        yield
    except expired:
        time_left(None, expired)  # raises with the deadline's words once it has passed
        raise


class DeadlineBackend:
    """An httpcore network backend whose connections keep to the deadline of the request they carry."""

    def __init__(self, inner, httpcore):
        self._inner, self._httpcore = inner, httpcore

    def connect_tcp(self, host, port, timeout=None, **kwargs):
        expired = self._httpcore.ConnectTimeout
        with told_as_deadline(expired):
            stream = self._inner.connect_tcp(host, port, timeout=time_left(timeout, expired), **kwargs)
        return DeadlineStream(stream, self._httpcore)

    def connect_unix_socket(self, path, timeout=None, **kwargs):
        expired = self._httpcore.ConnectTimeout
        with told_as_deadline(expired):
            stream = self._inner.connect_unix_socket(path, timeout=time_left(timeout, expired), **kwargs)
        return DeadlineStream(stream, self._httpcore)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineStream:
    """A network stream whose reads and writes wait no longer than the deadline of the request they serve."""

    def __init__(self, inner, httpcore):
        self._inner, self._httpcore = inner, httpcore

    def read(self, max_bytes: int, timeout=None) -> bytes:
        expired = self._httpcore.ReadTimeout
        with told_as_deadline(expired):
            return self._inner.read(max_bytes, time_left(timeout, expired))

    def write(self, buffer: bytes, timeout=None) -> None:
        expired = self._httpcore.WriteTimeout
        with told_as_deadline(expired):
            self._inner.write(buffer, time_left(timeout, expired))

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        timeout = time_left(timeout, self._httpcore.ConnectTimeout)
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._httpcore)

    def close(self) -> None:
        self._inner.close()

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)
