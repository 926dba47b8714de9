"""The baseline's files as they are at REF: a detached git worktree, removed afterwards.

A worktree, not ``git show`` of single files: the baseline is REF's whole deployment (its conftest.py, the
modules it imports, its prompt files and its recordings), so it runs exactly as REF's own CI ran it.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import UsageProblem


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UsageProblem("check: git is not installed; check compares two commits of a git repository") from None


def repository_root(directory: Path) -> Path:
    """The work tree holding ``directory``; UsageProblem when it is not in one."""
    found = _git("rev-parse", "--show-toplevel", cwd=directory)
    if found.returncode != 0:
        raise UsageProblem(f"check: {directory.resolve()} is not in a git repository; --base names a commit of "
                           "the repository the project is in")
    return Path(found.stdout.strip())


def resolve(ref: str, root: Path) -> str:
    """REF's commit; UsageProblem naming REF and how to get it (a shallow clone lacks most of them)."""
    found = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", cwd=root)
    if found.returncode == 0:
        return found.stdout.strip()
    shallow = _git("rev-parse", "--is-shallow-repository", cwd=root).stdout.strip() == "true"
    remote, _, branch = ref.partition("/")
    fetch = f"git fetch {remote} {branch}" if branch and remote in _remotes(root) else f"git fetch origin {ref}"
    why = " (this clone is shallow: it holds only the latest commits)" if shallow else ""
    raise UsageProblem(f"check: --base {ref}: no such commit in {root}{why}; fetch it first ({fetch}), or name "
                       "a branch, tag or commit that exists")


def _remotes(root: Path) -> set[str]:
    return set(_git("remote", cwd=root).stdout.split())


@contextmanager
def worktree(sha: str, root: Path) -> Iterator[Path]:
    """REF's files in a temporary detached worktree (its git metadata removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="pytest-trust-base-") as parent:
        where = Path(parent) / "base"
        added = _git("worktree", "add", "--detach", "--quiet", str(where), sha, cwd=root)
        if added.returncode != 0:
            raise UsageProblem(f"check: cannot check out {sha[:12]} beside the working tree: "
                               f"{added.stderr.strip() or 'git worktree add failed'}")
        try:
            yield where
        finally:
            _git("worktree", "remove", "--force", str(where), cwd=root)
            _git("worktree", "prune", cwd=root)
