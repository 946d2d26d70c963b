#!/usr/bin/env python3
"""Asks the REPL `?PATH::NAME` for every (module path, function) pair of stdlib_surface.md, and
for every public function of share/std under its own module, and checks that the answer is the
function's signature followed by its doc comment (the `//` lines above its definition in
share/std, as docs/stdlib.md shows them).

    python3 tests/stdlib/check_docs.py --ein build/ein

The REPL runs in a pseudo-terminal, as a person would use it. Standard library only.
"""
import argparse
import os
import pty
import re
import select
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_surface  # noqa: E402
import gen_stdlib_docs  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
PROMPT = ">>> "


class Repl:
    def __init__(self, ein):
        env = dict(os.environ, EIN_HISTORY=os.devnull, TERM="dumb")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execve(ein, [ein], env)
            finally:
                os._exit(127)
        self.buf = ""

    def until_prompt(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        while True:
            text = ANSI.sub("", self.buf).replace("\r", "")
            at = text.rfind(PROMPT)
            if at >= 0 and text.endswith(PROMPT):
                self.buf = ""
                return text[:at]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no prompt; got: " + text[-400:])
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    self.buf += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    raise TimeoutError("the REPL exited")

    def ask(self, line):
        os.write(self.fd, (line + "\r").encode())
        return self.until_prompt()

    def close(self):
        """Ctrl-D, as a person would end the session. libedit switches the terminal mode around
        its prompt, and a key that arrives in that instant is lost (tests/repl/test_repl.py says
        the same); so wait until the output is quiet, and press it again if the REPL is still
        there a second later. A REPL that ignores three presses is a failure, never a hang."""
        for _ in range(3):
            quiet = time.monotonic() + 1.0
            while time.monotonic() < quiet:
                r, _, _ = select.select([self.fd], [], [], 0.05)
                if not r:
                    break
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    break
            try:
                os.write(self.fd, b"\x04")
            except OSError:
                pass
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                pid, _ = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    return
                time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("the REPL did not exit on three Ctrl-D presses")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(check_surface.ROOT, "build", "ein"))
    args = ap.parse_args()
    surface = check_surface.SHARED if os.path.exists(check_surface.SHARED) else check_surface.COPY
    with open(surface, encoding="utf-8") as f:
        modules, reexports = check_surface.parse_surface(f.read())
    avail = check_surface.closure(modules, reexports)
    pending = check_surface.read_pending()
    # every doc comment of a public function, by name (a re-export shows its definition's)
    docs = {}
    for file, _, _, items in gen_stdlib_docs.collect().values():
        for kind, name, _, doc, _ in items:
            if kind == "fn":
                docs.setdefault(name, set()).add(" ".join(doc.split()))
    # and every public function under its defining module, surface or not (the broadcast
    # helpers, std::math_utils, the bodies in shape_impl, ...)
    asked = {f"{path}::{name}" for path in avail for name in avail[path]}
    extra = {}
    for m, (_, _, _, items) in gen_stdlib_docs.collect().items():
        for kind, name, _, _, _ in items:
            if kind == "fn" and f"{m}::{name}" not in asked:
                extra.setdefault(m, set()).add(name)
    repl = Repl(args.ein)
    bad = total = 0
    try:
        repl.until_prompt()
        for path, names in sorted(avail.items()) + sorted(extra.items()):
            for name in sorted(names):
                if f"{path}::{name}" in pending:
                    continue
                total += 1
                out = repl.ask(f"?{path}::{name}")
                lines = out.split("\n")
                # an alias (`pow as power`) shows the function it names
                sig = next((i for i, l in enumerate(lines) if re.match(r"\s*fn \w+\(", l)), None)
                shown = re.match(r"\s*fn (\w+)\(", lines[sig]).group(1) if sig is not None else name
                body = " ".join(" ".join(l.split()) for l in lines[sig + 1:] if l.startswith("    ")) \
                    if sig is not None else ""
                if sig is None or not any(d and d in body for d in docs.get(shown, ())):
                    bad += 1
                    print(f"FAIL ?{path}::{name} shows no signature and doc comment:\n{out}")
    finally:
        repl.close()
    print(f"{total - bad} of {total} `?PATH::NAME` answers show the signature and the doc comment")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
