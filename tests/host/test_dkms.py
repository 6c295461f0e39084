"""kmod/dkms.conf is real: `dkms add` and `dkms build` of qgpu succeed for the guest kernel."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def kver() -> str:
    return subprocess.run(
        [str(PROJECT / "scripts" / "kver.sh")], capture_output=True, text=True, check=True
    ).stdout.strip()


def package_version() -> str:
    for line in (PROJECT / "kmod" / "dkms.conf").read_text().splitlines():
        if line.startswith("PACKAGE_VERSION="):
            return line.split("=", 1)[1].strip('"')
    raise AssertionError("dkms.conf has no PACKAGE_VERSION")


def test_dkms_add_and_build(tmp_path: Path) -> None:
    version = package_version()
    source = tmp_path / "src"
    tree = tmp_path / "tree"
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "kmod"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # What scripts/install-host.sh puts in /usr/src/qgpu-<version>: kmod/ sources, no build output.
    pkg = source / f"qgpu-{version}"
    for rel in tracked:
        if rel.startswith("kmod/nvsim/"):
            continue  # the simulator is not part of the package
        dest = pkg / Path(rel).relative_to("kmod")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / rel, dest)
    tree.mkdir()
    common = ["--dkmstree", str(tree), "--sourcetree", str(source), "-m", "qgpu", "-v", version]
    for action in (["add"], ["build", "-k", kver()]):
        r = subprocess.run(
            ["dkms", action[0], *common, *action[1:]], capture_output=True, text=True, check=False
        )
        assert r.returncode == 0, r.stdout + r.stderr
    built = list(tree.glob(f"qgpu/{version}/{kver()}/*/module/qgpu.ko*"))
    assert len(built) == 1, list(tree.rglob("*.ko*"))
    modinfo = subprocess.run(
        ["modinfo", "-F", "version", str(built[0])], capture_output=True, text=True, check=True
    )
    assert modinfo.stdout.strip() == version
