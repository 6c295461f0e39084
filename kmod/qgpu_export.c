// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: RM objects exported into a nvidiactl fd and imported from it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "qgpu_export.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_sched.h"

/**
 * DOC: export and import
 *
 * RM's export fd is a nvidiactl file. EXPORT_OBJECT_TO_FD and EXPORT_OBJECTS_TO_FD duplicate the
 * caller's objects into RM's internal export client, held in slots of that file until the file
 * is released or a slot is exported over; IMPORT_OBJECT(S)_FROM_FD duplicate them from there
 * into the importer's client (os.c cliresCtrlCmdOsUnix*, rmobjexportimport.c, 525-595). Video
 * memory so exported lives on after the tenant freed every handle of its own to it. So that the
 * limit holds:
 *
 * - an export slot holds a reference to the memory's charge, kept in the tracker of the export
 *   fd's proxy (struct qgpu_rmtrack.exports) and put when RM lets the slot go: when that tracker
 *   goes (RM frees the slots with the real file) or the slot is exported over;
 * - an import shares the charge of the slot it came from, as a duplicate shares its source's;
 *   an import of video memory qgpu holds no charge for (exported before qgpu could see it) gets
 *   one of its own, for the size RM reports, or is freed again with NV_ERR_NO_MEMORY when that
 *   does not fit the limit.
 *
 * qgpu makes these calls itself, from its kernel copy, through its kernel client, under the
 * caller's tracker lock. So RM never reads a handle that a sibling thread swapped after qgpu
 * looked (which object is exported, which handle an import gets), and every object an import
 * creates is in the mirror before the next allocation of the file is verified: a handle the
 * mirror does not have cannot be an import standing in for a new allocation (DOC: memory limits,
 * the residual race). The one check RM skips for kernel calls, that the client is the calling
 * file's, qgpu makes on its mirror, as for RM_DUP_OBJECT. The fd is translated as for a
 * forwarded call (DOC: fd translation): only nvidiactl proxies of the caller's own instance can
 * be export fds. Without a kernel client the controls are forwarded, and exported memory is
 * uncharged when its last handle is freed (documented).
 */

/* The controls, their params size and where their fd is. */
struct qgpu_export_ctrl {
	u32 cmd;
	u32 size;
	u32 fd_off;
};

static const struct qgpu_export_ctrl qgpu_export_ctrls[] = {
	{ NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD,
	  sizeof(struct nvrm_os_unix_export_object_to_fd),
	  offsetof(struct nvrm_os_unix_export_object_to_fd, fd) },
	{ NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD,
	  sizeof(struct nvrm_os_unix_import_object_from_fd),
	  offsetof(struct nvrm_os_unix_import_object_from_fd, fd) },
	{ NVRM_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD,
	  sizeof(struct nvrm_os_unix_create_export_object_fd),
	  offsetof(struct nvrm_os_unix_create_export_object_fd, fd) },
	{ NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD,
	  sizeof(struct nvrm_os_unix_export_objects_to_fd),
	  offsetof(struct nvrm_os_unix_export_objects_to_fd, fd) },
	{ NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD,
	  sizeof(struct nvrm_os_unix_import_objects_from_fd),
	  offsetof(struct nvrm_os_unix_import_objects_from_fd, fd) },
};

union qgpu_export_params {
	struct nvrm_os_unix_export_object_to_fd one_out;
	struct nvrm_os_unix_import_object_from_fd one_in;
	struct nvrm_os_unix_create_export_object_fd create;
	struct nvrm_os_unix_export_objects_to_fd out;
	struct nvrm_os_unix_import_objects_from_fd in;
};

static const struct qgpu_export_ctrl *qgpu_export_ctrl_find(u32 cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qgpu_export_ctrls); i++)
		if (qgpu_export_ctrls[i].cmd == cmd)
			return &qgpu_export_ctrls[i];
	return NULL;
}

/*
 * RM exported @handles[0..@n) of @hclient into slots @index.. of @target's file: each slot now
 * holds the charge of what went there (none for a 0 handle or anything but charged memory), and
 * lets go of what it held before.
 */
static void qgpu_export_record(struct qgpu_rmtrack *t, u32 hclient, struct qgpu_rmtrack *target,
			       u32 index, const u32 *handles, u32 n)
{
	struct qgpu_mem_charge *c, *old;
	u32 i;

	for (i = 0; i < n; i++) {
		c = handles[i] ? qgpu_mem_node_charge(qgpu_rmtrack_find(t, hclient, handles[i])) :
				 NULL;
		old = c ? xa_store(&target->exports, index + i, c, GFP_KERNEL_ACCOUNT) :
			  xa_erase(&target->exports, index + i);
		if (xa_is_err(old)) {
			/* RM holds the memory, qgpu cannot say where: it stays charged for good. */
			pr_warn_ratelimited("instance %s: no room to record an export; its charge stays\n",
					    t->inst->name);
			continue;
		}
		if (old)
			qgpu_mem_charge_put(old);
	}
}

/* Free what an import made, and its mirror nodes. */
static void qgpu_import_undo(struct qgpu_rmtrack *t, u32 hclient, const u32 *handles,
			     const u8 *types, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (!handles[i] || (types && types[i] == NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_NONE))
			continue;
		qgpu_kclient_free_in(hclient, handles[i]);
		if (!qgpu_rmtrack_rm_has(hclient, handles[i]))
			qgpu_rmtrack_freed(t, hclient, handles[i]);
		else
			pr_warn_ratelimited("instance %s: could not free an uncharged import 0x%x\n",
					    t->inst->name, handles[i]);
	}
}

/*
 * RM imported slots @index.. of @target's file as @handles[0..@n) of @hclient under @hparent
 * (@types: what each is, NULL for the single import): mirror them, each sharing its slot's
 * charge.
 */
static u32 qgpu_import_record(struct qgpu_file *qf, u32 hclient, struct qgpu_rmtrack *target,
			      u32 index, u32 hparent, const u32 *handles, const u8 *types, u32 n)
{
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_mem_charge *c;
	struct qgpu_rmnode *node;
	u32 status = NVRM_OK;
	u32 i;

	for (i = 0; i < n; i++) {
		if (!handles[i] || (types && types[i] == NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_NONE))
			continue;
		rcu_read_lock();
		c = qgpu_mem_charge_tryget(xa_load(&target->exports, index + i));
		rcu_read_unlock();
		if (!c)
			c = qgpu_mem_own_charge(qf->inst, hclient, handles[i], &status);
		node = qgpu_rmtrack_add(t, hclient, hparent, handles[i], QGPU_CLASS_UNKNOWN);
		if (c && !(node && qgpu_mem_attach(node, c))) {
			qgpu_mem_charge_put(c);
			status = NVRM_ERR_NO_MEMORY;
		} else if (c) {
			qgpu_sched_rm_copy(qf, node);	/* a channel group's */
		} else if (!node && qgpu_objects_bounded(qf->inst)) {
			status = NVRM_ERR_NO_MEMORY;	/* uncounted: it goes (DOC: RM objects) */
		}
		if (status)
			break;
	}
	if (status)
		qgpu_import_undo(t, hclient, handles, types, n);
	return status;
}

/*
 * The RM objects an import may make, reserved under the instance's ``rm_objects_max`` (DOC: RM
 * objects): one for the single import, what IMPORT_OBJECTS_FROM_FD asks for (RM refuses a count
 * past its array, so none is reserved for that one). True if they fit, or nothing is imported.
 */
static bool qgpu_import_reserve(struct qgpu_rmtrack *t, const struct qgpu_export_ctrl *ec,
				const union qgpu_export_params *p)
{
	switch (ec->cmd) {
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD:
		return qgpu_objects_reserve(t, 1);
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD:
		if (p->in.num_objects > NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_MAX_OBJECTS)
			return true;
		return qgpu_objects_reserve(t, p->in.num_objects);
	default:
		return true;
	}
}

/* The call itself, on the kernel copy with the fd translated. Context: the tracker's lock held. */
static u32 qgpu_export_call(struct qgpu_file *qf, const struct nvrm_control *c,
			    const struct qgpu_export_ctrl *ec, union qgpu_export_params *p,
			    struct file *proxy)
{
	struct qgpu_rmtrack *t = qf->track, *target = NULL;
	struct qgpu_file *fdf;
	u32 hclient = c->hclient;
	u32 status;

	lockdep_assert_held(&t->lock);
	if (!qgpu_rmtrack_find(t, hclient, hclient))	/* RM's order: no such client first */
		return qgpu_rmtrack_rm_has(hclient, hclient) ? NVRM_ERR_INVALID_CLIENT :
							       NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (!qgpu_import_reserve(t, ec, p))
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	status = qgpu_kclient_control_in(hclient, hclient, ec->cmd, p, ec->size);
	if (proxy) {
		fdf = proxy->private_data;
		target = fdf->node == QGPU_NODE_CTL ? fdf->track : NULL;
	}
	/*
	 * RM took the fd as a nvidiactl file, and translation lets it find only the real file of
	 * an instance's ctl proxy (DOC: fd translation): a target is there whenever RM succeeded.
	 */
	if (status != NVRM_OK || !target)
		return status;
	switch (ec->cmd) {
	case NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD:
		qgpu_export_record(t, hclient, target, 0, &p->one_out.object.hobject, 1);
		break;
	case NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD:
		qgpu_export_record(t, hclient, target, p->out.index, p->out.objects,
				   p->out.num_objects);
		break;
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD:
		return qgpu_import_record(qf, hclient, target, 0, p->one_in.object.hparent,
					  &p->one_in.object.hobject, NULL, 1);
	case NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD:
		return qgpu_import_record(qf, hclient, target, p->in.index, p->in.hparent,
					  p->in.objects, p->in.object_types, p->in.num_objects);
	default:
		break;
	}
	return NVRM_OK;
}

/**
 * qgpu_export_control() - an NV0000 OS_UNIX export or import control, made by qgpu
 * @qf: the proxy the control was issued on
 * @c: the decoded control
 * @arg: the tenant's NVOS54
 * @ret: the ioctl's return value, when handled
 *
 * See DOC: export and import. Controls RM would refuse before reading their parameters (on an
 * object that is not a client, FINN-serialized, of the wrong size) are left to RM, as is
 * everything when qgpu has no kernel client.
 *
 * Context: process context; takes the tracker's lock, then the caller's fd-table lock.
 * Return: true when handled (then *@ret is set, and the status written as RM would).
 */
bool qgpu_export_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
			 long *ret)
{
	u32 __user *ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos54, status));
	const struct qgpu_export_ctrl *ec = qgpu_export_ctrl_find(c->cmd);
	void __user *uparams = u64_to_user_ptr(c->params_ptr);
	union qgpu_export_params *p;
	struct qgpu_xlate x;
	int fd, real_fd, err;
	s32 *pfd;
	u32 status;

	if (!ec || !qf->track || !qgpu_kclient_ready() || c->finn_serialized ||
	    c->hobject != c->hclient || c->params_size != ec->size || !c->params_ptr)
		return false;
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		*ret = -ENOMEM;
		return true;
	}
	if (copy_from_user(p, uparams, ec->size)) {
		*ret = -EFAULT;
		goto out_free;
	}
	pfd = (s32 *)((u8 *)p + ec->fd_off);
	fd = *pfd;

	/* The tracker's lock before the fd-table lock, as RM_ALLOC of a device takes them. */
	mutex_lock(&qf->track->lock);
	qgpu_xlate_begin(&x, true);
	err = qgpu_xlate_fd(&x, qf, fd, &real_fd);
	if (!err) {
		*pfd = real_fd;
		qgpu_rmtrack_making(qf->track);	/* an import makes objects */
		status = qgpu_export_call(qf, c, ec, p, x.proxy);
		qgpu_rmtrack_made(qf->track);
		*pfd = fd;	/* the caller sees its own fd number, as after a direct call */
	}
	qgpu_xlate_end(&x);
	qgpu_objects_settle(qf->track);
	mutex_unlock(&qf->track->lock);

	*ret = 0;
	if (err == -EINVAL)	/* another instance's proxy or a real node: as a forwarded call */
		status = NVRM_ERR_INVALID_ARGUMENT;
	else if (err)
		*ret = err;
	/* RM copies a control's parameters back when it succeeds. */
	if (!*ret && status == NVRM_OK && copy_to_user(uparams, p, ec->size))
		*ret = -EFAULT;
	if (!*ret && put_user(status, ustatus))
		*ret = -EFAULT;
out_free:
	kfree(p);
	return true;
}

/**
 * qgpu_export_release() - RM let go of a file's export slots with the file: so do the charges
 * @t: the file's tracker, being destroyed
 */
void qgpu_export_release(struct qgpu_rmtrack *t)
{
	struct qgpu_mem_charge *c;
	unsigned long index;

	xa_for_each(&t->exports, index, c)
		qgpu_mem_charge_put(c);
	xa_destroy(&t->exports);
}
