"""Where the tuner's progress bar goes.

The C++ tuner draws one line that it rewrites with ``\\r`` (as ``comprehend
tune`` does on a terminal). By default it appears on a terminal and stays
quiet elsewhere (a notebook, a log file); ``progress=True`` shows it on
``sys.stderr`` anyway, ``progress=False`` never, and any object with a
``write`` method receives it."""

import sys


def make_writer(progress):
    """A callable taking the tuner's text, or None for no progress output."""
    if progress is False:
        return None
    if progress is None or progress is True:
        stream = sys.stderr
        if progress is None:
            isatty = getattr(stream, "isatty", None)
            if stream is None or isatty is None or not isatty():
                return None
    elif hasattr(progress, "write"):
        stream = progress
    else:
        raise ValueError("progress= takes None, True, False or a stream")

    def write(text):
        stream.write(text)
        flush = getattr(stream, "flush", None)
        if flush is not None:
            flush()

    return write
