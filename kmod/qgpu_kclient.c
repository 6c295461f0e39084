// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: its own RM client in the backend driver.
 *
 * The NVIDIA driver exports nvidia_get_rm_ops() to kernel modules (nvidia-modeset uses it): after a
 * version handshake its op() runs FREE, ALLOC, CONTROL and DUP_OBJECT with kernel privilege on
 * parameters in kernel memory. nvsim exports nvsim_get_rm_ops() with the same prototype and
 * layouts (kmod/nvrm/nvrm_kapi.h), so one code path serves both. qgpu uses the client to ask RM
 * what a tenant's call really created (memory limits) and to act on tenants' channel groups
 * through duplicates of their handles (compute scheduling): a kernel client may duplicate any
 * object, and what it asks and is told never passes through tenant memory.
 *
 * The symbol is looked up at run time (symbol_get), so qgpu loads without either driver; while
 * qgpu holds it, the backend module cannot be unloaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "nvrm/nvrm_ctrl_mem.h"
#include "nvrm/nvrm_kapi.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"

/* Interfaces tried in order: the real driver's first. */
static const char *const qgpu_kclient_symbols[] = { "nvidia_get_rm_ops", "nvsim_get_rm_ops" };

/**
 * struct qgpu_kclient - the one kernel RM client
 * @lock: serialises calls (RM serialises them under its API lock anyway) and guards the
 *	per-GPU device handles
 * @ops: the driver's table, filled by the handshake
 * @symbol: the interface symbol held (symbol_get), or NULL when there is none
 * @sp: the driver's stack for op()
 * @abi: the driver's ABI (the alloc op takes NVOS21 before 575, NVOS64 from 575)
 * @hclient: the client's handle; 0 before init
 */
struct qgpu_kclient {
	struct mutex lock;	/* see above */
	struct nvrm_kapi_rm_ops ops;
	const char *symbol;
	struct nvrm_kapi_stack *sp;
	const struct nvrm_abi *abi;
	u32 hclient;
};

static struct qgpu_kclient qgpu_kc = { .lock = __MUTEX_INITIALIZER(qgpu_kc.lock) };

static void qgpu_kclient_op(struct nvrm_kapi_rmapi_ops *ops)
{
	lockdep_assert_held(&qgpu_kc.lock);
	qgpu_kc.ops.op(qgpu_kc.sp, ops);
}

/*
 * NV04_ALLOC with this driver's layout in @hroot (0: qgpu's client, or the new client itself);
 * returns the RM status and the new handle. pRightsRequested stays NULL: RM's default rights.
 */
static u32 qgpu_kclient_alloc_locked(u32 hroot, u32 hparent, u32 hclass, void *params, u32 *hnew)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_ALLOC };
	const struct nvrm_abi *abi = qgpu_kc.abi;
	struct nvrm_alloc a;
	u32 size;

	/* The common prefix of NVOS21 and NVOS64: hRoot, hObjectParent, hObjectNew, hClass, ptr. */
	ops.params.alloc.hroot = hroot ?: qgpu_kc.hclient ?: *hnew;
	ops.params.alloc.hobject_parent = hparent ?: ops.params.alloc.hroot;
	ops.params.alloc.hobject_new = *hnew;
	ops.params.alloc.hclass = hclass;
	ops.params.alloc.palloc_parms = (u64)(uintptr_t)params;
	if (abi->major >= 575) {
		size = abi->nvos64_size;
	} else {
		size = sizeof(struct nvrm_nvos21_v535);
		ops.params.alloc21.params_size = 0;	/* RM sizes params by class */
	}
	if (nvrm_alloc_set_status(abi, &ops.params, size, NVRM_ERR_GENERIC))
		return NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	if (nvrm_alloc_decode(abi, &ops.params, size, &a))
		return NVRM_ERR_GENERIC;
	if (a.status == NVRM_OK)
		*hnew = a.hnew;
	return a.status;
}

/* The backend's handshake function, a module reference held; @symbol set to its name. */
static nvrm_kapi_get_rm_ops_fn qgpu_kclient_get_ops_fn(const char **symbol)
{
	nvrm_kapi_get_rm_ops_fn get = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qgpu_kclient_symbols) && !get; i++) {
		*symbol = qgpu_kclient_symbols[i];
		get = (nvrm_kapi_get_rm_ops_fn)__symbol_get(*symbol);
	}
	return get;
}

/**
 * qgpu_kclient_driver_version() - the backend driver's exact version, from a handshake it refuses
 * @buf: where to write it
 * @len: @buf's size
 *
 * nvidia_get_rm_ops() answers a version string it does not speak with its own, and nothing else,
 * without a word in the log (nv-modeset-interface.c, 525-595). For the drivers that cannot be
 * asked by CHECK_VERSION_STR (qgpu_probe.c).
 *
 * Context: process context (module init).
 * Return: 0; -ENOENT when the backend exports no such interface; -EPROTO when it named none.
 */
int qgpu_kclient_driver_version(char *buf, size_t len)
{
	struct nvrm_kapi_rm_ops ops = { .version_string = "" };
	const char *symbol = NULL;
	nvrm_kapi_get_rm_ops_fn get = qgpu_kclient_get_ops_fn(&symbol);
	int ret = -EPROTO;

	if (!get)
		return -ENOENT;
	if (get(&ops) != NVRM_OK && ops.version_string && ops.version_string[0]) {
		strscpy(buf, ops.version_string, len);
		ret = 0;
	}
	__symbol_put(symbol);
	return ret;
}

/**
 * qgpu_kclient_init() - find the backend's kernel interface, shake hands, make the client
 * @abi: the backend's ABI (its version string must be the driver's exact version)
 *
 * Context: process context (module init), after the backend was probed.
 * Return: 0; -ENOENT when the backend exports no such interface; -EPROTO when the handshake or
 * the client allocation failed (the kernel log says why).
 */
int qgpu_kclient_init(const struct nvrm_abi *abi)
{
	const char *symbol = NULL;
	nvrm_kapi_get_rm_ops_fn get = qgpu_kclient_get_ops_fn(&symbol);
	u32 status, hclient = 0;

	if (!get)
		return -ENOENT;

	mutex_lock(&qgpu_kc.lock);
	memset(&qgpu_kc.ops, 0, sizeof(qgpu_kc.ops));
	qgpu_kc.ops.version_string = abi->version;
	status = get(&qgpu_kc.ops);
	if (status != NVRM_OK) {
		pr_warn("%s: version handshake failed: qgpu speaks %s, the driver is %s\n", symbol,
			abi->version, qgpu_kc.ops.version_string ?: "?");
		goto err_put;
	}
	if (qgpu_kc.ops.alloc_stack(&qgpu_kc.sp)) {
		pr_warn("%s: no driver stack\n", symbol);
		goto err_put;
	}
	qgpu_kc.abi = abi;
	qgpu_kc.hclient = 0;
	status = qgpu_kclient_alloc_locked(0, 0, NVRM_CLASS_NV01_ROOT_CLIENT, NULL, &hclient);
	if (status != NVRM_OK) {
		pr_warn("%s: allocating qgpu's RM client failed: %s\n", symbol,
			nvrm_status_name(status));
		goto err_free_stack;
	}
	qgpu_kc.hclient = hclient;
	qgpu_kc.symbol = symbol;
	mutex_unlock(&qgpu_kc.lock);
	pr_info("kernel RM client 0x%x through %s (driver %s)\n", hclient, symbol, abi->version);
	return 0;

err_free_stack:
	qgpu_kc.ops.free_stack(qgpu_kc.sp);
err_put:
	mutex_unlock(&qgpu_kc.lock);
	__symbol_put(symbol);
	return -EPROTO;
}

/* Module exit: free the client (and everything under it) and let the backend go. */
void qgpu_kclient_exit(void)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_FREE };

	mutex_lock(&qgpu_kc.lock);
	if (!qgpu_kc.symbol) {
		mutex_unlock(&qgpu_kc.lock);
		return;
	}
	ops.params.free.hroot = qgpu_kc.hclient;
	ops.params.free.hobject_old = qgpu_kc.hclient;
	qgpu_kclient_op(&ops);
	qgpu_kc.ops.free_stack(qgpu_kc.sp);
	__symbol_put(qgpu_kc.symbol);
	qgpu_kc.symbol = NULL;
	qgpu_kc.hclient = 0;
	mutex_unlock(&qgpu_kc.lock);
}

bool qgpu_kclient_ready(void)
{
	return READ_ONCE(qgpu_kc.hclient) != 0;
}

/* Which interface the client goes through ("-" when there is none), for /proc/qgpu/status. */
const char *qgpu_kclient_source(void)
{
	return qgpu_kclient_ready() ? qgpu_kc.symbol : "-";
}

u32 qgpu_kclient_client(void)
{
	return READ_ONCE(qgpu_kc.hclient);
}

/**
 * qgpu_kclient_alloc() - allocate an object in qgpu's client
 * @hparent: its parent; 0 for the client itself
 * @hclass: its class
 * @params: kernel copy of the class's alloc params, or NULL
 * @hnew: the handle to use, or 0 for RM to choose; the new handle on success
 *
 * Context: process context; sleeps.
 * Return: the RM status; NV_ERR_INVALID_STATE when there is no client.
 */
u32 qgpu_kclient_alloc(u32 hparent, u32 hclass, void *params, u32 *hnew)
{
	u32 status;

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	status = qgpu_kclient_alloc_locked(0, hparent, hclass, params, hnew);
	mutex_unlock(&qgpu_kc.lock);
	return status;
}

/**
 * qgpu_kclient_alloc_in() - allocate an object in any client, on a tenant's behalf
 * @hclient: the client (a tenant's: RM does not check which file a client belongs to for kernel
 *	calls, the caller does)
 * @hparent: its parent in @hclient
 * @hclass: its class (the caller's to pin: kernel privilege may allocate privileged classes)
 * @params: kernel copy of the class's alloc params, or NULL; RM writes its outputs back here
 * @hnew: the handle to use, or 0 for RM to choose; the new handle on success
 *
 * RM reads only qgpu's copies, so what it makes is what qgpu asked for; but it runs at kernel
 * privilege, so the caller must first refuse or clear what RM honours only for kernel callers.
 *
 * Context: process context (RM takes per-process facts from the calling task); sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_alloc_in(u32 hclient, u32 hparent, u32 hclass, void *params, u32 *hnew)
{
	u32 status;

	if (!qgpu_kclient_ready() || !hclient)
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	status = qgpu_kclient_alloc_locked(hclient, hparent, hclass, params, hnew);
	mutex_unlock(&qgpu_kc.lock);
	return status;
}

/**
 * qgpu_kclient_vid_heap_in() - RM_VID_HEAP_CONTROL on a tenant's behalf
 * @p: qgpu's kernel copy of NVOS32 (naming the tenant's client); RM writes its outputs and the
 *	status into it
 *
 * As qgpu_kclient_alloc_in(): kernel privilege, no check of the client's file.
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_vid_heap_in(struct nvrm_nvos32 *p)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_VID_HEAP_CONTROL };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	p->status = NVRM_ERR_GENERIC;
	ops.params.pvid_heap_control = (u64)(uintptr_t)p;
	mutex_lock(&qgpu_kc.lock);
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	return p->status;
}

/**
 * qgpu_kclient_free() - free an object of qgpu's client and its subtree
 * @hobject: the object
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_free(u32 hobject)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_FREE };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	ops.params.free.hroot = qgpu_kc.hclient;
	ops.params.free.hobject_old = hobject;
	ops.params.free.status = NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	return ops.params.free.status;
}

/**
 * qgpu_kclient_free_in() - free an object (and its subtree) of any client, with kernel privilege
 * @hclient: the client (a tenant's: RM does not bind clients for kernel calls)
 * @hobject: the object; @hclient frees the whole client
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_free_in(u32 hclient, u32 hobject)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_FREE };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	ops.params.free.hroot = hclient;
	ops.params.free.hobject_old = hobject;
	ops.params.free.status = NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	return ops.params.free.status;
}

/**
 * qgpu_kclient_control_in() - a control on an object of any client, with kernel privilege
 * @hclient: the client (a tenant's: RM binds clients to files only for user calls)
 * @hobject: the object (@hclient itself for NV0000 controls)
 * @cmd: the control
 * @params: kernel copy of its params, in and out
 * @size: their size for this driver version
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_control_in(u32 hclient, u32 hobject, u32 cmd, void *params, u32 size)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_CONTROL };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	ops.params.control.hclient = hclient;
	ops.params.control.hobject = hobject;
	ops.params.control.cmd = cmd;
	ops.params.control.params = (u64)(uintptr_t)params;
	ops.params.control.params_size = size;
	ops.params.control.status = NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	return ops.params.control.status;
}

/**
 * qgpu_kclient_control() - a control on an object of qgpu's client
 * @hobject: the object (qgpu's client handle for NV0000 controls)
 * @cmd: the control
 * @params: kernel copy of its params, in and out
 * @size: their size for this driver version
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_control(u32 hobject, u32 cmd, void *params, u32 size)
{
	return qgpu_kclient_control_in(qgpu_kclient_client(), hobject, cmd, params, size);
}

/**
 * qgpu_kclient_class_of() - the class RM says a tenant's handle is
 * @hclient: the tenant's client
 * @handle: the object
 * @hclass: set to its class where RM answers NV_OK
 *
 * NV0000 CLIENT_GET_HANDLE_INFO, CLASSID, asked of the tenant's client itself (kernel calls may
 * name any client).
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_class_of(u32 hclient, u32 handle, u32 *hclass)
{
	struct nvrm_client_get_handle_info p = {
		.hobject = handle,
		.index = NVRM_HANDLE_INFO_INDEX_CLASSID,
	};
	const u32 cmd = NVRM_CTRL_CMD_NV0000_CLIENT_GET_HANDLE_INFO;
	u32 status;

	status = qgpu_kclient_control_in(hclient, hclient, cmd, &p, sizeof(p));
	if (status == NVRM_OK)
		*hclass = (u32)p.data;
	return status;
}

/**
 * qgpu_kclient_dup() - duplicate any client's object into qgpu's client
 * @hparent: the parent in qgpu's client (a device of the object's GPU, or the client)
 * @hclient_src: the object's client
 * @hobject_src: the object
 * @hnew: the handle to use, or 0 for RM to choose; the duplicate's handle on success
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_dup(u32 hparent, u32 hclient_src, u32 hobject_src, u32 *hnew)
{
	u32 hclient = qgpu_kclient_client();
	struct nvrm_nvos55 p = {
		.hclient = hclient,
		.hparent = hparent ?: hclient,
		.hobject = *hnew,
		.hclient_src = hclient_src,
		.hobject_src = hobject_src,
	};
	u32 status = qgpu_kclient_dup_in(&p);

	if (status == NVRM_OK)
		*hnew = p.hobject;
	return status;
}

/**
 * qgpu_kclient_dup_in() - RM_DUP_OBJECT into any client, on a tenant's behalf
 * @p: the request (qgpu's kernel copy of NVOS55); @p->hobject becomes the new handle on success
 *
 * The caller sets NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE in @p->flags where RM is to
 * check the duplicate's access as for a user call (clientCopyResource(), rs_client.c, 525-595).
 * RM does not check that the destination client belongs to any file: the caller does.
 *
 * Context: process context (RM's share policy compares the calling process); sleeps.
 * Return: the RM status (also left in @p->status).
 */
u32 qgpu_kclient_dup_in(struct nvrm_nvos55 *p)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_DUP_OBJECT };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	ops.params.dup_object = *p;
	ops.params.dup_object.status = NVRM_ERR_GENERIC;
	mutex_lock(&qgpu_kc.lock);
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	p->status = ops.params.dup_object.status;
	if (p->status == NVRM_OK)
		p->hobject = ops.params.dup_object.hobject;
	return p->status;
}

/**
 * qgpu_kclient_subdevice() - qgpu's device and subdevice of @gpu, allocated on first use
 * @gpu: the GPU
 * @hsubdevice: the subdevice's handle
 *
 * Context: process context; sleeps.
 * Return: the RM status.
 */
u32 qgpu_kclient_subdevice(struct qgpu_gpu *gpu, u32 *hsubdevice)
{
	struct nvrm_nv0080_alloc_params dp = { .device_id = gpu->device_instance };
	struct nvrm_nv2080_alloc_params sp = { .sub_device_id = 0 };
	u32 status = NVRM_OK, hdev = 0, hsub = 0;

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	if (gpu->kc_subdevice)
		goto out;
	status = qgpu_kclient_alloc_locked(0, qgpu_kc.hclient, NVRM_CLASS_NV01_DEVICE_0, &dp,
					   &hdev);
	if (status)
		goto out_unlock;
	status = qgpu_kclient_alloc_locked(0, hdev, NVRM_CLASS_NV20_SUBDEVICE_0, &sp, &hsub);
	if (status) {
		struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_FREE };

		ops.params.free.hroot = qgpu_kc.hclient;
		ops.params.free.hobject_old = hdev;
		qgpu_kclient_op(&ops);
		goto out_unlock;
	}
	gpu->kc_device = hdev;
	gpu->kc_subdevice = hsub;
out:
	*hsubdevice = gpu->kc_subdevice;
out_unlock:
	mutex_unlock(&qgpu_kc.lock);
	return status;
}

/**
 * qgpu_kclient_map() - map a memory object of the kernel client into the kernel
 * @hdevice: the kernel client's device (or subdevice) of the memory's GPU
 * @hmemory: the memory (typically a duplicate of a tenant's)
 * @offset: byte offset into it
 * @length: bytes
 * @linear: the kernel address of @offset (NV04_MAP_MEMORY's pLinearAddress for a kernel client)
 *
 * Read-only: qgpu reads what the GPU writes there, never writes.
 *
 * Context: process context; may sleep.
 * Return: an RM status.
 */
u32 qgpu_kclient_map(u32 hdevice, u32 hmemory, u64 offset, u64 length, u64 *linear)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_MAP_MEMORY };
	u32 status;

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	ops.params.map_memory.hclient = qgpu_kc.hclient;
	ops.params.map_memory.hdevice = hdevice;
	ops.params.map_memory.hmemory = hmemory;
	ops.params.map_memory.offset = offset;
	ops.params.map_memory.length = length;
	ops.params.map_memory.flags = NVRM_NVOS33_FLAGS_ACCESS_READ_ONLY <<
				      NVRM_NVOS33_FLAGS_ACCESS_SHIFT;
	ops.params.map_memory.status = NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	status = ops.params.map_memory.status;
	if (status == NVRM_OK)
		*linear = ops.params.map_memory.plinear_address;
	mutex_unlock(&qgpu_kc.lock);
	return status;
}

/**
 * qgpu_kclient_unmap() - undo qgpu_kclient_map()
 * @hdevice: as mapped
 * @hmemory: as mapped
 * @linear: the address qgpu_kclient_map() returned
 *
 * Context: process context; may sleep.
 * Return: an RM status.
 */
u32 qgpu_kclient_unmap(u32 hdevice, u32 hmemory, u64 linear)
{
	struct nvrm_kapi_rmapi_ops ops = { .op = NVRM_KAPI_OP_UNMAP_MEMORY };

	if (!qgpu_kclient_ready())
		return NVRM_ERR_INVALID_STATE;
	mutex_lock(&qgpu_kc.lock);
	ops.params.unmap_memory.hclient = qgpu_kc.hclient;
	ops.params.unmap_memory.hdevice = hdevice;
	ops.params.unmap_memory.hmemory = hmemory;
	ops.params.unmap_memory.plinear_address = linear;
	ops.params.unmap_memory.status = NVRM_ERR_GENERIC;
	qgpu_kclient_op(&ops);
	mutex_unlock(&qgpu_kc.lock);
	return ops.params.unmap_memory.status;
}
