"""collector.paused (issue 13): the process's one counted pause of the cyclic garbage collector, shared by
one-shot commands, LOS batches, searches and forked workers: the last to end restores the state the first
found, however they nest or overlap across threads."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading

from asl_terrain.collector import paused


def test_nested_and_overlapping_pauses_restore_what_the_first_found() -> None:
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still runs
    assert gc.isenabled()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def a() -> None:
        with paused():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b() -> None:
        a_in.wait(5)
        with paused():
            b_in.set()
            a_out.wait(5)
            seen.append(gc.isenabled())  # a has ended, b still pauses: off

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


def test_a_pause_for_good_outlasts_every_other() -> None:
    code = ("import gc\nfrom asl_terrain.collector import paused\npaused.for_good()\n"
            "with paused():\n    pass\nprint(gc.isenabled())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
