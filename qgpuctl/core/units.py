"""Memory sizes exactly as the qgpu ``limits/mem`` knob reads and writes them.

The kernel side accepts a decimal integer with an optional binary suffix
(K, M, G, T, P, E; either case; 1G = 2**30) or the word ``max`` for "no limit",
as cgroup's ``misc.max`` does, and emits the same. Validating here with the
same rules means a policy that passes ``qgpuctl validate`` is not refused
later with a bare EINVAL from sysfs, and that what ``export`` prints parses
back to the same number.

Deliberately rejected, because the kernel would reject them or, worse, read
them differently: fractions (``1.5G``), negatives, ``0x``/octal forms that
``memparse()`` would accept, SI/IEC spellings (``4GB``, ``4GiB``), inner
spaces, and anything that does not fit in a u64.
"""

from __future__ import annotations

import re
from typing import Final

from qgpuctl.errors import SizeError

U64_MAX: Final = 2**64 - 1

UNLIMITED: Final = "max"
# The most channels_max takes (kmod/qgpu_create_parse.h QGPU_CHANNELS_LIMIT).
CHANNELS_LIMIT: Final = 65536
# The most rm_objects_max takes (kmod/qgpu_create_parse.h QGPU_RM_OBJECTS_LIMIT).
RM_OBJECTS_LIMIT: Final = 16777216

# Ordered largest first so format_size() picks the largest exact unit.
_UNITS: Final[tuple[tuple[str, int], ...]] = (
    ("E", 2**60),
    ("P", 2**50),
    ("T", 2**40),
    ("G", 2**30),
    ("M", 2**20),
    ("K", 2**10),
)
_MULTIPLIER: Final = dict(_UNITS)

_SIZE_RE: Final = re.compile(r"(?P<digits>[0-9]+)(?P<suffix>[A-Za-z]?)")


def parse_size(text: str) -> int | None:
    """Parse ``text`` into bytes, or None for ``max`` (unlimited).

    Surrounding whitespace is ignored since values read from sysfs end in a
    newline; everything else has to match the kernel grammar exactly.
    """
    value = text.strip()
    if value == UNLIMITED:
        return None
    if not value:
        raise SizeError("empty memory size; expected e.g. 4G, 512M, 1073741824 or max")
    match = _SIZE_RE.fullmatch(value)
    if match is None:
        raise SizeError(_explain(value))
    suffix = match["suffix"].upper()
    if suffix and suffix not in _MULTIPLIER:
        raise SizeError(
            f"unknown size suffix {match['suffix']!r} in {value!r}; "
            f"use one of {', '.join(u for u, _ in reversed(_UNITS))} (binary) or plain bytes"
        )
    size = int(match["digits"], 10) * (_MULTIPLIER[suffix] if suffix else 1)
    if size > U64_MAX:
        raise SizeError(f"memory size {value!r} does not fit in 64 bits (at most {U64_MAX} bytes)")
    return size


def _explain(value: str) -> str:
    """Name the most likely mistake, since 'invalid size' alone sends people to the docs."""
    if value.startswith("-"):
        return f"memory size {value!r} is negative"
    if "." in value or "," in value:
        return f"memory size {value!r} has a fraction; use a smaller unit (e.g. 1536M, not 1.5G)"
    if value.lower().startswith("0x"):
        return f"memory size {value!r} is hexadecimal; only decimal is accepted"
    if any(ch.isspace() for ch in value):
        return f"memory size {value!r} contains spaces; write it as e.g. 4G"
    if re.fullmatch(r"[0-9]+[A-Za-z]+", value):
        return (
            f"memory size {value!r} has an unknown suffix; "
            "use a single-letter binary suffix like 4G or 512M (not GB/GiB)"
        )
    return f"invalid memory size {value!r}; expected e.g. 4G, 512M, 1073741824 or max"


def parse_limit(text: str) -> int | None:
    """A limit as a knob takes it: a size as parse_size() reads it, but never 0 (the kernel's
    limits refuse 0, which would allow nothing); None for ``max``."""
    size = parse_size(text)
    if size == 0:
        raise SizeError("a limit of 0 allows nothing; give a size such as 512M, or max")
    return size


def parse_mapped(text: str) -> int | None:
    """A bound on the GPU address space mappings span, as ``mapped_max`` takes it: a limit
    (parse_limit()) in whole 2 MiB regions, at most 512T; None for ``max``."""
    size = parse_limit(text)
    if size is not None and size % (2 << 20):
        raise SizeError(f"{text!r} is not a whole number of 2M regions; give e.g. 64G, 2M or max")
    if size is not None and size > 512 << 40:
        raise SizeError(f"{text!r} is more than the 512T the module takes; give less, or max")
    return size


def format_size(size: int | None) -> str:
    """Format bytes in the shortest form the kernel reads back to the same value.

    Uses the largest unit that divides ``size`` exactly, so ``1536M`` stays
    ``1536M`` rather than becoming a lossy ``1.5G``.
    """
    if size is None:
        return UNLIMITED
    if size < 0 or size > U64_MAX:
        raise SizeError(f"memory size {size} is outside 0..{U64_MAX}")
    if size == 0:
        return "0"
    for suffix, multiplier in _UNITS:
        if size % multiplier == 0:
            return f"{size // multiplier}{suffix}"
    return str(size)


def parse_bound(text: str | int, limit: int) -> str:
    """A bound on a count as the kernel's knobs spell it: ``max`` (no bound) or a decimal count
    1..@limit, as an int (YAML) or a string; raises ValueError with what is wrong, for the caller
    to name its field."""
    value = str(text).strip()
    if value == UNLIMITED and isinstance(text, str):
        return value
    digits = value.isascii() and value.isdigit()
    if isinstance(text, bool) or not digits or not 1 <= int(value) <= limit:
        raise ValueError(f"expected a count 1..{limit} or {UNLIMITED!r}, got {text!r}")
    return str(int(value))


def parse_channels(text: str | int) -> str:
    """A bound on an instance's channels as the kernel's ``channels_max`` spells it."""
    return parse_bound(text, CHANNELS_LIMIT)


def parse_rm_objects(text: str | int) -> str:
    """A bound on the RM objects an instance's processes hold, as ``rm_objects_max`` spells it."""
    return parse_bound(text, RM_OBJECTS_LIMIT)
