// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's compute contexts are preempted at the instruction level (CILP), whatever it asks.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "qgpu_channels.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mem.h"
#include "qgpu_preempt.h"
#include "qgpu_rmtrack.h"

/**
 * DOC: compute preemption
 *
 * Every hold qgpu makes (FIFO_DISABLE_CHANNELS) and every turn of the engine's round robin
 * switches a busy context out, and how soon depends on the context's compute preemption mode
 * (NV2080 GR_SET_CTXSW_PREEMPTION_MODE, ctrl2080gr.h): CILP stops a kernel at an instruction,
 * CTA waits for the thread blocks in flight, WFI for the whole kernel. Any client may set it
 * (NVOC flags 0x10348, 525-595). On an H200 with GSP firmware 580.159.04 (session 37):
 *
 * - a new context read WFI, and libcuda set CILP on its graphics group itself;
 * - a process whose context stayed WFI, with a kernel that never ended, kept the engine: another
 *   busy process got nothing for as long as it ran (the round robin did not switch it out);
 * - FIFO_DISABLE_CHANNELS on it blocked 2.7 s, until Xid 109 (CTX SWITCH TIMEOUT) killed the
 *   context; setting WFI on a running context did the same (the firmware switches the context
 *   out to change its mode).
 *
 * So a tenant could keep every other instance off the GPU, and stall qgpu's scheduler for seconds
 * at each hold, by leaving its context WFI or asking for WFI or CTA. qgpu therefore:
 *
 * - sets CILP on each new compute object's context itself, through its kernel client on the
 *   tenant's client (kernel calls may name any client), as libcuda would; the object's group is
 *   named, as libcuda names it, or the channel where RM made the group;
 * - refuses a tenant's GR_SET_CTXSW_PREEMPTION_MODE that sets a compute mode other than CILP,
 *   and a GR_CTXSW_PREEMPTION_BIND that sets a compute mode at all (it sets the modes with the
 *   buffers a graphics driver binds; one for graphics alone goes on, its client checked as any
 *   control's that names clients, qgpu_clients.c), with NV_ERR_INSUFFICIENT_PERMISSIONS and a
 *   netlink ``refused`` event. A SET that passes is issued from qgpu's copy of its parameters,
 *   and a BIND's flags are sealed while RM reads them, so that a sibling thread cannot change the
 *   mode after qgpu read it.
 *
 * The graphics mode is the tenant's to choose: qgpu schedules compute.
 */

static bool qgpu_preempt_is_compute_class(u32 hclass)
{
	switch (hclass) {
	case NVRM_CLASS_VOLTA_COMPUTE_A:
	case NVRM_CLASS_TURING_COMPUTE_A:
	case NVRM_CLASS_AMPERE_COMPUTE_A:
	case NVRM_CLASS_AMPERE_COMPUTE_B:
	case NVRM_CLASS_ADA_COMPUTE_A:
	case NVRM_CLASS_HOPPER_COMPUTE_A:
	case NVRM_CLASS_BLACKWELL_COMPUTE_A:
	case NVRM_CLASS_BLACKWELL_COMPUTE_B:
		return true;
	}
	return false;
}

/*
 * Another channel of @group has a compute object besides @obj: the group's context had its mode
 * set then (libcuda makes 8 channels with one each in its graphics group, and every call is a
 * round trip to the firmware).
 */
static bool qgpu_preempt_group_done(struct qgpu_rmnode *group, struct qgpu_rmnode *obj)
{
	struct qgpu_rmnode *chan, *child;

	list_for_each_entry(chan, &group->children, sibling) {
		if (!qgpu_is_channel_class(chan->hclass))
			continue;
		list_for_each_entry(child, &chan->children, sibling)
			if (child != obj && qgpu_preempt_is_compute_class(child->hclass))
				return true;
	}
	return false;
}

/* A subdevice of @dev in the mirror, or 0. */
static u32 qgpu_preempt_subdevice(struct qgpu_rmnode *dev)
{
	struct qgpu_rmnode *child;

	list_for_each_entry(child, &dev->children, sibling)
		if (child->hclass == NVRM_CLASS_NV20_SUBDEVICE_0)
			return child->handle;
	return 0;
}

/**
 * qgpu_preempt_rm_alloc() - RM made an object through @qf: a compute object's context gets CILP
 * @qf: the ctl proxy (its tracker's lock held, so the tenant frees none of the nodes read here)
 * @node: the object's new tracker node
 *
 * See DOC: compute preemption. Once a group: its first compute object sets its context's mode.
 * The control goes to a subdevice of the channel's device in the tenant's client; where the
 * tenant has none, qgpu makes one there for the call and frees it (as RM's deprecated
 * VID_HEAP_CONTROL INFO does, RmDeprecatedFindOrCreateSubDeviceHandle(), 580.142).
 * Where RM refuses, a log line tells the operator and the object stays: the context is then as RM
 * made it. An object the mirror could not record (no node) is not seen here, nor is any while the
 * kernel client is not ready.
 *
 * Context: process context; takes the kernel client's lock.
 */
void qgpu_preempt_rm_alloc(struct qgpu_file *qf, struct qgpu_rmnode *node)
{
	struct nvrm_gr_set_preemption_mode p = {
		.flags = NVRM_GR_PREEMPTION_FLAGS_CILP_SET,
		.cilp_mode = NVRM_GR_COMPUTE_PREEMPT_CILP,
	};
	struct nvrm_nv2080_alloc_params sp = { .sub_device_id = 0 };
	struct qgpu_rmnode *chan = node->parent, *dev;
	u32 hclient, hsub, hmade = 0, status;

	if (!qgpu_preempt_is_compute_class(node->hclass) || !chan ||
	    !qgpu_is_channel_class(chan->hclass) || !qgpu_kclient_ready())
		return;
	hclient = qgpu_rmnode_root(chan)->handle;
	p.hchannel = chan->handle;
	dev = chan->parent;
	if (dev && dev->hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A) {
		if (qgpu_preempt_group_done(dev, node))
			return;
		p.hchannel = dev->handle;
		dev = dev->parent;
	}
	if (!dev || dev->hclass != NVRM_CLASS_NV01_DEVICE_0)
		return;
	hsub = qgpu_preempt_subdevice(dev);
	if (!hsub) {
		status = qgpu_kclient_alloc_in(hclient, dev->handle, NVRM_CLASS_NV20_SUBDEVICE_0,
					       &sp, &hmade);
		if (status)
			goto out;
		hsub = hmade;
	}
	status = qgpu_kclient_control_in(hclient, hsub, NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE,
					 &p, sizeof(p));
	if (hmade)
		qgpu_kclient_free_in(hclient, hmade);
out:
	if (status)
		pr_info_ratelimited("instance %s: pid %d: compute preemption of 0x%x not set to CILP: RM status 0x%x\n",
				    qf->inst->name, task_tgid_nr(current), p.hchannel, status);
}

/**
 * qgpu_preempt_bind_refused() - is this a tenant's GR_CTXSW_PREEMPTION_BIND that sets a compute
 * preemption mode?
 * @qf: the ctl proxy
 * @c: the decoded control
 * @params: qgpu's copy of the parameters' leading flags and hClient, which RM reads from it
 *	(qgpu_clients_control() seals them while the call is forwarded)
 *
 * Such a BIND is refused whatever mode it names (the operator told); one that binds graphics
 * preemption buffers alone goes on. See DOC: compute preemption.
 *
 * Return: true when it is to be refused with NV_ERR_INSUFFICIENT_PERMISSIONS.
 */
bool qgpu_preempt_bind_refused(struct qgpu_file *qf, const struct nvrm_control *c,
			       const void *params)
{
	u32 flags;

	if (c->cmd != NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND)
		return false;
	memcpy(&flags, params, sizeof(flags));
	if (!nvrm_compute_preemption_refused(c->cmd, flags, 0))
		return false;
	qgpu_mem_call_refused(qf->inst, "GR_CTXSW_PREEMPTION_BIND of a compute preemption mode");
	return true;
}

/**
 * qgpu_preempt_control() - a tenant's GR_SET_CTXSW_PREEMPTION_MODE, if @c is one
 * @qf: the ctl proxy
 * @arg: the tenant's NVOS54 (user pointer)
 * @c: the decoded control
 * @ret: what the ioctl returns, when handled
 *
 * See DOC: compute preemption. Without a mirror (nothing to vouch for the client) the call is
 * refused; a FINN-serialized one, which qgpu cannot read, is NV_ERR_NOT_SUPPORTED; one of another
 * size than the control's NV_ERR_INVALID_PARAM_STRUCT, as RM answers it.
 *
 * Context: process context; takes the tracker's lock, then the kernel client's.
 * Return: true if @c was one (handled here, *@ret set).
 */
bool qgpu_preempt_control(struct qgpu_file *qf, unsigned long arg, const struct nvrm_control *c,
			  long *ret)
{
	struct nvrm_nvos54 __user *u = (struct nvrm_nvos54 __user *)arg;
	struct nvrm_gr_set_preemption_mode p;
	struct qgpu_rmtrack *t = qf->track;
	const char *refused = NULL;
	u32 status = NVRM_OK;

	if (c->cmd != NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE)
		return false;
	*ret = 0;
	if (!t)
		refused = "GR_SET_CTXSW_PREEMPTION_MODE without a mirror";
	else if (c->finn_serialized)
		status = NVRM_ERR_NOT_SUPPORTED;
	else if (!c->params_ptr || c->params_size != sizeof(p))
		status = NVRM_ERR_INVALID_PARAM_STRUCT;
	else if (copy_from_user(&p, u64_to_user_ptr(c->params_ptr), sizeof(p)))
		status = NVRM_ERR_INVALID_ADDRESS;
	else if (nvrm_compute_preemption_refused(c->cmd, p.flags, p.cilp_mode))
		refused = "GR_SET_CTXSW_PREEMPTION_MODE of a compute mode other than CILP";
	if (refused) {
		qgpu_mem_call_refused(qf->inst, refused);
		status = NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	}
	if (status)
		goto out;
	/* held across the call: the client cannot be freed (its handle reused) meanwhile */
	mutex_lock(&t->lock);
	if (!qgpu_rmtrack_find(t, c->hclient, c->hclient))
		status = NVRM_ERR_INVALID_CLIENT;
	else
		status = qgpu_kclient_control_in(c->hclient, c->hobject, c->cmd, &p, sizeof(p));
	mutex_unlock(&t->lock);
out:
	if (put_user(status, &u->status))
		*ret = -EFAULT;
	return true;
}
