"""A small synchronous driver for one xein kernel, shared by the client tests.

Cells are executed one at a time; `run` returns the execute_reply content and every iopub
message (type, content) the request produced, up to its idle status.
"""
import os
import queue
import time

from jupyter_client.manager import start_new_kernel

KERNEL = "einlang"
TIMEOUT = 60


class Cell:
    def __init__(self, reply, outputs):
        self.reply = reply
        self.outputs = outputs  # [(msg_type, content)]

    @property
    def status(self):
        return self.reply["status"]

    def of(self, msg_type):
        """Outputs of that type, without the progress display of a long cell (display_data /
        update_display_data whose transient display_id starts with `ein-progress-`): whether a
        cell crossed the one-second mark depends on the machine's load; test_progress.py looks
        at those through `outputs`."""
        return [c for t, c in self.outputs if t == msg_type and
                not c.get("transient", {}).get("display_id", "").startswith("ein-progress-")]

    def stdout(self):
        return "".join(c["text"] for c in self.of("stream") if c["name"] == "stdout")

    def result(self, mime="text/plain"):
        results = self.of("execute_result")
        return results[0]["data"].get(mime) if results else None


class Kernel:
    def __init__(self, env=None):
        kw = {"env": dict(os.environ, **env)} if env else {}
        self.km, self.kc = start_new_kernel(kernel_name=KERNEL, **kw)

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def send(self, code, **kw):
        return self.kc.execute(code, **kw)

    def collect(self, msg_id, timeout=TIMEOUT, reply=None):
        """Waits for the reply (unless already received) and the idle status of msg_id."""
        deadline = time.monotonic() + timeout
        while reply is None:
            msg = self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") == msg_id:
                reply = msg["content"]
        outputs = []
        while True:
            msg = self.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "status":
                if msg["content"]["execution_state"] == "idle":
                    break
                continue
            if kind == "execute_input":
                continue
            outputs.append((kind, msg["content"]))
        return Cell(reply, outputs)

    def run(self, code, timeout=TIMEOUT, **kw):
        return self.collect(self.send(code, **kw), timeout)

    def shell_reply(self, msg_id, timeout=TIMEOUT):
        while True:
            msg = self.kc.get_shell_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg["content"]

    def reply_arrived(self, msg_id, within):
        """The shell reply to msg_id if it arrives within `within` seconds, else None."""
        deadline = time.monotonic() + within
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                msg = self.kc.get_shell_msg(timeout=left)
            except queue.Empty:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg["content"]
