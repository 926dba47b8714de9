"""Text utilities benchmarks share; nothing here touches the network."""

from .sentences import punkt_root, sent_tokenize

__all__ = ["punkt_root", "sent_tokenize"]
