"""The adapter side of referee-adapter/1: a mapping of ops served over stdio or loopback HTTP.

docs/adapter-protocol.md is the contract. An op is a function of the request's `args` (an
`Args`, which is a dict) returning the `ok` value; an exception it raises is an `err` reply
carrying the exception's `code` attribute, if it has one.
"""

import io
import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "referee-adapter/1"

__all__ = ["PROTOCOL", "AdapterError", "Args", "RawJSON", "serve_adapter"]


class AdapterError(Exception):
    """A rejection with a stable error code: raise it from an op to reply `err`.

    `AdapterError("duplicate_key", "key a twice")` replies
    `{"err": {"code": "duplicate_key", "message": "key a twice"}}`; keyword arguments add
    members to `err` (a suite may read them, as cgp-vectors reads `path`).
    """

    def __init__(self, code, message="", **members):
        super().__init__(message or code or "")
        self.code = code
        self.message = message
        self.members = members


class RawJSON:
    """An `ok` value given as JSON text, sent as it is (its number lexemes, its member order).

    Only as an op's whole return value. Text that is not one JSON value is the adapter's
    fault, and referee reports it as one (a `bad-line` error).
    """

    __slots__ = ("text",)

    def __init__(self, text):
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        if not isinstance(text, str):
            raise TypeError("RawJSON takes JSON text (str or UTF-8 bytes), not %s" % type(text).__name__)
        self.text = text

    def __repr__(self):
        return "RawJSON(%r)" % self.text


class Args(dict):
    """A request's `args`: a dict, with the text and hex forms the suites send read for you.

    Where a suite sends a value's exact text beside it (`value_text` beside `value`) or
    bytes as lowercase hex (`value_hex`, `payload_hex`), these read them by the base name.
    """

    def text(self, name):
        """The exact JSON text of `name`: `args[name + "_text"]`, else `args[name]` written as JSON."""
        if name + "_text" in self:
            return self[name + "_text"]
        if name in self:
            return json.dumps(self[name], ensure_ascii=False, separators=(",", ":"))
        raise KeyError(name + "_text")

    def bytes(self, name):
        """The bytes of `args[name + "_hex"]` (or of `args[name]`, when `name` ends in `_hex`)."""
        key = name if name.endswith("_hex") else name + "_hex"
        return bytes.fromhex(self[key])

    def value(self, name):
        """`name` as a Python value: `args[name]`, else its `_text` read with json.loads."""
        if name in self:
            return self[name]
        return json.loads(self[name + "_text"])


def _default(o):
    if isinstance(o, (bytes, bytearray, memoryview)):
        return bytes(o).hex()
    if isinstance(o, (set, frozenset)):
        raise TypeError("a %s has no JSON form (no order)" % type(o).__name__)
    raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)


def _dump(value):
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=_default)


def _code(e):
    code = getattr(e, "code", None)
    if code is None or isinstance(code, str):
        return code
    return str(code)


def _message(e):
    if isinstance(e, AdapterError):
        return e.message or str(e.code or "")
    text = str(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _offered(ops):
    if not hasattr(ops, "items"):
        raise TypeError("ops must be a mapping from op name to a function of args, not %s" % type(ops).__name__)
    offered = {}
    for name, fn in ops.items():
        if not isinstance(name, str) or not name:
            raise TypeError("op names must be non-empty strings, not %r" % (name,))
        if name == "hello":
            raise ValueError("hello is the protocol's own request, answered by referee's adapter loop, not an op")
        if fn is None:  # listed but not offered: its checks are not-checked
            continue
        if not callable(fn):
            raise TypeError("op %r must be a function of args, not %s" % (name, type(fn).__name__))
        offered[name] = fn
    return offered


def _default_name():
    stem = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else ""))[0]
    return stem if stem and stem not in ("-c", "-m") else "python-adapter"


class Dispatcher:
    """Turns request lines into reply lines for a mapping of ops (no I/O of its own)."""

    def __init__(self, ops, name=None, version="", concurrency=1, suite=None, log=None):
        self.ops = _offered(ops)
        self.name = name or _default_name()
        if not isinstance(self.name, str):
            raise TypeError("name must be a string")
        self.version = "" if version is None else str(version)
        if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
            raise ValueError("concurrency must be an integer of at least 1, not %r" % (concurrency,))
        self.concurrency = concurrency
        self.suite = suite
        self.log = log if log is not None else sys.stderr

    def hello(self):
        """The hello reply's `ok`: name, version, the ops offered, concurrency."""
        return {"name": self.name, "version": self.version, "ops": list(self.ops), "concurrency": self.concurrency}

    def _say(self, text):
        try:
            self.log.write("referee adapter: %s\n" % text)
            self.log.flush()
        except (OSError, ValueError):
            pass

    def reply(self, line):
        """The reply line (bytes, no newline) to one request line (bytes or str)."""
        try:
            req = json.loads(line)
        except (ValueError, RecursionError) as e:
            return self._err(None, "bad_request", "not a JSON request: %s" % e)
        if not isinstance(req, dict):
            return self._err(None, "bad_request", "a request is a JSON object")
        rid = req.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool):
            return self._err(None, "bad_request", "a request needs an integer id")
        op, args = req.get("op"), req.get("args")
        if not isinstance(op, str):
            return self._err(rid, "bad_request", "a request needs an op")
        if args is None:
            args = {}
        if op == "hello":
            return self._hello(rid, args)
        fn = self.ops.get(op)
        if fn is None:
            return self._err(rid, "unknown_op", "this adapter offers no op %r" % op)
        try:
            value = fn(Args(args) if isinstance(args, dict) else args)
        except Exception as e:  # the implementation rejected the input, or threw
            members = dict(getattr(e, "members", None) or {})
            members.update(code=_code(e), message=_message(e))
            try:
                return ('{"id":%d,"err":%s}' % (rid, _dump(members))).encode("ascii")
            except (TypeError, ValueError):
                return self._err(rid, _code(e), _message(e))
        except BaseException as e:  # SystemExit and the like: no answer of the implementation
            return self._fault(rid, "op %s raised %s instead of returning" % (op, _message(e)))
        if isinstance(value, RawJSON):
            # A line break in JSON text can only be whitespace, so a space keeps it one line.
            text = value.text.replace("\r", " ").replace("\n", " ")
            return ('{"id":%d,"ok":' % rid).encode("ascii") + text.encode("utf-8", "surrogatepass") + b"}"
        try:
            text = _dump(value)
        except (TypeError, ValueError) as e:
            return self._fault(rid, "op %s returned %s, which is not JSON (%s)" % (op, type(value).__name__, e))
        return ('{"id":%d,"ok":%s}' % (rid, text)).encode("ascii")

    def _hello(self, rid, args):
        protocol = args.get("protocol") if isinstance(args, dict) else None
        if protocol != PROTOCOL:
            return self._err(rid, "unsupported_protocol", "this adapter speaks %s, not %r" % (PROTOCOL, protocol))
        suite = args.get("suite")
        if self.suite is not None and suite != self.suite:
            return self._err(rid, "unsupported_suite", "this adapter is for the %s suite, not %r" % (self.suite, suite))
        return ('{"id":%d,"ok":%s}' % (rid, _dump(self.hello()))).encode("ascii")

    def _err(self, rid, code, message):
        body = {"id": rid, "err": {"code": code, "message": message}}
        return _dump(body).encode("ascii")

    def _fault(self, rid, why):
        # A line with neither ok nor err: referee counts it as the adapter's fault (bad-line)
        # and shows the line, this reason included, as the check's evidence. An err would
        # read as a rejection, which a must-reject check would pass.
        self._say(why)
        return _dump({"id": rid, "referee_sdk_fault": why}).encode("ascii")


class _ProtocolOut:
    """stdout for protocol lines only: fd 1 is moved aside and pointed at stderr meanwhile,
    so a print() in an op (or a child process it starts) lands in the log, not the protocol."""

    def __init__(self):
        self.saved = None
        try:
            sys.stdout.flush()
            fd, err = sys.stdout.fileno(), sys.stderr.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            self.out = sys.stdout.buffer  # no file descriptors to move: stdout as it is
            return
        self.fd = fd
        self.saved = os.dup(fd)
        self.out = os.fdopen(os.dup(fd), "wb")
        os.dup2(err, fd)

    def close(self):
        if self.saved is None:
            return
        try:
            self.out.close()
        except OSError:
            pass
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(self.saved, self.fd)
        os.close(self.saved)


def serve_adapter(ops, name=None, version="", concurrency=1, suite=None, stdin=None, stdout=None):
    """Serve `ops` as a referee-adapter/1 adapter on stdin and stdout until stdin closes.

    `ops` maps each op name to a function of the request's `args` (an `Args`, a dict)
    returning the `ok` value: any JSON value; `bytes` travel as lowercase hex; `RawJSON`
    as its text. An exception is an `err` reply, with the exception's `code` attribute as
    the code when it has one (see `AdapterError`) and its text as the message. An op mapped
    to None is not offered (its checks are not-checked).

    `name` and `version` are the hello's; `concurrency` is how many requests may be in
    flight at once (each runs on a thread of its own when it is more than 1); `suite`, when
    given, refuses a hello for another suite. While serving, anything written to stdout
    goes to stderr, so prints cannot break the protocol. `stdin` and `stdout` (binary
    streams) replace the process's own, for tests.
    """
    dispatcher = Dispatcher(ops, name=name, version=version, concurrency=concurrency, suite=suite)
    inp = stdin if stdin is not None else sys.stdin.buffer
    guard = None
    if stdout is None:
        guard = _ProtocolOut()
        out = guard.out
    else:
        out = stdout
    lock = threading.Lock()

    def emit(line):
        reply = dispatcher.reply(line) + b"\n"  # outside the lock: other requests run meanwhile
        with lock:
            out.write(reply)
            out.flush()

    pool = ThreadPoolExecutor(max_workers=concurrency) if concurrency > 1 else None
    try:
        for line in inp:
            if isinstance(line, str):
                line = line.encode("utf-8", "surrogatepass")
            if not line.strip():
                continue
            if pool is None:
                emit(line)
            else:
                pool.submit(emit, line)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
        if guard is not None:
            guard.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "referee-python"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed ACK between

    def do_POST(self):  # noqa: N802 (http.server's naming)
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._send(411, b"a request needs a Content-Length\n")
            return
        body = self.rfile.read(int(length))
        reply = self.server.dispatcher.reply(body.rstrip(b"\r\n"))
        self._send(200, reply + b"\n")

    def _refuse(self):
        self._send(405, b"POST a referee-adapter/1 request\n")

    do_GET = do_PUT = do_DELETE = do_PATCH = _refuse

    def _send(self, status, body):
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:  # referee gave up on this call (its --timeout) and hung up
            self.close_connection = True

    def log_message(self, format, *args):  # noqa: A002 (http.server's naming)
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # an op that never returns must not keep the process alive
    block_on_close = False

    def handle_error(self, request, client_address):
        pass  # a connection referee closed; the verdict is referee's


class HTTPAdapter:
    """A Dispatcher served over HTTP on 127.0.0.1 (referee run --url), on a thread of its own."""

    def __init__(self, dispatcher):
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.dispatcher = dispatcher
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]
        # shutdown() waits for the loop to poll again: a short poll ends a run at once.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       name="referee-adapter-http", daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
