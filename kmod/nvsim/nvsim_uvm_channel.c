// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: UVM_REGISTER_CHANNEL and UVM_UNREGISTER_CHANNEL, and what a registration holds (facts in
 * kmod/nvrm/nvrm_uvm.h).
 *
 * A registration retains the channel's group, and the channel's id and instance block, as
 * nvGpuOpsRetainChannel() does through UVM's own RM client: the tenant's RM_FREE of the channel,
 * its group or its client succeeds and stops the channel, but the group's context buffers, the
 * block's framebuffer and the id stay taken until UVM lets go (UVM_UNREGISTER_CHANNEL of the same
 * pair, the GPU VA space's or GPU's unregistration, the VA space's end). The checks are the real
 * driver's, in its order, with the same statuses.
 *
 * The channel must be in the RM VA space the GPU VA space registered (nvsim_vaspace.c), and on a
 * runlist, which its first engine object or its group's puts it on (RM asks for its work-submit
 * token; nvsim_engine_object_construct()); a registration binds its context buffers, and a
 * graphics channel in a VA space UVM manages can be scheduled from then on
 * (nvsim_channel_bound()). An H200 with GSP 580.159.04 refused the first two with
 * NV_ERR_INVALID_CHANNEL and NV_ERR_INVALID_STATE, and a GPFIFO_SCHEDULE of the group before the
 * third with NV_ERR_INVALID_STATE (session 34).
 *
 * Not simulated: the VA ranges UVM carves out of [base, base + length) for the context buffers
 * are not made (they take no part in the VA space's other ranges here). UVM's stopping of
 * channels at mm teardown changes nothing nvsim counts.
 *
 * Locking: nvsim_uvm_lock held by the callers; nvsim_rm_lock taken inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/slab.h>

#include "nvsim_uvm.h"

/**
 * struct nvsim_uvm_channel - one registered channel of a VA space
 * @link: entry in the VA space's @channels
 * @hclient: the client the registration named
 * @hchannel: the channel the registration named (the pair need not name it any more)
 * @gpu: its GPU's index
 * @chan: the channel, retained (nvsim_channel_retain())
 */
struct nvsim_uvm_channel {
	struct list_head link;
	u32 hclient;
	u32 hchannel;
	unsigned int gpu;
	struct nvsim_channel *chan;
};

static struct nvsim_uvm_channel *nvsim_uvm_channel_find(struct nvsim_uvm_file *uf, u32 hclient,
							u32 hchannel)
{
	struct nvsim_uvm_channel *uc;

	list_for_each_entry(uc, &uf->channels, link)
		if (uc->hclient == hclient && uc->hchannel == hchannel)
			return uc;
	return NULL;
}

static void nvsim_uvm_channel_drop(struct nvsim_uvm_channel *uc)
{
	list_del(&uc->link);
	mutex_lock(&nvsim_rm_lock);
	nvsim_channel_let_go(uc->chan);
	mutex_unlock(&nvsim_rm_lock);
	kfree(uc);
}

/*
 * nvGpuOpsRetainChannel(): RM's checks, then the retention. nvGpuOpsVerifyChannel() compares the
 * channel's VA space with @vas, the GPU VA space's; then RM asks for the channel's work-submit
 * token (NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN), which a channel on no runlist has not.
 */
static u32 nvsim_uvm_channel_retain(struct nvsim_gpu *gpu, struct nvsim_vaspace *vas, u32 hclient,
				    u32 hchannel, struct nvsim_channel **out)
{
	struct nvsim_client *client;
	struct nvsim_channel *chan;
	struct nvsim_object *obj;
	u32 status = NVRM_OK;

	mutex_lock(&nvsim_rm_lock);
	client = nvsim_client_lookup(hclient);
	obj = client ? nvsim_object_lookup(client, hchannel) : NULL;
	chan = nvsim_channel_of(obj);
	if (!client)
		status = NVRM_ERR_INVALID_CLIENT;
	else if (!chan)
		status = NVRM_ERR_INVALID_OBJECT_HANDLE;
	else if (obj->gpu != gpu)	/* its VA space is another GPU's */
		status = NVRM_ERR_OTHER_DEVICE_FOUND;
	else if (chan->vas != vas)
		status = NVRM_ERR_INVALID_CHANNEL;
	else if (!nvsim_channel_runlist_set(chan))
		status = NVRM_ERR_INVALID_STATE;
	else
		nvsim_channel_retain(chan);
	mutex_unlock(&nvsim_rm_lock);
	*out = chan;
	return status;
}

/* UVM_REGISTER_CHANNEL (uvm_register_channel()) */
u32 nvsim_uvm_register_channel(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_register_channel *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);
	struct nvsim_uvm_channel *uc;
	struct nvsim_channel *chan;
	u32 status;

	if (!gpu || !uf->vas[gpu->index])
		return NVRM_ERR_INVALID_DEVICE;
	status = nvsim_uvm_channel_retain(gpu, uf->vas[gpu->index], p->hclient, p->hchannel, &chan);
	if (status)
		return status;
	uc = kzalloc(sizeof(*uc), GFP_KERNEL);
	if (!uc) {
		status = NVRM_ERR_NO_MEMORY;
	} else if (chan->tsg->gr && nvsim_uvm_span_invalid(p->base, p->length)) {
		status = NVRM_ERR_INVALID_ADDRESS;	/* a channel with buffers to map */
	} else if (nvsim_uvm_channel_find(uf, p->hclient, p->hchannel)) {
		status = NVRM_ERR_INVALID_CHANNEL;
	} else if (chan->tsg->gr &&
		   p->base + p->length - 1 >= NVRM_UVM_MAX_CHANNEL_VA_HOPPER) {
		status = NVRM_ERR_OUT_OF_RANGE;
	} else {
		uc->hclient = p->hclient;
		uc->hchannel = p->hchannel;
		uc->gpu = gpu->index;
		uc->chan = chan;
		list_add_tail(&uc->link, &uf->channels);
		mutex_lock(&nvsim_rm_lock);
		nvsim_channel_bound(chan);	/* bind_channel_resources() */
		mutex_unlock(&nvsim_rm_lock);
		return NVRM_OK;
	}
	kfree(uc);
	mutex_lock(&nvsim_rm_lock);
	nvsim_channel_let_go(chan);
	mutex_unlock(&nvsim_rm_lock);
	return status;
}

/* UVM_UNREGISTER_CHANNEL (uvm_unregister_channel()): the pair, on whichever GPU. */
u32 nvsim_uvm_unregister_channel(struct nvsim_uvm_file *uf, void *params)
{
	u32 hclient, hchannel;
	struct nvsim_uvm_channel *uc;

	if (nvsim_abi.major >= NVRM_UVM_UNREGISTER_CHANNEL_NO_UUID_SINCE) {
		struct nvrm_uvm_unregister_channel_v590 *p = params;

		hclient = p->hclient;
		hchannel = p->hchannel;
	} else {
		struct nvrm_uvm_unregister_channel_v525 *p = params;

		hclient = p->hclient;
		hchannel = p->hchannel;
	}
	uc = nvsim_uvm_channel_find(uf, hclient, hchannel);
	if (!uc)
		return NVRM_ERR_INVALID_CHANNEL;
	nvsim_uvm_channel_drop(uc);
	return NVRM_OK;
}

/**
 * nvsim_uvm_channels_release() - UVM lets go of a VA space's channels on one GPU, or on all
 * @uf: the VA space
 * @gpu: the GPU's index, or NVSIM_MAX_GPUS for every GPU (the VA space's end)
 */
void nvsim_uvm_channels_release(struct nvsim_uvm_file *uf, unsigned int gpu)
{
	struct nvsim_uvm_channel *uc, *tmp;

	list_for_each_entry_safe(uc, tmp, &uf->channels, link)
		if (gpu == NVSIM_MAX_GPUS || uc->gpu == gpu)
			nvsim_uvm_channel_drop(uc);
}
