"""Measures how long xein takes from launch to answering: the time from starting the process
to its kernel_info reply (sent when the kernel is idle and serving requests). Informational
(docs/jupyter.md quotes it); fails only if the kernel does not come up at all.
"""
import statistics
import sys
import time

import zmq
from jupyter_client.manager import KernelManager

RUNS = 5


def one_start():
    km = KernelManager(kernel_name="einlang")
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    # zmq retries a refused connection every 100 ms by default, which would quantise the
    # measurement; retry every millisecond instead.
    kc.context.setsockopt(zmq.RECONNECT_IVL, 1)
    kc.start_channels()
    try:
        msg_id = kc.kernel_info()
        while True:  # zmq queues the request until the kernel has bound its sockets
            reply = kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        return time.perf_counter() - t0
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    times = [one_start() for _ in range(RUNS)]
    print(f"xein startup (launch to kernel_info reply) over {RUNS} launches: median "
          f"{statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
