#!/usr/bin/env python3
"""The fuzz stage's kernel part (issue 20: "the fuzz stage includes the kernel").

The mutated programs of tests/fuzz/mutate.py (same seed, same input numbers) go to ONE xein
kernel, one after the other, so that they also pile up in one long session: each as an
execute_request, then a complete_request at a random cursor, an inspect_request and an
is_complete_request on the same text. The run fails when
  - the kernel dies (it is restarted, and the run goes on to find more);
  - a request gets no reply;
  - an execute reply is an error without a code (`ename` is not Ennn);
  - a cell still running after --timeout seconds does not stop within --grace seconds of an
    interrupt (a long but interruptible cell is fine).
The kernel runs interpreted (EIN_JIT=never) under EIN_MAX_MEMORY; the native tier is the file
runs' part. Failing inputs go to --out. Needs jupyter_client (Debian's python3) and the xein
kernelspec on JUPYTER_PATH (tests/stages/fuzz.sh installs it into a temporary prefix).

  tests/fuzz/kernel_fuzz.py --count 300 --seed 1
"""
import argparse
import hashlib
import os
import queue
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "kernel"))

import mutate  # noqa: E402
from kernel_client import Kernel  # noqa: E402

CODE = re.compile(r"^E\d{3}$")


class Failure(Exception):
    pass


def wait_reply(k, msg_id, timeout):
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            msg = k.kc.get_shell_msg(timeout=left)
        except queue.Empty:
            return None
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg["content"]


def drain_iopub(k):
    while True:
        try:
            k.kc.get_iopub_msg(timeout=0.01)
        except queue.Empty:
            return


def execute(k, code, args):
    # stop_on_error=False: with it, xeus answers requests that arrive shortly after a failed cell
    # with a bare {"status": "error"} (an aborted queue), which is the protocol, not a fault.
    msg_id = k.send(code, stop_on_error=False)
    reply = wait_reply(k, msg_id, args.timeout)
    if reply is None:
        k.km.interrupt_kernel()
        reply = wait_reply(k, msg_id, args.grace)
        if reply is None:
            raise Failure("hang: no execute reply %ss after an interrupt" % args.grace)
    if reply.get("status") == "error" and not CODE.match(reply.get("ename", "")):
        raise Failure("execute error without a code: %r" % {k: str(v)[:300] for k, v in reply.items()})
    return reply


def request(k, msg_id, what, args):
    reply = wait_reply(k, msg_id, args.timeout + args.grace)
    if reply is None:
        raise Failure("no reply to %s" % what)
    return reply


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--first", type=int, default=0, help="first input number")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--grace", type=float, default=10.0)
    ap.add_argument("--max-memory", default="1G")
    ap.add_argument("--out", default=os.path.join(mutate.ROOT, "build", "fuzz-findings"))
    args = ap.parse_args()
    corpus = mutate.load_corpus()
    pool = mutate.token_pool(corpus)
    os.makedirs(args.out, exist_ok=True)
    env = {"EIN_JIT": "never", "EIN_MAX_MEMORY": args.max_memory, "EIN_HISTORY": ""}
    k = Kernel(env=env)
    failures = []
    counts = {}
    start = time.time()
    try:
        ran = 0
        for n in range(args.first, args.first + args.count):
            if args.seconds and time.time() - start > args.seconds:
                break
            ran += 1
            # The same input n as the file runs of mutate.py.
            rng = random.Random("%d:%d" % (args.seed, n))
            name, seed_prog = rng.choice(corpus)
            data, ops = (mutate.Mutator(corpus, rng, pool).mutate(seed_prog) if rng.random() < 0.97
                         else (seed_prog, ["none"]))
            code = data.decode("utf-8", "replace")
            cursor = random.Random(n).randint(0, len(code))
            try:
                reply = execute(k, code, args)
                status = reply.get("status", "?")
                counts[status] = counts.get(status, 0) + 1
                request(k, k.kc.complete(code, cursor), "complete_request", args)
                request(k, k.kc.inspect(code, cursor), "inspect_request", args)
                request(k, k.kc.is_complete(code), "is_complete_request", args)
                drain_iopub(k)
            except Failure as f:
                why = str(f)
                if not k.km.is_alive():
                    why = "the kernel died (%s)" % why
            else:
                if k.km.is_alive():
                    continue
                why = "the kernel died"
            digest = hashlib.sha256(data).hexdigest()[:12]
            path = os.path.join(args.out, "kernel-%s.ein" % digest)
            with open(path, "wb") as fh:
                fh.write(data)
            with open(path + ".txt", "w") as fh:
                fh.write("seed program: %s\nmutations: %s\ninput #%d, --seed %d\nkernel: %s\n"
                         % (name, " ".join(ops), n, args.seed, why))
            failures.append(path)
            print("FAIL kernel (%s): %s\n  from %s via %s" % (why, path, name, " ".join(ops)), flush=True)
            k.close()
            k = Kernel(env=env)
    finally:
        k.close()
    summary = ", ".join("%s %d" % kv for kv in sorted(counts.items()))
    print("kernel fuzz: %d inputs in one xein session in %.0f s (seed %d): %s; %d failures"
          % (ran, time.time() - start, args.seed, summary, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
