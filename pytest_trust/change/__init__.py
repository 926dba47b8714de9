"""``pytest-trust check --base REF``: does this change to the deployment make it less trustworthy?

The deployment of REF (its conftest.py, prompt files and recordings, in a git worktree) is replayed offline as
the baseline; the working tree's is run (recording only what it lacks, when a key is there), the two are paired
item by item and the verdict is written to trust.json and trust.md.
"""
