// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the video memory RM takes for a channel group's context buffers and a channel's instance
 * block, charged to the instance.
 *
 * DOC: context buffers
 *
 * No RM_ALLOC of memory names it, yet from 535 RM takes it from the same video memory that serves
 * those: each channel group a tenant makes gets pools of its own, fed from the GPU's allocator
 * (kchangrpapiConstruct_IMPL(), kernel_channel_group_api.c; ctx_buf_pool.c; kmod/nvrm/
 * nvrm_ctxbuf.h). A group of a graphics engine reserves its main (with a header for each
 * subcontext), patch and PM context buffers when it is made, each physically contiguous and
 * rounded to a pool chunk, and holds them until its last copy goes; a copy-engine group reserves
 * none. Each channel takes a 64 KiB chunk for its 4 KiB instance block. A CUDA context holds one
 * graphics group and 20 channels or so. Uncharged, a tenant could take the GPU's memory 8 MiB at a
 * time past its ``mem_max``, bounded only by the GPU's 2048 channel ids a runlist.
 *
 * So a channel group's RM_ALLOC is charged what RM reserves for it, and a channel's its 64 KiB,
 * before it is forwarded; over the limit it is refused with NV_ERR_NO_MEMORY, what RM answers when
 * the pool cannot be filled, and counted as a refusal (``events``, netlink ``oom``). The charge
 * goes on the object's mirror node and goes with it; copies (RM_DUP_OBJECT) and exports share it,
 * as RM's pools go with the group's last copy. A channel's charge keeps its group's: what keeps
 * the channel keeps the group, as in RM (nvidia-uvm's retention: qgpu_uvm_channel.c). The sizes
 * are the GPU's own: qgpu asks its kernel client's subdevice, once a GPU, for the main, patch and
 * PM buffers (NV2080 GR_GET_ENGINE_CONTEXT_PROPERTIES, any client may, 525-595) and rounds as
 * RM's pools do. Where the driver does not answer, qgpu charges the least any graphics group can
 * take (4 MiB and 128 KiB), and says so in the log once. Drivers before 535, and a Turing GPU
 * with any driver, take these buffers from memory RM reserved at boot, not from what tenants
 * share, and nothing is charged: qgpu asks the GPU's architecture with the sizes (NV2080
 * MC_GET_ARCH_INFO, any client may, 525-595; nvrm_ctxbuf_pools_on()), and charges where it
 * cannot tell. On a vGPU host, where RM uses no pools either, qgpu charges all the same.
 *
 * A group of a falcon engine (a video decoder or encoder, a JPEG decoder, optical flow, SEC2)
 * reserves its falcon's one context buffer, contiguous, on a GSP-based GPU: a pool chunk of
 * 64 KiB at least. The sizes are the firmware's, which RM lists to any client from 550
 * (NV2080 GPU_GET_CONSTRUCTED_FALCON_INFO), asked once a GPU with the graphics sizes; a group is
 * charged its falcon's buffer rounded as the pools round, and nothing for an engine the list has
 * no falcon for. Before 550, or where the driver does not answer, each such group is charged the
 * least it can take, 64 KiB, and the log says so once: a tenant of a 535-545 driver can hold up
 * to the difference a group past its limit, bounded by ``channels_max``.
 *
 * qgpu reads a group's engine type from its parameters and has RM read that same copy (sealed,
 * the instance's params_seal); without the probe (``seal=0``) a sibling thread that rewrites it
 * under the call is charged for what qgpu read, and one that rewrites the status RM wrote leaves
 * the group uncharged, as for fabric memory. A channel made directly under a device gets a
 * group of its own from RM, of the channel's engine: qgpu charges it the most a group of any
 * engine takes (a graphics group's, unless a falcon's buffer is larger), which errs on the
 * tenant's side (CUDA makes every channel in a group). A channel made under a copy of a group
 * joins the group, as in RM: a copy made through another file's client, or imported, has a mirror
 * node whose class qgpu did not read, and its charge says it is a group's
 * (qgpu_mem_charge_is_group()). Until session 33 such a channel was charged as one made under a
 * device, a group's buffers more than RM took.
 *
 * A channel's chunk comes from a pool of its group's, which keeps it when the channel goes, for
 * the group's next channel: the pool takes one more only when none of its chunks is free
 * (ctxBufPoolReserve(), ctx_buf_pool.c; its chunks are not trimmed on free, pool_alloc.c), and
 * gives them all back when a channel object goes and leaves no instance block in it, and with
 * the group (ctxBufPoolRelease(), kernel_channel.c, 535.43.02-595.45.04). A channel UVM retains
 * holds its block in the pool, and UVM's letting go frees the block without that release
 * (uvm_channel_retainer.c). So a channel made in a group qgpu knows draws from the group's
 * charge (qgpu_mem_pool_draw()): a free chunk, or one more charged to the group, refused past
 * ``mem_max``. The channel's charge gives its chunk back to the pool with its last reference, and
 * the pool's chunks are uncharged when that leaves none in use, unless that last reference was a
 * UVM registration's (qgpu_mem_charge_put_retained()): then they stay charged until the group
 * goes or a channel of it goes later, as in RM. Until session 33 a channel's chunk went with it,
 * and a group that had held more channels than it held now kept 64 KiB for each of the
 * difference past the limit. A channel RM refuses leaves its chunk in the pool, charged, until
 * the pool is next released, as RM keeps the chunk it reserved for it (an H200 kept it for a
 * channel of another engine than its group's and for a group's 129th, session 34); where RM
 * refused it before reserving, that chunk is charged and not held (at most one a group).
 *
 * The whole model was checked on an H200 (GSP firmware 580.159.04): scripts/ctxbuf_probe.py's
 * steps took from its framebuffer exactly what qgpu charges for them
 * (tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest; docs/design/memory-limits.md).
 *
 * A copy made while another file makes objects in the source's client cannot be sure of its
 * source (DOC: memory limits): RM says what it is, and a channel or group gets a count and charge
 * of its own, a group the most a group of any engine takes (qgpu_ctxbuf_own()).
 */
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_ctxbuf.h"
#include "qgpu_channels.h"
#include "qgpu_ctxbuf.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"

/**
 * struct qgpu_ctxbuf_sizes - what RM reserves for one GPU's channel groups, as its driver says
 * @pools: the GPU's groups take their buffers from its shared allocator (an Ampere or later);
 *	the sizes are 0 where they do not
 * @gr_group: a graphics group's context buffers
 * @any_group: the most a group of any engine reserves
 * @falcons_known: the driver listed its falcons in @falcons
 * @falcons: GET_CONSTRUCTED_FALCON_INFO's answer (550 on)
 */
struct qgpu_ctxbuf_sizes {
	bool pools;
	u64 gr_group;
	u64 any_group;
	bool falcons_known;
	struct nvrm_constructed_falcon_info falcons;
};

/* One buffer's size from the GPU, or 0 where the driver does not answer. */
static u32 qgpu_ctxbuf_size(u32 hsubdevice, u32 engine_id)
{
	struct nvrm_gr_engine_context_properties p = { .engine_id = engine_id };

	if (qgpu_kclient_control(hsubdevice, NVRM_CTRL_CMD_GR_GET_ENGINE_CONTEXT_PROPERTIES, &p,
				 sizeof(p)))
		return 0;
	return p.size;
}

/* Ask @gpu's driver, through qgpu's subdevice, what its groups reserve (floors where it won't). */
static void qgpu_ctxbuf_ask(struct qgpu_gpu *gpu, struct qgpu_ctxbuf_sizes *s)
{
	u32 hsub, main = 0, patch = 0, pm = 0;
	bool sub = !qgpu_kclient_subdevice(gpu, &hsub);
	struct nvrm_mc_arch_info arch = { 0 };

	/* an unknown architecture is charged as one with the pools: it errs on the tenant's side */
	s->pools = !sub || qgpu_kclient_control(hsub, NVRM_CTRL_CMD_MC_GET_ARCH_INFO, &arch,
						 sizeof(arch)) ||
		   nvrm_ctxbuf_pools_on(arch.architecture);
	if (!s->pools) {	/* no size is needed then */
		pr_info("gpu%u: architecture 0x%x takes channel groups' buffers from RM's reserved memory; none is charged\n",
			gpu->index, arch.architecture);
		return;
	}
	if (sub) {
		main = qgpu_ctxbuf_size(hsub, NVRM_GR_CTX_ENGINE_ID_GRAPHICS);
		patch = qgpu_ctxbuf_size(hsub, NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PATCH);
		pm = qgpu_ctxbuf_size(hsub, NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PM);
	}
	if (main && patch && pm) {
		s->gr_group = nvrm_ctxbuf_gr_group(main, patch, pm);
	} else {
		s->gr_group = nvrm_ctxbuf_gr_group_floor();
		pr_info("gpu%u: the driver did not give the context buffers' sizes; charging %llu KiB a graphics channel group, the least it can take\n",
			gpu->index, s->gr_group >> 10);
	}
	if (sub && gpu->abi.major >= NVRM_CONSTRUCTED_FALCON_INFO_SINCE) {
		u32 cmd = NVRM_CTRL_CMD_GPU_GET_CONSTRUCTED_FALCON_INFO;

		s->falcons_known = !qgpu_kclient_control(hsub, cmd, &s->falcons,
							 sizeof(s->falcons));
	}
	if (!s->falcons_known)
		pr_info("gpu%u: the driver did not list its falcon engines; charging %llu KiB a video, JPEG or optical-flow channel group, the least it can take\n",
			gpu->index, nvrm_ctxbuf_falcon_group_max(NULL) >> 10);
	s->any_group = max(s->gr_group,
			   nvrm_ctxbuf_falcon_group_max(s->falcons_known ? &s->falcons : NULL));
}

/*
 * What RM reserves for @gpu's channel groups: asked of the driver once, as the sizes are the
 * GPU's, fixed at boot. Two first callers may both ask; the first to publish wins. NULL when out
 * of memory: the callers charge the floors then.
 */
static const struct qgpu_ctxbuf_sizes *qgpu_ctxbuf_sizes(struct qgpu_gpu *gpu)
{
	/* pairs with the cmpxchg below: a reader sees the sizes filled in before the pointer */
	struct qgpu_ctxbuf_sizes *s = smp_load_acquire(&gpu->ctxbuf), *first;

	if (s)
		return s;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	qgpu_ctxbuf_ask(gpu, s);
	first = cmpxchg(&gpu->ctxbuf, NULL, s);	/* fully ordered: publishes, or reads the winner */
	if (first) {
		kfree(s);
		return first;
	}
	return s;
}

/* Do @gpu's channel groups and channels take the video memory its instances share? */
static bool qgpu_ctxbuf_pools(struct qgpu_gpu *gpu)
{
	const struct qgpu_ctxbuf_sizes *s;

	if (gpu->abi.major < NVRM_CTXBUF_POOL_SINCE)
		return false;
	s = qgpu_ctxbuf_sizes(gpu);
	return !s || s->pools;
}

/* What RM reserves for a graphics channel group on @gpu. */
static u64 qgpu_ctxbuf_gr_group(struct qgpu_gpu *gpu)
{
	const struct qgpu_ctxbuf_sizes *s = qgpu_ctxbuf_sizes(gpu);

	return s ? s->gr_group : nvrm_ctxbuf_gr_group_floor();
}

/* What RM reserves for a channel group of @engine_type on @gpu (0 for a copy engine's). */
static u64 qgpu_ctxbuf_group(struct qgpu_gpu *gpu, u32 engine_type)
{
	const struct qgpu_ctxbuf_sizes *s;

	if (nvrm_ctxbuf_engine_is_gr(engine_type))
		return qgpu_ctxbuf_gr_group(gpu);
	s = qgpu_ctxbuf_sizes(gpu);
	return nvrm_ctxbuf_falcon_group(s && s->falcons_known ? &s->falcons : NULL, engine_type);
}

/* The most a channel group of any engine reserves on @gpu, for a group whose engine is unknown */
static u64 qgpu_ctxbuf_any_group(struct qgpu_gpu *gpu)
{
	const struct qgpu_ctxbuf_sizes *s = qgpu_ctxbuf_sizes(gpu);

	return s ? s->any_group :
		   max(nvrm_ctxbuf_gr_group_floor(), nvrm_ctxbuf_falcon_group_max(NULL));
}

/* A channel group's engine type, from qgpu's sealed copy of its parameters. */
static u32 qgpu_ctxbuf_group_begin(struct qgpu_file *qf, const struct nvrm_alloc *a,
				   struct qgpu_seal *seal, struct qgpu_ctxbuf *cb, u64 *bytes)
{
	struct nvrm_channel_group_alloc_params *p;

	if (!a->params_ptr)
		return NVRM_OK;	/* RM refuses a group without parameters */
	p = memdup_user(u64_to_user_ptr(a->params_ptr), sizeof(*p));
	if (IS_ERR(p))	/* RM's answer to parameters it cannot read */
		return NVRM_ERR_INVALID_ADDRESS;
	*bytes = qgpu_ctxbuf_group(qf->inst->gpu, p->engine_type);	/* asked before the seal */
	if (qgpu_seal_params_lock(&qf->inst->params_seal, seal, a->params_ptr, p, sizeof(*p))) {
		/* killed while another forward waited on RM: the process never sees the status */
		kfree(p);
		return NVRM_ERR_INVALID_STATE;
	}
	cb->params = p;
	return NVRM_OK;
}

/* Is @parent, whose charge is @c (or NULL), a channel group, or a copy of one? */
static bool qgpu_ctxbuf_is_group(const struct qgpu_rmnode *parent, const struct qgpu_mem_charge *c)
{
	if (!parent)
		return false;
	if (parent->hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A)
		return true;
	/* a copy through another file's client, or an import: its charge says */
	return parent->hclass == QGPU_CLASS_UNKNOWN && c && qgpu_mem_charge_is_group(c);
}

/**
 * qgpu_ctxbuf_begin() - before a channel or channel group's RM_ALLOC is forwarded: charge what RM
 * will take for it
 * @qf: the proxy ctl file
 * @a: the decoded allocation
 * @seal: set up so that RM reads qgpu's copy of a group's parameters, for the forward that follows
 * @cb: filled for qgpu_ctxbuf_end() and qgpu_ctxbuf_made()
 *
 * See DOC: context buffers. The caller calls qgpu_ctxbuf_end() after the forward, then
 * qgpu_ctxbuf_made() with what RM made.
 *
 * Context: the tracker's lock held; takes the instance's params_seal until qgpu_ctxbuf_end()
 *	where @cb->params is set.
 * Return: NVRM_OK (forward it), or the status to answer instead (nothing charged then).
 */
u32 qgpu_ctxbuf_begin(struct qgpu_file *qf, const struct nvrm_alloc *a, struct qgpu_seal *seal,
		      struct qgpu_ctxbuf *cb)
{
	struct qgpu_mem_charge *group = NULL;
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_rmnode *parent;
	u64 bytes = 0;
	u32 status;

	memset(cb, 0, sizeof(*cb));
	if (!qgpu_channels_counted(a->hclass))
		return NVRM_OK;
	if (!qgpu_ctxbuf_pools(inst->gpu)) {
		/* nothing charged: the charge carries the object's channel count only */
	} else if (a->hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A) {
		status = qgpu_ctxbuf_group_begin(qf, a, seal, cb, &bytes);
		if (status)
			return status;
	} else {
		parent = qgpu_rmtrack_find(qf->track, a->hroot, a->hparent);
		group = qgpu_mem_node_charge(parent);
		if (!qgpu_ctxbuf_is_group(parent, group)) {	/* RM makes it a group of its own */
			if (group)
				qgpu_mem_charge_put(group);
			group = NULL;
			bytes = NVRM_CTXBUF_CHANNEL_BYTES + qgpu_ctxbuf_any_group(inst->gpu);
		} else if (!group) {	/* its group's pool is not known: a chunk of its own */
			bytes = NVRM_CTXBUF_CHANNEL_BYTES;
		}
	}
	cb->charge = qgpu_mem_charge_new(inst, bytes);
	if (cb->charge) {
		if (a->hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A)
			qgpu_mem_charge_mark_group(cb->charge);
		/* what keeps the channel (UVM's retention) keeps its group */
		qgpu_mem_charge_keep(cb->charge, group);
		if (!group || qgpu_mem_pool_draw(cb->charge, group))
			return NVRM_OK;
		qgpu_mem_charge_put(cb->charge);	/* and the group's reference */
		cb->charge = NULL;
	} else if (group) {
		qgpu_mem_charge_put(group);
	}
	qgpu_ctxbuf_end(qf, seal, cb, false);
	return NVRM_ERR_NO_MEMORY;
}

/**
 * qgpu_ctxbuf_own() - a charge of its own for a copy of a channel or group whose source's the
 * mirror could not vouch for
 * @inst: the instance
 * @hclient: the tenant's client
 * @handle: the copy RM made
 * @status: NVRM_OK, or NVRM_ERR_NO_MEMORY when it is a channel or group that does not fit (past
 *	``channels_max`` or ``mem_max``, counted as a refusal), or RM cannot be asked
 *
 * For a copy made while another file made objects in the source's client (qgpu_mem_dup_end()):
 * its source may have been freed and its handle reused meanwhile. RM says what the copy is; a
 * channel or group then gets a count and a charge of its own, a group the most a group of any
 * engine takes. That counts the object twice while both handles live, which errs on the
 * tenant's side, as a memory copy's own charge does.
 *
 * Return: the charge, its count taken over, or NULL: not a channel or group, or @status.
 */
struct qgpu_mem_charge *qgpu_ctxbuf_own(struct qgpu_instance *inst, u32 hclient, u32 handle,
					u32 *status)
{
	struct qgpu_mem_charge *c;
	u32 rm, hclass = 0;
	u64 bytes = 0;

	*status = NVRM_OK;
	rm = qgpu_kclient_class_of(hclient, handle, &hclass);
	if (rm == NVRM_OK && !qgpu_channels_counted(hclass))
		return NULL;
	*status = NVRM_ERR_NO_MEMORY;
	if (rm != NVRM_OK || !qgpu_channels_reserve(inst))
		return NULL;
	if (qgpu_ctxbuf_pools(inst->gpu))
		bytes = hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A ?
			qgpu_ctxbuf_any_group(inst->gpu) : NVRM_CTXBUF_CHANNEL_BYTES;
	c = qgpu_mem_charge_new(inst, bytes);
	if (!c) {
		qgpu_channels_put(inst);
		return NULL;
	}
	qgpu_mem_charge_count_channel(c);
	if (hclass == NVRM_CLASS_KEPLER_CHANNEL_GROUP_A)
		qgpu_mem_charge_mark_group(c);
	*status = NVRM_OK;
	return c;
}

/* A forced charge of @bytes carrying one ``channels`` count, or NULL when out of memory. */
static struct qgpu_mem_charge *qgpu_ctxbuf_forced(struct qgpu_instance *inst, u64 bytes)
{
	struct qgpu_mem_charge *c = qgpu_mem_charge_forced(inst, bytes);

	if (c) {
		qgpu_channels_force(inst);
		qgpu_mem_charge_count_channel(c);
	}
	return c;
}

/**
 * qgpu_ctxbuf_retained() - a charge for a channel and its group that the driver holds and qgpu
 * cannot name: the most they can be
 * @inst: the instance
 *
 * For a channel nvidia-uvm retained while the tenant's handle may have come to name another
 * (qgpu_uvm_channel.c): the most a group takes, the most its channel pool can hold (the retained
 * block keeps the pool's chunks after the tenant's channels go, and qgpu cannot tell which
 * group's they are), and a ``channels`` count for each. Charged whatever the limits say, for
 * the driver holds them already; the instance's use and count may read above its bounds until
 * the charge goes.
 *
 * Return: the channel's charge, which keeps the group's, or NULL when out of memory.
 */
struct qgpu_mem_charge *qgpu_ctxbuf_retained(struct qgpu_instance *inst)
{
	bool pool = qgpu_ctxbuf_pools(inst->gpu);
	struct qgpu_mem_charge *group, *chan;

	group = qgpu_ctxbuf_forced(inst, pool ? qgpu_ctxbuf_any_group(inst->gpu) : 0);
	if (!group)
		return NULL;
	qgpu_mem_charge_mark_group(group);
	chan = qgpu_ctxbuf_forced(inst, pool ? (u64)NVRM_CTXBUF_POOL_CHUNKS_MAX *
					       NVRM_CTXBUF_CHANNEL_BYTES : 0);
	if (!chan) {
		qgpu_mem_charge_put(group);
		return NULL;
	}
	qgpu_mem_charge_keep(chan, group);
	return chan;
}

/**
 * qgpu_ctxbuf_end() - the forward qgpu_ctxbuf_begin() allowed returned
 * @qf: the proxy ctl file
 * @seal: as set up there
 * @cb: as filled there; its charge is kept for qgpu_ctxbuf_made()
 * @rm_ok: RM made the object (its own status, in qgpu's copy of a sealed call)
 */
void qgpu_ctxbuf_end(struct qgpu_file *qf, struct qgpu_seal *seal, struct qgpu_ctxbuf *cb,
		     bool rm_ok)
{
	if (!cb->params)
		return;
	qgpu_seal_params_unlock(&qf->inst->params_seal, seal, rm_ok);
	kfree(cb->params);
	cb->params = NULL;
}

/**
 * qgpu_ctxbuf_made() - the object's mirror node holds its charge, and its ``channels`` count
 * @cb: as qgpu_ctxbuf_end() left it
 * @node: the node of what RM made, or NULL: nothing made (the charge goes; the caller gives the
 *	count back), or nothing mirrored (the caller then has RM free it again)
 *
 * From here the count goes with the charge's last holder: RM keeps a channel or group, and its
 * id, while a copy in another client or an export holds it (DOC: channels).
 *
 * Context: the tracker's lock held.
 * Return: whether the object held a charge (the caller frees it when @node is NULL).
 */
bool qgpu_ctxbuf_made(struct qgpu_ctxbuf *cb, struct qgpu_rmnode *node)
{
	if (!cb->charge)
		return false;
	if (node) {
		qgpu_mem_charge_count_channel(cb->charge);
		qgpu_mem_hold(node, cb->charge);
	} else {
		qgpu_mem_charge_put(cb->charge);
	}
	cb->charge = NULL;
	return true;
}
