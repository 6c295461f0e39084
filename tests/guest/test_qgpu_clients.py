"""Client handles in a tenant's parameters (kmod/qgpu_clients.c, DOC: client handles in
parameters): a control or allocation may name only the tenant's own RM clients.

RM (and nvsim, as GSP does) takes an event on any client's object, a device in any client's
address space, and the GR binds, register operations and channel queries of the audited controls
(kmod/nvrm/nvrm_clients.c) on any client's channel. Through an instance, naming a client the
tenant did not allocate through the same ctl file is NV_ERR_INVALID_CLIENT, and RM never sees
it, not even when a sibling thread writes it into the parameters after qgpu checked them.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import signal
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import rm
from kernel import reload_modules
from qgpu_sysfs import instance
from rm import Rm
from test_qgpu_forward import stall_first_touch
from test_qgpu_seal import raw_ioctl, sibling

VICTIM_DEV = 0x5EC0D0D0  # the victim's device handle
VICTIM_SUB = 0x5EC0B0B0  # the victim's subdevice handle, which the tenant's client lacks
PM_BIND, PM_BIND_SIZE = 0x20801209, 40  # NV2080 GR_CTXSW_PM_BIND: hClient@0, hChannel@4
PREEMPTION_BIND, PREEMPTION_BIND_SIZE = 0x20801211, 112  # hClient@4
QUERY_UNIQUE_ID, QUERY_UNIQUE_ID_SIZE = 0x20801124, 1540  # hClients[128]@0, numChannels@1024
ROUNDS = 400
UVM_ROUNDS = 150


@contextmanager
def victim_and_tenant(name: str, xfer: bool = False) -> Iterator[tuple[Rm, Rm, int, int]]:
    """Another client straight on the driver, with a device and subdevice the tenant's client has
    no handles for, and a tenant through an instance with its own device and subdevice: (victim,
    tenant, tenant's device, tenant's subdevice)."""
    victim = Rm()
    try:
        params = struct.pack("<I52x", 0)
        status, _ = victim.alloc(victim.client, victim.client, rm.DEVICE, params, VICTIM_DEV)
        assert status == rm.OK, hex(status)
        params = struct.pack("<I", 0)
        status, _ = victim.alloc(victim.client, VICTIM_DEV, rm.SUBDEVICE, params, VICTIM_SUB)
        assert status == rm.OK, hex(status)
        with instance(name, opts="mem=64M") as d:
            tenant = Rm(dev=d, xfer=xfer)
            try:
                dev, sub = tenant.device()
                assert tenant.os_event(rm.ALLOC_OS_EVENT, tenant.ctl) == rm.OK
                yield victim, tenant, dev, sub
            finally:
                tenant.close()
    finally:
        victim.close()


def event_params(parent_client: int, src: int, key_fd: int) -> bytes:
    """NV0005_ALLOC_PARAMETERS: hParentClient, hSrcResource, hClass, notifyIndex, data (the
    ALLOC_OS_EVENT key)."""
    return struct.pack("<IIIIQ", parent_client, src, rm.OS_EVENT, 0, key_fd)


def test_the_status_names_the_params_probe() -> None:
    text = Path("/proc/qgpu/status").read_text()
    assert re.search(r"^seal_params: nvsim:os_memcpy_from_user \(0 missed\)$", text, re.M), text


def test_an_event_on_another_clients_object_is_refused() -> None:
    with victim_and_tenant("clev") as (victim, tenant, _, sub):
        # nvsim takes it straight, as RM does: the hole qgpu closes
        direct = Rm()
        try:
            _, dsub = direct.device()
            assert direct.os_event(rm.ALLOC_OS_EVENT, direct.ctl) == rm.OK
            params = event_params(victim.client, VICTIM_SUB, direct.ctl)
            assert direct.alloc(direct.client, dsub, rm.OS_EVENT, params)[0] == rm.OK
        finally:
            direct.close()

        params = event_params(victim.client, VICTIM_SUB, tenant.ctl)
        status, _ = tenant.alloc(tenant.client, sub, rm.OS_EVENT, params)
        assert status == rm.INVALID_CLIENT
        # the same through the GPU node, which takes event allocations too
        ptr = tenant.buffer(params)
        buf = bytearray(
            rm.NVOS64.pack(tenant.client, sub, 0, rm.OS_EVENT, ptr, 0, 0, 0, 0xFFFFFFFF)
        )
        tenant.call(tenant.gpu_fd, rm.RM_ALLOC, buf)
        assert rm.NVOS64.unpack(buf)[8] == rm.INVALID_CLIENT
        # its own parent client, and 0 (the caller's), still work
        for parent in (tenant.client, 0):
            status, ev = tenant.alloc(
                tenant.client, sub, rm.OS_EVENT, event_params(parent, sub, tenant.ctl)
            )
            assert status == rm.OK, hex(status)
            assert tenant.free(ev) == rm.OK


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_os_events_naming_another_instances_client_are_refused(xfer: bool) -> None:
    """The driver keys OS events by (hClient, fd) for all its files and checks neither: straight
    on it, a process frees another's key (whose events then go silent) or takes it first.
    Through an instance a tenant may name only its instance's clients: the other tenant's key
    stays, and the key the tenant tried to take is still the other's to take."""
    direct, other = Rm(), Rm()
    try:
        assert other.os_event(rm.ALLOC_OS_EVENT, 5) == rm.OK
        assert direct.os_event(rm.FREE_OS_EVENT, 5, hclient=other.client) == rm.OK  # the hole
    finally:
        other.close()
        direct.close()
    with instance("osev1", opts="mem=64M") as d1, instance("osev2", opts="mem=64M") as d2:
        victim, tenant = Rm(dev=d1), Rm(dev=d2, xfer=xfer)
        try:
            assert victim.os_event(rm.ALLOC_OS_EVENT, 5) == rm.OK
            for nr, fd in ((rm.FREE_OS_EVENT, 5), (rm.ALLOC_OS_EVENT, 6)):
                for on in (tenant.ctl, tenant.gpu_fd):
                    status = tenant.os_event(nr, fd, hclient=victim.client, on=on)
                    assert status == rm.INVALID_CLIENT, hex(status)
            assert victim.os_event(rm.ALLOC_OS_EVENT, 6) == rm.OK
            assert victim.os_event(rm.FREE_OS_EVENT, 5) == rm.OK
            # its own client, through either node, as before
            assert tenant.os_event(rm.ALLOC_OS_EVENT, 5, on=tenant.gpu_fd) == rm.OK
            assert tenant.os_event(rm.FREE_OS_EVENT, 5) == rm.OK
        finally:
            tenant.close()
            victim.close()


def test_a_tenant_cannot_write_the_drivers_registry_or_read_through_another_client() -> None:
    """Straight on the driver any process writes the registry, through any client (nvsim's
    test). Through an instance, writes are refused and reads must name the calling file's own
    client."""
    key = f"QgpuTenantKey{os.getpid()}"
    with victim_and_tenant("clreg") as (victim, tenant, dev, _):
        assert victim.registry(rm.REG_WRITE_DWORD, key + "V", 1)[0] == rm.OK
        for access in (rm.REG_WRITE_DWORD, rm.REG_WRITE_BINARY):
            for hobject in (0, dev):
                status, _ = tenant.registry(access, key, 5, hobject=hobject)
                assert status == rm.INSUFFICIENT_PERMISSIONS, hex(status)
        assert victim.registry(rm.REG_READ_DWORD, key)[0] == rm.GENERIC  # never written
        status, _ = tenant.registry(rm.REG_READ_DWORD, key + "V", hclient=victim.client)
        assert status == rm.INVALID_CLIENT
        assert tenant.registry(rm.REG_READ_DWORD, key + "V") == (rm.OK, 1)


def test_sharing_through_another_client_is_refused() -> None:
    """RM lets a CLIENT share name any owner (nvsim's test): another tenant's rights on its own
    objects could be revoked. Through an instance the owner must be the calling file's client
    and a CLIENT share's target one of the instance's."""
    with victim_and_tenant("clshare") as (victim, tenant, dev, _):
        for owner, obj, target in (
            (victim.client, VICTIM_DEV, victim.client),
            (tenant.client, dev, victim.client),
        ):
            status = tenant.share(owner, obj, rm.SHARE_TYPE_CLIENT, target)
            assert status == rm.INVALID_CLIENT, hex(status)
        assert tenant.share(victim.client, VICTIM_DEV, rm.SHARE_TYPE_ALL) == rm.INVALID_CLIENT
        # its own objects reach RM (which nvsim answers NOT_SUPPORTED: policies not simulated)
        status = tenant.share(tenant.client, dev, rm.SHARE_TYPE_CLIENT, tenant.client)
        assert status == rm.NOT_SUPPORTED, hex(status)
        assert tenant.share(tenant.client, dev, rm.SHARE_TYPE_ALL) == rm.NOT_SUPPORTED


def test_update_device_mapping_info_names_only_the_calling_files_client() -> None:
    """RM looks the client up by handle alone (nvsim's test): straight on the driver, another
    process learns from the statuses which of a client's handles exist. Through an instance the
    client must be the calling file's, and a tenant's own mapping moves as before."""
    with victim_and_tenant("clmap") as (victim, tenant, dev, _):
        direct = Rm()
        try:  # the oracle: a subdevice is not memory; 0xBAD does not exist
            assert direct.update_mapping(VICTIM_DEV, VICTIM_SUB, 0, 0, hclient=victim.client) == (
                rm.INVALID_OBJECT_HANDLE
            )
            assert direct.update_mapping(VICTIM_DEV, 0xBAD, 0, 0, hclient=victim.client) == (
                rm.OBJECT_NOT_FOUND
            )
        finally:
            direct.close()
        for hmemory in (VICTIM_SUB, 0xBAD):
            status = tenant.update_mapping(VICTIM_DEV, hmemory, 0, 0, hclient=victim.client)
            assert status == rm.INVALID_CLIENT, hex(status)
        # a client of the instance, but of another file
        second = Rm(dev=tenant.dev)
        try:
            assert second.update_mapping(0, 0, 0, 0, hclient=tenant.client) == rm.INVALID_CLIENT
        finally:
            second.close()
        status, mem, _ = tenant.vidmem(dev, 2 << 20)
        assert status == rm.OK
        fd = tenant.open_gpu()
        try:
            status, cookie = tenant.map_memory(dev, mem, 0, 2 << 20, fd)
            assert status == rm.OK
            assert tenant.update_mapping(dev, mem, cookie, 0x7E0000000000) == rm.OK
            assert tenant.unmap_memory(dev, mem, 0x7E0000000000) == rm.OK
        finally:
            os.close(fd)


def test_a_device_in_another_clients_address_space_is_refused() -> None:
    with victim_and_tenant("cldev") as (victim, tenant, _, _):
        share = struct.pack("<II48x", 0, victim.client)  # deviceId 0, hClientShare
        assert tenant.alloc(tenant.client, tenant.client, rm.DEVICE, share)[0] == rm.INVALID_CLIENT
        target = struct.pack("<III44x", 0, 0, victim.client)  # hTargetClient
        assert tenant.alloc(tenant.client, tenant.client, rm.DEVICE, target)[0] == rm.INVALID_CLIENT
        # 0 (what nvidia-smi names) would put the device in the GPU's global VA space, which
        # every device allocated with 0 shares: qgpu makes it the tenant's own client, RM's "a new
        # share of its own", and RM copies that back (nvsim, straight, leaves it 0)
        for r in (tenant, victim):
            status, client = r.alloc(0, 0, rm.ROOT_CLIENT)
            assert status == rm.OK
            params = r.buffer(bytes(56))
            buf = bytearray(
                rm.NVOS64.pack(client, client, 0, rm.DEVICE, params, 0, 0, 0, 0xFFFFFFFF)
            )
            r.call(r.ctl, rm.RM_ALLOC, buf)
            assert rm.NVOS64.unpack(buf)[8] == rm.OK
            share = struct.unpack_from("<I", r.keep[-1].raw, 4)[0]
            assert share == (client if r is tenant else 0)
        # its own client (what CUDA names), 0, and a second client of the same
        # ctl file are the tenant's own
        status, second = tenant.alloc(0, 0, rm.ROOT_CLIENT)
        assert status == rm.OK
        for pick in (lambda c: c, lambda c: 0, lambda c: second):
            status, client = tenant.alloc(0, 0, rm.ROOT_CLIENT)
            assert status == rm.OK
            own = struct.pack("<II48x", 0, pick(client))
            status, _ = tenant.alloc(client, client, rm.DEVICE, own)
            assert status == rm.OK, hex(status)


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_controls_naming_another_client_never_reach_rm(xfer: bool) -> None:
    with victim_and_tenant("clctl", xfer) as (victim, tenant, _, sub):
        with instance("clother", opts="mem=64M") as d:
            other = Rm(dev=d)
            try:
                for foreign in (victim.client, other.client):
                    pm = bytearray(PM_BIND_SIZE)
                    struct.pack_into("<II", pm, 0, foreign, 0x5C000001)
                    assert tenant.control(sub, PM_BIND, pm) == rm.INVALID_CLIENT
                    pre = bytearray(PREEMPTION_BIND_SIZE)
                    struct.pack_into("<I", pre, 4, foreign)
                    assert tenant.control(sub, PREEMPTION_BIND, pre) == rm.INVALID_CLIENT
                    query = bytearray(QUERY_UNIQUE_ID_SIZE)
                    struct.pack_into("<II", query, 0, tenant.client, foreign)
                    struct.pack_into("<I", query, 1024, 2)
                    assert tenant.control(sub, QUERY_UNIQUE_ID, query) == rm.INVALID_CLIENT
                # past numChannels nothing is named; the tenant's own client is forwarded
                query = bytearray(QUERY_UNIQUE_ID_SIZE)
                struct.pack_into("<II", query, 0, tenant.client, victim.client)
                struct.pack_into("<I", query, 1024, 1)
                assert tenant.control(sub, QUERY_UNIQUE_ID, query) == rm.NOT_SUPPORTED  # nvsim's
                pm = bytearray(PM_BIND_SIZE)
                struct.pack_into("<I", pm, 0, tenant.client)
                assert tenant.control(sub, PM_BIND, pm) == rm.NOT_SUPPORTED
                # another size than the audited one is answered by qgpu, not nvsim
                assert tenant.control(sub, PM_BIND, bytearray(PM_BIND_SIZE + 8)) == (
                    rm.INVALID_PARAM_STRUCT
                )
            finally:
                other.close()


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("version", ["560.35.03", "580.95.05"])
def test_preemption_bind_takes_its_size_at_the_drivers_version(version: str) -> None:
    """NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS is 104 B to 560 and 112 B from 565.57.01 (a
    ninth vMemPtrs entry; hClient@4 in both): qgpu checks the client of the size the driver takes,
    forwards the tenant's own, and answers any other size as RM does."""
    if version != rm.param("abi_version"):
        reload_modules(f"abi_version={version}")
    size, wrong = (112, 104) if rm.abi_at_least((565,)) else (104, 112)
    with instance("clpb", opts="mem=64M") as d:
        r, foreign = Rm(dev=d), Rm()
        try:
            _, sub = r.device()
            own = bytearray(size)
            struct.pack_into("<I", own, 4, r.client)
            assert r.control(sub, PREEMPTION_BIND, own) == rm.NOT_SUPPORTED  # nvsim's answer
            other = bytearray(size)
            struct.pack_into("<I", other, 4, foreign.client)
            assert r.control(sub, PREEMPTION_BIND, other) == rm.INVALID_CLIENT
            assert r.control(sub, PREEMPTION_BIND, bytearray(wrong)) == rm.INVALID_PARAM_STRUCT
        finally:
            r.close()
            foreign.close()


def test_a_parent_client_rewritten_after_the_check_never_reaches_rm() -> None:
    """The tenant names its own client as the event's parent, with the victim's subdevice as
    the source object, which its own client lacks: RM must refuse every round. A sibling keeps
    rewriting the parent to the victim's client; had RM read that after qgpu's check, the event
    would land on the victim's subdevice (NV_OK). With seal=0 the sibling wins rounds."""
    with victim_and_tenant("clrace") as (victim, tenant, _, sub):
        won = 0
        with sibling(24, [(0, (victim.client, tenant.client))]) as params:
            for i in range(ROUNDS):
                ctypes.memmove(params, event_params(tenant.client, VICTIM_SUB, tenant.ctl), 24)
                req = ctypes.create_string_buffer(
                    rm.NVOS64.pack(
                        tenant.client,
                        sub,
                        0xE0000000 + i,
                        rm.OS_EVENT,
                        ctypes.addressof(params),
                        0,
                        0,
                        0,
                        0xFFFFFFFF,
                    ),
                    rm.NVOS64.size,
                )
                assert raw_ioctl(tenant.ctl, rm.RM_ALLOC, req) == 0
                status = rm.NVOS64.unpack(req.raw)[8]
                if status == rm.OK:
                    won += 1
                    assert tenant.free(0xE0000000 + i) == rm.OK
                else:
                    assert status in (rm.INVALID_CLIENT, rm.INVALID_OBJECT_HANDLE), hex(status)
        assert won == 0, f"{won} of {ROUNDS} events landed on the victim's subdevice"
    text = Path("/proc/qgpu/status").read_text()
    assert re.search(r"^seal_params: \S+ \(0 missed\)$", text, re.M), text


def stalled_device_alloc(inst: str, stalled: int, go: int, done: int) -> None:
    """A tenant process whose device allocation stalls in RM's copy of its parameters: the bytes
    qgpu checks (12) end one page, the rest lies on a page that faults to its own userfaultfd.
    Writes to `stalled` once RM's copy waits, lets it go when `go` is readable, writes the
    allocation's status to `done`."""
    r = Rm(dev=inst)
    pages = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(pages))
    pages[0] = 0

    def wait_for_go() -> None:
        os.write(stalled, b"s")
        os.read(go, 1)

    handler = stall_first_touch(base + mmap.PAGESIZE, b"", wait_for_go)
    addr = base + mmap.PAGESIZE - 12
    buf = bytearray(rm.NVOS64.pack(r.client, r.client, 0, rm.DEVICE, addr, 0, 0, 0, 0xFFFFFFFF))
    rm.ioctl(r.ctl, rm.RM_ALLOC, buf)
    handler.join()
    os.write(done, struct.pack("<I", rm.NVOS64.unpack(buf)[8]))


def fork_call(fn: Callable[[], None]) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - a tenant process
        try:
            fn()
        finally:
            os._exit(0)
    return pid


def exited_within(pid: int, seconds: float) -> bool:
    """Whether `pid` exits within a generous bound: a liveness check, not a timing target."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
        time.sleep(0.05)
    return False


def test_a_call_stalled_in_rms_copy_holds_up_only_its_own_instance() -> None:
    """A tenant can make RM's copy of checked parameters wait on its own memory, holding an entry
    of the probe's pool meanwhile. qgpu lets one such call at a time through per instance, so no
    number of stalled calls can drain the pool and leave a later copy unsealed: the next one of
    the same instance waits, killably, and another instance's goes through."""
    stalled_r, stalled_w = os.pipe()
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    with instance("clst1", opts="mem=64M") as one, instance("clst2", opts="mem=64M") as two:
        staller = fork_call(lambda: stalled_device_alloc(one, stalled_w, go_r, done_w))
        try:
            assert os.read(stalled_r, 1) == b"s"
            waiter = fork_call(lambda: Rm(dev=one).device() and None)
            try:
                # it comes to wait for the instance's turn (qgpu_seal_params_lock's
                # mutex_lock_killable, inlined or not) and stays there; a generous bound on
                # getting there, not a timing target
                wchan = ""
                deadline = time.monotonic() + 60
                while not (wchan == "qgpu_seal_params_lock" or "mutex" in wchan):
                    assert os.waitpid(waiter, os.WNOHANG)[0] == 0, "it went through"
                    assert time.monotonic() < deadline, f"it never waited: {wchan}"
                    time.sleep(0.05)
                    wchan = Path(f"/proc/{waiter}/wchan").read_text()
                assert not exited_within(waiter, 1.0), "it went through beside the stalled call"
            finally:
                os.kill(waiter, signal.SIGKILL)
                assert exited_within(waiter, 60.0), "a waiting call could not be killed"
            # several, so that a lock shared by hash shows: qgpu's fd-table locks were 64 such,
            # and a fresh-clone CI run of this test had another instance's process wait on one
            others = [fork_call(lambda: Rm(dev=two).device() and None) for _ in range(8)]
            for other in others:
                assert exited_within(other, 60.0), "another instance's call waited too"
        finally:
            os.write(go_w, b"g")
            assert exited_within(staller, 60.0)
        assert struct.unpack("<I", os.read(done_r, 4))[0] == rm.OK
    for fd in (stalled_r, stalled_w, go_r, go_w, done_r, done_w):
        os.close(fd)


def test_uvm_commands_naming_another_client_are_refused() -> None:
    """UVM_REGISTER_GPU(_VASPACE) and REGISTER_CHANNEL name an RM client that nvidia-uvm never
    checks against their rmCtrlFd. RM's share policy lets a duplicate through for the process
    that made the source client, so a client of the tenant's own process that is not the
    instance's (here: one straight on the driver) shows what qgpu adds: nvsim takes its VA space,
    the instance refuses it."""
    with victim_and_tenant("cluvm") as (victim, tenant, dev, _):
        status, vvas = victim.alloc(
            victim.client, VICTIM_DEV, rm.VASPACE, rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED)
        )
        assert status == rm.OK, hex(status)
        uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))

        # straight on nvsim: the same process may register the victim's VA space
        direct = os.open("/dev/nvidia-uvm", os.O_RDWR)
        mm = rm.mm_file(direct)
        try:
            assert rm.uvm_register_gpu(direct, uuid, victim.client)[0] == rm.OK
            assert rm.uvm_register_gpu_vaspace(direct, uuid, victim.client, vvas) == rm.OK
        finally:
            os.close(direct)
            os.close(mm)

        fd = os.open(f"{tenant.dev}/nvidia-uvm", os.O_RDWR)
        mm = rm.mm_file(fd, f"{tenant.dev}/nvidia-uvm")
        try:
            assert rm.uvm_register_gpu(fd, uuid, victim.client)[0] == rm.INVALID_CLIENT
            assert rm.uvm_register_gpu(fd, uuid, tenant.client)[0] == rm.OK
            assert rm.uvm_register_gpu_vaspace(fd, uuid, victim.client, vvas) == (rm.INVALID_CLIENT)
            status, tvas = tenant.alloc(
                tenant.client, dev, rm.VASPACE, rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED)
            )
            assert status == rm.OK, hex(status)
            assert rm.uvm_register_gpu_vaspace(fd, uuid, tenant.client, tvas) == rm.OK
            assert rm.uvm_register_channel(fd, uuid, victim.client, 0x5C000001) == rm.INVALID_CLIENT
            # the tenant's own client reaches UVM, which finds no such channel in it
            assert rm.uvm_register_channel(fd, uuid, tenant.client, 0x5C000001) == (
                rm.INVALID_OBJECT_HANDLE
            )
        finally:
            os.close(fd)
            os.close(mm)


def test_a_uvm_client_rewritten_after_the_check_never_reaches_uvm() -> None:
    """The tenant registers the victim's VA space under its own client, which has no such
    handle: UVM must refuse every round. A sibling keeps rewriting the client to the victim's
    (a client of the same process, which RM's share policy lets through); had UVM read that after
    qgpu's check, the victim's VA space would be registered (NV_OK). With seal=0 it wins rounds."""
    with victim_and_tenant("cluvmr") as (victim, tenant, _, _):
        # a handle the tenant's client has nothing under
        status, vvas = victim.alloc(
            victim.client,
            VICTIM_DEV,
            rm.VASPACE,
            rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED),
            0x5EC0A5A5,
        )
        assert status == rm.OK, hex(status)
        uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))
        won = 0
        with sibling(32, [(20, (victim.client, tenant.client))]) as params:
            for _ in range(UVM_ROUNDS):
                fd = os.open(f"{tenant.dev}/nvidia-uvm", os.O_RDWR)
                mm = rm.mm_file(fd, f"{tenant.dev}/nvidia-uvm")
                try:
                    assert rm.uvm_register_gpu(fd, uuid, tenant.client)[0] == rm.OK
                    data = uuid + struct.pack("<iIII", -1, tenant.client, vvas, 0xFFFFFFFF)
                    ctypes.memmove(params, data, 32)
                    libc = ctypes.CDLL(None, use_errno=True)
                    cmd = ctypes.c_ulong(rm.UVM_REGISTER_GPU_VASPACE)
                    assert libc.ioctl(fd, cmd, ctypes.c_void_p(ctypes.addressof(params))) == 0
                    status = struct.unpack_from("<I", bytes(params), 28)[0]
                    won += status == rm.OK
                    assert status in (rm.OK, rm.INVALID_CLIENT, rm.OBJECT_NOT_FOUND), hex(status)
                finally:
                    os.close(fd)
                    os.close(mm)
        assert won == 0, f"{won} of {UVM_ROUNDS} registered the victim's VA space"
