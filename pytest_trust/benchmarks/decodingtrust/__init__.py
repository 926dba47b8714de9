"""DecodingTrust (Wang et al. 2023): one benchmark per perspective, sharing its chat protocol.

Upstream: AI-secure/DecodingTrust@161ae8321ced62f45fcd9ceb412e05b47c603cd4 (code under ``src/dt/``,
data under ``data/``). Each perspective package exposes ``NAME``, ``load_items``, ``run``,
``aggregate``, ``metric_keys``, ``messages`` and ``recordings`` (DecodingTrust's own recorded runs of a
model, its ``BENCHMARK``'s reader for ``pytest-trust import decodingtrust``).
"""
