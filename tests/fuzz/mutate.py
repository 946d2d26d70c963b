#!/usr/bin/env python3
"""Seeded mutation fuzzer for `ein` (SPEC §9: no input may crash or hang a process).

Every Einlang program under tests/ and ../shared/conformance is a seed. Each fuzz input is a
seed with 1-4 mutations (token swaps, duplications and replacements, bracket damage, extreme
numbers and ranges, deep nesting, non-UTF-8 and NUL bytes, line splicing between programs). It
runs under `ein` in every requested tier (EIN_JIT=never: the interpreter; always: native
kernels) with a memory limit (EIN_MAX_MEMORY plus an address-space rlimit) and a time limit.

An input fails when ein
  - dies from a signal (segfault, abort, uncaught exception), or exits with a status other
    than 0, 1 and 130;
  - exits 1 without a coded diagnostic (`error[Ennn]`) on stderr;
  - is still running after the time limit and then does not stop within a grace period after
    SIGINT (a long but interruptible computation is fine: it must answer the interrupt with
    E007 and exit 130).
Failing inputs are written to --out (default build/fuzz-findings) with the command line that
reproduces them. Exit status: 0 when nothing failed, 1 otherwise.

  tests/fuzz/mutate.py --ein build/ein --count 2000           # the CI run (seed 1)
  tests/fuzz/mutate.py --ein build/ein --minutes 60 --seed 7  # a long run
  tests/fuzz/mutate.py --ein build/ein --replay FILE           # rerun one input
"""
import argparse
import hashlib
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS_DIRS = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "..", "shared", "conformance")]

# Programs that write files are left out, and so are the names that write: a mutated path could
# otherwise point a write anywhere. Inputs also run in a scratch directory.
WRITERS = (b"write_file", b"save_npy")

TOKEN_RE = re.compile(
    rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?'
    rb'|\.\.=?|::|->|=>|[<>=!]=|&&|\|\||\*\*|\s+|.', re.S)
NUMBER_RE = re.compile(rb"^\d")
EXTREME_NUMBERS = [
    b"0", b"1", b"-1", b"0.0", b"-0.0", b"2147483647", b"2147483648", b"-2147483648",
    b"4294967296", b"9223372036854775807", b"-9223372036854775808", b"9223372036854775808",
    b"99999999999999999999999999", b"1e308", b"1e-308", b"1e400", b"2000000000", b"100000",
    b"65536", b"1e9", b"(0 - 1)", b"(1 / 0)", b"(0.0 / 0.0)",
]
EXTREME_RANGES = [
    b"0..0", b"0..2000000000", b"5..1", b"-9223372036854775807..9223372036854775807",
    b"9223372036854775800..=9223372036854775807", b"0..100000", b"(0 - 5)..5",
]
BAD_BYTES = [
    b"\x00", b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"\xc0\x80", b"\x80", b"\xef\xbb\xbf", b"\r", b"\t", b"\x1b[2J", b"\xe2\x80\xae",
]
BRACKETS = [b"(", b")", b"[", b"]", b"{", b"}", b"|", b"<", b">"]
CODED = re.compile(rb"error\[E\d{3}\]")
ABORTED = re.compile(rb"error: aborting due to \d+ previous errors?\n")
# A program the front end rejects (parse, names, types: "aborting due to ...") never reaches the
# point where the tier is chosen, so its run in the other tiers is the same run; one in
# SAME_RUN_CHECK of them is run there anyway, and must be rejected identically.
SAME_RUN_CHECK = 8


def load_corpus():
    progs = []
    for d in CORPUS_DIRS:
        for base, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith(".ein"):
                    continue
                path = os.path.join(base, f)
                with open(path, "rb") as fh:
                    data = fh.read()
                if any(w in data for w in WRITERS):
                    continue
                progs.append((os.path.relpath(path, ROOT), data))
    progs.sort()
    return progs


def tokens(data):
    return TOKEN_RE.findall(data)


def token_pool(corpus):
    pool = set()
    for _, data in corpus:
        for t in tokens(data):
            if t.strip() and not t.startswith(b"//") and len(t) < 40 and t not in WRITERS:
                pool.add(t)
    return sorted(pool)


class Mutator:
    # `pool` is token_pool(corpus), computed once per run: tokenising the whole corpus took
    # most of the time of an input (0.3-0.9 s, more than running ein on it).
    def __init__(self, corpus, rng, pool):
        self.corpus = corpus
        self.rng = rng
        self.pool = pool
        self.ops = [
            (self.swap_tokens, 4), (self.dup_token, 2), (self.delete_token, 3), (self.replace_token, 4),
            (self.insert_token, 3), (self.bracket_damage, 3), (self.extreme_number, 4),
            (self.extreme_range, 2), (self.deep_nesting, 2), (self.bad_bytes, 2), (self.line_op, 3),
            (self.splice, 2), (self.truncate, 1),
        ]

    def pick_op(self):
        total = sum(w for _, w in self.ops)
        x = self.rng.uniform(0, total)
        for op, w in self.ops:
            x -= w
            if x <= 0:
                return op
        return self.ops[-1][0]

    def mutate(self, data):
        applied = []
        for _ in range(self.rng.randint(1, 4)):
            op = self.pick_op()
            data = op(data)
            applied.append(op.__name__)
        return data, applied

    # -- token level ---------------------------------------------------------------------------
    def _solid(self, toks):
        return [i for i, t in enumerate(toks) if t.strip()]

    def swap_tokens(self, data):
        toks = tokens(data)
        idx = self._solid(toks)
        if len(idx) < 2:
            return data
        a, b = self.rng.sample(idx, 2)
        toks[a], toks[b] = toks[b], toks[a]
        return b"".join(toks)

    def dup_token(self, data):
        toks = tokens(data)
        idx = self._solid(toks)
        if not idx:
            return data
        i = self.rng.choice(idx)
        toks.insert(i, toks[i] * self.rng.choice([1, 1, 2, 10]))
        return b"".join(toks)

    def delete_token(self, data):
        toks = tokens(data)
        idx = self._solid(toks)
        if not idx:
            return data
        del toks[self.rng.choice(idx)]
        return b"".join(toks)

    def replace_token(self, data):
        toks = tokens(data)
        idx = self._solid(toks)
        if not idx or not self.pool:
            return data
        toks[self.rng.choice(idx)] = self.rng.choice(self.pool)
        return b"".join(toks)

    def insert_token(self, data):
        toks = tokens(data)
        if not self.pool:
            return data
        toks.insert(self.rng.randint(0, len(toks)), b" " + self.rng.choice(self.pool) + b" ")
        return b"".join(toks)

    def bracket_damage(self, data):
        toks = tokens(data)
        idx = [i for i, t in enumerate(toks) if t in BRACKETS]
        choice = self.rng.random()
        if idx and choice < 0.4:
            del toks[self.rng.choice(idx)]
        elif idx and choice < 0.7:
            toks[self.rng.choice(idx)] = self.rng.choice(BRACKETS)
        else:
            toks.insert(self.rng.randint(0, len(toks)), self.rng.choice(BRACKETS))
        return b"".join(toks)

    def extreme_number(self, data):
        toks = tokens(data)
        idx = [i for i, t in enumerate(toks) if NUMBER_RE.match(t)]
        if not idx:
            return data
        for i in self.rng.sample(idx, min(len(idx), self.rng.randint(1, 3))):
            toks[i] = self.rng.choice(EXTREME_NUMBERS)
        return b"".join(toks)

    def extreme_range(self, data):
        toks = tokens(data)
        idx = [i for i, t in enumerate(toks) if t in (b"..", b"..=") and 0 < i < len(toks) - 1]
        if not idx:
            return data
        i = self.rng.choice(idx)
        toks[i - 1:i + 2] = [self.rng.choice(EXTREME_RANGES)]
        return b"".join(toks)

    def deep_nesting(self, data):
        toks = tokens(data)
        idx = self._solid(toks)
        if not idx:
            return data
        i = self.rng.choice(idx)
        n = self.rng.choice([64, 500, 5000, 50000])
        o, c = self.rng.choice([(b"(", b")"), (b"[", b"]"), (b"{", b"}"), (b"-", b""), (b"!", b"")])
        if self.rng.random() < 0.2:
            c = b""  # unbalanced
        toks[i] = o * n + toks[i] + c * n
        return b"".join(toks)

    # -- byte and line level ---------------------------------------------------------------------
    def bad_bytes(self, data):
        at = self.rng.randint(0, len(data))
        return data[:at] + self.rng.choice(BAD_BYTES) + data[at:]

    def line_op(self, data):
        lines = data.split(b"\n")
        if len(lines) < 2:
            return data
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        r = self.rng.random()
        if r < 0.4:
            del lines[i]
        elif r < 0.7:
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)

    def splice(self, data):
        _, other = self.rng.choice(self.corpus)
        a, b = data.split(b"\n"), other.split(b"\n")
        i, j = self.rng.randrange(len(a) + 1), self.rng.randrange(len(b))
        k = min(len(b), j + self.rng.randint(1, 8))
        return b"\n".join(a[:i] + b[j:k] + a[i:])

    def truncate(self, data):
        return data[: self.rng.randint(0, len(data))]


class Runner:
    def __init__(self, args):
        self.args = args
        self.scratch = tempfile.mkdtemp(prefix="ein-fuzz-")
        self.env = dict(os.environ)
        self.env.update({
            "EIN_MAX_MEMORY": args.max_memory,
            "EIN_CACHE_DIR": os.path.join(self.scratch, "kernel-cache"),
            "EIN_CXXFLAGS": args.cxxflags,
            "EIN_HISTORY": "",
            "HOME": self.scratch,
            "OMP_NUM_THREADS": "2",
        })
        self.lock = threading.Lock()

    def close(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def run(self, data, tier, worker):
        wd = os.path.join(self.scratch, "w%d" % worker)
        os.makedirs(wd, exist_ok=True)
        prog = os.path.join(wd, "input.ein")
        with open(prog, "wb") as fh:
            fh.write(data)
        env = dict(self.env, EIN_JIT=tier)
        # prlimit (util-linux) rather than preexec_fn, which is unsafe with worker threads.
        cmd = ["prlimit", "--as=%d" % self.args.rlimit_as, "--core=0", "--", self.args.ein, prog]
        p = subprocess.Popen(cmd, cwd=wd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
        err = b""
        try:
            _, err = p.communicate(timeout=self.args.timeout)
            status = p.returncode
            slow = False
        except subprocess.TimeoutExpired:
            slow = True
            os.kill(p.pid, signal.SIGINT)
            try:
                _, err = p.communicate(timeout=self.args.grace)
                status = p.returncode
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                _, err = p.communicate()
                return "hang", "still running %ss after SIGINT" % self.args.grace, err
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # compiler children left behind
            except (ProcessLookupError, PermissionError):
                pass
        return classify(status, err, slow)


def classify(status, err, slow):
    kind, why, err = classify_exit(status, err, slow)
    if kind.startswith("ok") and b"the C++ compiler failed" in err:
        # Generated C++ that does not compile: the program still ran (interpreted), so this is
        # recorded for the native tier's owners but does not fail the run.
        return "kernel-compile-error", "the generated C++ did not compile", err
    return kind, why, err


def classify_exit(status, err, slow):
    if status < 0:
        return "crash", "killed by signal %d" % -status, err
    if status == 130:
        if CODED.search(err) and b"E007" in err:
            return "ok-interrupted", "", err
        return "bad-interrupt", "exit 130 without an E007 diagnostic", err
    if slow and status in (0, 1):
        # It ended on its own during the grace period: fine.
        pass
    if status == 0:
        return "ok", "", err
    if status == 1:
        if CODED.search(err):
            # "aborting due to N previous errors" ends a compile error: nothing ran.
            return ("ok-rejected" if ABORTED.search(err) else "ok-error"), "", err
        return "uncoded", "exit 1 without an error[Ennn] diagnostic", err
    return "crash", "exit status %d" % status, err


FAIL_KINDS = {"crash", "hang", "uncoded", "bad-interrupt", "tier-dependent"}
KEEP_KINDS = {"kernel-compile-error"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None,
                    help="inputs (each runs in every tier); 2000 unless --minutes is given")
    ap.add_argument("--minutes", type=float, default=0,
                    help="stop when this much time has passed (with --count: whichever comes first)")
    ap.add_argument("--tiers", default="never,always")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds before SIGINT")
    ap.add_argument("--grace", type=float, default=5.0, help="seconds allowed to answer SIGINT")
    ap.add_argument("--max-memory", default="1G", help="EIN_MAX_MEMORY for every run")
    ap.add_argument("--rlimit-as", type=int, default=6 << 30, help="address-space limit (bytes)")
    ap.add_argument("--cxxflags", default="-O0 -fopenmp", help="EIN_CXXFLAGS (fast compiles)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz-findings"))
    ap.add_argument("--replay", help="run one input file in every tier and print the outcome")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.count is None and not args.minutes:
        args.count = 2000
    if not os.access(args.ein, os.X_OK):
        print("fuzz: %s is not built" % args.ein, file=sys.stderr)
        return 2
    tiers = [t for t in args.tiers.split(",") if t]
    runner = Runner(args)
    try:
        if args.replay:
            with open(args.replay, "rb") as fh:
                data = fh.read()
            bad = False
            for tier in tiers:
                kind, why, err = runner.run(data, tier, 0)
                print("%-6s %-14s %s" % (tier, kind, why))
                sys.stdout.write(err[-2000:].decode("utf-8", "replace"))
                bad = bad or kind in FAIL_KINDS
            return 1 if bad else 0
        return fuzz(args, tiers, runner)
    finally:
        runner.close()


def fuzz(args, tiers, runner):
    corpus = load_corpus()
    if not corpus:
        print("fuzz: no seed programs found", file=sys.stderr)
        return 2
    counts = {}
    failures = []
    start = time.time()
    deadline = start + args.minutes * 60 if args.minutes else None
    lock = threading.Lock()
    os.makedirs(args.out, exist_ok=True)

    tok_pool = token_pool(corpus)
    seen = set()  # digests of inputs already run: a repeat is the same run

    def record(n, name, ops, data, tier, kind, why, err):
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            if kind in FAIL_KINDS or kind in KEEP_KINDS:
                digest = hashlib.sha256(data).hexdigest()[:12]
                path = os.path.join(args.out, "%s-%s-%s.ein" % (kind, tier, digest))
                with open(path, "wb") as fh:
                    fh.write(data)
                with open(path + ".txt", "w") as fh:
                    fh.write("seed program: %s\nmutations: %s\ninput #%d, --seed %d\ntier: %s\n%s\n\nstderr:\n%s\n" % (
                        name, " ".join(ops), n, args.seed, tier, why, err[-4000:].decode("utf-8", "replace")))
                if kind in KEEP_KINDS:
                    print("note: %s (EIN_JIT=%s) kept in %s" % (kind, tier, path), flush=True)
                    return
                failures.append((kind, tier, why, path))
                print("FAIL %s (%s, EIN_JIT=%s): %s\n  from %s via %s" % (kind, why, tier, path, name, " ".join(ops)),
                      flush=True)
            elif args.verbose:
                print("%5d %-6s %-14s %s %s" % (n, tier, kind, name, " ".join(ops)), flush=True)

    def one(n, worker):
        # Each input has its own generator, so input n is the same whatever the job count.
        rng = random.Random("%d:%d" % (args.seed, n))
        name, seed_prog = rng.choice(corpus)
        data, ops = Mutator(corpus, rng, tok_pool).mutate(seed_prog) if rng.random() < 0.97 else (seed_prog, ["none"])
        digest = hashlib.sha256(data).digest()
        with lock:
            if digest in seen:
                counts["repeat (skipped)"] = counts.get("repeat (skipped)", 0) + 1
                return
            seen.add(digest)
        first = None
        for tier in tiers:
            if first is not None and first[0] == "ok-rejected" and n % SAME_RUN_CHECK:
                with lock:
                    counts["rejected: same run"] = counts.get("rejected: same run", 0) + 1
                continue
            kind, why, err = runner.run(data, tier, worker)
            if first is None:
                first = (kind, err)
            elif first[0] == "ok-rejected" and (kind != "ok-rejected" or err != first[1]):
                kind, why = "tier-dependent", "rejected in EIN_JIT=%s but not the same way here" % tiers[0]
            record(n, name, ops, data, tier, kind, why, err)

    # Lazy submission keeps memory flat in long runs; workers are numbered by thread.
    worker_ids = {}

    def task(n):
        wid = worker_ids.setdefault(threading.get_ident(), len(worker_ids))
        one(n, wid)

    n = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        while True:
            if args.count is not None and n >= args.count:
                break
            if deadline is not None and time.time() >= deadline:
                break
            while len(pending) >= args.jobs * 2:
                done = {f for f in pending if f.done()}
                if not done:
                    time.sleep(0.01)
                    continue
                for f in done:
                    f.result()
                pending -= done
            pending.add(pool.submit(task, n))
            n += 1
        for f in pending:
            f.result()
    took = time.time() - start
    summary = ", ".join("%s %d" % kv for kv in sorted(counts.items()))
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("fuzz: %d inputs x %d tiers in %.0f s, %.0f s of CPU in ein and its compilers (seed %d): %s"
          % (n, len(tiers), took, ru.ru_utime + ru.ru_stime, args.seed, summary))
    if len(tiers) > 1:
        print("fuzz: every distinct input ran in EIN_JIT=%s; inputs it rejected in the front end ran in the other"
              " tiers one time in %d (the rest are the same run: the tier is chosen after analysis)"
              % (tiers[0], SAME_RUN_CHECK))
    if failures:
        print("fuzz: %d failing runs; inputs and stderr in %s" % (len(failures), args.out))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
