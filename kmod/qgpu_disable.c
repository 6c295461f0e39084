// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's NV2080 FIFO_DISABLE_CHANNELS, kept to the tenant's own channels.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "qgpu_internal.h"
#include "qgpu_rmtrack.h"
#include "qgpu_sched.h"

/**
 * DOC: a tenant's FIFO_DISABLE_CHANNELS
 *
 * FIFO_DISABLE_CHANNELS lists (hClient, hChannel) pairs, and RM takes any client's: on an H200
 * with GSP firmware 580.159.04 a process of uid nobody stopped the kernels of another user's
 * process by naming its client and channel handles (NV_OK; they stayed stopped until enabled
 * again). Client handles are small and predictable, so one tenant could freeze every other.
 *
 * qgpu therefore lets a tenant list only clients it allocated through the same ctl file: anything
 * else is NV_ERR_INVALID_CLIENT, as if the client did not exist, and nothing changes. The list
 * lives in user memory that RM would read again after qgpu checked it, so qgpu reads it once and
 * issues its copy itself, through its kernel client on its own subdevice of the instance's GPU
 * (RM takes the tenant's clients from it as from anyone). The tenant's NVOS54 gets RM's status.
 * The scheduler holds instances the same way, so it keeps the tenant's wishes apart from its own
 * (qgpu_sched_tenant_disable()): while the instance is held, the tenant's enable waits for its
 * release, and its release leaves the channels the tenant disabled alone.
 * A pRunlistPreemptEvent (kernel callers only) is NV_ERR_INSUFFICIENT_PERMISSIONS, as RM answers
 * user callers; a FINN-serialized list, which qgpu cannot read, is NV_ERR_NOT_SUPPORTED.
 */

/* The tenant's object must be a subdevice it allocated, as RM would require of the call. */
static u32 qgpu_disable_check(struct qgpu_rmtrack *t, const struct nvrm_control *c,
			      const struct nvrm_fifo_disable_channels *p)
{
	struct qgpu_rmnode *node;
	u32 i;

	if (p->runlist_preempt_event)
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	if (p->num_channels > NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES)
		return NVRM_ERR_INVALID_ARGUMENT;
	node = qgpu_rmtrack_find(t, c->hclient, c->hobject);
	if (!node || node->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	for (i = 0; i < p->num_channels; i++)
		if (!qgpu_rmtrack_find(t, p->hclient_list[i], p->hclient_list[i]))
			return NVRM_ERR_INVALID_CLIENT;
	return NVRM_OK;
}

/**
 * qgpu_disable_channels() - a tenant's FIFO_DISABLE_CHANNELS, if @c is one
 * @qf: the ctl proxy
 * @arg: the tenant's NVOS54 (user pointer)
 * @c: the decoded control
 * @ret: what the ioctl returns, when handled
 *
 * See DOC: a tenant's FIFO_DISABLE_CHANNELS.
 *
 * Context: process context; takes the tracker's lock, then the scheduler's mutex and the kernel
 *	client's lock.
 * Return: true if @c was FIFO_DISABLE_CHANNELS (handled here, *@ret set).
 */
bool qgpu_disable_channels(struct qgpu_file *qf, unsigned long arg, const struct nvrm_control *c,
			   long *ret)
{
	struct nvrm_nvos54 __user *u = (struct nvrm_nvos54 __user *)arg;
	struct nvrm_fifo_disable_channels *p = NULL;
	struct qgpu_rmtrack *t = qf->track;
	u32 status;

	if (c->cmd != NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS)
		return false;
	*ret = 0;
	if (!t)
		status = NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	else if (c->finn_serialized)
		status = NVRM_ERR_NOT_SUPPORTED;
	else if (!c->params_ptr || c->params_size != sizeof(*p))
		status = NVRM_ERR_INVALID_PARAM_STRUCT;
	else
		status = NVRM_OK;
	if (status)
		goto out;
	p = memdup_user(u64_to_user_ptr(c->params_ptr), sizeof(*p));
	if (IS_ERR(p)) {
		*ret = PTR_ERR(p);
		return true;
	}
	/* held across the call: no listed client can be freed (its handle reused) meanwhile */
	mutex_lock(&t->lock);
	status = qgpu_disable_check(t, c, p);
	if (!status)
		status = qgpu_sched_tenant_disable(qf, p);
	mutex_unlock(&t->lock);
out:
	kfree(p);
	if (put_user(status, &u->status))
		*ret = -EFAULT;
	return true;
}
