// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: channel groups (KEPLER_CHANNEL_GROUP_A), GPFIFO channels and their controls.
 *
 * These are the RM side of work submission: allocation validates what the real RM validates (or
 * what nvsim needs: the ring and USERD must be memory of the client, in nvsim's identity GPU
 * address space), and the controls hand their effect to the engine (nvsim_engine.c). Context
 * shares, VA spaces and compute/copy objects carry no state in nvsim.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "nvrm/nvrm_ctxbuf.h"
#include "nvsim_internal.h"

#define NVSIM_MAX_GPFIFO_ENTRIES	SZ_1M
#define NVSIM_PREEMPT_TIMEOUT_US	USEC_PER_SEC	/* RM's default wait, 1 s */

/*
 * What one FIFO_DISABLE_CHANNELS takes on a GSP-based GPU: a round trip to the firmware, whatever
 * the list. Measured on an H200 with GSP firmware 580.159.04 (session 21; 15 calls each, a
 * spinning kernel on one of 20 channels): disabling 1, 8 and 12 channels took a median 0.49,
 * 0.50 and 0.47 ms, 20 took 0.65 ms; enabling took 0.28, 0.32, 0.35 and 0.40 ms. nvsim takes
 * that long under its RM lock (RM holds its locks across the round trip), and the change takes
 * effect part-way: sampling the spinning kernel every 5 us around 20 calls of each on its one
 * channel, it stopped at a median 48 % of the disabling call (0.28 of 0.59 ms; 44-53 %), and
 * started again at 85 % of the enabling one (0.31 of 0.37 ms; 80-94 %).
 */
#define NVSIM_FIFO_DISABLE_EFFECT_PCT	48
#define NVSIM_FIFO_ENABLE_EFFECT_PCT	85

/*
 * RM waits for the firmware's reply in a loop that never sleeps (_kgspRpcRecvPoll(),
 * kernel_gsp.c, whose osSpinLoop() is empty on Linux, 580): the calling thread keeps its CPU for
 * the whole round trip, so nvsim spins too. What qgpu's scheduler spends on its holds is then
 * CPU time, as on the real driver.
 */
static void nvsim_fifo_spin(unsigned long us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* The most a fifo_*_us may be: nvsim spins that long holding its RM lock. */
#define NVSIM_FIFO_US_MAX	100000u

/* A fifo_*_us write above NVSIM_FIFO_US_MAX is refused (-EINVAL) and changes nothing. */
static int nvsim_set_fifo_us(const char *val, const struct kernel_param *kp)
{
	unsigned int us;
	int ret = kstrtouint(val, 0, &us);

	if (ret)
		return ret;
	if (us > NVSIM_FIFO_US_MAX)
		return -EINVAL;
	*(unsigned int *)kp->arg = us;
	return 0;
}

static const struct kernel_param_ops nvsim_fifo_us_ops = {
	.set = nvsim_set_fifo_us,
	.get = param_get_uint,
};

static unsigned int fifo_disable_us = 450;
module_param_cb(fifo_disable_us, &nvsim_fifo_us_ops, &fifo_disable_us, 0644);
MODULE_PARM_DESC(fifo_disable_us,
		 "FIFO_DISABLE_CHANNELS(disable) takes this long, plus fifo_channel_us a channel (default 450, as on an H200 with GSP 580; 0: at once; at most 100000)");

static unsigned int fifo_enable_us = 270;
module_param_cb(fifo_enable_us, &nvsim_fifo_us_ops, &fifo_enable_us, 0644);
MODULE_PARM_DESC(fifo_enable_us,
		 "FIFO_DISABLE_CHANNELS(enable) takes this long, plus fifo_channel_us a channel (default 270, as on an H200 with GSP 580; at most 100000)");

static unsigned int fifo_channel_us = 7;
module_param_cb(fifo_channel_us, &nvsim_fifo_us_ops, &fifo_channel_us, 0644);
MODULE_PARM_DESC(fifo_channel_us,
		 "FIFO_DISABLE_CHANNELS takes this much longer per listed channel (default 7; at most 100000)");

static struct nvsim_tsg *nvsim_obj_tsg(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || obj->hclass != NVRM_CLASS_KEPLER_CHANNEL_GROUP_A)
		return NULL;
	return container_of(obj->res, struct nvsim_tsg, res);
}

static struct nvsim_channel *nvsim_obj_channel(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || !nvsim_is_channel_class(obj->hclass))
		return NULL;
	return container_of(obj->res, struct nvsim_channel, res);
}

/* The channel @obj is, or NULL (under nvsim_rm_lock). */
struct nvsim_channel *nvsim_channel_of(const struct nvsim_object *obj)
{
	return nvsim_obj_channel(obj);
}

/*
 * kchannelIsSchedulable_IMPL() (525-595) is false for a graphics channel in an externally owned
 * VA space whose context buffers UVM has not bound (UVM_REGISTER_CHANNEL): GPFIFO_SCHEDULE of the
 * channel or of its group is then NV_ERR_INVALID_STATE, as an H200 with GSP 580.159.04 answered
 * (session 34). Under nvsim_rm_lock.
 */
static bool nvsim_channel_unbound(const struct nvsim_channel *chan)
{
	return chan->tsg->gr && nvsim_vaspace_external(chan->vas) && !chan->bound;
}

/**
 * nvsim_channel_bound() - UVM bound a registered channel's context buffers
 * @chan: the channel, retained; the tenant may have freed its last handle since
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_channel_bound(struct nvsim_channel *chan)
{
	if (!kref_read(&chan->res.ref))
		return;		/* gone from its group (nvsim_channel_release()) */
	if (nvsim_channel_unbound(chan))
		chan->tsg->unbound--;
	chan->bound = true;
}

/**
 * nvsim_engine_object_construct() - an engine object (compute, copy) is made on a channel
 * @parent: the channel
 *
 * Without a channel RAM per runlist (Hopper and before, no SR-IOV: bUsePerRunlistChram), RM
 * puts a channel on a runlist with its first engine object (kfifoRunlistSetIdByEngine()), its
 * group's first with it, and channels made in the group after that at their construction
 * (kchannelConstruct_IMPL(), 580.142); a GPFIFO_SCHEDULE does it too. Until then the channel has
 * no work-submit token (kfifoGenerateWorkSubmitTokenHal_GA100(): NV_ERR_INVALID_STATE), so UVM
 * cannot retain it either, as an H200 with GSP 580.159.04 answered (session 34).
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_engine_object_construct(const struct nvsim_object *parent)
{
	struct nvsim_channel *chan = nvsim_obj_channel(parent);

	if (!chan)
		return;
	chan->runlist_set = true;
	chan->tsg->runlist_assigned = true;
}

/* kchannelIsRunlistSet() (nvsim_engine_object_construct()); under nvsim_rm_lock */
bool nvsim_channel_runlist_set(const struct nvsim_channel *chan)
{
	return chan->runlist_set || chan->tsg->all_runlisted;
}

/**
 * DOC: context buffers
 *
 * From 535, on an Ampere or later GPU (the ``architecture`` parameter; nvsim_ctxbuf_pools_on()),
 * RM takes a channel group's context buffers, and each channel's instance block, from the video
 * memory that RM_ALLOC of memory is served from, in pools of its own per group (nvrm_ctxbuf.h);
 * a Turing keeps taking them from RM's reserved heap, and nvsim takes nothing there. A group of a
 * graphics engine reserves its main, patch and PM buffers when it is made, whatever it later
 * runs, each rounded to a pool chunk; a group of a falcon engine (a video or JPEG decoder, optical
 * flow) its falcon's context buffer (DOC: falcon engines); a copy-engine group nothing. nvsim
 * takes as much of its framebuffer, or fails the allocation with NV_ERR_NO_MEMORY as RM does
 * (ctxBufPoolReserve()), and gives it back when the group's last handle goes (a duplicate keeps
 * it). A channel made under a device gets a group of its own engine, as in RM.
 *
 * Each channel's instance block takes a 64 KiB chunk of a pool of its group's. As in RM
 * (kchannelConstruct_IMPL(), kernel_channel.c; ctx_buf_pool.c; pool_alloc.c, 535.43.02-595.45.04):
 * the pool takes a chunk from the framebuffer only when none of its own is free, and fails with
 * NV_ERR_NO_MEMORY when it cannot; a channel that goes, or fails after its reservation (of an
 * engine not its group's, or a group's 129th), leaves its chunk in the pool, and the pool gives
 * all its chunks back when a channel goes and leaves no instance block in it, and with the
 * group. A UVM retention keeps the channel's instance block in the pool, and its going gives
 * nothing back.
 *
 * The sizes are GR_GET_ENGINE_CONTEXT_PROPERTIES' answers (below), an NVIDIA H200's (GSP firmware
 * 580.159.04, read with scripts/ctxbuf_probe.py in session 34): a main buffer that, with its
 * subcontext headers, takes a 4 MiB chunk, a patch buffer of one 64 KiB chunk and a PM buffer of
 * one 256 KiB chunk, 4416 KiB a group in all, what that H200 took for each graphics group.
 */
/* id: status, size, alignment; ids 1-7 the H200 answered NV_ERR_NOT_SUPPORTED */
static const struct nvsim_gr_ctx {
	u32 status;
	u32 size;
	u32 align;
} nvsim_gr_ctx[NVRM_GR_CTX_ENGINE_ID_COUNT_V550] = {
	[NVRM_GR_CTX_ENGINE_ID_GRAPHICS] = { NVRM_OK, 1926400, 4096 },
	[1 ... 7] = { NVRM_ERR_NOT_SUPPORTED, 0, 0 },
	[0x08] = { NVRM_OK, 164352, 4096 },
	[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PM] = { NVRM_OK, 181504, 4096 },
	[0x0a] = { NVRM_OK, 0, 4096 },
	[0x0b] = { NVRM_OK, 1, 4096 },
	[0x0c] = { NVRM_OK, 2555904, 256 },
	[0x0d] = { NVRM_OK, 131072, 256 },
	[0x0e] = { NVRM_OK, 27168896, 4096 },
	[0x0f] = { NVRM_OK, 532480, 256 },
	[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PATCH] = { NVRM_OK, 28672, 4096 },
	[0x11] = { NVRM_OK, 12288, 256 },
	[0x12] = { NVRM_OK, 131072, 256 },
	[0x13] = { NVRM_OK, 1156608, 4096 },
	[0x14] = { NVRM_OK, 524288, 256 },
	[0x15] = { NVRM_OK, 0, 4096 },
	[0x16] = { NVRM_OK, 1124, 4096 },
	[0x17] = { NVRM_OK, 65536, 4096 },
	[0x18] = { NVRM_OK, 524288, 4096 },
	[0x19] = { NVRM_OK, 0, 4096 },	/* SETUP, from 550 */
};

/* What RM's pools take for a group of @engine_type (0: none) under nvsim's ABI and GPU. */
static u64 nvsim_ctxbuf_group_bytes(u32 engine_type)
{
	if (!nvsim_ctxbuf_pools_on())
		return 0;
	if (!nvrm_ctxbuf_engine_is_gr(engine_type))
		return nvsim_falcon_group_bytes(engine_type);	/* DOC: falcon engines */
	return nvrm_ctxbuf_gr_group(nvsim_gr_ctx[NVRM_GR_CTX_ENGINE_ID_GRAPHICS].size,
				    nvsim_gr_ctx[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PATCH].size,
				    nvsim_gr_ctx[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PM].size);
}

/* The last handle to the TSG went (its channels hold references, so they went first). */
static void nvsim_tsg_release(struct nvsim_res *res)
{
	struct nvsim_tsg *tsg = container_of(res, struct nvsim_tsg, res);

	lockdep_assert_held(&nvsim_rm_lock);
	nvsim_engine_remove_tsg(tsg);
	nvsim_fb_give(tsg->gpu, tsg->ctx_fb_bytes +
		      (u64)tsg->pool_chunks * NVRM_CTXBUF_CHANNEL_BYTES);
	nvsim_vaspace_put(tsg->vas);
	kfree(tsg);
}

/*
 * ctxBufPoolReserve() for one instance block: a free chunk of @tsg's channel pool, or one more
 * from the framebuffer. Under nvsim_rm_lock.
 */
static bool nvsim_chanpool_reserve(struct nvsim_tsg *tsg)
{
	if (tsg->pool_chunks > tsg->pool_blocks)
		return true;
	if (!nvsim_fb_take(tsg->gpu, NVRM_CTXBUF_CHANNEL_BYTES))
		return false;
	tsg->pool_chunks++;
	return true;
}

/*
 * ctxBufPoolRelease(): with no instance block left in @tsg's channel pool, its chunks go back to
 * the framebuffer; with one, nothing does. Under nvsim_rm_lock.
 */
static void nvsim_chanpool_release(struct nvsim_tsg *tsg)
{
	if (tsg->pool_blocks)
		return;
	nvsim_fb_give(tsg->gpu, (u64)tsg->pool_chunks * NVRM_CTXBUF_CHANNEL_BYTES);
	tsg->pool_chunks = 0;
}

/*
 * A TSG accounted to @obj's client, named by @obj's handle, its context buffers taken for
 * @engine_type, in the VA space @hva_space names. NULL with *@status set for an engine type RM
 * refuses, a handle that names no VA space (nvsim_vaspace_lookup()), or when out of memory.
 */
static struct nvsim_tsg *nvsim_tsg_create(const struct nvsim_object *obj, bool implicit,
					  u32 engine_type, u32 hva_space, u32 *status)
{
	u64 ctx = nvsim_ctxbuf_group_bytes(engine_type);
	struct nvsim_vaspace *vas;
	struct nvsim_tsg *tsg;

	*status = NVRM_ERR_INVALID_ARGUMENT;
	if (nvsim_group_engine_refused(engine_type))
		return NULL;
	*status = nvsim_vaspace_lookup(obj->client, hva_space, &vas);
	if (*status)
		return NULL;
	*status = NVRM_ERR_NO_MEMORY;
	if (!nvsim_fb_take(obj->gpu, ctx))
		goto err_put;
	tsg = kzalloc(sizeof(*tsg), GFP_KERNEL);
	if (!tsg) {
		nvsim_fb_give(obj->gpu, ctx);
		goto err_put;
	}
	tsg->vas = vas;
	tsg->gpu = obj->gpu;
	tsg->ctx_fb_bytes = ctx;
	tsg->gr = nvrm_ctxbuf_engine_is_gr(engine_type);
	tsg->engine_type = engine_type;
	nvsim_res_init(&tsg->res, nvsim_tsg_release);
	tsg->engine = obj->gpu->engine;
	tsg->tgid = obj->client->tgid;
	tsg->hclient = obj->client->root.handle;
	tsg->handle = obj->handle;
	tsg->implicit = implicit;
	if (nvsim_engine_add_tsg(tsg, tsg->tgid)) {
		nvsim_fb_give(obj->gpu, ctx);
		kfree(tsg);
		goto err_put;
	}
	*status = NVRM_OK;
	return tsg;

err_put:
	nvsim_vaspace_put(vas);
	return NULL;
}

/**
 * nvsim_tsg_construct() - a channel group; it is not scheduled until GPFIFO_SCHEDULE(1)
 * @obj: the new object (its parent is a device)
 * @ap: NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS or NULL; nvsim schedules one engine, and reads
 *	only the engine type, for the group's context buffers (DOC: context buffers), and hVASpace;
 *	on an Ampere or later one that names no valid engine is NV_ERR_INVALID_ARGUMENT, as in RM
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_tsg_construct(struct nvsim_object *obj, void *ap)
{
	const struct nvrm_channel_group_alloc_params *p = ap;
	struct nvsim_tsg *tsg;
	u32 status;

	tsg = nvsim_tsg_create(obj, false, p ? p->engine_type : 0, p ? p->hva_space : 0, &status);
	if (!tsg)
		return status;
	obj->res = &tsg->res;
	return NVRM_OK;
}

/* The last holder of the channel's id and instance block let go. */
static void nvsim_channel_id_release(struct kref *ref)
{
	struct nvsim_channel *chan = container_of(ref, struct nvsim_channel, id_ref);

	lockdep_assert_held(&nvsim_rm_lock);
	nvsim_engine_put_channel_id(chan->gpu->engine);
	if (chan->pooled)
		chan->tsg->pool_blocks--;	/* the chunk stays in the pool */
	nvsim_vaspace_put(chan->vas);
	kfree(chan);
}

/* The channel's last handle went: it stops, and lets go of its memory, id and group. */
static void nvsim_channel_release(struct nvsim_res *res)
{
	struct nvsim_channel *chan = container_of(res, struct nvsim_channel, res);
	struct nvsim_tsg *tsg = chan->tsg;

	lockdep_assert_held(&nvsim_rm_lock);
	if (nvsim_channel_unbound(chan))
		tsg->unbound--;
	nvsim_engine_remove_channel(chan);
	nvsim_backing_put(chan->userd);
	nvsim_backing_put(chan->ring);
	kref_put(&chan->id_ref, nvsim_channel_id_release);
	nvsim_chanpool_release(tsg);
	nvsim_res_put(&tsg->res);
}

/**
 * nvsim_channel_retain() - UVM retains a channel: its group, its id and its instance block
 * @chan: the channel
 *
 * As nvGpuOpsRetainChannel() does with a copy of the group in UVM's client and a
 * UVM_CHANNEL_RETAINER under it: the channel itself still goes with its last handle, and stops.
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_channel_retain(struct nvsim_channel *chan)
{
	kref_get(&chan->id_ref);
	kref_get(&chan->tsg->res.ref);
}

/**
 * nvsim_channel_let_go() - UVM lets go of what nvsim_channel_retain() held
 * @chan: the channel, which may have no handle left
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_channel_let_go(struct nvsim_channel *chan)
{
	struct nvsim_tsg *tsg = chan->tsg;

	kref_put(&chan->id_ref, nvsim_channel_id_release);
	nvsim_res_put(&tsg->res);
}

/* Validate NV_CHANNEL_ALLOC_PARAMS against @client's memory; fill in @chan's ring and USERD. */
static u32 nvsim_channel_ring_check(struct nvsim_client *client,
				    const struct nvrm_channel_alloc_params *p,
				    struct nvsim_channel *chan)
{
	struct nvsim_mem *ring, *userd;
	u32 n = p->gp_fifo_entries;

	if (n < 2 || n > NVSIM_MAX_GPFIFO_ENTRIES || !is_power_of_2(n) ||
	    p->gp_fifo_offset % NVRM_GP_ENTRY_SIZE)
		return NVRM_ERR_INVALID_ARGUMENT;
	ring = nvsim_obj_mem(nvsim_mem_find_by_addr(client, p->gp_fifo_offset,
						    (u64)n * NVRM_GP_ENTRY_SIZE));
	if (!ring)
		return NVRM_ERR_INVALID_ARGUMENT;
	userd = nvsim_obj_mem(nvsim_object_lookup(client, p->huserd_memory[0]));
	if (!userd || !userd->backing)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (p->userd_offset[0] % NVRM_USERD_SIZE || userd->size < NVRM_USERD_SIZE ||
	    p->userd_offset[0] > userd->size - NVRM_USERD_SIZE)
		return NVRM_ERR_INVALID_ARGUMENT;
	chan->entries = n;
	chan->ring = ring->backing;
	chan->ring_off = p->gp_fifo_offset - ring->gpu_addr;
	chan->userd = userd->backing;
	chan->userd_off = p->userd_offset[0];
	return NVRM_OK;
}

/*
 * The subcontext @chan is in, and so its VA space (kchannelConstruct_IMPL(), 580.142): the one
 * hContextShare names, which must be a subcontext of @parent, its channel group; or with none the
 * group's legacy ones, which RM makes with the group's first such channel, in the group's VA
 * space (kchangrpapiSetLegacyMode_IMPL(); none in a VA space UVM manages before a GPU VA space has
 * it registered, as for any subcontext). A group's channels all name one or all name none while
 * it has any.
 */
static u32 nvsim_channel_subcontext(struct nvsim_client *client, struct nvsim_object *parent,
				    struct nvsim_tsg *tsg,
				    const struct nvrm_channel_alloc_params *p,
				    struct nvsim_channel *chan)
{
	bool legacy = !p->hcontext_share;
	struct nvsim_object *cs;

	if (tsg->nchannels && tsg->legacy != legacy)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (legacy) {
		if (!tsg->legacy && nvsim_vaspace_external(tsg->vas) && !tsg->vas->uvm_users)
			return NVRM_ERR_INVALID_STATE;
		tsg->legacy = true;
		chan->vas = nvsim_vaspace_get(tsg->vas);
		return NVRM_OK;
	}
	cs = nvsim_object_lookup(client, p->hcontext_share);	/* clientGetResourceRefByType() */
	if (!cs)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (cs->hclass != NVRM_CLASS_FERMI_CONTEXT_SHARE_A)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	if (cs->parent != parent)
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	chan->vas = nvsim_ctxshare_vaspace(cs);
	return NVRM_OK;
}

/*
 * What kchannelConstruct_IMPL() checks after reserving the channel's instance block, in its order,
 * so that a refusal leaves the chunk in the group's pool (nvrm_ctxbuf.h): the subcontext
 * (nvsim_channel_subcontext()); an engine type that is not the group's (NV_ERR_INVALID_ARGUMENT,
 * from Ampere on); a group that has its 128 channels (NV_ERR_INSUFFICIENT_RESOURCES); then the
 * ring and USERD, which GSP checks (kchannelAllocChannel_HAL()). An H200 with GSP 580.159.04 kept
 * the chunk for the engine and the 129th (session 34).
 */
static u32 nvsim_channel_join_check(struct nvsim_client *client, struct nvsim_object *parent,
				    struct nvsim_tsg *tsg,
				    const struct nvrm_channel_alloc_params *p,
				    struct nvsim_channel *chan)
{
	u32 status;

	status = nvsim_channel_subcontext(client, parent, tsg, p, chan);
	if (status)
		return status;
	if (nvsim_channel_engine_refused(p->engine_type, tsg->engine_type))
		return NVRM_ERR_INVALID_ARGUMENT;
	if (tsg->nchannels >= NVRM_TSG_CHANNELS_MAX)	/* written under nvsim_rm_lock too */
		return NVRM_ERR_INSUFFICIENT_RESOURCES;
	return nvsim_channel_ring_check(client, p, chan);
}

/**
 * nvsim_channel_construct() - a GPFIFO channel
 * @obj: the new object (a channel class)
 * @parent: a TSG, or a device (the channel then gets an implicit TSG of its own, as in RM)
 * @ap: kernel copy of NV_CHANNEL_ALLOC_PARAMS, or NULL
 *
 * gpFifoOffset must lie in a memory object of the client with gpFifoEntries * 8 bytes from it
 * (gpFifoEntries a power of two, 2..1M); hUserdMemory[0] must be a memory object of the client
 * and userdOffset[0] a multiple of 512 with 512 bytes of room. The channel keeps references to
 * both memories' pages, so freeing those handles does not pull them from under it. GP_GET and
 * GP_PUT in USERD are zeroed, as RM initialises USERD. With the GPU's channel ids all taken
 * (nvsim_engine.c, channel_ids) it fails with NV_ERR_NO_FREE_FIFOS. hVASpace is checked first;
 * the rest after the instance block's reservation (nvsim_channel_join_check()): a group's 129th
 * channel fails with NV_ERR_INSUFFICIENT_RESOURCES, and on an Ampere or later a channel whose
 * engineType is neither 0 nor its group's with NV_ERR_INVALID_ARGUMENT.
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_channel_construct(struct nvsim_object *obj, struct nvsim_object *parent, void *ap)
{
	const struct nvrm_channel_alloc_params *p = ap;
	struct nvsim_channel *chan;
	struct nvsim_tsg *tsg;
	u32 status;
	int ret;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!ap)
		return NVRM_ERR_INVALID_ARGUMENT;
	/* a subcontext names the VA space; a group's channel takes its group's */
	if (p->hva_space && (p->hcontext_share || nvsim_obj_tsg(parent)))
		return NVRM_ERR_INVALID_ARGUMENT;
	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return NVRM_ERR_NO_MEMORY;
	tsg = nvsim_obj_tsg(parent);
	if (tsg) {
		kref_get(&tsg->res.ref);
	} else {
		tsg = nvsim_tsg_create(obj, true, p->engine_type, p->hva_space, &status);
		if (!tsg)
			goto err_free;
	}
	/* its instance block, from the group's pool (DOC: context buffers) */
	if (nvsim_ctxbuf_pools_on()) {
		if (!nvsim_chanpool_reserve(tsg)) {	/* no chunk free: none to release */
			status = NVRM_ERR_NO_MEMORY;
			nvsim_res_put(&tsg->res);
			goto err_free;
		}
		tsg->pool_blocks++;
		chan->pooled = true;
	}
	status = nvsim_channel_join_check(obj->client, parent, tsg, p, chan);
	if (status)
		goto err_unreserve;
	nvsim_res_init(&chan->res, nvsim_channel_release);
	kref_init(&chan->id_ref);
	chan->tsg = tsg;
	chan->gpu = obj->gpu;
	chan->handle = obj->handle;
	nvsim_backing_get(chan->ring);
	nvsim_backing_get(chan->userd);
	nvsim_backing_write32(chan->userd, chan->userd_off + NVRM_USERD_GP_GET, 0);
	nvsim_backing_write32(chan->userd, chan->userd_off + NVRM_USERD_GP_PUT, 0);
	ret = nvsim_engine_add_channel(chan);
	if (ret) {
		status = ret == -ENOSPC ? NVRM_ERR_NO_FREE_FIFOS : NVRM_ERR_INSUFFICIENT_RESOURCES;
		goto err_put;
	}
	if (nvsim_channel_unbound(chan))
		tsg->unbound++;
	chan->runlist_set = tsg->runlist_assigned;
	obj->res = &chan->res;
	return NVRM_OK;

err_put:
	nvsim_backing_put(chan->userd);
	nvsim_backing_put(chan->ring);
err_unreserve:
	if (chan->pooled)
		tsg->pool_blocks--;	/* the chunk stays reserved in the pool */
	nvsim_chanpool_release(tsg);
	nvsim_res_put(&tsg->res);
err_free:
	nvsim_vaspace_put(chan->vas);
	kfree(chan);
	return status;
}

/*
 * NVA06C GPFIFO_SCHEDULE: (1) puts the TSG on the runlist and enables its channels (not those
 * FIFO_DISABLE_CHANNELS disabled); (0) returns NV_OK and changes nothing unless
 * schedule_off_effective: on an H200 with GSP 580.159.04 neither a spinning kernel nor a stream of
 * 100 us kernels slowed down. bSkipSubmit and bSkipEnable are accepted and ignored. Either is
 * NV_ERR_INVALID_STATE while a channel of the group is unbound (nvsim_channel_unbound()).
 */
static u32 nvsim_ctrl_tsg_schedule(const struct nvsim_caller *caller, struct nvsim_object *obj,
				   void *buf)
{
	const struct nvrm_gpfifo_schedule *p = buf;
	struct nvsim_tsg *tsg = nvsim_obj_tsg(obj);

	if (tsg->unbound)
		return NVRM_ERR_INVALID_STATE;
	tsg->runlist_assigned = true;	/* and every channel's, now and later */
	tsg->all_runlisted = true;
	if (p->enable || nvsim_engine_schedule_off_effective())
		nvsim_engine_schedule(tsg, p->enable);
	return NVRM_OK;
}

/*
 * NVA06F GPFIFO_SCHEDULE on a channel (UVM schedules each channel it adds to a TSG this way):
 * (1) enables the channel and puts its TSG on the runlist; (0) disables the channel (preempted
 * off at the granularity if running) and takes an implicit TSG off the runlist. On an H200 with
 * GSP 580.159.04, (0) on all of a CUDA context's channels stopped a spinning kernel and (1) did
 * not bring it back within 5 s: nvsim's (1) does (a known difference). Either is
 * NV_ERR_INVALID_STATE while the channel is unbound (nvsim_channel_unbound()).
 */
static u32 nvsim_ctrl_channel_schedule(const struct nvsim_caller *caller,
				       struct nvsim_object *obj, void *buf)
{
	const struct nvrm_gpfifo_schedule *p = buf;
	struct nvsim_channel *chan = nvsim_obj_channel(obj);

	if (nvsim_channel_unbound(chan))
		return NVRM_ERR_INVALID_STATE;
	chan->runlist_set = true;
	if (p->enable) {
		nvsim_engine_channel_enable(chan, true, false);
		nvsim_engine_schedule(chan->tsg, true);
	} else if (nvsim_engine_controls_effective()) {
		nvsim_engine_channel_enable(chan, false, true);
		if (chan->tsg->implicit)
			nvsim_engine_schedule(chan->tsg, false);
	}
	return NVRM_OK;
}

static u32 nvsim_ctrl_set_timeslice(const struct nvsim_caller *caller, struct nvsim_object *obj,
				    void *buf)
{
	const struct nvrm_tsg_timeslice *p = buf;
	struct nvsim_tsg *tsg = nvsim_obj_tsg(obj);

	tsg->timeslice_us_reported = p->timeslice_us;
	if (nvsim_engine_controls_effective())
		nvsim_engine_set_timeslice(tsg, p->timeslice_us);
	return NVRM_OK;
}

static u32 nvsim_ctrl_get_timeslice(const struct nvsim_caller *caller, struct nvsim_object *obj,
				    void *buf)
{
	struct nvrm_tsg_timeslice *p = buf;

	p->timeslice_us = nvsim_obj_tsg(obj)->timeslice_us_reported;
	return NVRM_OK;
}

/*
 * NVA06C / NVA06F SET_INTERLEAVE_LEVEL: the group's level, set through the group or any of its
 * channels (kchangrpSetInterleaveLevel_IMPL(), 580.142), read through the group only (no channel
 * GET is exported: nvrm_abi.h); LOW, MEDIUM or HIGH, else
 * NV_ERR_INVALID_ARGUMENT. Reported, not acted on (struct nvsim_tsg.interleave).
 */
static u32 nvsim_interleave_set(struct nvsim_tsg *tsg, const struct nvrm_interleave_level *p)
{
	if (p->level > NVRM_INTERLEAVE_LEVEL_HIGH)
		return NVRM_ERR_INVALID_ARGUMENT;
	WRITE_ONCE(tsg->interleave, p->level);
	return NVRM_OK;
}

static u32 nvsim_ctrl_tsg_set_interleave(const struct nvsim_caller *caller,
					 struct nvsim_object *obj, void *buf)
{
	return nvsim_interleave_set(nvsim_obj_tsg(obj), buf);
}

static u32 nvsim_ctrl_channel_set_interleave(const struct nvsim_caller *caller,
					     struct nvsim_object *obj, void *buf)
{
	return nvsim_interleave_set(nvsim_obj_channel(obj)->tsg, buf);
}

static u32 nvsim_ctrl_tsg_get_interleave(const struct nvsim_caller *caller,
					 struct nvsim_object *obj, void *buf)
{
	struct nvrm_interleave_level *p = buf;

	p->level = nvsim_obj_tsg(obj)->interleave;
	return NVRM_OK;
}

/* NVA06C PREEMPT: a manual timeout above 1 s is refused, as the header says. */
static u32 nvsim_ctrl_preempt(const struct nvsim_caller *caller, struct nvsim_object *obj,
			      void *buf)
{
	const struct nvrm_tsg_preempt *p = buf;
	u32 timeout_us = NVSIM_PREEMPT_TIMEOUT_US;

	if (p->manual_timeout) {
		if (p->timeout_us > NVRM_NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US)
			return NVRM_ERR_INVALID_ARGUMENT;
		timeout_us = p->timeout_us;
	}
	if (!nvsim_engine_controls_effective())
		return NVRM_OK;
	return nvsim_engine_preempt(nvsim_obj_tsg(obj), p->wait, timeout_us);
}

/* GPFIFO_GET_WORK_SUBMIT_TOKEN: none for a channel on no runlist (nvsim_channel_runlist_set()) */
static u32 nvsim_ctrl_work_submit_token(const struct nvsim_caller *caller,
					struct nvsim_object *obj, void *buf)
{
	struct nvrm_work_submit_token *p = buf;
	struct nvsim_channel *chan = nvsim_obj_channel(obj);

	if (!nvsim_channel_runlist_set(chan))
		return NVRM_ERR_INVALID_STATE;
	p->work_submit_token = chan->token;
	return NVRM_OK;
}

/*
 * The channel entry @i of a FIFO_DISABLE_CHANNELS list names. The listed client need not be the
 * caller's: on an H200 with GSP firmware 580.159.04 an unprivileged process (uid nobody) disabled
 * the channels of another user's process by naming its client and channel handles (NV_OK, the
 * other's kernels stopped for as long as they stayed disabled). nvsim does the same; qgpu keeps
 * tenants to their own clients.
 */
static u32 nvsim_disable_list_channel(const struct nvsim_object *subdev,
				      const struct nvrm_fifo_disable_channels *p, u32 i,
				      struct nvsim_channel **out)
{
	struct nvsim_client *client = nvsim_client_lookup(p->hclient_list[i]);
	struct nvsim_object *obj;

	if (!client)
		return NVRM_ERR_INVALID_CLIENT;
	obj = nvsim_object_lookup(client, p->hchannel_list[i]);
	*out = nvsim_obj_channel(obj);
	if (!*out || obj->gpu != subdev->gpu)
		return NVRM_ERR_INVALID_CHANNEL;
	return NVRM_OK;
}

/*
 * NV2080 FIFO_DISABLE_CHANNELS: the whole list is checked before anything changes, and a list
 * that passes takes the firmware's round trip, the change happening part-way (fifo_disable_us,
 * above). Disabled
 * channels are not scheduled; with bOnlyDisableScheduling=0 a running one is also preempted off
 * (at the granularity), with =1 its executing entry completes first. bRewindGpPut is ignored.
 */
static u32 nvsim_ctrl_fifo_disable_channels(const struct nvsim_caller *caller,
					    struct nvsim_object *obj, void *buf)
{
	const struct nvrm_fifo_disable_channels *p = buf;
	struct nvsim_tsg *leaving = NULL;
	struct nvsim_channel *chan;
	unsigned long took, effect;
	u64 seq, leaving_seq = 0;
	u32 i, status;

	if (p->num_channels > NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES ||
	    (p->runlist_preempt_event && !caller->kernel))
		return NVRM_ERR_INVALID_ARGUMENT;
	for (i = 0; i < p->num_channels; i++) {
		status = nvsim_disable_list_channel(obj, p, i, &chan);
		if (status)
			return status;
	}
	took = (p->disable ? READ_ONCE(fifo_disable_us) : READ_ONCE(fifo_enable_us)) +
	       p->num_channels * READ_ONCE(fifo_channel_us);
	effect = took * (p->disable ? NVSIM_FIFO_DISABLE_EFFECT_PCT :
			 NVSIM_FIFO_ENABLE_EFFECT_PCT) / 100;
	nvsim_fifo_spin(effect);
	nvsim_engine_fifo_call(obj->gpu->engine, p->disable, p->num_channels);
	if (nvsim_engine_controls_effective()) {
		for (i = 0; i < p->num_channels; i++) {
			nvsim_disable_list_channel(obj, p, i, &chan);
			seq = nvsim_engine_channel_fifo_disable(chan, p->disable,
								!p->only_disable_scheduling);
			if (seq) {
				leaving = chan->tsg;
				leaving_seq = seq;
			}
		}
	}
	nvsim_fifo_spin(took - effect);
	if (leaving)
		nvsim_engine_wait_off(leaving, leaving_seq);
	return NVRM_OK;
}

/*
 * GR_GET_ENGINE_CONTEXT_PROPERTIES: the H200's answer for each buffer (DOC: context buffers), and
 * an id at or over the version's count NV_ERR_INVALID_ARGUMENT, as in RM. With bInfoPopulated the
 * caller's size is a floor.
 */
static u32 nvsim_ctrl_gr_ctx_properties(const struct nvsim_caller *caller,
					struct nvsim_object *obj, void *buf)
{
	struct nvrm_gr_engine_context_properties *p = buf;
	u32 count = nvsim_abi.major >= NVRM_GR_CTX_ENGINE_ID_COUNT_V550_SINCE ?
		    NVRM_GR_CTX_ENGINE_ID_COUNT_V550 : NVRM_GR_CTX_ENGINE_ID_COUNT_V525;
	u32 id = p->engine_id & 0x1f;	/* ENGINE_ID is bits 4:0 */
	const struct nvsim_gr_ctx *ctx;

	if (id >= count)
		return NVRM_ERR_INVALID_ARGUMENT;
	ctx = &nvsim_gr_ctx[id];
	if (ctx->status)
		return ctx->status;
	p->size = p->info_populated ? max(ctx->size, p->size) : ctx->size;
	p->alignment = ctx->align;
	return NVRM_OK;
}

/*
 * NVA06C MAKE_REALTIME and NVA06F RESTART_RUNLIST: GSP refuses clients without the privilege
 * (NV_ERR_INSUFFICIENT_PERMISSIONS to uid nobody on an H200 with GSP 580.159.04, session 37,
 * though NVOC calls both non-privileged). For a privileged client MAKE_REALTIME is recorded and
 * reported only (a real-time group would preempt every other: not modelled), and RESTART_RUNLIST
 * answers NV_ERR_INVALID_STATE, what the H200 answered on an idle channel.
 */
static u32 nvsim_ctrl_make_realtime(const struct nvsim_caller *caller, struct nvsim_object *obj,
				    void *buf)
{
	const struct nvrm_make_realtime *p = buf;

	if (!obj->client->privileged)
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	WRITE_ONCE(nvsim_obj_tsg(obj)->realtime, !!p->realtime);
	return NVRM_OK;
}

static u32 nvsim_ctrl_restart_runlist(const struct nvsim_caller *caller,
				      struct nvsim_object *obj, void *buf)
{
	return obj->client->privileged ? NVRM_ERR_INVALID_STATE :
					 NVRM_ERR_INSUFFICIENT_PERMISSIONS;
}

/*
 * The group of @hchannel, a channel or a channel group of the subdevice's client on its GPU, for
 * the GR controls below: libcuda names its graphics group there (an H200, session 37), the header
 * a channel; both work.
 */
static u32 nvsim_gr_context(const struct nvsim_object *subdev, u32 hchannel,
			    struct nvsim_tsg **out)
{
	struct nvsim_object *obj = nvsim_object_lookup(subdev->client, hchannel);
	struct nvsim_channel *chan = nvsim_obj_channel(obj);

	*out = chan ? chan->tsg : nvsim_obj_tsg(obj);
	if (!*out || obj->gpu != subdev->gpu)
		return NVRM_ERR_INVALID_CHANNEL;
	if (!(*out)->gr)
		return NVRM_ERR_NOT_SUPPORTED;
	return NVRM_OK;
}

/*
 * NV2080 GR_SET_CTXSW_PREEMPTION_MODE: the compute mode (flags bit 0) and the graphics one (bit 1)
 * of the context, which is the group's. Any client may ask (NVOC flags 0x10348); an H200 took WFI,
 * CTA and CILP from a process of uid nobody. Values past the header's are refused
 * (NV_ERR_INVALID_ARGUMENT, assumed: GSP implements it, unseen). A context on the engine takes
 * the new mode for its next preempt (an H200 switched it out to apply it, under the mode before:
 * not modelled).
 */
static u32 nvsim_ctrl_gr_set_preemption(const struct nvsim_caller *caller,
					struct nvsim_object *obj, void *buf)
{
	const struct nvrm_gr_set_preemption_mode *p = buf;
	struct nvsim_tsg *tsg;
	u32 status;

	status = nvsim_gr_context(obj, p->hchannel, &tsg);
	if (status)
		return status;
	if (((p->flags & NVRM_GR_PREEMPTION_FLAGS_CILP_SET) &&
	     p->cilp_mode > NVRM_GR_COMPUTE_PREEMPT_CILP) ||
	    ((p->flags & NVRM_GR_PREEMPTION_FLAGS_GFXP_SET) &&
	     p->gfxp_mode > NVRM_GR_GFX_PREEMPT_GFXP_POOL))
		return NVRM_ERR_INVALID_ARGUMENT;
	if (p->flags & NVRM_GR_PREEMPTION_FLAGS_GFXP_SET)
		tsg->gfxp_mode = p->gfxp_mode;
	if (p->flags & NVRM_GR_PREEMPTION_FLAGS_CILP_SET)
		nvsim_engine_set_compute_preemption(tsg, p->cilp_mode);
	return NVRM_OK;
}

/* NV2080 GR_GET_CTXSW_MODES: as an H200 answered for a new channel, but for the two modes set. */
static u32 nvsim_ctrl_gr_get_ctxsw_modes(const struct nvsim_caller *caller,
					 struct nvsim_object *obj, void *buf)
{
	struct nvrm_gr_ctxsw_modes *p = buf;
	struct nvsim_tsg *tsg;
	u32 status;

	status = nvsim_gr_context(obj, p->hchannel, &tsg);
	if (status)
		return status;
	p->zcull_mode = 1;	/* what the H200 read; nvsim has no zcull */
	p->pm_mode = 0;
	p->smpc_mode = 0;
	p->cilp_mode = READ_ONCE(tsg->cilp_mode);
	p->gfxp_mode = tsg->gfxp_mode;
	return NVRM_OK;
}

/* A size of 0 means it depends on the ABI version (nvsim_control_size()). */
const struct nvsim_control nvsim_fifo_controls[] = {
	{ NVRM_CTRL_CMD_GR_GET_ENGINE_CONTEXT_PROPERTIES, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gr_engine_context_properties), nvsim_ctrl_gr_ctx_properties },
	{ NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  0, nvsim_ctrl_tsg_schedule },
	{ NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_tsg_timeslice), nvsim_ctrl_set_timeslice },
	{ NVRM_CTRL_CMD_NVA06C_GET_TIMESLICE, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_tsg_timeslice), nvsim_ctrl_get_timeslice },
	{ NVRM_CTRL_CMD_NVA06C_PREEMPT, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_tsg_preempt), nvsim_ctrl_preempt },
	{ NVRM_CTRL_CMD_NVA06C_SET_INTERLEAVE_LEVEL, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_interleave_level), nvsim_ctrl_tsg_set_interleave },
	{ NVRM_CTRL_CMD_NVA06C_GET_INTERLEAVE_LEVEL, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_interleave_level), nvsim_ctrl_tsg_get_interleave },
	{ NVRM_CTRL_CMD_NVA06C_MAKE_REALTIME, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
	  sizeof(struct nvrm_make_realtime), nvsim_ctrl_make_realtime },
	{ NVRM_CTRL_CMD_NVA06F_RESTART_RUNLIST, NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A,
	  sizeof(struct nvrm_restart_runlist), nvsim_ctrl_restart_runlist },
	{ NVRM_CTRL_CMD_NVA06F_GPFIFO_SCHEDULE, NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A,
	  0, nvsim_ctrl_channel_schedule },
	{ NVRM_CTRL_CMD_NVA06F_SET_INTERLEAVE_LEVEL, NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A,
	  sizeof(struct nvrm_interleave_level), nvsim_ctrl_channel_set_interleave },
	{ NVRM_CTRL_CMD_NVC36F_GET_WORK_SUBMIT_TOKEN, NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A,
	  sizeof(struct nvrm_work_submit_token), nvsim_ctrl_work_submit_token },
	{ NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gr_set_preemption_mode), nvsim_ctrl_gr_set_preemption },
	{ NVRM_CTRL_CMD_GR_GET_CTXSW_MODES, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_gr_ctxsw_modes), nvsim_ctrl_gr_get_ctxsw_modes },
	{ NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_fifo_disable_channels), nvsim_ctrl_fifo_disable_channels },
};

const unsigned int nvsim_fifo_num_controls = ARRAY_SIZE(nvsim_fifo_controls);
