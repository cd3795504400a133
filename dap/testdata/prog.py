"""A program for the dap tests: each mode exercises one debugger feature.

Line numbers matter to the tests: they look lines up by the marker comments
(# LINE: name), so edit freely but keep the markers.
"""
import sys
import threading
import time


class User:
    def __init__(self, name, password):
        self.name = name
        self.password = password
        self.profile = {"address": {"city": "Lyon", "zip": "69001"}, "tags": ["a", "b"]}


def add(a, b):
    total = a + b  # LINE: add
    return total


def compute(n):
    acc = 0
    for i in range(n):
        acc = add(acc, i)  # LINE: loop
    return acc


def fail():
    raise ValueError("boom")  # LINE: raise


def busy():
    x = 0
    while True:
        x += 1  # LINE: busy


def worker(stop):
    while not stop.is_set():
        time.sleep(0.01)


def start_workers(k):
    stop = threading.Event()
    for i in range(k):
        threading.Thread(target=worker, args=(stop,), name="w%d" % i, daemon=True).start()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "basic"
    user = User("ada", "hunter2")
    items = [1, 2, 3]
    counter = 10
    print("start", mode, flush=True)
    if mode == "basic":
        print("result", compute(5), flush=True)  # LINE: main
        print("counter", counter, user.name, len(items), flush=True)  # LINE: after
    elif mode == "caught":
        try:
            fail()
        except ValueError:
            print("caught", flush=True)
    elif mode == "uncaught":
        fail()
    elif mode == "busy":
        busy()
    elif mode == "threads":
        stop = threading.Event()
        ts = [threading.Thread(target=worker, args=(stop,), name="w%d" % k) for k in range(3)]
        for t in ts:
            t.start()
        time.sleep(0.2)
        print("threads up", flush=True)  # LINE: threads
        stop.set()
        for t in ts:
            t.join()
    elif mode == "sleep":
        while True:
            time.sleep(0.05)  # LINE: sleep
    elif mode == "bench":
        # Four threads, main's usual locals, and a line to stop at again and
        # again.
        start_workers(3)
        n = 0
        while True:
            n += 1  # LINE: bench
    print("stderr line", file=sys.stderr, flush=True)
    print("done", flush=True)
    return 3 if mode == "basic" else 0


if __name__ == "__main__":
    sys.exit(main())
