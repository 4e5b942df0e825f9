"""referee.serve_adapter: the adapter protocol over stdio, line by line and end to end."""

import io
import json
import subprocess
import sys
import threading

import pytest

import referee
from conftest import EXAMPLES

HELLO = b'{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"jcs"}}\n'


def serve(ops, lines, **kw):
    """Serve `ops` on the given request lines; return the replies, parsed, in order of writing."""
    out = io.BytesIO()
    referee.serve_adapter(ops, stdin=io.BytesIO(b"".join(lines)), stdout=out, **kw)
    raw = out.getvalue()
    assert raw.endswith(b"\n") and raw.isascii()
    return [json.loads(line) for line in raw.decode("ascii").split("\n")[:-1]]


def req(rid, op, **args):
    return json.dumps({"id": rid, "op": op, "args": args}).encode("utf-8") + b"\n"


def test_hello_lists_offered_ops_only():
    ops = {"a": lambda args: 1, "b": lambda args: 2, "c": None}
    (hello,) = serve(ops, [HELLO], name="mine", version="1.2")
    assert hello == {"id": 0, "ok": {"name": "mine", "version": "1.2", "ops": ["a", "b"], "concurrency": 1}}


def test_hello_refuses_another_protocol_or_suite():
    other = b'{"id":0,"op":"hello","args":{"protocol":"referee-adapter/9","suite":"jcs"}}\n'
    (r,) = serve({"a": len}, [other])
    assert r["id"] == 0 and r["err"]["code"] == "unsupported_protocol"
    (r,) = serve({"a": len}, [HELLO], suite="crosslink")
    assert r["err"]["code"] == "unsupported_suite"


class Coded(Exception):
    code = "my_code"


class Numbered(Exception):
    code = 404


def test_replies():
    ops = {
        "echo": lambda args: args,
        "text": lambda args: args.text("value"),
        "bytes": lambda args: args.bytes("value"),
        "raw": lambda args: referee.RawJSON('{"b": 1.0,\n "a": 1E3}'),
        "coded": lambda args: (_ for _ in ()).throw(Coded("bad input")),
        "numbered": lambda args: (_ for _ in ()).throw(Numbered("gone")),
        "plain": lambda args: (_ for _ in ()).throw(KeyError("value_text")),
        "adapter": lambda args: (_ for _ in ()).throw(referee.AdapterError("unknown_field", "no", path="frame.x")),
    }
    replies = serve(ops, [
        HELLO,
        req(1, "echo", x=[1, "é"]),
        req(2, "text", value={"a": 1}, value_text='{"a" : 1.0}'),
        req(3, "text", value={"a": 1}),
        req(4, "bytes", value_hex="00ff7B"),
        req(5, "raw"),
        req(6, "coded"),
        req(7, "numbered"),
        req(8, "plain"),
        req(9, "adapter"),
        req(10, "nope"),
        b"\n",  # a blank line is skipped
        b"not json\n",
        b'{"id":"11","op":"echo","args":{}}\n',
        b'{"id":12,"op":"echo","args":{"s":"\\ud800"}}',  # a last line without its newline
    ])
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert by_id[1] == {"id": 1, "ok": {"x": [1, "é"]}}
    assert by_id[2] == {"id": 2, "ok": '{"a" : 1.0}'}  # the exact text, when the suite sends it
    assert by_id[3] == {"id": 3, "ok": '{"a":1}'}
    assert by_id[4] == {"id": 4, "ok": "00ff7b"}  # bytes travel as lowercase hex
    assert by_id[6] == {"id": 6, "err": {"code": "my_code", "message": "Coded: bad input"}}
    assert by_id[7]["err"]["code"] == "404"
    assert by_id[8] == {"id": 8, "err": {"code": None, "message": "KeyError: 'value_text'"}}
    assert by_id[9] == {"id": 9, "err": {"code": "unknown_field", "message": "no", "path": "frame.x"}}
    assert by_id[10]["err"]["code"] == "unknown_op"
    assert by_id[12] == {"id": 12, "ok": {"s": "\ud800"}}  # a lone surrogate goes back escaped
    anonymous = [r for r in replies if r["id"] is None]
    assert [r["err"]["code"] for r in anonymous] == ["bad_request", "bad_request"]
    assert len(replies) == 14


def test_raw_json_keeps_its_lexemes():
    out = io.BytesIO()
    referee.serve_adapter({"raw": lambda args: referee.RawJSON('{"b": 1.0,\n "a": 1E3}')},
                          stdin=io.BytesIO(req(5, "raw")), stdout=out)
    assert out.getvalue() == b'{"id":5,"ok":{"b": 1.0,  "a": 1E3}}\n'


@pytest.mark.parametrize("value, why", [
    ({1, 2}, "returned set, which is not JSON"),
    (float("nan"), "returned float, which is not JSON"),
    (object(), "returned object, which is not JSON"),
])
def test_a_value_with_no_json_form_is_a_fault(value, why):
    # Neither ok nor err: referee calls the line a fault (an error), where an err would read
    # as a rejection and pass a must-reject check.
    (r,) = serve({"f": lambda args: value}, [req(3, "f")])
    assert set(r) == {"id", "referee_sdk_fault"} and r["id"] == 3
    assert why in r["referee_sdk_fault"]


def test_system_exit_is_a_fault():
    (r,) = serve({"f": lambda args: sys.exit(3)}, [req(4, "f")])
    assert "raised SystemExit" in r["referee_sdk_fault"]


def test_concurrency_answers_out_of_order():
    fast_done = threading.Event()

    def slow(args):
        assert fast_done.wait(10), "the fast request never ran beside this one"
        return "slow"

    def fast(args):
        fast_done.set()
        return "fast"

    replies = serve({"slow": slow, "fast": fast}, [HELLO, req(1, "slow"), req(2, "fast")], concurrency=2)
    assert replies[0]["ok"]["concurrency"] == 2
    assert [r["id"] for r in replies] == [0, 2, 1]


def test_bad_ops():
    with pytest.raises(TypeError, match="must be a function"):
        referee.serve_adapter({"a": 1}, stdin=io.BytesIO(), stdout=io.BytesIO())
    with pytest.raises(TypeError, match="mapping"):
        referee.serve_adapter([len], stdin=io.BytesIO(), stdout=io.BytesIO())
    with pytest.raises(ValueError, match="hello is the protocol's own"):
        referee.serve_adapter({"hello": len}, stdin=io.BytesIO(), stdout=io.BytesIO())
    with pytest.raises(ValueError, match="concurrency"):
        referee.serve_adapter({"a": len}, concurrency=0, stdin=io.BytesIO(), stdout=io.BytesIO())


PRINTING = """
import os, sys
from referee import serve_adapter
def op(args):
    print("a print from the op")
    os.system("echo a child process writes too")
    return "done"
serve_adapter({"op": op}, name="printer")
print("after serving, stdout is stdout again")
"""


def test_prints_go_to_stderr(tmp_path):
    script = tmp_path / "printer.py"
    script.write_text(PRINTING)
    proc = subprocess.run([sys.executable, str(script)], input=HELLO + req(1, "op"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().split("\n")
    assert [json.loads(line)["id"] for line in lines[:2]] == [0, 1]
    assert lines[2:] == ["after serving, stdout is stdout again", ""]
    assert "a print from the op" in proc.stderr.decode()
    assert "a child process writes too" in proc.stderr.decode()


def test_example_adapter_is_conformant(referee_bin, jcs_ids):
    # examples/jcs_adapter.py, run as referee runs any adapter: a program on stdio.
    report = referee.run_conformance("jcs", [sys.executable, str(EXAMPLES / "jcs_adapter.py")])
    assert report.implementation["name"] == "example-jcs"
    assert report.implementation["ops"] == ["canonicalJson", "canonicalJsonBytes"]
    assert report.counts["pass"] == len(jcs_ids) and report.conformant


def test_crashing_adapter_is_an_error(referee_bin, tmp_path):
    script = tmp_path / "crash.py"
    script.write_text("import os\nfrom referee import serve_adapter\n"
                      "serve_adapter({'canonicalJson': lambda a: os._exit(7)})\n")
    report = referee.run_conformance("jcs", [sys.executable, str(script)], run="jcs/numbers/million")
    (c,) = report.checks
    assert c.status == "error" and "status 7" in c.reason
