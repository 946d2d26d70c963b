#!/usr/bin/env python3
"""Drives the `ein` REPL in a pseudo-terminal, as a person at a keyboard would.

Checks: banner and prompt, multi-line continuation, echo of a trailing expression, an error
with its caret followed by a working line, %who, %ir lowered, %time, %plot drawn in the
terminal, Tab completion (names, module paths, commands), Ctrl-C (cancels a line, interrupts a
running cell), Ctrl-D, history surviving a restart (and Ctrl-R), an unwritable history file.
Also prints the time from start to the first prompt (never asserted: timing is not a test).

Standard library only (pty, select), so any python3 runs it.

    python3 tests/repl/test_repl.py --ein build/ein [-v] [-k NAME]
"""
import argparse
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import fcntl
import time
import traceback

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
PROMPT = ">>> "
CONT = "... "
UP = "\x1b[A"


def plain(raw):
    """Terminal output without escape sequences and carriage returns."""
    return ANSI.sub("", raw).replace("\r", "")


class Repl:
    def __init__(self, ein, env, cwd, cols=100, rows=40):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child: become `ein` on the pty
            try:
                os.chdir(cwd)
                os.execve(ein, [ein], env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.raw = ""
        self.mark = 0
        self.started = time.monotonic()

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data.decode("utf-8", "replace")
        return True

    def expect(self, pattern, timeout=10.0):
        """Waits until `pattern` (regex over the plain text after the mark) appears; moves the
        mark past the match and returns the plain text up to its end."""
        rx = re.compile(pattern, re.S)
        deadline = time.monotonic() + timeout
        while True:
            # Plain text of everything so far: escape sequences already printed never change.
            text = plain(self.raw)[self.mark:]
            m = rx.search(text)
            if m:
                self.mark += m.end()
                return text[: m.end()]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for %r; screen since mark:\n%s" % (pattern, text[-3000:]))
            self.read(min(left, 0.2))

    def send(self, keys):
        # libedit switches the terminal to raw mode around printing the prompt; a key that
        # arrives in that instant is read in cooked mode (a ^D is then lost). A person never
        # types that fast: wait until the output has been quiet for a moment.
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and self.read(0.03):
            pass
        os.write(self.fd, keys.encode())

    def line(self, text, until=PROMPT, timeout=10.0):
        """Types a line, presses Enter, returns the plain output up to the next prompt."""
        self.send(text + "\r")
        out = self.expect(re.escape(until) + r"$", timeout)
        return out

    def raw_since(self, start):
        return self.raw[start:]

    def close(self):
        try:
            self.send("\x04")
        except OSError:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            self.read(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("ein did not exit on Ctrl-D; screen:\n" + repr(self.raw[-500:]))


class Suite:
    def __init__(self, ein, verbose):
        self.ein = os.path.abspath(ein)
        self.verbose = verbose
        self.tmp = tempfile.mkdtemp(prefix="ein-repl-test-")
        self.history = os.path.join(self.tmp, "history")
        with open(os.path.join(self.tmp, "geometry.ein"), "w") as f:
            f.write("// Area of a rectangle.\npub fn area(w, h) { w * h }\n")

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith("EIN_") or k == "EIN_SHARE_DIR"}
        e.update(TERM="xterm", HOME=self.tmp, EIN_HISTORY=self.history, EIN_JIT="never", LANG="C.UTF-8")
        e.pop("NO_COLOR", None)
        e.update(extra)
        return e

    def start(self, **env):
        r = Repl(self.ein, self.env(**env), self.tmp)
        r.expect("Ctrl-D exits.*?" + re.escape(PROMPT) + "$")
        return r

    # ---- the checks --------------------------------------------------------------------------

    def test_prompt_echo_multiline(self):
        r = self.start()
        assert "Einlang REPL" in plain(r.raw), r.raw
        assert "\x1b[" in r.raw, "the prompt is coloured on a terminal"
        out = r.line("1 + 2")
        assert re.search(r"1 \+ 2\n3\n\[2\] >>> $", out), out
        r.send("fn add(a, b) {\r")
        r.expect(re.escape(CONT) + "$")
        r.send("  a + b\r")
        r.expect(re.escape(CONT) + "$")
        out = r.line("}")
        assert "error" not in out, out
        out = r.line("add(40, 2)")
        assert re.search(r"\n42\n", out), out
        # A comment line continues the cell, so it documents the item that follows.
        r.send("// Doubles a value.\r")
        r.expect(re.escape(CONT) + "$")
        r.line("fn dbl(a) { a * 2 }")
        out = r.line("?dbl")
        assert "fn dbl(a)\n    Doubles a value.\n" in out, out
        r.send("// just a note\r")
        r.expect(re.escape(CONT) + "$")
        out = r.line("")  # an empty line ends a comment-only cell
        assert "error" not in out, out
        out = r.line("let quiet = 5;")
        assert re.search(r"let quiet = 5;\n\[\d+\] >>> $", out), "a statement echoes nothing: " + out
        assert r.close() == 0

    def test_error_caret_then_next_line(self):
        r = self.start()
        start = len(r.raw)
        out = r.line("let y = nope + 1;")
        assert "error[E003]" in out, out
        assert re.search(r"\n1 \| let y = nope \+ 1;\n", out), out
        assert re.search(r"\n  \|         \^\^\^\^ not found", out), out
        assert "aborting due to 1 previous error" in out, out
        assert "\x1b[1;31m" in r.raw_since(start), "diagnostics are coloured on a terminal"
        out = r.line("6 * 7")
        assert re.search(r"\n42\n", out), out
        out = r.line("y")
        assert "error[E003]" in out, "the failed cell defined nothing: " + out
        r.close()

    def test_commands_who_ir_time(self):
        r = self.start()
        r.line("let x[0] = 1.0; let x[t in 1..10] = x[t - 1] * 0.5;")
        r.line("let M = [[1, 2, 3], [4, 5, 6]];")
        out = r.line("%who")
        assert re.search(r"name +kind +type\n", out), out
        assert re.search(r"\nM +let +\[i32; 2, 3\]\n", out), out
        assert re.search(r"\nx +let +\[f32; 10\]\n", out), out
        out = r.line("%ir lowered x")
        assert ";; x defined at cell[1]:1" in out, out
        assert "loop t: recurrence axis=0 lookback=1" in out, out
        assert "(LTensor x" in out and "(LFor t" in out, out
        out = r.line("%time x[9] * 2.0")
        assert re.search(r"\n0\.00390625\n", out), "runs and echoes: " + out
        for row in ("parse", "analysis", "lowering", "codegen", "compile", "load", "run", "total"):
            assert re.search(r"\n%s +[0-9.]+ ms\n" % row, out), row + ": " + out
        out = r.line("%nosuch")
        assert "unknown command `%nosuch`" in out, out
        out = r.line("%help")
        assert "%timeit" in out and "%plot" in out, out
        out = r.line("?print")
        assert "print(a, b, ...)" in out, out
        r.close()

    def test_gradient_of_an_earlier_cells_recurrence(self):
        # The recurrence is a global of an earlier cell (stored whole); a gradient asked in a
        # later cell keeps its adjoint windowed (lang/passes/checkpoint.h), and the scalar
        # parameter k takes a forward tangent that keeps a window too (checkpoint_fuse.cpp).
        # The values are checked by tests/golden/autodiff/ad_blocked_sweep_cross_cell.ein.
        r = self.start()
        r.line("let T = 1500; let u0[i in 0..300] = ((i * 7) % 13) as f64 * 0.01; let k: f64 = 0.2;")
        out = r.line("let u[0, i in 0..300] = u0[i]; let u[t in 1..T, 0] = 0.0; "
                     "let u[t in 1..T, i in 1..299] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + "
                     "u[t - 1, i + 1]); let u[t in 1..T, 299] = 0.0; let loss = sum[i](u[T - 1, i] * u[T - 1, i]);")
        assert "error" not in out, out
        out = r.line("%ir after=checkpoint let gu = @loss / @u0;", timeout=60)
        assert re.search(r"tensor d_u: window=\d+ on axis 0", out), out
        out = r.line("%ir after=checkpoint let gk = @loss / @k;", timeout=60)
        assert re.search(r"tensor t_u: window=\d+ on axis 0", out), out
        assert "whole tensor stored" not in out, out
        r.close()

    def test_recurrence_clauses_across_lines(self):
        # SPEC §11: a recurrence typed clause by clause joins the previous line's definition.
        r = self.start()
        out = r.line("let x[0] = 1.0;")
        assert "error" not in out, out
        out = r.line("let x[t in 1..8] = x[t - 1] * 0.5;")
        assert "error" not in out, out
        out = r.line("x")
        assert "[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]" in out, out
        # Not adjacent: a line in between makes the next recurrence a fresh binding (E012).
        r.line("let y[0] = 1.0;")
        r.line("1 + 1")
        out = r.line("let y[t in 1..4] = y[t - 1] * 2.0;")
        assert "error[E012]" in out and "cell right before" in out, out
        r.close()

    def test_plot_in_terminal(self):
        r = self.start()
        start = len(r.raw)
        out = r.line("%plot [1.0, 4.0, 9.0, 16.0, 25.0] title \"squares\"", timeout=30)
        if shutil.which("gnuplot") is None:
            assert "gnuplot is not installed" in out, out
            return
        assert "squares" in out, out
        assert re.search(r"\+-{20,}\+", out), "a frame drawn with text: " + out
        assert re.search(r"\n +25 \|", out), "y tics: " + out
        assert "\x1b[" in r.raw_since(start)
        # A heat map: ordered 256-colour cells (two pixels per character) and a colour bar
        # labelled with the data's own extremes (19 * 29 = 551 at the top, 0 at the bottom).
        r.line("let H[i in 0..20, j in 0..30] = (i * j) as f32;")
        start = len(r.raw)
        out = r.line("%plot H")
        lines = [l.rstrip() for l in out.splitlines() if "\u2580" in l]
        assert len(lines) >= 5, out
        assert lines[0].endswith(" 551") and lines[-1].endswith(" 0"), out
        assert "\x1b[38;5;" in r.raw_since(start), "256-colour cells"
        # A recurrence's trajectory (logistic maps, one per column): the bar's labels are the
        # data's extremes, computed here in f32, and its colours get lighter towards the top.
        r.line("let x[0, k in 0..32] = 0.5;")
        r.line("let x[t in 1..24, k in 0..32] = (2.5 + (k as f32) * 0.04) * x[t - 1, k] * (1.0 - x[t - 1, k]);")
        f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
        traj = [[0.5] * 32]
        for t in range(1, 24):
            traj.append([f32(f32(f32(2.5 + f32(k * f32(0.04))) * traj[-1][k]) * f32(1.0 - traj[-1][k])) for k in range(32)])
        lo, hi = min(map(min, traj)), max(map(max, traj))
        start = len(r.raw)
        out = r.line("%plot x")
        lines = [l.rstrip() for l in out.splitlines() if "\u2580" in l]
        assert len(lines) >= 5, out
        top, bottom = float(lines[0].split()[-1]), float(lines[-1].split()[-1])
        assert abs(top - hi) <= 1e-3 * abs(hi) and abs(bottom - lo) <= 1e-3 * abs(lo), (top, bottom, hi, lo)
        bar = [int(c) for c in re.findall(r"\x1b\[48;5;(\d+)m  \x1b\[0m", r.raw_since(start))]
        assert len(bar) == len(lines), (bar, len(lines))
        step = [0, 95, 135, 175, 215, 255]
        def luminance(i):
            rgb = [step[(i - 16) // 36], step[(i - 16) // 6 % 6], step[(i - 16) % 6]]
            lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
            return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        lum = [luminance(c) for c in bar]
        assert all(a >= b for a, b in zip(lum, lum[1:])) and lum[0] > lum[-1], bar
        out = r.line("%plot [1.0] as pie")
        assert "unknown plot kind `pie`" in out, out
        out = r.line("1 + 1")
        assert "\n2\n" in out, out
        r.close()

    def test_tab_completion(self):
        r = self.start()
        r.line("let alphabet = 26;")
        r.send("alpha\t")
        r.expect("alphabet$")
        out = r.line("")
        assert re.search(r"\n26\n", out), out
        r.send("geometry::ar\t")
        r.expect("geometry::area$")
        out = r.line("(3, 4)")
        assert re.search(r"\n12\n", out), out
        r.send("%ti\t")
        r.expect("%time$")
        r.send("\t")  # ambiguous: lists the candidates and redraws the line
        listing = r.expect(r"%timeit.*?%time$")
        assert re.search(r"%time +%timeit", listing), listing
        r.send("\x15")  # Ctrl-U: clear the line
        out = r.line("")
        # Context: after `X.` the members of X; inside `use m::{` the items of m.
        r.line("let mat = [[1.0, 2.0]];")
        r.send("mat.sh\t")
        r.expect(r"mat\.shape$")
        out = r.line("")
        assert re.search(r"\n\[1, 2\]\n", out), out
        r.send("mat.\t\t")
        # The line's own echo "mat." comes before the listing: wait for the listing and the
        # re-drawn line after it (matching the echo alone raced the listing).
        listing = r.expect(r"length.*\n.*mat\.$")
        assert re.search(r"length +shape +size", listing) and "alphabet" not in listing, listing
        r.send("\x15")
        r.line("")
        r.send("use std::math::{squ\t")
        r.expect(r"use std::math::\{square$")
        out = r.line("};")
        assert "error" not in out, out
        out = r.line("square(3.0)")
        assert re.search(r"\n9\.0\n", out), out
        r.close()

    def test_ctrl_c(self):
        r = self.start()
        r.send("let unfinished = [1,\r")
        r.expect(re.escape(CONT) + "$")
        r.send("\x03")
        r.expect(r"\^C\n\[\d+\] " + re.escape(PROMPT) + "$")
        out = r.line("unfinished")
        assert "error[E003]" in out, "Ctrl-C dropped the whole cell: " + out
        r.send("let slow = sum[i in 0..2000000000](i as f64);\r")
        r.expect(r"\(i as f64\);\n")  # the line was accepted: the cell is starting
        time.sleep(0.5)
        r.send("\x03")
        out = r.expect(re.escape(PROMPT) + "$", timeout=20)
        assert "error[E007]" in out and "interrupted" in out, out
        out = r.line("slow")
        assert "error[E003]" in out, "an interrupted statement binds nothing: " + out
        out = r.line("2 + 2")
        assert re.search(r"\n4\n", out), out
        assert r.close() == 0

    def test_history_survives_restart(self):
        if os.path.exists(self.history):
            os.remove(self.history)
        r = self.start()
        r.line("let remembered = 123;")
        r.send("fn twice(v) {\r")  # a multi-line cell is one history entry
        r.line("  v * 2 }")
        r.line("twice(remembered)")
        assert r.close() == 0
        assert os.path.exists(self.history), "history file written"
        # A new process recalls all three cells with the Up key (libedit redraws lines in
        # place, so the check is what the recalled cells compute, not how they were drawn).
        r = self.start()
        r.line(UP * 3)  # let remembered = 123;
        r.line(UP * 3)  # fn twice(v) { v * 2 }
        out = r.line(UP * 3)  # twice(remembered)
        assert re.search(r"\n246\n", out), out
        # Ctrl-R: reverse incremental search, typed key by key (libedit's search mode mishandles
        # a burst of typeahead, which a person searching does not produce).
        for key in "\x12twice(":
            r.send(key)
        # The search redraws the prompt as it goes, so wait for the result, not for a prompt.
        r.send("\r")
        r.expect(r"\n246\n\[\d+\] " + re.escape(PROMPT) + "$")
        r.close()

    def test_unwritable_history(self):
        r = self.start(EIN_HISTORY=os.path.join(self.tmp, "no", "such", "dir", "history"))
        out = r.line("1 + 1")
        assert "cannot write the history file" in out, out
        out = r.line("2 + 2")
        assert "cannot write" not in out, "warned once: " + out
        assert re.search(r"\n4\n", out), out
        assert r.close() == 0

    # ---- issue 15: everyday reflexes ---------------------------------------------------------

    def test_last_let_and_empty_lines(self):
        r = self.start()
        out = r.line("let z = 5")  # SPEC §11: a cell's last `let` may omit its `;`
        assert "error" not in out and "..." not in out, out
        out = r.line("z * 2")
        assert re.search(r"\n10\n", out), out
        # An unfinished statement: one empty line ends it with the parser's diagnostic.
        r.send("let y = 1 +\r")
        r.expect(re.escape(CONT) + "$")
        out = r.line("")
        assert "error[E001]" in out, out
        # Inside braces an empty line may be part of the body; a second one ends the input.
        r.send("fn f(a) {\r")
        r.expect(re.escape(CONT) + "$")
        r.send("\r")
        r.expect(re.escape(CONT) + "$")
        out = r.line("")
        assert "error[E001]" in out, out
        r.send("fn g(a) {\r")
        r.send("\r")
        r.send("  a + 1\r")
        out = r.line("}")
        assert "error" not in out, out
        out = r.line("g(1)")
        assert re.search(r"\n2\n", out), out
        r.close()

    def test_numbered_prompt_and_cells(self):
        r = self.start()
        assert re.search(r"\[1\] >>> $", plain(r.raw)), plain(r.raw)[-200:]
        out = r.line("1 + 1")
        assert out.endswith("[2] >>> "), out
        out = r.line("%timeit 1 + 1", timeout=60)
        assert "per loop" in out and out.endswith("[3] >>> "), "one number per input: " + out
        out = r.line("nope")
        assert "--> cell[3]:1:1" in out, "diagnostics name the prompt's number: " + out
        out = r.line("%plot typo")
        assert "--> cell[4]:1:1" in out and "{ typo" not in out, out
        assert re.search(r"\n1 \| typo\n", out), out
        r.close()

    def test_python_reflexes(self):
        r = self.start()
        out = r.line("help")
        assert "%timeit" in out and "%history" in out, out
        out = r.line("6 * 7")
        out = r.line("_ + 1")
        assert re.search(r"\n43\n", out), "`_` is the last result: " + out
        out = r.line("_ * 2")
        assert re.search(r"\n86\n", out), out
        r.line("// Doubles.", until=CONT)
        r.line("fn dbl(a) { a * 2 }")
        out = r.line("dbl??")
        assert "fn dbl(a) { a * 2 }" in out, "name?? shows the source: " + out
        out = r.line("help(dbl)")
        assert "Doubles." in out, out
        out = r.line("%history -n")
        assert re.search(r"\n2: 6 \* 7\n", out) and "3: _ + 1" in out, out
        out = r.line("%history -g dbl*")
        assert "fn dbl(a)" in out and "6 * 7" not in out, out
        out = r.line("%pwd")
        assert os.path.realpath(self.tmp) in out, out
        os.makedirs(os.path.join(self.tmp, "sub"), exist_ok=True)
        out = r.line("%cd sub")
        assert out.rstrip().splitlines()[-2].endswith("/sub"), out
        out = r.line("%cd -")
        assert os.path.realpath(self.tmp) in out, out
        out = r.line("sqrt(2.0)")
        assert "std::math" in out, "the help line names the module: " + out
        out = r.line("std::math")
        assert "is a module, not a value" in out, out
        r.send("quit()\r")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pid, status = os.waitpid(r.pid, os.WNOHANG)
            if pid:
                assert status == 0, status
                break
            r.read(0.05)
        else:
            raise AssertionError("quit() did not exit")
        r = self.start()
        r.line("let exit = 3;")  # a binding named `exit` is a value, not the command
        out = r.line("exit")
        assert re.search(r"\n3\n", out), out
        r.send("exit()\r")  # calling it is an error, not a way out... but `exit` alone is bound
        r.expect(re.escape(PROMPT) + "$")
        r.close()

    def test_cell_magics(self):
        r = self.start()
        r.send("%%time\r")
        r.expect(re.escape(CONT) + "$")
        r.send("let a = 20;\r")
        r.expect(re.escape(CONT) + "$")
        r.line("a + 1", until=CONT)
        out = r.line("")
        assert re.search(r"\n21\n", out) and re.search(r"\nrun +[0-9.]+ ms\n", out), out
        out = r.line("a")
        assert re.search(r"\n20\n", out), "%%time keeps bindings: " + out
        r.send("%%timeit\r")
        r.line("a * 2", until=CONT)
        out = r.line("", timeout=60)
        assert "per loop" in out, out
        r.line("%%nosuch", until=CONT)
        out = r.line("")
        assert "unknown cell magic" in out, out
        r.close()

    def test_matrix_echo(self):
        r = self.start()
        out = r.line("[[1.0, 2.0], [30.0, 4.5]]")
        assert "[[ 1.0,  2.0],\n [30.0,  4.5]]\n" in out, out
        out = r.line("print([[1.0, 2.0], [30.0, 4.5]])")
        assert "[[1.0, 2.0], [30.0, 4.5]]\n" in out, "print keeps SPEC §8: " + out
        out = r.line("let B[i in 0..2, j in 0..2, k in 0..2] = i * 100 + j * 10 + k;")
        out = r.line("B")
        assert "[[[  0,   1],\n  [ 10,  11]],\n\n [[100, 101],\n  [110, 111]]]" in out, out
        out = r.line("let M[i in 0..100, j in 0..100] = (i * 100 + j) as f32;")
        out = r.line("M")
        lines = out.splitlines()
        assert "[f32; 100, 100]" in lines, "large arrays give their shape: " + out
        assert re.search(r"\[\[ +0\.0, +1\.0, +2\.0, \.\.\., +97\.0, +98\.0, +99\.0\],", out), out
        assert re.search(r"\n \[9900\.0, 9901\.0, 9902\.0, \.\.\., 9997\.0, 9998\.0, 9999\.0\]\]", out), out
        width = max(len(l) for l in lines)
        assert width <= 100, "no row wider than the terminal: %d" % width
        r.close()

    def test_startup_time(self):
        times = []
        for _ in range(10):
            t0 = time.monotonic()
            r = Repl(self.ein, self.env(), self.tmp)
            r.expect(re.escape(PROMPT) + "$")
            times.append((time.monotonic() - t0) * 1000)
            r.close()
        print("    startup to first prompt: median %.1f ms, max %.1f ms (10 runs)" %
              (statistics.median(times), max(times)))


def main(suite_class=None, doc=None):
    """Runs the test_* methods of suite_class (this file's Suite by default); also the runner of
    tests/repl/test_progress.py."""
    suite_class = suite_class or Suite
    ap = argparse.ArgumentParser(description=(doc or __doc__).splitlines()[0])
    ap.add_argument("--ein", default="build/ein")
    ap.add_argument("-k", default="", help="run only tests whose name contains this")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    if not os.access(args.ein, os.X_OK):
        print("test_repl: %s is not an executable" % args.ein, file=sys.stderr)
        return 2
    suite = suite_class(args.ein, args.v)
    names = [n for n in sorted(dir(suite)) if n.startswith("test_") and args.k in n]
    failed = 0
    try:
        for n in names:
            t0 = time.monotonic()
            try:
                getattr(suite, n)()
                print("PASS %s (%.1f s)" % (n, time.monotonic() - t0))
            except Exception as e:  # one failing check must not hide the others
                failed += 1
                print("FAIL %s: %s" % (n, e))
                if args.v:
                    traceback.print_exc()
    finally:
        shutil.rmtree(suite.tmp, ignore_errors=True)
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
