"""Reading data files for ``load()``: .npy, .npz and .csv, never a pickle."""

from __future__ import annotations

import os
from typing import Any

import numpy

from ..errors import ScriptError


def _npy_shape(f: Any) -> tuple[int, ...] | None:
    """The shape a .npy header announces, read before the data; None if there is no header."""
    from numpy.lib import format as npformat

    try:
        version = npformat.read_magic(f)
        if version == (1, 0):
            return tuple(npformat.read_array_header_1_0(f)[0])
        if version == (2, 0):
            return tuple(npformat.read_array_header_2_0(f)[0])
        return tuple(npformat._read_array_header(f, version)[0])
    except (ValueError, AttributeError, EOFError):
        return None


def _csv_count(path: str, limit: int) -> int:
    """The number of fields in a CSV file, counted line by line and only until it passes
    ``limit``: the element limit applies before NumPy parses (and holds) the whole file."""
    n = 0
    with open(path, "rb") as f:
        for line in f:
            text = line.split(b"#", 1)[0].strip()
            if text:
                n += text.count(b",") + 1
                if n > limit:
                    break
    return n


def current_limit() -> int:
    """The run's element limit."""
    from ..engine.context import current

    return current().max_elements


def read_array(path: str, shown: str, key: str | None = None,
               check_shape: Any = None) -> Any:
    """Numbers from a .npy, .npz or .csv file as a host array; never unpickles.

    ``check_shape(shape)`` (the element limit) sees a .npy/.npz array's shape before its data
    is read, so a small compressed file cannot make gradcli allocate gigabytes.
    """
    import zipfile  # only a script that loads data pays for it

    def fail(why: str, kind: str = "ValueError") -> ScriptError:
        return ScriptError(f"load(): {why}", kind=kind)

    ext = os.path.splitext(path)[1].lower()
    if ext not in (".npy", ".npz", ".csv"):
        raise fail(f"'{shown}' is not a .npy, .npz or .csv file")
    if not os.path.isfile(path):
        raise fail(f"no such file '{shown}'", "FileNotFoundError")
    try:
        if ext == ".npy":
            with open(path, "rb") as f:
                shape = _npy_shape(f)
            if shape is None:
                raise fail(f"'{shown}' is not a .npy file (no NumPy header)")
            if check_shape is not None:
                check_shape(shape)
            data = numpy.load(path, allow_pickle=False)
        elif ext == ".npz":
            with open(path, "rb") as f:
                head = f.read(4)
            # numpy.load decides by the first bytes, is_zipfile by the end: both must agree
            # (a .npy with a zip appended would load as a bare array, not an archive)
            if head != b"PK\x03\x04" or not zipfile.is_zipfile(path):
                raise fail(f"'{shown}' is not a .npz file (not a zip archive)")
            with numpy.load(path, allow_pickle=False) as archive:
                names = list(archive.files)
                if key is None and len(names) == 1:
                    key = names[0]
                if key is None or key not in names:
                    raise fail(f"'{shown}' holds {', '.join(map(repr, names)) or 'no arrays'}; "
                               "choose one with key=", "KeyError")
                member = key if key in archive.zip.namelist() else key + ".npy"
                with archive.zip.open(member) as f:
                    shape = _npy_shape(f)
                if shape is not None and check_shape is not None:
                    check_shape(shape)
                data = archive[key]
        else:
            if check_shape is not None:
                check_shape((_csv_count(path, current_limit()),))
            data = numpy.loadtxt(path, delimiter=",", ndmin=1, comments="#")
    except ScriptError:
        raise
    except ValueError as exc:
        if "pickle" in str(exc):
            raise fail(f"'{shown}' holds Python objects; gradcli never loads pickles") from None
        raise fail(f"'{shown}' is not a valid {ext} file of numbers ({exc})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise fail(f"cannot read '{shown}' ({exc})", "OSError") from None
    if not isinstance(data, numpy.ndarray) or data.dtype.kind not in "biuf":
        raise fail(f"'{shown}' does not hold numbers (dtype {getattr(data, 'dtype', '?')})")
    return data
