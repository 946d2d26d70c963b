"""The kernel never dies and never leaks (issue 20), seen through jupyter_client:

- inputs of a million characters in every request type (execute, complete, inspect,
  is_complete, %plot titles and paths, help queries) are answered and the kernel goes on;
- requests that are not well formed (ill-formed UTF-8, JSON that does not parse, missing or
  mistyped fields, unknown request types) get an error reply naming the problem; a message
  with a bad signature gets nothing, and the kernel goes on either way;
- output that is not valid UTF-8 reaches the client (with U+FFFD) instead of losing the reply;
- a long session keeps its memory flat; rebinding a large tensor holds one copy of it.

The long session runs 10 000 cells (the issue's figure; about 100 s, more on a loaded machine);
EIN_LONG_SESSION_CELLS=N changes that (it must stay well above 500 to mean anything).

Run by tests/stages/kernel.sh (which sets JUPYTER_PATH to a freshly installed kernelspec).
"""
import json
import os
import re
import tempfile
import unittest

import zmq
from jupyter_client.session import Session

from kernel_client import Kernel

ANSI = re.compile(r"\x1b\[[0-9;]*m")
BIG = 1_000_000


def rss_kib(kernel):
    with open(f"/proc/{kernel.km.provisioner.process.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


class KernelTestCase(unittest.TestCase):
    env = None

    @classmethod
    def setUpClass(cls):
        cls.k = Kernel(env=cls.env)

    @classmethod
    def tearDownClass(cls):
        cls.k.close()

    def assert_alive(self):
        cell = self.k.run("6 * 7", timeout=60)
        self.assertEqual(cell.status, "ok", cell.reply)
        self.assertEqual(cell.result(), "42")


class HugeInputs(KernelTestCase):
    """Each input once std::regex or unbounded recursion territory; every one must be answered."""

    def execute(self, code):
        cell = self.k.run(code, timeout=300)
        self.assertIn(cell.status, ("ok", "error"))
        self.assert_alive()
        return cell

    def test_long_name(self):
        cell = self.execute("x" * BIG)
        self.assertEqual(cell.reply["ename"], "E003")

    def test_long_leading_whitespace(self):
        cell = self.execute(" " * BIG + "1 + 2")
        self.assertEqual(cell.result(), "3")

    def test_long_help_queries(self):
        for code in ("a" * BIG + "?", "?" + "b" * BIG, "c" * BIG + "??", "??" + " " * BIG):
            self.execute(code)

    def test_deep_nesting(self):
        cell = self.execute("(" * BIG + "1" + ")" * BIG)
        self.assertEqual(cell.reply["ename"], "E001")

    def test_long_string_literal(self):
        cell = self.execute('let s = "' + "z" * BIG + '";\nlen(s)')
        self.assertEqual(cell.result(), str(BIG))

    def test_plot_title_and_paths(self):
        self.execute('%plot [1.0, 2.0] title "' + "t" * BIG + '"')
        self.execute("%plot [1.0, 2.0] --out " + "o" * BIG + ".svg")
        self.execute('%plot [1.0, 2.0] --out "' + "p" * BIG + '.png"')
        self.execute("%plot [1.0, 2.0]" + " as line" * (BIG // 8))
        self.execute("%load " + "f" * BIG)

    def test_long_lines_with_cell_separators_and_comments(self):
        self.execute("// " + "%" * BIG + "\n1")
        self.execute("let w = 1; // " + "c" * BIG)

    def test_completion(self):
        for code in ("let" + " " * BIG, "y" * BIG, "std::" + "m" * BIG, "%plot x --out " + "q" * BIG,
                     "let " + "a" * BIG + " = 1; " + "a" * 10):
            reply = self.k.shell_reply(self.k.kc.complete(code, len(code)), timeout=300)
            self.assertEqual(reply["status"], "ok")
            self.assert_alive()

    def test_inspection(self):
        for code in ("z" * BIG, "f(" * (BIG // 2), "std::" * (BIG // 5)):
            reply = self.k.shell_reply(self.k.kc.inspect(code, len(code)), timeout=300)
            self.assertEqual(reply["status"], "ok")
            self.assert_alive()

    def test_is_complete(self):
        for code, status in (("(" * BIG, "incomplete"), ("let" + " " * BIG, "incomplete"),
                             ("1 +" * (BIG // 3) + "1", "complete")):
            reply = self.k.shell_reply(self.k.kc.is_complete(code), timeout=300)
            self.assertIn(reply["status"], (status, "invalid"))
            self.assert_alive()


class RawClient:
    """Sends hand-made frames on the shell channel (signed like jupyter_client signs them)."""

    def __init__(self, kernel):
        info = kernel.km.get_connection_info()
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.connect(f"{info['transport']}://{info['ip']}:{info['shell_port']}")
        self.session = Session(key=kernel.km.session.key,
                               signature_scheme=kernel.km.session.signature_scheme)

    def close(self):
        self.sock.close()
        self.ctx.term()

    def request(self, msg_type, content, header=None, sign=True, wait=30):
        """(reply header, parent msg_id matches, reply content), or None if nothing came."""
        h = self.session.msg_header(msg_type)
        hb = header if header is not None else json.dumps(h, default=str).encode()
        frames = [hb, b"{}", b"{}", content]
        if sign:
            self.session.send_raw(self.sock, frames)
        else:
            self.sock.send_multipart([b"<IDS|MSG>", b"0" * 64] + frames)
        if not self.sock.poll(wait * 1000):
            return None
        reply = self.sock.recv_multipart()
        i = reply.index(b"<IDS|MSG>")
        rh, rp, rc = (json.loads(reply[i + k]) for k in (2, 3, 5))
        return rh, rp.get("msg_id") == h["msg_id"], rc


class MalformedRequests(KernelTestCase):
    def setUp(self):
        self.raw = RawClient(self.k)

    def tearDown(self):
        self.raw.close()

    def assert_bad_request(self, msg_type, content, reply_type, words):
        got = self.raw.request(msg_type, content)
        self.assertIsNotNone(got, f"no reply to {msg_type} {content[:60]!r}")
        header, matches, reply = got
        self.assertEqual(header["msg_type"], reply_type)
        self.assertTrue(matches, "the reply's parent is not the request")
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "BadRequest")
        for w in words:
            self.assertIn(w, reply["evalue"])
        if reply_type == "execute_reply":
            self.assertIn("execution_count", reply)
        self.assert_alive()

    def test_ill_formed_utf8(self):
        self.assert_bad_request("execute_request", b'{"code": "1 + \xff", "silent": false}',
                                "execute_reply", ["UTF-8", "0xFF", "content"])
        self.assert_bad_request("is_complete_request", b'{"code": "let a = \xc3("}',
                                "is_complete_reply", ["UTF-8", "0xC3"])
        self.assert_bad_request("complete_request", b'{"code": "\xed\xa0\x80", "cursor_pos": 1}',
                                "complete_reply", ["UTF-8"])  # an encoded surrogate
        self.assert_bad_request("inspect_request", b'{"code": "\xc0\xafx", "cursor_pos": 1}',
                                "inspect_reply", ["UTF-8"])  # an overlong encoding

    def test_malformed_json(self):
        self.assert_bad_request("execute_request", b'{"code": "1 + ', "execute_reply", ["not valid JSON"])
        self.assert_bad_request("execute_request", b"[1, 2", "execute_reply", ["JSON"])
        self.assert_bad_request("history_request", b"nonsense", "history_reply", ["JSON"])

    def test_missing_and_mistyped_fields(self):
        self.assert_bad_request("execute_request", b'{"silent": false}', "execute_reply",
                                ["missing field `code`"])
        self.assert_bad_request("execute_request", b'{"code": 5}', "execute_reply",
                                ["`code` must be a string"])
        self.assert_bad_request("execute_request", b'{"code": "1", "silent": "yes"}', "execute_reply",
                                ["`silent`"])
        self.assert_bad_request("execute_request", b"[]", "execute_reply", ["not a JSON object"])
        self.assert_bad_request("complete_request", b'{"code": "x"}', "complete_reply",
                                ["missing field `cursor_pos`"])
        self.assert_bad_request("inspect_request", b'{"code": "x", "cursor_pos": "1"}', "inspect_reply",
                                ["`cursor_pos` must be a number"])
        self.assert_bad_request("history_request", b"{}", "history_reply", ["hist_access_type"])

    def test_unknown_request_type(self):
        self.assert_bad_request("frobnicate_request", b"{}", "frobnicate_reply",
                                ["unknown request type"])

    def test_bad_signature_gets_no_reply_and_kernel_serves(self):
        self.assertIsNone(self.raw.request("execute_request", b'{"code": "1"}', sign=False, wait=2))
        self.assert_alive()

    def test_well_formed_raw_request_still_works(self):
        header, matches, reply = self.raw.request("execute_request", b'{"code": "2 * 21"}')
        self.assertEqual((header["msg_type"], matches, reply["status"]), ("execute_reply", True, "ok"))


class OutputEncoding(KernelTestCase):
    def test_printing_bytes_that_are_not_utf8(self):
        with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
            f.write(b"ok \xff\xfe end")
        try:
            cell = self.k.run(f'use std::io::read_file;\nprint(read_file("{f.name}"));')
            self.assertEqual(cell.status, "ok", cell.reply)
            out = cell.stdout()
            self.assertIn("ok ", out)
            self.assertIn("\ufffd", out)
            self.assertIn(" end", out)
        finally:
            os.unlink(f.name)
        self.assert_alive()


class FilesNamedByUsers(KernelTestCase):
    def test_devices_directories_and_missing_modules(self):
        for code, code_expected in (('use std::io::read_file;\nread_file("/dev/zero")', "E009"),
                                    ('use std::io::read_file;\nread_file("/")', "E009"),
                                    ("mod surely_missing_module;", "E010")):
            cell = self.k.run(code, timeout=60)
            self.assertEqual(cell.status, "error")
            self.assertEqual(cell.reply["ename"], code_expected)
        cell = self.k.run("%load /")
        self.assertEqual(cell.status, "error")
        self.assertIn("directory", cell.reply["evalue"])
        self.assert_alive()


# A session's live bindings are what it holds, so the cells below bind a bounded set of names
# (`a{k}` takes 40 names, all made within the first 500 cells); every other binding is rebound
# again and again, and what the old ones held must go.
MIXED_CELLS = [
    "let a{k} = {n};",
    "let v = [1.0, 2.0, 3.0]; let w[i] = v[i] * {n}.0; w",
    "fn f(x) {{ x + {n} }}\nf(2)",
    "let g = |x| x * {n}; g(3)",
    "let r[0] = 1.0; let r[t in 1..20] = r[t - 1] * 0.5; r[19]",
    "print(\"cell {n}\")",
    "nope_{n} + 1",
    "let y = sum[i](v[i] * v[i]); y",
    "%who",
    "let s = \"text {{v}}\"; s",
    "let x = {n};",
    "x * 2",
]


class LongSession(KernelTestCase):
    """Issue 20: 10 000 cells; RSS after them within 2 MB of RSS after the first 500. Before the
    release of old cells (engine/session/release.h) and the bound on the kernel's history,
    about 950 bytes a cell stayed: +9 MB over 9 500 cells."""
    CELLS = int(os.environ.get("EIN_LONG_SESSION_CELLS", "10000"))
    WARM = 500

    def test_memory_stays_flat(self):
        def run(n):
            code = MIXED_CELLS[n % len(MIXED_CELLS)].format(n=n, k=(n // len(MIXED_CELLS)) % 40)
            cell = self.k.run(code, timeout=60)
            self.assertIn(cell.status, ("ok", "error"))
            return cell
        for n in range(self.WARM):
            run(n)
        warm = rss_kib(self.k)
        for n in range(self.WARM, self.CELLS):
            run(n)
        grown = rss_kib(self.k) - warm
        print(f"\n  RSS after {self.WARM} cells: {warm} KiB; after {self.CELLS}: {grown:+} KiB", flush=True)
        self.assertLess(grown, 2048, f"RSS grew by {grown} KiB over {self.CELLS - self.WARM} cells")
        # What is still bound survives the release: the newest binding of each rebound name, the
        # newest function, the newest binding of `a0`, and a recurrence.
        last = {kind: max(n for n in range(self.CELLS) if n % len(MIXED_CELLS) == kind) for kind in (0, 2, 10)}
        a0 = max(n for n in range(0, self.CELLS, len(MIXED_CELLS)) if (n // len(MIXED_CELLS)) % 40 == 0)
        self.assertEqual(self.k.run("x * 2").result(), str(2 * last[10]))
        self.assertEqual(self.k.run("f(0)").result(), str(last[2]))
        self.assertEqual(self.k.run("a0").result(), str(a0))
        self.assertEqual(self.k.run("r[19] * 524288.0").result(), "1.0")  # 0.5^19 * 2^19
        # The kernel's input history keeps the newest 1000 inputs (kernel/xhistory.h).
        hist = self.k.shell_reply(self.k.kc.history(hist_access_type="tail", n=100_000, output=False,
                                                    raw=True))["history"]
        self.assertEqual(len(hist), 1000)
        self.assertEqual(hist[-1][2], "r[19] * 524288.0")


class HistoryBound(KernelTestCase):
    def test_history_of_megabyte_cells_is_bounded(self):
        # Eight cells of 1 MB each: the history keeps at most 4 MiB of text, newest first kept.
        for n in range(8):
            cell = self.k.run(f"// {n}" + "x" * BIG + f"\n{n}", timeout=300)
            self.assertEqual(cell.result(), str(n))
        hist = self.k.shell_reply(self.k.kc.history(hist_access_type="tail", n=100, output=False,
                                                    raw=True))["history"]
        self.assertLessEqual(sum(len(h[2]) for h in hist), 4 << 20)
        self.assertGreaterEqual(len(hist), 3)
        self.assertTrue(hist[-1][2].startswith("// 7x"))
        self.assert_alive()


class MixedSession(KernelTestCase):
    """Issue 19: 1000 cells mixing errors, interrupts and large outputs; the kernel answers every
    one and its RSS after them is within 20 MB of its RSS after the first 100. Interpreted, so
    the interrupted cells do not wait for the C++ compiler."""
    env = {"EIN_JIT": "never"}
    CELLS = 1000
    LONG = "sum[i in 0..long_n](i % 3)"

    def interrupted(self, n):
        msg_id = self.k.send(self.LONG)
        # SIGINT is repeated until the reply comes: one that lands before the cell starts
        # polling is not lost that way, and no fixed delay is assumed.
        reply = None
        for _ in range(240):
            self.k.km.interrupt_kernel()
            reply = self.k.reply_arrived(msg_id, within=0.5)
            if reply is not None:
                break
        self.assertIsNotNone(reply, f"cell {n}: not interrupted")
        self.assertEqual(reply["ename"], "E007", reply)
        self.k.collect(msg_id, reply=reply)

    def test_errors_interrupts_and_large_outputs(self):
        setup = self.k.run("let big[i in 0..50000] = (i as f64) * 0.5;\n"
                           "fn rep(s, n) { if n == 0 { s } else { rep(s + s, n - 1) } }\n"
                           "let text = rep(\"0123456789\", 15);\n"  # 327 680 characters
                           "let long_n: i64 = 1000000000000;")
        self.assertEqual(setup.status, "ok", setup.reply)
        after_100 = None
        for n in range(self.CELLS):
            kind = n % 10
            if n % 50 == 25:
                self.interrupted(n)
            elif kind in (1, 6):
                cell = self.k.run(f"undefined_{n} + 1")
                self.assertEqual(cell.reply["ename"], "E003")
            elif kind == 3:
                cell = self.k.run("print(text)")
                self.assertEqual(cell.status, "ok")
                self.assertEqual(len(cell.stdout()), 327_681)
            elif kind == 8:
                cell = self.k.run("big")
                self.assertEqual(cell.status, "ok")
            elif kind == 9:
                cell = self.k.run("let q = [1, 2, 3]; q[7]")
                self.assertEqual(cell.reply["ename"], "E005")
            else:
                cell = self.k.run(f"let r{n % 7} = {n} * 2;\nr{n % 7} + 1")
                self.assertEqual(cell.result(), str(2 * n + 1))
            if n == 99:
                after_100 = rss_kib(self.k)
        grown = rss_kib(self.k) - after_100
        print(f"\n  RSS after 100 mixed cells: {after_100} KiB; after {self.CELLS}: {grown:+} KiB", flush=True)
        self.assertLess(grown, 20 * 1024)
        self.assert_alive()


class Rebinding(KernelTestCase):
    # 48 MB tensors under a 160 MB limit: holding the shadowed copies would pass the limit (E008)
    # on the fourth run; holding one copy, every run succeeds.
    env = {"EIN_MAX_MEMORY": "160M"}
    CELL = "let big[i in 0..6000000] = (i % 7) as f64;\nbig[5999999]"

    def test_rebinding_a_large_tensor_holds_one_copy(self):
        first = self.k.run(self.CELL, timeout=120)
        self.assertEqual(first.status, "ok", first.reply)
        after_first = rss_kib(self.k)
        for n in range(19):
            cell = self.k.run(self.CELL, timeout=120)
            self.assertEqual(cell.status, "ok", f"run {n + 2}: {cell.reply}")
            self.assertEqual(cell.result(), "5.0")
        grown = rss_kib(self.k) - after_first
        print(f"\n  RSS after 20 bindings of a 48 MB tensor: +{grown} KiB over the first", flush=True)
        self.assertLess(grown, 24 * 1024)

    def test_a_function_keeps_what_it_reads(self):
        self.assertEqual(self.k.run("let kept = [1.5, 2.5];\nfn reads_kept() -> f32 { kept[1] }").status, "ok")
        self.assertEqual(self.k.run("let kept = 0;").status, "ok")
        self.assertEqual(self.k.run("reads_kept()").result(), "2.5")


if __name__ == "__main__":
    unittest.main()
