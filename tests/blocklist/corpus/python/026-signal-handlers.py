import os
import signal
import time


class GracefulWorker:
    """Processes jobs until asked to stop via SIGTERM/SIGINT; SIGUSR1 prints a status line."""

    def __init__(self):
        self.stop_requested = False
        self.processed = 0
        self.events = []
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGUSR1, self._on_status)

    def _on_stop(self, signum, frame):
        self.events.append(signal.Signals(signum).name)
        self.stop_requested = True

    def _on_status(self, signum, frame):
        self.events.append("SIGUSR1")
        print(f"  [status] processed={self.processed}")

    def run(self, jobs):
        for job in jobs:
            if self.stop_requested:
                print(f"  stop requested; leaving {len(jobs) - self.processed} jobs queued")
                break
            self.processed += 1
            if job == 3:
                os.kill(os.getpid(), signal.SIGUSR1)
            if job == 6:
                os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.001)
        return self.processed


def timeout_demo():
    def on_alarm(signum, frame):
        raise TimeoutError("operation took too long")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    try:
        while True:
            time.sleep(0.01)
    except TimeoutError as exc:
        print("  caught:", exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def main():
    print(f"worker pid {os.getpid()}")
    worker = GracefulWorker()
    done = worker.run(list(range(1, 11)))
    print(f"processed {done} jobs, signals seen: {worker.events}")
    assert done == 6 and worker.events == ["SIGUSR1", "SIGTERM"]

    print("alarm-based timeout:")
    timeout_demo()

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    print("handlers restored; exiting normally")


if __name__ == "__main__":
    main()
