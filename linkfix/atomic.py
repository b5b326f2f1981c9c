"""Replace a file in one step: a reader (or a crash) sees the old content or the new, never half.

The one writer for everything linkfix writes in place: patched sources (`linkfix.fix.patch`) and
report files (`linkfix.report.files`: the CLI, the demo, the mkdocs plugin). It sits at the top of
the package, beside `errors` and `model`, because its two users are leaves of different stages: a
report writer importing it from `linkfix.fix` would make reporting depend on the fixer.

Guarantees:
- the new content goes to a temporary file beside the target (same file system), is fsynced,
  then renamed over the target;
- any exception on the way (Ctrl-C's KeyboardInterrupt, SIGTERM turned into one, a failing
  content generator, a full disk) removes the temporary file and leaves the target as it was;
- a run killed outright (SIGKILL, power loss) can leave its temporary file behind: the next
  write of the same target sweeps it away;
- a file that exists keeps its permission bits, its owner and its group. When the owner or group
  cannot be kept (only root may give a file away), the file is left unchanged and the error says
  so: replacing it would silently hand it to whoever runs linkfix.

Errors are OSError (the callers turn them into their own messages).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

TMP_SUFFIX = ".linkfix-tmp"
_TOKEN_HEX = 12  # characters of randomness in a temporary file's name


def temp_name_pattern(name: str) -> re.Pattern[str]:
    """The names of the temporary files of target `name` (and of no other target)."""
    return re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{{_TOKEN_HEX}}}{re.escape(TMP_SUFFIX)}")


def write_atomic(path: Path, content: bytes | Iterable[bytes], *, new_file_mode: int = 0o644) -> None:
    """Replace `path` with `content` (bytes, or byte chunks written as they come).

    An existing file keeps its mode, owner and group; a new one gets `new_file_mode`. `path` is
    replaced as named: a caller that wants to write through a symlink resolves it first.
    """
    try:
        existing: os.stat_result | None = path.stat()
    except FileNotFoundError:
        existing = None
    _sweep_stale_temp_files(path)
    # Named before it exists (not mkstemp): an interrupt landing anywhere after the file is
    # created still finds its name in the cleanup below.
    # os.urandom is what secrets.token_hex reads; importing secrets (hmac, hashlib, random)
    # cost every run's start-up for one name.
    tmp = path.parent / f".{path.name}.{os.urandom(_TOKEN_HEX // 2).hex()}{TMP_SUFFIX}"
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
            for chunk in [content] if isinstance(content, bytes) else content:
                handle.write(chunk)
            handle.flush()
            if existing is not None:
                _keep_owner(handle.fileno(), existing, path)
            # After the chown: changing the owner may clear set-user-ID and set-group-ID bits.
            os.fchmod(handle.fileno(), stat.S_IMODE(existing.st_mode) if existing is not None else new_file_mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:  # Ctrl-C/SIGTERM too: never leave the temporary file behind
        if not isinstance(exc, FileExistsError):  # only O_EXCL raises it: that file is not ours
            tmp.unlink(missing_ok=True)
        raise


def _keep_owner(fd: int, existing: os.stat_result, path: Path) -> None:
    """Give the temporary file the owner and group of the file it replaces."""
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) == (existing.st_uid, existing.st_gid):
        return
    try:
        os.fchown(fd, existing.st_uid, existing.st_gid)
    except OSError as exc:
        raise OSError(
            exc.errno or errno.EPERM,
            f"cannot keep its owner {existing.st_uid}:{existing.st_gid} ({exc.strerror or exc}); "
            "left unchanged (run linkfix as the file's owner)",
            str(path),
        ) from exc


def _sweep_stale_temp_files(path: Path) -> None:
    """Remove the temporary files an earlier, killed write of `path` left behind."""
    pattern = temp_name_pattern(path.name)
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return  # the write itself will report the directory's problem
    for entry in entries:
        if pattern.fullmatch(entry.name):
            Path(entry.path).unlink(missing_ok=True)
