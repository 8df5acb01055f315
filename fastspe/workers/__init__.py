"""Local worker processes for ``--workers N``: a pool forked from one forkserver (``pool``)."""
