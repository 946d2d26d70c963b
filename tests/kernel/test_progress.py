"""Live progress of long cells in the kernel (issue 15, "Beyond IPython"), through jupyter_client.

A cell running longer than a second gets one display_data whose transient display_id starts
with `ein-progress-`, updated with update_display_data (statement line, a <progress> bar and
the percentage of the running recurrence) and emptied when the cell ends; a short cell gets
none; the cell's stdout stream is exactly the program's output; an interrupt still stops the
cell; %timeit shows which run it is in. No timing is asserted beyond "a cell of several
seconds shows progress": the long cells wait for the progress message instead of sleeping.

Run by tests/stages/kernel.sh (which sets JUPYTER_PATH to a freshly installed kernelspec).
"""
import queue
import re
import time
import unittest

from kernel_client import Kernel

# A recurrence of 2 * 10^9 steps: minutes in the interpreter, seconds natively; both tiers are
# interrupted once their progress has been seen, so its length only has to exceed a second.
# The step reads `t`, so it never reaches a bit-exact fixed point (codegen fills the rest of a
# recurrence that does, which made the f32 version finish in a second instead of running).
LONG = ("let y = {\n"
        "    let x[0] = 0.0;\n"
        "    let x[t in 1..2000000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1] + (t % 2) as f32);\n"
        "    x[1999999999]\n"
        "};")


def progress_id(content):
    return content.get("transient", {}).get("display_id", "")


def is_progress(kind, content):
    return kind in ("display_data", "update_display_data") and progress_id(content).startswith("ein-progress-")


class Progress(unittest.TestCase):
    ENV = {"EIN_JIT": "never"}

    @classmethod
    def setUpClass(cls):
        cls.k = Kernel(env=cls.ENV)

    @classmethod
    def tearDownClass(cls):
        cls.k.close()

    def iopub_until(self, msg_id, stop, timeout=180):
        """iopub messages of msg_id, (kind, content), until stop(kind, content) holds."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail("timed out; messages so far: %r" % got[-5:])
            try:
                msg = self.k.kc.get_iopub_msg(timeout=left)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            item = (msg["msg_type"], msg["content"])
            got.append(item)
            if stop(*item):
                return got

    def test_short_cell_shows_no_progress(self):
        cell = self.k.run("let a = 6 * 7;\na")
        self.assertEqual(cell.status, "ok")
        self.assertEqual([t for t, c in cell.outputs if is_progress(t, c)], [])
        self.assertEqual(cell.result(), "42")

    def test_long_cell_shows_updating_progress_and_stops_on_interrupt(self):
        self.assertEqual(self.k.run("let kept = 5;").status, "ok")
        msg_id = self.k.send(LONG)
        try:
            self.check_long_cell(msg_id)
        except BaseException:
            # Leave no 2 * 10^9-step cell running under the next test.
            self.k.km.interrupt_kernel()
            self.k.collect(msg_id)
            raise

    def check_long_cell(self, msg_id):
        # The first display, then an update of the same display (by its id).
        got = self.iopub_until(msg_id, lambda t, c: t == "display_data" and is_progress(t, c))
        first = got[-1][1]
        pid = progress_id(first)
        got += self.iopub_until(msg_id, lambda t, c: t == "update_display_data" and progress_id(c) == pid
                                and "%" in c["data"]["text/plain"])
        update = got[-1][1]
        text, html = update["data"]["text/plain"], update["data"]["text/html"]
        self.assertIn("line 3: let x[t in 1..2000000000]", text)  # the running statement
        self.assertRegex(text, r"\d+%")
        self.assertRegex(html, r'<progress max="\d+" value="\d+"></progress>')
        self.assertNotIn("\n", text)
        self.k.km.interrupt_kernel()
        rest = self.k.collect(msg_id)
        self.assertEqual(rest.reply["status"], "error")
        self.assertEqual(rest.reply["ename"], "E007")
        # The display is emptied when the cell ends, and nothing else goes to the streams.
        updates = [c for t, c in rest.outputs if t == "update_display_data" and progress_id(c) == pid]
        self.assertTrue(updates, "the progress display was not cleared: %r" % rest.outputs)
        self.assertEqual(updates[-1]["data"]["text/plain"], "")
        self.assertEqual(rest.stdout(), "")
        self.assertEqual([c for t, c in rest.outputs if t == "display_data" and is_progress(t, c)], [])
        # The kernel goes on with its state; the next short cell has no progress.
        after = self.k.run("kept + 1")
        self.assertEqual(after.result(), "6")
        self.assertEqual([t for t, c in after.outputs if is_progress(t, c)], [])

    def test_stdout_is_the_program_output(self):
        # Several seconds in the interpreter (2 * 10^7 steps) between two prints.
        code = ('print("before");\n'
                "let z = {\n"
                "    let x[0] = 0.0;\n"
                "    let x[t in 1..10000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]);\n"
                "    x[9999999]\n"
                "};\n"
                'print("after");')
        cell = self.k.run(code, timeout=600)
        self.assertEqual(cell.status, "ok", cell.reply)
        self.assertEqual(cell.stdout(), "before\nafter\n")
        shown = [c for t, c in cell.outputs if is_progress(t, c)]
        self.assertTrue(shown, "a cell of several seconds shows progress: %r" % cell.outputs)
        self.assertEqual(shown[-1]["data"]["text/plain"], "")  # emptied at the end
        self.assertTrue(any(re.search(r"line 4: let x\[t in 1\.\.10000000\]", c["data"]["text/plain"]) for c in shown))

    def test_timeit_shows_its_progress(self):
        # Each loop takes about 0.3 s or more: %timeit runs well over a second.
        code = ("%timeit { let x[0] = 0.0; let x[t in 1..1000000] = x[t - 1] + 1.0 / (1.0 + x[t - 1] * x[t - 1]);"
                " x[999999] }")
        cell = self.k.run(code, timeout=900)
        self.assertEqual(cell.status, "ok", cell.reply)
        texts = [c["data"]["text/plain"] for t, c in cell.outputs if is_progress(t, c)]
        self.assertTrue(any(re.match(r"%timeit: (choosing the loop count|run \d of 7) · loop \d+ of \d+", t) for t in texts),
                        texts)
        report = "".join(c["data"].get("text/plain", "") for t, c in cell.outputs
                         if t == "display_data" and not is_progress(t, c))
        self.assertRegex(report, r"per loop \(mean ± std\. dev\. of 7 runs")


class NativeProgress(Progress):
    """The same through native kernels: the generated code stores the recurrence's steps."""
    ENV = {"EIN_JIT": "always"}

    # Natively the 2 * 10^7 steps take a fraction of a second: a print-only check stays with the
    # interpreter class; %timeit of a native cell is the interpreter's test again.
    test_stdout_is_the_program_output = None
    test_timeit_shows_its_progress = None


if __name__ == "__main__":
    unittest.main()
