"""A loopback model server for the runners' benchmarks, run in a child process so that neither its CPU nor its GIL
counts against the client measured: a few lines of asyncio answering each request (keep-alive) with a canned HTTP
response that the benchmark's ``reply`` chooses."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys


def http_200(body: bytes) -> bytes:
    """A whole HTTP 200 response with the JSON ``body``."""
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-request-id: req-1\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body


def serve_replies(reply) -> None:
    """Serve on 127.0.0.1, answering each request with ``await reply(head, body)`` (its header block and body, as
    bytes; a whole HTTP response back); print the port, stop when stdin closes."""
    import asyncio

    async def answer(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                body = await reader.readexactly(length)
                writer.write(await reply(head, body))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main():
        server = await asyncio.start_server(answer, "127.0.0.1", 0, backlog=256)
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(main())


@contextlib.contextmanager
def server_process(code: str):
    """Python ``code`` that calls ``serve_replies``, in a child process: yields its port; stops when the block
    ends."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        yield int(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
