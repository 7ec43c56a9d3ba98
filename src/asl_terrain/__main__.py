"""``python -m asl_terrain`` and the ``asl-terrain`` command: the CLI (:func:`asl_terrain.cli.main`)."""

import os


def run() -> None:
    """The console entry point: :func:`asl_terrain.cli.main`, imported with the cyclic collector paused (the
    imports make tens of thousands of objects and no cyclic garbage worth a pass; start-up, issue 13).

    numpy's OpenBLAS starts a thread per core when it loads, which a command never uses (the engine does no
    linear algebra worth threads): one thread, unless the user says otherwise (~40 ms of CPU a start)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from asl_terrain.collector import paused

    with paused():
        from asl_terrain.cli import main
    main(ends_process=True)


if __name__ == "__main__":
    run()
