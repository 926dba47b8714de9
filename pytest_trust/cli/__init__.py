"""The ``pytest-trust`` console script (``commands.py``) and the files its commands write: ``init``'s scaffold, the
thresholds ``bless`` writes, ``data fetch``'s cache.

``main`` is imported when called, so a module that needs only the scaffold does not load every command."""


def main(argv: list[str] | None = None) -> int:
    from .commands import main as run

    return run(argv)
