#!/usr/bin/env python3
"""Live progress of long cells in the `ein` REPL (issue 15, "Beyond IPython"), in a pty.

The REPL runs with standard input and output on one pseudo-terminal and standard error on a
second one, so the test sees exactly which bytes go where: a cell running longer than a second
draws a one-line bar on stderr (the statement's line, the recurrence's percentage), redrawn in
place with `\\r` and erased when the cell ends; stdout carries only what it carried before
(prompt, echo, print output); a short cell draws nothing; Ctrl-C still interrupts; %timeit
shows which run it is in; with stderr not a terminal nothing is drawn. Both tiers. No timing
assertion beyond "a cell of several seconds shows progress": long cells wait for the bar.

    python3 tests/repl/test_progress.py --ein build/ein [-v] [-k NAME]
"""
import fcntl
import os
import re
import select
import struct
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_repl  # noqa: E402  (the Repl driver and the test runner)

BAR = re.compile(r"\r(line (\d+): [^\r]*?)  \[([\u2588\u2591]{20})\] +(\d+)%  [0-9.kMG]+/[0-9.kMG]+ \u00b7 [0-9.]+ s")
PROMPT_END = r">>> $"
LONG = ("let y = { let x[0] = 0.0; let x[t in 1..2000000000] = "
        "x[t - 1] + 1.0 / (1.0 + x[t - 1] / (2.0 + x[t - 1] / (3.0 + x[t - 1] / (4.0 + x[t - 1])))); "
        "x[1999999999] };")
# Four dependent divisions per step: with one, a fast machine finished the native cell in about
# 1 s, before the bar had been redrawn twice, and the interrupt test waited for a bar that ended.


def winsize(fd, rows=40, cols=120):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Repl(test_repl.Repl):
    """`ein` with stdin/stdout on one pty (self.fd, self.raw: the base class's expect/line/send/
    close work on it) and stderr on another pty or a pipe (self.err)."""

    def __init__(self, ein, env, cwd, stderr_tty=True):
        self.fd, out_s = os.openpty()
        self.err_fd, err_s = os.openpty() if stderr_tty else os.pipe()
        winsize(self.fd)
        if stderr_tty:
            winsize(self.err_fd)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.setsid()
                fcntl.ioctl(out_s, termios.TIOCSCTTY, 0)
                os.dup2(out_s, 0)
                os.dup2(out_s, 1)
                os.dup2(err_s, 2)
                os.chdir(cwd)
                os.execve(ein, [ein], env)
            finally:
                os._exit(127)
        os.close(out_s)
        os.close(err_s)
        self.raw = ""
        self.err = ""
        self.mark = 0

    def read(self, timeout):
        r, _, _ = select.select([self.fd, self.err_fd], [], [], timeout)
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            text = data.decode("utf-8", "replace")
            if fd == self.fd:
                self.raw += text
            else:
                self.err += text
        return bool(r)

    def wait_for_err(self, pattern, timeout):
        rx = re.compile(pattern, re.S)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.err)
            if m:
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for %r on stderr; it has:\n%r" % (pattern, self.err[-2000:]))
            self.read(min(left, 0.2))

    def prompt(self, timeout=60.0):
        return self.expect(PROMPT_END, timeout)


def bars(err):
    return list(BAR.finditer(err))


class Suite:
    def __init__(self, ein, verbose):
        self.ein = os.path.abspath(ein)
        self.verbose = verbose
        self.tmp = tempfile.mkdtemp(prefix="ein-progress-test-")

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith("EIN_") or k == "EIN_SHARE_DIR"}
        e.update(TERM="xterm", HOME=self.tmp, EIN_HISTORY="", EIN_JIT="never", LANG="C.UTF-8",
                 EIN_CACHE_DIR=os.path.join(self.tmp, "cache"))
        e.pop("NO_COLOR", None)
        e.update(extra)
        return e

    def start(self, stderr_tty=True, **env):
        r = Repl(self.ein, self.env(**env), self.tmp, stderr_tty)
        r.prompt(10)
        return r

    def long_cell_interrupted(self, jit):
        r = self.start(EIN_JIT=jit)
        r.line("let kept = 5;")
        assert r.err == "", "nothing on stderr for short cells: %r" % r.err
        out_before = len(r.raw)
        r.send(LONG + "\r")
        # The bar appears (after a second), on stderr, and is redrawn with the statement's line.
        m = r.wait_for_err(BAR.pattern, 180)
        assert m.group(2) == "1", m.group(0)
        assert "let x[t in 1..2000000000]" in m.group(1) or "let y = {" in m.group(1), m.group(0)
        first = len(bars(r.err))
        r.wait_for_err(r"(?:%s.*){%d}" % (BAR.pattern, first + 1), 30)  # redrawn in place
        assert "\n" not in r.err, "the bar never moves to a new line: %r" % r.err[-300:]
        levels = [int(b.group(4)) for b in bars(r.err)]
        assert levels == sorted(levels), "the percentage only grows: %r" % levels
        r.send("\x03")
        out = r.prompt(60)
        assert "error[E007]" in out or "error[E007]" in test_repl.plain(r.err), (out, r.err[-500:])
        # The bar was erased: after its last drawing, a carriage return, blanks, a carriage return.
        last = bars(r.err)[-1]
        assert re.match(r"\r +\r", r.err[last.end():]), repr(r.err[last.end():last.end() + 200])
        # stdout got no part of the bar.
        assert "\u2588" not in r.raw[out_before:] and "\u2591" not in r.raw[out_before:], r.raw[out_before:]
        err_len = len(r.err)
        out = r.line("kept + 1")
        assert re.search(r"\n6\n", out), out
        assert r.err[err_len:] == "", "a short cell draws nothing: %r" % r.err[err_len:]
        r.close()

    def test_interpreter_long_cell(self):
        self.long_cell_interrupted("never")

    def test_native_long_cell(self):
        # The statement line comes from the kernel's clause; the steps from the generated code.
        self.long_cell_interrupted("always")

    def test_stdout_unchanged(self):
        # Several seconds in the interpreter, with print output before, inside the bar's time and
        # after; stdout must hold exactly what a run without a terminal on stderr writes.
        cell = ('print("before"); let z = { let x[0] = 0.0; let x[t in 1..10000000] = '
                'x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]); x[9999999] }; print("after"); z > 0.0')
        r = self.start()
        at = len(r.raw)
        r.send(cell + "\r")
        r.prompt(600)
        shown = r.raw[at:]
        r.close()
        assert bars(r.err), "a cell of several seconds shows progress: %r" % r.err[-300:]
        assert re.search(r"\r +\r$", r.err), "erased at the end: %r" % r.err[-200:]
        q = self.start(stderr_tty=False)
        at = len(q.raw)
        q.send(cell + "\r")
        q.prompt(600)
        quiet = q.raw[at:]
        q.close()
        assert q.err == "", "no bar when stderr is not a terminal: %r" % q.err[-300:]
        strip = lambda s: re.sub(r"\[\d+\] ", "", s)  # the prompt's number is the same too
        assert strip(shown) == strip(quiet), (shown, quiet)
        assert re.search(r"\r\nbefore\r\nafter\r\ntrue\r\n", shown), repr(shown)

    def test_timeit_progress(self):
        r = self.start()
        at = len(r.raw)
        r.send("%timeit { let x[0] = 0.0; let x[t in 1..1000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]); x[999999] }\r")
        out = r.prompt(900)
        assert re.search(r"per loop \(mean ± std\. dev\. of 7 runs", out), out
        assert re.search(r"\r%timeit: (choosing the loop count|run \d of 7) \u00b7 loop \d+ of \d+ \u00b7 line 1: ", r.err), r.err[-500:]
        assert "%timeit:" not in r.raw[at:], "the label stays on stderr"
        r.close()


if __name__ == "__main__":
    sys.exit(test_repl.main(Suite, __doc__))
