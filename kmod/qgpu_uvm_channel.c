// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: a channel nvidia-uvm retains keeps its charge and its ``channels`` count.
 *
 * DOC: UVM channel registrations
 *
 * UVM_REGISTER_CHANNEL has RM retain the tenant's channel for UVM's fault handling: UVM's kernel
 * client duplicates the channel's group, and a retainer under that copy keeps the channel's id and
 * instance block (kmod/nvrm/nvrm_uvm.h). RM never tells UVM of the tenant's free, so the group's
 * context buffers, the block and both ids stay taken until UVM lets go: UVM_UNREGISTER_CHANNEL of
 * the same (hClient, hChannel), the GPU VA space's or the GPU's unregistration, or the end of the
 * VA space (the release of the real VA-space file). Uncharged past the tenant's last handle, a
 * tenant could make a group and a channel, register the channel and free both, again and again:
 * 8 MiB of the GPU's memory and two of its runlist's ids a round past ``mem_max`` and
 * ``channels_max``, with one VA-space file open.
 *
 * So each registration UVM made holds, in the UVM proxy's tracker, a reference to the channel's
 * charge, which keeps its group's (qgpu_ctxbuf.c), until UVM lets go as above. The charge is the
 * one the mirror had for the handle just before the call, looked up under RCU as for UVM's
 * mappings. That is what UVM retained unless the handle came to name another channel during the
 * call: freed, and made again (RM_ALLOC), duplicated or imported into, all through the file the
 * client is bound to. Each of those counts in that file's tracker before it is forwarded and after
 * the mirror has it (qgpu_rmtrack_making()); where any was in flight or began during the call, or
 * the handle had no charge, the registration gets a charge of its own instead: the most a
 * channel and its group can be (the most a group of any engine takes and the most its channel
 * pool holds, 129 chunks, since the retained block keeps the pool after the tenant's channels
 * go; and two ``channels`` counts; qgpu_ctxbuf_retained()). UVM already holds them, so that
 * charge is made whatever the limits say, and the instance's use may read above its bounds until
 * UVM lets go; what the instance really holds never does. Only a tenant that registers a channel
 * while it makes objects through the same ctl file pays it.
 *
 * UVM reads the registration's parameters itself. Sealed (DOC: sealed forwarding), the handler
 * reads qgpu's checked copy and qgpu keeps its status. Unsealed, qgpu believes a registration or
 * an unregistration only when UVM's status says success and the parameters read the same after
 * the call as before; a registration it cannot vouch for holds a charge of its own until the VA
 * space goes, and an unregistration it cannot vouch for lets nothing go.
 *
 * Locking: the registrations are under the UVM proxy's tracker lock, held across each call; the
 * instance's params_seal is taken inside it for a registration, as for the other UVM calls that
 * name an RM client (qgpu_clients_uvm()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_uvm.h"
#include "qgpu_ctxbuf.h"
#include "qgpu_internal.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"
#include "qgpu_uvm_channel.h"
#include "qgpu_uvm_hold.h"

/**
 * struct qgpu_uvm_channel - a channel UVM retains for one VA-space file
 * @link: entry in the tracker's @uvm_channels
 * @hclient: the client the registration named
 * @hchannel: the channel it named
 * @pinned: a registration qgpu could not vouch for (unsealed): kept until the VA space goes
 * @charge: the channel's charge, which keeps its group's (a reference), or NULL
 */
struct qgpu_uvm_channel {
	struct list_head link;
	u32 hclient;
	u32 hchannel;
	bool pinned;
	struct qgpu_mem_charge *charge;
};

static void qgpu_uvm_channel_free(struct qgpu_uvm_channel *uc)
{
	if (uc->charge)	/* UVM's letting go releases no pool (qgpu_mem_charge_put_retained()) */
		qgpu_mem_charge_put_retained(uc->charge);
	kfree(uc);
}

/**
 * qgpu_uvm_channel_register() - UVM_REGISTER_CHANNEL, of a client qgpu_clients_uvm() checked
 * @qf: the UVM proxy (with a tracker)
 * @cmd: the command
 * @arg: the tenant's params
 * @compat: the caller is a 32-bit process
 * @p: qgpu's checked copy of the params, which the handler reads where calls are sealed
 *
 * See DOC: UVM channel registrations.
 *
 * Context: process context; takes the tracker's lock, then the instance's params_seal.
 * Return: what the ioctl returns.
 */
long qgpu_uvm_channel_register(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			       bool compat, struct nvrm_uvm_register_channel *p)
{
	const u32 status_off = offsetof(struct nvrm_uvm_register_channel, rm_status);
	const u32 same = offsetof(struct nvrm_uvm_register_channel, _pad0);
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_uvm_channel *uc;
	struct qgpu_mem_mark mark;
	bool marked, sealed, made;
	u32 status;
	long ret;

	uc = kzalloc(sizeof(*uc), GFP_KERNEL_ACCOUNT);
	if (!uc)	/* UVM's answer when it cannot allocate its record */
		return qgpu_uvm_answer(arg, status_off, NVRM_ERR_NO_MEMORY);
	uc->hclient = p->hclient;
	uc->hchannel = p->hchannel;
	mutex_lock(&t->lock);
	/* ORDER: the mark before the lookup; a making seen after it voids what was found. */
	marked = qgpu_mem_client_mark(inst, p->hclient, &mark);
	uc->charge = qgpu_mem_charge_of(inst, p->hclient, p->hchannel, NULL);
	/* one at a time per instance, as qgpu_clients_uvm() forwards the others */
	ret = mutex_lock_killable(&inst->params_seal);
	if (ret) {
		qgpu_uvm_channel_free(uc);
		goto out_unlock;
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, p, sizeof(*p), status_off,
				      &status, &sealed);
	mutex_unlock(&inst->params_seal);
	if (sealed)
		made = status == NVRM_OK;
	else
		made = !ret && qgpu_uvm_believed(qf, arg, p, same, status_off);
	if (sealed && !made) {
		qgpu_uvm_channel_free(uc);	/* UVM retained nothing */
		goto out_unlock;
	}
	if (!made || !marked || !uc->charge ||
	    !qgpu_mem_client_unchanged(inst, p->hclient, &mark)) {
		/* qgpu cannot name what UVM retained: the most it can be */
		if (uc->charge)
			qgpu_mem_charge_put_retained(uc->charge);
		uc->charge = qgpu_ctxbuf_retained(inst);
	}
	uc->pinned = !made;
	list_add_tail(&uc->link, &t->uvm_channels);
out_unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/**
 * qgpu_uvm_channel_unregister() - UVM_UNREGISTER_CHANNEL: UVM lets go of the pair's channel
 * @qf: the UVM proxy (with a tracker)
 * @cmd: the command
 * @arg: the tenant's params
 * @compat: the caller is a 32-bit process
 *
 * UVM finds the registration by the pair alone, on whichever GPU (uvm_unregister_channel()).
 *
 * Context: process context; takes the tracker's lock.
 * Return: what the ioctl returns.
 */
long qgpu_uvm_channel_unregister(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				 bool compat)
{
	u32 size = nvrm_uvm_unregister_channel_size(qf->inst->gpu->abi.major);
	u32 status_off = size - sizeof(u32), pair_off = status_off - 2 * sizeof(u32);
	struct nvrm_uvm_unregister_channel_v525 p;	/* the larger layout */
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_uvm_channel *uc;
	bool sealed, done;
	u32 status, pair[2];
	long ret;

	if (copy_from_user(&p, (void __user *)arg, size))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);	/* UVM faults too */
	memcpy(pair, (u8 *)&p + pair_off, sizeof(pair));
	mutex_lock(&t->lock);
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, &p, size, status_off, &status,
				      &sealed);
	if (sealed)
		done = status == NVRM_OK;
	else
		done = !ret && qgpu_uvm_believed(qf, arg, &p, status_off, status_off);
	if (done) {
		list_for_each_entry(uc, &t->uvm_channels, link) {
			if (!uc->pinned && uc->hclient == pair[0] && uc->hchannel == pair[1]) {
				list_del(&uc->link);
				qgpu_uvm_channel_free(uc);
				break;
			}
		}
	}
	mutex_unlock(&t->lock);
	return ret;
}

/**
 * qgpu_uvm_channels_release() - UVM lets go of its channels: the GPU (VA space) was unregistered,
 * or the VA space went
 * @t: the UVM proxy's tracker (its lock held, or being destroyed)
 * @pinned: those qgpu could not vouch for go too (the VA space went)
 *
 * An instance has one GPU, so every registration is of it.
 */
void qgpu_uvm_channels_release(struct qgpu_rmtrack *t, bool pinned)
{
	struct qgpu_uvm_channel *uc, *tmp;

	list_for_each_entry_safe(uc, tmp, &t->uvm_channels, link) {
		if (pinned || !uc->pinned) {
			list_del(&uc->link);
			qgpu_uvm_channel_free(uc);
		}
	}
}
