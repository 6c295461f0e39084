"""The version is written in three places that ship separately; they must agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import qgpuctl

PROJECT = Path(__file__).resolve().parents[2]


def test_module_dkms_and_package_versions_agree() -> None:
    header = (PROJECT / "kmod" / "qgpu_version.h").read_text()
    module = re.search(r'#define QGPU_VERSION "([^"]+)"', header)
    dkms = re.search(
        r'^PACKAGE_VERSION="([^"]+)"', (PROJECT / "kmod" / "dkms.conf").read_text(), re.M
    )
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["version"]
    assert module and dkms
    assert module.group(1) == dkms.group(1) == pyproject == qgpuctl.__version__
