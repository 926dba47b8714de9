"""pytest-trust: LLM trustworthiness benchmarks (DecodingTrust, RuLES) as a pytest regression suite."""

from .items import Item, Result, Verdict

__all__ = ["Item", "Result", "Verdict"]
__version__ = "0.1.0"
