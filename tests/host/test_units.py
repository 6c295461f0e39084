"""Memory sizes: the grammar the limits/mem knob accepts, no more and no less."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qgpuctl.core.units import U64_MAX, format_size, parse_size
from qgpuctl.errors import EXIT_USAGE, QgpuError, SizeError

KiB, MiB, GiB, TiB, PiB, EiB = (2**10, 2**20, 2**30, 2**40, 2**50, 2**60)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("1", 1),
        ("4096", 4096),
        ("1K", KiB),
        ("1024K", MiB),
        ("1k", KiB),
        ("512M", 512 * MiB),
        ("512m", 512 * MiB),
        ("4G", 4 * GiB),
        ("1T", TiB),
        ("2P", 2 * PiB),
        ("15E", 15 * EiB),
        ("0G", 0),
        ("007", 7),  # decimal, not octal as memparse() would read it
        ("4G\n", 4 * GiB),  # as read back from sysfs
        ("  4G  ", 4 * GiB),
        ("max", None),
        ("max\n", None),
        (str(U64_MAX), U64_MAX),
    ],
)
def test_parse_valid(text: str, expected: int | None) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("-1", "negative"),
        ("-4G", "negative"),
        ("1.5G", "fraction"),
        ("1,5G", "fraction"),
        ("0x10", "hexadecimal"),
        ("4GB", "unknown suffix"),
        ("4GiB", "unknown suffix"),
        ("4Q", "unknown size suffix 'Q'"),
        ("4 G", "spaces"),
        ("G", "invalid memory size"),
        ("MAX", "invalid memory size"),
        ("unlimited", "invalid memory size"),
        ("+4G", "invalid memory size"),
        ("\u0664G", "invalid memory size"),  # non-ASCII digit
        ("16E", "64 bits"),
        (str(U64_MAX + 1), "64 bits"),
        ("99999999999T", "64 bits"),
    ],
)
def test_parse_invalid(text: str, reason: str) -> None:
    with pytest.raises(SizeError, match=reason):
        parse_size(text)


def test_size_error_is_a_usage_error_and_a_value_error() -> None:
    with pytest.raises(ValueError) as info:
        parse_size("1.5G")
    assert isinstance(info.value, QgpuError)
    assert info.value.exit_code == EXIT_USAGE


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (None, "max"),
        (0, "0"),
        (1, "1"),
        (1000, "1000"),
        (KiB, "1K"),
        (1536 * MiB, "1536M"),
        (4 * GiB, "4G"),
        (TiB, "1T"),
        (3 * PiB, "3P"),
        (EiB, "1E"),
        (U64_MAX, str(U64_MAX)),
    ],
)
def test_format(size: int | None, text: str) -> None:
    assert format_size(size) == text


@pytest.mark.parametrize("size", [-1, U64_MAX + 1])
def test_format_out_of_range(size: int) -> None:
    with pytest.raises(SizeError, match="outside"):
        format_size(size)


@given(st.none() | st.integers(min_value=0, max_value=U64_MAX))
def test_round_trip(size: int | None) -> None:
    assert parse_size(format_size(size)) == size


@given(
    st.integers(min_value=0, max_value=2**20),
    st.sampled_from([("", 1), ("K", KiB), ("M", MiB), ("G", GiB), ("T", TiB)]),
)
def test_suffix_multiplies(number: int, unit: tuple[str, int]) -> None:
    suffix, multiplier = unit
    assert parse_size(f"{number}{suffix}") == number * multiplier
    assert parse_size(f"{number}{suffix.lower()}") == number * multiplier
