// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: a tenant's controls and allocations that name other RM clients, kept to its own clients.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_clients.h"
#include "nvrm/nvrm_uvm.h"
#include "qgpu_internal.h"
#include "qgpu_preempt.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"
#include "qgpu_uvm_channel.h"

/**
 * DOC: client handles in parameters
 *
 * RM checks the client an RM_CONTROL or RM_ALLOC is issued on against the calling file, but some
 * controls and classes name further clients in their parameters, and RM looks those up by
 * handle, checking nothing (the audit in nvrm_clients.c): an event on another client's object
 * (NV01_EVENT_OS_EVENT's hParentClient), a device in another client's GPU address space
 * (NV01_DEVICE_0's hClientShare), GR context binds, register operations and channel queries on
 * another client's channels. Client handles are small and predictable, so one tenant could
 * reach into every other.
 *
 * qgpu lets a tenant name only 0, the client the call is issued on, and, on a ctl node, clients
 * allocated through the same file. Anything else is NV_ERR_INVALID_CLIENT, as if the client did
 * not exist; nothing is forwarded, and the operator gets the netlink event ``refused``. A
 * parameter block of another size than the one audited is NV_ERR_INVALID_PARAM_STRUCT (RM's own
 * answer to a wrong size), a FINN-serialized one, which qgpu cannot read, NV_ERR_NOT_SUPPORTED,
 * and so are NV5080 DEFERRED_API(_V2), whose bundled commands carry client fields of their own.
 *
 * The parameters are user memory that RM copies after qgpu checked them. qgpu checks its own
 * copy of the leading bytes that hold every client field (nvrm_clients_span()) and has RM use
 * that copy for them (DOC: sealed forwarding, the parameters behind a call), so a sibling thread
 * that writes another client there after the check changes nothing; and it holds
 * the file's tracker lock across the call, so no client it allowed is freed, and its handle
 * reused, meanwhile. Such forwards go one at a time per instance (struct qgpu_instance
 * .params_seal), and the probe's pool has an entry for every instance and CPU, so a tenant that
 * stalls RM's copy on its own memory (userfaultfd) cannot drain the pool and have a later copy
 * go unsealed; it only stalls its own instance's next such call, killably. Without that probe
 * (``seal_params: -`` in /proc/qgpu/status, and qgpuctl doctor warns) the check is made and the
 * call forwarded, and a tenant that races its own call can still name another client.
 */

/* Tell the operator that @what, a tenant's call, named RM client @h, not its own. */
static void qgpu_clients_refused(struct qgpu_file *qf, const char *what, u32 h)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "%s naming RM client 0x%08x, not its own", what, h);
	qgpu_mem_call_refused(qf->inst, msg);
}

/* Whether @h is a client allocated through any of @qf's instance's ctl files. */
static bool qgpu_clients_in_instance(struct qgpu_file *qf, u32 h)
{
	return xa_load(&qf->inst->mem.clients, qgpu_mem_client_key(h));
}

/* Whether @h may be named in a call issued on @hclient through a file tracked by @t (or NULL). */
static bool qgpu_clients_own(struct qgpu_rmtrack *t, u32 hclient, u32 h)
{
	return h == hclient || (t && qgpu_rmtrack_find(t, h, h));
}

/**
 * qgpu_clients_check() - are the clients @params names the caller's own?
 * @qf: the proxy the call came through
 * @hclient: the client the call is issued on
 * @f: where @params names clients
 * @params: qgpu's copy of the parameters, nvrm_clients_span(@f) bytes
 * @what: what the call is, for the operator
 *
 * Context: the tracker's lock held, where @qf has a tracker.
 * Return: NVRM_OK, or NVRM_ERR_INVALID_CLIENT (the operator told).
 */
static u32 qgpu_clients_check(struct qgpu_file *qf, u32 hclient,
			      const struct nvrm_client_fields *f, const void *params,
			      const char *what)
{
	u32 handles[NVRM_CLIENTS_MAX];
	u32 i, n;

	n = nvrm_clients_named(f, params, handles);
	for (i = 0; i < n; i++) {
		if (qgpu_clients_own(qf->track, hclient, handles[i]))
			continue;
		qgpu_clients_refused(qf, what, handles[i]);
		return NVRM_ERR_INVALID_CLIENT;
	}
	return NVRM_OK;
}

/**
 * qgpu_clients_control() - a tenant's RM_CONTROL that names clients, if @c is one
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's NVOS54 (user pointer)
 * @compat: use the backend's compat_ioctl
 * @c: the decoded control
 * @ret: what the ioctl returns, when handled
 *
 * See DOC: client handles in parameters.
 *
 * Context: process context; takes the tracker's lock.
 * Return: true if @c was such a control (handled here, *@ret set).
 */
bool qgpu_clients_control(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			  const struct nvrm_control *c, long *ret)
{
	struct nvrm_nvos54 __user *u = (struct nvrm_nvos54 __user *)arg;
	const struct nvrm_client_fields *f = nvrm_control_client_fields(c->cmd);
	bool forwarded = false;
	struct qgpu_seal seal;
	char what[32];
	u32 status, span;
	void *p;

	if (!f && !nvrm_control_refused_for_tenants(c->cmd))
		return false;
	*ret = 0;
	if (!f || c->finn_serialized)
		status = NVRM_ERR_NOT_SUPPORTED;
	else if (!c->params_ptr || c->params_size != nvrm_clients_size(f, qf->inst->gpu->abi.major))
		status = NVRM_ERR_INVALID_PARAM_STRUCT;
	else
		status = NVRM_OK;
	if (status)
		goto out;
	span = nvrm_clients_span(f);
	p = memdup_user(u64_to_user_ptr(c->params_ptr), span);
	if (IS_ERR(p)) {
		status = NVRM_ERR_INVALID_ADDRESS;	/* RM's copy of it would fail the same */
		goto out;
	}
	snprintf(what, sizeof(what), "RM control 0x%08x", c->cmd);
	if (qf->track)
		mutex_lock(&qf->track->lock);
	status = qgpu_clients_check(qf, c->hclient, f, p, what);
	if (!status && qgpu_preempt_bind_refused(qf, c, p))
		status = NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	if (!status) {
		*ret = qgpu_seal_params_lock(&qf->inst->params_seal, &seal, c->params_ptr, p, span);
		if (!*ret) {
			/* RM answers, into the tenant's NVOS54 */
			*ret = qgpu_forward_control(qf, cmd, arg, compat, c, &status);
			qgpu_seal_params_unlock(&qf->inst->params_seal, &seal,
						!*ret && status == NVRM_OK);
		}
		forwarded = true;
	}
	if (qf->track)
		mutex_unlock(&qf->track->lock);
	kfree(p);
	if (forwarded)
		return true;
out:
	if (put_user(status, &u->status))
		*ret = -EFAULT;
	return true;
}

/*
 * A device's hClientShare 0 attaches it to the GPU's global VA space, which every device
 * allocated with 0 shares, whoever its client (device_share.c): two tenants would meet there.
 * qgpu makes it the allocating client, RM's "a new share of its own" (what CUDA asks for); RM
 * reads this from qgpu's copy, and copies it back, so the tenant sees its own client there.
 */
static void qgpu_clients_own_va_space(void *params, u32 hclient)
{
	u8 *share = (u8 *)params + offsetof(struct nvrm_nv0080_alloc_params, hclient_share);
	u32 h;

	memcpy(&h, share, sizeof(h));	/* within the span qgpu copied, 12 of 56 bytes */
	if (!h)
		memcpy(share, &hclient, sizeof(hclient));
}

/**
 * qgpu_clients_alloc_begin() - check an RM_ALLOC whose class parameters name clients
 * @qf: the proxy
 * @a: the decoded allocation
 * @seal: set up so that RM reads what was checked, for the forward that follows
 * @params: set to qgpu's copy, for qgpu_clients_alloc_end(); NULL where the class names none
 * @status: NVRM_OK, or the status to answer instead of forwarding
 *
 * See DOC: client handles in parameters. The caller forwards the call only where this returns 0
 * with *@status NVRM_OK, and then calls qgpu_clients_alloc_end().
 *
 * Context: process context; the tracker's lock held, where @qf has a tracker. Takes the
 *	instance's params_seal until qgpu_clients_alloc_end() where *@params is set.
 * Return: 0, or -EINTR (killed while another forward of the instance waited on RM).
 */
int qgpu_clients_alloc_begin(struct qgpu_file *qf, const struct nvrm_alloc *a,
			     struct qgpu_seal *seal, void **params, u32 *status)
{
	const struct nvrm_client_fields *f = nvrm_alloc_client_fields(a->hclass);
	char what[32];
	u32 span;
	void *p;

	*params = NULL;
	*status = NVRM_OK;
	if (!f || !a->params_ptr)
		return 0;	/* no parameters: RM names no other client, or refuses */
	span = nvrm_clients_span(f);
	p = memdup_user(u64_to_user_ptr(a->params_ptr), span);
	if (IS_ERR(p)) {
		*status = NVRM_ERR_INVALID_ADDRESS;
		return 0;
	}
	snprintf(what, sizeof(what), "RM_ALLOC of class 0x%04x", a->hclass);
	*status = qgpu_clients_check(qf, a->hroot, f, p, what);
	if (!*status && a->hclass == NVRM_CLASS_NV01_DEVICE_0)
		qgpu_clients_own_va_space(p, a->hroot);
	if (*status) {
		kfree(p);
		return 0;
	}
	if (qgpu_seal_params_lock(&qf->inst->params_seal, seal, a->params_ptr, p, span)) {
		kfree(p);
		return -EINTR;
	}
	*params = p;
	return 0;
}

/**
 * qgpu_clients_alloc_end() - the forward that qgpu_clients_alloc_begin() allowed returned
 * @qf: the proxy
 * @seal: as set up there
 * @params: qgpu's copy, or NULL
 * @rm_ok: RM allocated the object (its own status, NV_OK)
 */
void qgpu_clients_alloc_end(struct qgpu_file *qf, struct qgpu_seal *seal, void *params,
			    bool rm_ok)
{
	if (!params)
		return;
	qgpu_seal_params_unlock(&qf->inst->params_seal, seal, rm_ok);
	kfree(params);
}

/**
 * qgpu_clients_os_event() - ALLOC_OS_EVENT or FREE_OS_EVENT, kept to the instance's clients
 * @qf: the proxy (ctl or GPU node: the driver takes both on either)
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's nv_ioctl_alloc_os_event_t / nv_ioctl_free_os_event_t
 * @size: its size
 * @compat: use the backend's compat_ioctl
 *
 * The driver keeps every file's OS events in one list keyed by (hClient, fd) and checks neither
 * against the caller (allocate_os_event() and free_os_event() in osapi.c, reached from
 * rm_ioctl() without RmIoctl()'s client checks; 525-595). Client handles and fd numbers are
 * small and predictable, so a tenant could free another tenant's key, after which RM drops every
 * notification of the events bound to it (a process sleeping on its completions would not wake),
 * or take the other's key first, so that the other's ALLOC_OS_EVENT fails and the events it binds
 * later post to the intruder's file. So hClient must be one of the instance's clients (any of its
 * ctl files'): anything else is NV_ERR_INVALID_CLIENT in Status, as if the client did not exist,
 * nothing is forwarded, and the operator gets the netlink event ``refused``. RM reads qgpu's
 * checked copy (DOC: sealed forwarding). Every such call CUDA made in the traces of session 17
 * named its own client. The keys RM then holds are counted and bounded (DOC: OS events).
 *
 * Context: process context; takes the instance's os_events.lock.
 * Return: what the ioctl returns.
 */
long qgpu_clients_os_event(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat)
{
	struct nvrm_alloc_os_event p;

	/* the driver's own answer to a size it refuses, or to parameters it cannot read */
	if (size != sizeof(p) || copy_from_user(&p, (void __user *)arg, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (!qgpu_clients_in_instance(qf, p.hclient)) {
		qgpu_clients_refused(qf, nvrm_ioctl_name(_IOC_NR(cmd)), p.hclient);
		p.status = NVRM_ERR_INVALID_CLIENT;
		return copy_to_user((void __user *)arg, &p, sizeof(p)) ? -EFAULT : 0;
	}
	if (_IOC_NR(cmd) == NVRM_ESC_ALLOC_OS_EVENT)
		return qgpu_os_event_alloc(qf, cmd, arg, compat, &p);
	return qgpu_os_event_free(qf, cmd, arg, compat, &p);
}

/*
 * An escape RM lets name any client by handle, forwarded sealed (DOC: sealed forwarding) only
 * when @hclient is a client of the calling ctl file; otherwise @status, in qgpu's copy @p (of
 * the size @cmd says), is NV_ERR_INVALID_CLIENT, nothing is forwarded, and the operator is told
 * that @what was refused. The tracker's lock keeps the client the tenant's across the call.
 */
static long qgpu_clients_own_forward(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				     bool compat, void *p, u32 *status, u32 hclient,
				     const char *what)
{
	bool sealed;
	long ret;

	mutex_lock(&qf->track->lock);
	if (qgpu_rmtrack_find(qf->track, hclient, hclient)) {
		ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, p, &sealed);
	} else {
		qgpu_clients_refused(qf, what, hclient);
		*status = NVRM_ERR_INVALID_CLIENT;
		ret = copy_to_user((void __user *)arg, p, _IOC_SIZE(cmd)) ? -EFAULT : 0;
	}
	mutex_unlock(&qf->track->lock);
	return ret;
}

/**
 * qgpu_clients_registry() - RM_ACCESS_REGISTRY: reads only, through the tenant's own client
 * @qf: the proxy (the driver takes it on ctl files only, and answers -EINVAL on others)
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's NVOS38
 * @size: its size
 * @compat: use the backend's compat_ioctl
 *
 * RM looks the client up by handle alone and lets any caller write (RmAccessRegistry() in
 * osapi.c, 525-595: an administrator is asked for only to write every GPU of a device at once).
 * The registry is the driver's configuration for the whole host: read at each GPU's next
 * initialisation, sent to GSP-RM, and some keys (ResmanDebugLevel) take effect at once. A tenant
 * may not change it: writes are NV_ERR_INSUFFICIENT_PERMISSIONS. Reads must name a client of the
 * calling file, as RM asks of the other escapes; anything else is NV_ERR_INVALID_CLIENT. Neither
 * is forwarded, and the operator is told. RM reads qgpu's copy of NVOS38 (DOC: sealed
 * forwarding): the key string it points to decides nothing. No CUDA, PyTorch or nvidia-smi call
 * traced in session 17 used this escape.
 *
 * Context: process context; takes the tracker's lock.
 * Return: what the ioctl returns.
 */
long qgpu_clients_registry(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat)
{
	struct nvrm_nvos38 p;

	if (!qf->track || size != sizeof(p) || copy_from_user(&p, (void __user *)arg, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (p.access_type == NVRM_NVOS38_ACCESS_TYPE_WRITE_DWORD ||
	    p.access_type == NVRM_NVOS38_ACCESS_TYPE_WRITE_BINARY) {
		qgpu_mem_call_refused(qf->inst, "a write of the driver's registry");
		p.status = NVRM_ERR_INSUFFICIENT_PERMISSIONS;
		return copy_to_user((void __user *)arg, &p, sizeof(p)) ? -EFAULT : 0;
	}
	return qgpu_clients_own_forward(qf, cmd, arg, compat, &p, &p.status, p.hclient,
					"RM_ACCESS_REGISTRY");
}

/**
 * qgpu_clients_share() - RM_SHARE, of the tenant's own objects, with the instance's clients
 * @qf: the proxy (the driver takes it on ctl files only, and answers -EINVAL on others)
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's NVOS57
 * @size: its size
 * @compat: use the backend's compat_ioctl
 *
 * RM checks the client a share is issued on against the calling file, except for
 * RS_SHARE_TYPE_CLIENT, whose owner it only looks up by handle, and then changes the owner's
 * object as the owner may (_serverShareResourceAccessClient(), rs_server.c, 525-595): a tenant
 * could revoke another tenant's rights on its own memory, or clear the policy that lets its
 * processes duplicate it. So hClient must be a client of the calling file, and a CLIENT share's
 * target one of the instance's clients (it gains a back-reference, and nothing outside the
 * instance may duplicate from it anyway); anything else is NV_ERR_INVALID_CLIENT, not forwarded,
 * and the operator is told. RM reads qgpu's copy (DOC: sealed forwarding). CUDA's IPC export
 * issues one per allocation, on its own client with RS_SHARE_TYPE_ALL (session 21's trace): it
 * passes, and the importing process's RM_DUP_OBJECT is kept to the instance (qgpu_mem.c).
 *
 * Context: process context; takes the tracker's lock.
 * Return: what the ioctl returns.
 */
long qgpu_clients_share(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			bool compat)
{
	struct nvrm_nvos57 p;
	bool own, sealed;
	long ret;
	u32 named;

	if (!qf->track || size != sizeof(p) || copy_from_user(&p, (void __user *)arg, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	mutex_lock(&qf->track->lock);	/* the client stays the tenant's across the call */
	named = p.hclient;
	own = qgpu_rmtrack_find(qf->track, p.hclient, p.hclient);
	if (own && p.share_type == NVRM_RS_SHARE_TYPE_CLIENT) {
		named = p.share_target;
		own = qgpu_clients_in_instance(qf, p.share_target);
	}
	if (own) {
		ret = qgpu_forward_sealed(qf->real, cmd, arg, compat, &p, &sealed);
	} else {
		qgpu_clients_refused(qf, "RM_SHARE", named);
		p.status = NVRM_ERR_INVALID_CLIENT;
		ret = copy_to_user((void __user *)arg, &p, sizeof(p)) ? -EFAULT : 0;
	}
	mutex_unlock(&qf->track->lock);
	return ret;
}

/**
 * qgpu_clients_update_mapping() - RM_UPDATE_DEVICE_MAPPING_INFO, through the tenant's own client
 * @qf: the proxy (the driver takes it on ctl files only, and answers -EINVAL on others)
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's NVOS56
 * @size: its size
 * @compat: use the backend's compat_ioctl
 *
 * RM looks the client up by handle alone and takes its lock for writing, and the GPU's, before
 * it looks for a mapping the calling process made (RmUpdateDeviceMappingInfo(), osapi.c,
 * 525-595). A tenant could change nothing of another's, but could learn which handles another
 * tenant's client holds from the statuses, and hold up its calls on the lock. So hClient must be
 * a client of the calling file, as in all 56 such calls CUDA made in the traces of session 17;
 * anything else is NV_ERR_INVALID_CLIENT, not forwarded, and the operator is told. RM reads
 * qgpu's copy (DOC: sealed forwarding).
 *
 * Context: process context; takes the tracker's lock.
 * Return: what the ioctl returns.
 */
long qgpu_clients_update_mapping(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 u32 size, bool compat)
{
	struct nvrm_nvos56 p;

	if (!qf->track || size != sizeof(p) || copy_from_user(&p, (void __user *)arg, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	return qgpu_clients_own_forward(qf, cmd, arg, compat, &p, &p.status, p.hclient,
					"RM_UPDATE_DEVICE_MAPPING_INFO");
}

/* Where a UVM command that names an RM client has it, its size and rmStatus, or false. */
static bool qgpu_clients_uvm_layout(unsigned int cmd, u32 *size, u32 *client_off, u32 *status_off)
{
	switch (cmd) {
	case NVRM_UVM_REGISTER_GPU:
		*size = sizeof(struct nvrm_uvm_register_gpu);
		*client_off = offsetof(struct nvrm_uvm_register_gpu, hclient);
		*status_off = offsetof(struct nvrm_uvm_register_gpu, rm_status);
		return true;
	case NVRM_UVM_REGISTER_GPU_VASPACE:
		*size = sizeof(struct nvrm_uvm_register_gpu_vaspace);
		*client_off = offsetof(struct nvrm_uvm_register_gpu_vaspace, hclient);
		*status_off = offsetof(struct nvrm_uvm_register_gpu_vaspace, rm_status);
		return true;
	case NVRM_UVM_REGISTER_CHANNEL:
		*size = sizeof(struct nvrm_uvm_register_channel);
		*client_off = offsetof(struct nvrm_uvm_register_channel, hclient);
		*status_off = offsetof(struct nvrm_uvm_register_channel, rm_status);
		return true;
	default:
		return false;
	}
}

/**
 * qgpu_clients_uvm() - a UVM command that names an RM client, if @cmd is one
 * @qf: the UVM proxy
 * @cmd: the command
 * @arg: the tenant's parameters (user pointer)
 * @compat: the caller is a 32-bit process
 * @ret: what the ioctl returns, when handled
 *
 * UVM_REGISTER_GPU, REGISTER_GPU_VASPACE and REGISTER_CHANNEL name an RM client that nvidia-uvm
 * never checks against their rmCtrlFd, and RM is called through the kernel interface, where no
 * file is checked (docs/design/client-handles.md, "nvidia-uvm"). The client must be 0 or one of
 * the instance's (any of its ctl files'); anything else is NV_ERR_INVALID_CLIENT in rmStatus,
 * as if the client did not exist. The handler reads qgpu's checked copy (DOC: sealed
 * forwarding), one such call at a time per instance, as for the parameters behind RM calls;
 * REGISTER_GPU gets the GPU-file treatment of device allocations as before.
 *
 * Context: process context.
 * Return: true if @cmd is one of them (handled here, *@ret set).
 */
bool qgpu_clients_uvm(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
		      long *ret)
{
	u32 size, client_off, status_off, hclient, status;
	struct qgpu_xlate x;
	char what[48];
	bool sealed;
	void *p;

	if (!qgpu_clients_uvm_layout(cmd, &size, &client_off, &status_off))
		return false;
	p = memdup_user((void __user *)arg, size);
	if (IS_ERR(p)) {
		*ret = -EFAULT;		/* as uvm_ioctl() answers a params copy that faults */
		return true;
	}
	memcpy(&hclient, p + client_off, sizeof(hclient));
	if (hclient && !qgpu_clients_in_instance(qf, hclient)) {
		snprintf(what, sizeof(what), "UVM command %u", cmd);
		qgpu_clients_refused(qf, what, hclient);
		kfree(p);
		*ret = put_user(NVRM_ERR_INVALID_CLIENT, (u32 __user *)(arg + status_off)) ?
		       -EFAULT : 0;
		return true;
	}
	if (cmd == NVRM_UVM_REGISTER_CHANNEL && qf->track) {
		/* what UVM retains keeps its charge (DOC: UVM channel registrations) */
		*ret = qgpu_uvm_channel_register(qf, cmd, arg, compat, p);
		goto out;
	}
	/* one at a time per instance, so that the handler's kretprobe pool never runs dry */
	*ret = mutex_lock_killable(&qf->inst->params_seal);
	if (*ret)
		goto out;
	if (cmd == NVRM_UVM_REGISTER_GPU) {
		qgpu_xlate_begin(&x, true);
		*ret = qgpu_xlate_gpu_visible(&x, qf);
		if (!*ret)
			*ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, p, size,
						       status_off, &status, &sealed);
		qgpu_xlate_end(&x);
	} else {
		*ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, p, size, status_off,
					       &status, &sealed);
	}
	mutex_unlock(&qf->inst->params_seal);
out:
	kfree(p);
	return true;
}
