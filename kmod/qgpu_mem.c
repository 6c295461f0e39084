// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: per-instance video-memory limits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/ioctl.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_ctrl_mem.h"
#include "nvrm/nvrm_ctxbuf.h"
#include "qgpu_channels.h"
#include "qgpu_ctxbuf.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mem.h"
#include "qgpu_mem_limit.h"
#include "qgpu_netlink.h"
#include "qgpu_rmtrack.h"

/**
 * DOC: memory limits
 *
 * Charged: RM_ALLOC of NV01_MEMORY_LOCAL_USER (0x40) and RM_VID_HEAP_CONTROL ALLOC_* placed in
 * video memory, direct or XFER-wrapped (qgpu_escape.c unwraps XFER), at the size RM allocated.
 *
 * 1. Before forwarding, qgpu decodes its kernel copy of the request and reserves the requested
 *    size rounded as RM rounds it (page size, forced alignment: qgpu_mem_reserve_size()). If
 *    that does not fit under ``mem_max`` the call is not forwarded: its status is
 *    NV_ERR_NO_MEMORY, ``events`` counts it, pollers of ``events`` wake and the netlink ``oom``
 *    event names the instance, the process (initial pid namespace) and the size.
 * 2. After RM succeeded, qgpu asks RM, through its own kernel client, what it created: one
 *    NV0041 GET_SURFACE_INFO (ADDR_SPACE_TYPE and PHYS_SIZE) on the new handle in the tenant's
 *    client (qgpu_mem_rm_query(); RM binds clients to files only for user calls, so a kernel
 *    call may name it). The charge becomes that size. If it is larger than reserved and no
 *    longer fits, qgpu frees the object through its kernel client, from its own copy of the
 *    handle, and the call fails with NV_ERR_NO_MEMORY.
 * 3. The handle qgpu verifies is the one RM wrote back to user memory, which a sibling thread can
 *    rewrite. It must be the handle the kernel copy named (when it named one), must not be an
 *    object qgpu already mirrors, and must be video memory in RM; otherwise the tenant raced its
 *    own call, and qgpu frees the tenant's whole client (RM frees everything in it). A client
 *    that survives that too keeps the reservation charged until RM frees the client.
 *    RM_ALLOC of any other class is verified as well (one kernel-client call for classes RM does
 *    not duplicate), so flipping a request's class to 0x40 after qgpu looked is caught the same
 *    way.
 *
 * A charge is a refcounted record (struct qgpu_mem_charge) attached to the mirror node of every
 * handle that refers to the memory (qgpu_rmtrack.c): the allocation and its duplicates within
 * the instance. It goes when the last such node goes, which is when RM frees the memory: RM_FREE
 * of the object or an ancestor, of the client, release of the real ctl file (process death
 * included). Costs per call: one mirror node added or removed, no scan of live allocations.
 *
 * RM_DUP_OBJECT whose source client is not one of the instance's (struct qgpu_mem_inst.clients,
 * every client allocated through any proxy ctl file of the instance) is refused with
 * NV_ERR_INVALID_CLIENT, before RM sees it. Any other qgpu makes itself from its kernel copy,
 * through the kernel client with NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE (RM checks
 * access as for the tenant's call), so RM never reads a source or writes a handle that a sibling
 * thread can swap (qgpu_escape.c). The duplicate takes its source's charge, or, when a call in
 * another file made an object in the source's client meanwhile, a charge of its own
 * (qgpu_mem_dup_end()).
 */

/**
 * DOC: system memory
 *
 * RM allocates NV01_MEMORY_SYSTEM (0x3E) from the host's pages itself, pinned, with GFP flags that
 * charge no memory cgroup (nv_compute_gfp_mask() in kernel-open/nvidia/nv-vm.c: GFP_KERNEL,
 * no __GFP_ACCOUNT). A container's memory limit therefore does not hold it, and a tenant
 * could pin the host's memory through its instance. qgpu charges it to the instance as it charges
 * video memory, in a pool of its own with its own limit, ``sysmem_max``:
 *
 * - RM_ALLOC of 0x3E, made by qgpu through its kernel client from its copy of the request, as
 *   0x40 is (DOC: memory limits);
 * - RM_VID_HEAP_CONTROL ALLOC_* that RM places in system memory (not VIRTUAL, LOCATION not
 *   VIDMEM: the converter makes 0x3E), made the same way;
 * - RM_ALLOC_MEMORY of 0x3E (limit + 1 bytes, mapped at once), reserved before it is forwarded
 *   and settled on the size RM reports.
 *
 * Duplicates, exports and imports share the charge, and it goes with the last handle, as for
 * video memory. Over the limit the call fails with NV_ERR_NO_MEMORY, ``events`` counts it and
 * the netlink ``oom`` event says ``system memory``. What RM says is system memory of another
 * class is not charged: NV01_MEMORY_SYSTEM_OS_DESCRIPTOR (0x71) pins the caller's own pages,
 * which its memory cgroup already holds (verification asks RM for the class, NV0000
 * CLIENT_GET_HANDLE_INFO). Not charged either: what RM allocates in system memory for its own
 * records of an object, and UVM's migrations of managed memory to the host (``managed``).
 *
 * NV01_MEMORY_DEVICELESS (0x90CE) is system memory too: any client may allocate it under itself,
 * and RM takes contiguous pages for it (nodevicememConstruct_IMPL(), osAllocPages()) and writes
 * back no size. What the OS layer rounds a contiguous allocation to was not read, and no traced
 * CUDA or PyTorch program made one, so qgpu does not charge it: an instance with a system-memory
 * limit refuses it (NV_ERR_NOT_SUPPORTED, and a netlink ``refused`` event), one without forwards
 * it. The same holds for NV_MEMORY_EXTENDED_USER (0x42, 535-590), extended GPU memory (EGM) any
 * user may allocate at a size of its choosing where the driver has EGM enabled: on a self-hosted
 * GPU (Grace Hopper, Grace Blackwell) it is taken from the host's memory (egmmemConstruct_IMPL(),
 * 580.142); without EGM RM refuses it (egmmemValidateParams()). Unsealed (``seal=0``), a class
 * rewritten to either after qgpu looked reaches RM.
 */

/**
 * struct qgpu_mem_charge - memory charged to an instance
 * @ref: one per mirror node (handle) that refers to the memory
 * @size: bytes charged
 * @inst: the instance charged
 * @sys: system memory (the ``sysmem_max`` pool), not video memory
 * @channel: what is held is a channel or channel group, whose id the instance's ``channels``
 *	counts until the last holder lets go (qgpu_channels.c, qgpu_ctxbuf.c)
 * @in_node: the charge is part of a struct qgpu_mem_made, freed with it
 * @group: a channel group's (or a copy's of one): a channel made under a copy of the group,
 *	whose class the copy's mirror node may not know, is made in the group (qgpu_ctxbuf.c)
 * @pooled: a channel's: the chunk of its instance block is one of @under's @chunks, not in @size
 * @under: a charge this one keeps (a reference, or NULL): a channel's keeps its group's, as RM's
 *	channel keeps its group (qgpu_mem_charge_keep())
 * @chunks: a channel group's: the chunks its channel pool holds, charged with it (DOC: context
 *	buffers in qgpu_ctxbuf.c); under the instance's mem.lock
 * @blocks: a channel group's: its channels that have drawn one of @chunks, made or being made;
 *	under the instance's mem.lock
 * @rcu: freed after a grace period (qgpu_mem_charge_of() looks it up under RCU)
 */
struct qgpu_mem_charge {
	refcount_t ref;
	u64 size;
	struct qgpu_instance *inst;
	bool sys;
	bool channel;
	bool in_node;
	bool group;
	bool pooled;
	struct qgpu_mem_charge *under;
	u32 chunks;
	u32 blocks;
	struct rcu_head rcu;
};

/**
 * struct qgpu_mem_made - video memory qgpu made: its mirror node and its charge in one allocation
 * @node: the handle's node, whose reference on @charge is released when RM frees the handle
 * @charge: the charge, which duplicates, exports and UVM may hold on to after that
 *
 * One allocation and one RCU free per alloc+free pair instead of two each (under software
 * emulation each RCU free cost about as much as the rest of the mirror's work). The memory goes
 * with the charge's last reference, which is never before the node leaves the mirror.
 */
struct qgpu_mem_made {
	struct qgpu_rmnode node;
	struct qgpu_mem_charge charge;
};

/**
 * struct qgpu_mem_client - payload of a tenant client's mirror node
 * @inst: its instance
 * @root: the client's mirror node (where a duplicate from this client finds its source)
 * @held: bytes charged to the client as a whole (an allocation qgpu could not pin on a handle),
 *	video memory in [0], system memory in [1]
 * @serial: unique to this record, never 0: a client freed and made again under its handle has
 *	another
 * @track: the tracker whose mirror has the client: only its file's calls make objects in it (its
 *	@making and @made count them; freed after a grace period, after this record)
 * @rcu: freed after a grace period (qgpu_mem_charge_of() looks it up under RCU)
 */
struct qgpu_mem_client {
	struct qgpu_instance *inst;
	struct qgpu_rmnode *root;
	u64 held[2];
	u64 serial;
	struct qgpu_rmtrack *track;
	struct rcu_head rcu;
};

/* Serials of client records: one for each record made, never 0. */
static atomic64_t qgpu_mem_client_serials = ATOMIC64_INIT(0);

/* Accounting, under the instance's lock; @sys picks the pool (system or video memory) */

static struct qgpu_mem_pool *qgpu_mem_pool(struct qgpu_instance *inst, bool sys)
{
	return sys ? &inst->mem.sys : &inst->mem.vid;
}

/* @size more in use in @p, whatever its limit says; the lock held */
static void qgpu_mem_add_locked(struct qgpu_mem_pool *p, u64 size)
{
	p->used += size;
	p->peak = max(p->peak, p->used);
}

/* @size more in use in @p if it fits under its limit; the lock held */
static bool qgpu_mem_try_add_locked(struct qgpu_mem_pool *p, u64 size)
{
	if (!qgpu_mem_fits(p->used, p->max, size))
		return false;
	qgpu_mem_add_locked(p, size);
	return true;
}

/* @size less in use in @p; the lock held */
static void qgpu_mem_sub_locked(struct qgpu_mem_pool *p, u64 size)
{
	if (WARN_ON_ONCE(p->used < size))
		p->used = 0;
	else
		p->used -= size;
}

static bool qgpu_mem_try_charge(struct qgpu_instance *inst, bool sys, u64 size)
{
	bool ok;

	spin_lock(&inst->mem.lock);
	ok = qgpu_mem_try_add_locked(qgpu_mem_pool(inst, sys), size);
	spin_unlock(&inst->mem.lock);
	return ok;
}

/* Charge what RM holds whatever the limit says (it could not be refused any more). */
static void qgpu_mem_force_charge(struct qgpu_instance *inst, bool sys, u64 size)
{
	spin_lock(&inst->mem.lock);
	qgpu_mem_add_locked(qgpu_mem_pool(inst, sys), size);
	spin_unlock(&inst->mem.lock);
}

static void qgpu_mem_uncharge(struct qgpu_instance *inst, bool sys, u64 size)
{
	spin_lock(&inst->mem.lock);
	qgpu_mem_sub_locked(qgpu_mem_pool(inst, sys), size);
	spin_unlock(&inst->mem.lock);
}

/* Tell netlink listeners that the calling process of @inst met @event. */
static void qgpu_mem_emit(struct qgpu_instance *inst, const char *event, u64 size,
			  const char *detail)
{
	struct qgpu_event ev = {
		.event = event,
		.gpu = inst->gpu->index,
		.instance = inst->name,
		.pid = task_tgid_nr(current),
		.size = size,
		.detail = detail,
	};

	qgpu_event_emit(&ev);
}

/* An allocation was refused for a limit: count it, wake pollers, tell netlink listeners. */
static void qgpu_mem_refused(struct qgpu_instance *inst, bool sys, u64 size)
{
	atomic64_inc(&inst->mem.events);
	sysfs_notify(&inst->kobj, NULL, "events");
	qgpu_mem_emit(inst, "oom", size, sys ? "system memory" : NULL);
}

/**
 * qgpu_mem_call_refused() - qgpu refused a call of the instance: tell the operator
 * @inst: the instance
 * @what: the call and why, for people (e.g. "dma-buf export (dmabuf=refuse)", or a call that
 *	named another tenant's RM client)
 *
 * The netlink event ``refused`` for the calling process, and a rate-limited log line: a tenant
 * whose library falls back quietly should not leave its operator guessing why.
 */
void qgpu_mem_call_refused(struct qgpu_instance *inst, const char *what)
{
	pr_info_ratelimited("instance %s: pid %d: refused %s\n", inst->name,
			    task_tgid_nr(current), what);
	qgpu_mem_emit(inst, "refused", 0, what);
}

/**
 * qgpu_mem_sysmem_class_refused() - an RM_ALLOC of host memory qgpu does not charge, on an
 * instance whose system memory is limited
 * @qf: the proxy ctl file
 * @hclass: the class qgpu read
 *
 * NV01_MEMORY_DEVICELESS and NV_MEMORY_EXTENDED_USER; see DOC: system memory.
 *
 * Return: true (the operator told) when the call is to be refused with NV_ERR_NOT_SUPPORTED.
 */
bool qgpu_mem_sysmem_class_refused(struct qgpu_file *qf, u32 hclass)
{
	const char *what;

	switch (hclass) {
	case NVRM_CLASS_NV01_MEMORY_DEVICELESS:
		what = "NV01_MEMORY_DEVICELESS, which sysmem_max cannot charge";
		break;
	case NVRM_CLASS_NV_MEMORY_EXTENDED_USER:
		what = "NV_MEMORY_EXTENDED_USER (EGM), which sysmem_max cannot charge";
		break;
	default:
		return false;
	}
	if (!READ_ONCE(qf->inst->mem.sys.max))
		return false;
	qgpu_mem_call_refused(qf->inst, what);
	return true;
}

/* Mirror node payloads */

/**
 * qgpu_mem_pool_draw() - a channel is being made in a group: its instance block takes a chunk of
 * the group's channel pool
 * @chan: the channel's charge, not yet shared, which keeps @group's (qgpu_mem_charge_keep())
 * @group: the group's charge
 *
 * As RM's ctxBufPoolReserve() for the channel: a chunk the pool holds and no channel uses serves,
 * or else the pool takes one more, charged to the group if it fits under ``mem_max`` (a refusal
 * is counted). The chunks stay charged while the pool holds them (DOC: context buffers in
 * qgpu_ctxbuf.c); the channel's charge gives its chunk back to the pool with its last reference
 * (qgpu_mem_pool_leave()).
 *
 * Return: false when one more chunk is past the limit (nothing drawn then).
 */
bool qgpu_mem_pool_draw(struct qgpu_mem_charge *chan, struct qgpu_mem_charge *group)
{
	struct qgpu_instance *inst = group->inst;
	bool ok = true;

	spin_lock(&inst->mem.lock);
	if (group->blocks == group->chunks) {	/* none free: the pool takes one more */
		ok = qgpu_mem_try_add_locked(&inst->mem.vid, NVRM_CTXBUF_CHANNEL_BYTES);
		if (ok)
			group->chunks++;
	}
	if (ok)
		group->blocks++;
	spin_unlock(&inst->mem.lock);
	if (!ok) {
		qgpu_mem_refused(inst, false, NVRM_CTXBUF_CHANNEL_BYTES);
		return false;
	}
	chan->pooled = true;	/* its last reference gives the chunk back to the pool */
	return true;
}

/*
 * A channel that drew a chunk of @group's pool went, or was never made: the chunk stays in the
 * pool, and charged, for the group's next channel. Where the channel object went (@release: not
 * only a UVM registration's hold on it), RM's pool gives all its chunks back if no channel's
 * instance block is left in it (ctxBufPoolRelease()), and so are they uncharged.
 */
static void qgpu_mem_pool_leave(struct qgpu_mem_charge *group, bool release)
{
	struct qgpu_instance *inst = group->inst;

	spin_lock(&inst->mem.lock);
	if (!WARN_ON_ONCE(!group->blocks))
		group->blocks--;
	if (release && !group->blocks) {
		qgpu_mem_sub_locked(&inst->mem.vid, (u64)group->chunks * NVRM_CTXBUF_CHANNEL_BYTES);
		group->chunks = 0;
	}
	spin_unlock(&inst->mem.lock);
}

/* The last reference to @c went: what it charged goes; @release as for qgpu_mem_pool_leave(). */
static void qgpu_mem_charge_free(struct qgpu_mem_charge *c, bool release)
{
	struct qgpu_mem_charge *under = c->under;

	if (c->pooled)
		qgpu_mem_pool_leave(under, release);
	qgpu_mem_uncharge(c->inst, c->sys, c->size + (u64)c->chunks * NVRM_CTXBUF_CHANNEL_BYTES);
	if (c->channel)
		qgpu_channels_put(c->inst);
	if (c->in_node)
		kfree_rcu(container_of(c, struct qgpu_mem_made, charge), charge.rcu);
	else
		kfree_rcu(c, rcu);
	if (under)
		qgpu_mem_charge_put(under);
}

/**
 * qgpu_mem_charge_put() - a holder of the memory let it go; the last one uncharges it
 * @c: the charge
 */
void qgpu_mem_charge_put(struct qgpu_mem_charge *c)
{
	if (refcount_dec_and_test(&c->ref))
		qgpu_mem_charge_free(c, true);
}

/**
 * qgpu_mem_charge_put_retained() - a UVM registration let go of a channel's charge
 * @c: the channel's charge
 *
 * As qgpu_mem_charge_put(), but where this was the last reference, the channel object had gone
 * before: UVM's letting go frees its instance block into its group's pool without releasing the
 * pool (uvm_channel_retainer.c), so the pool's chunks stay charged.
 */
void qgpu_mem_charge_put_retained(struct qgpu_mem_charge *c)
{
	if (refcount_dec_and_test(&c->ref))
		qgpu_mem_charge_free(c, false);
}

/**
 * qgpu_mem_charge_keep() - a charge keeps another until its own last reference goes
 * @c: the charge, not yet shared
 * @under: the charge it keeps (the caller's reference is taken over), or NULL
 *
 * A channel's charge keeps its group's: RM frees a group only after its channels, and what keeps
 * a channel (a copy, UVM's retention of it) keeps its group.
 */
void qgpu_mem_charge_keep(struct qgpu_mem_charge *c, struct qgpu_mem_charge *under)
{
	c->under = under;
}

static void qgpu_mem_node_release(struct qgpu_rmnode *node)
{
	qgpu_mem_charge_put(node->payload);
}

static const struct qgpu_rmnode_ops qgpu_mem_node_ops = {
	.release = qgpu_mem_node_release,
};

static void qgpu_mem_client_release(struct qgpu_rmnode *node)
{
	struct qgpu_mem_client *mc = node->payload;

	xa_cmpxchg(&mc->inst->mem.clients, qgpu_mem_client_key(node->handle), mc, NULL,
		   GFP_KERNEL);
	if (mc->held[0])
		qgpu_mem_uncharge(mc->inst, false, mc->held[0]);
	if (mc->held[1])
		qgpu_mem_uncharge(mc->inst, true, mc->held[1]);
	kfree_rcu(mc, rcu);
}

static const struct qgpu_rmnode_ops qgpu_mem_client_ops = {
	.release = qgpu_mem_client_release,
};

/*
 * Attach a charge (already counted in used) to @node, taking over the caller's reference; false
 * when the node already carries state. A duplicate looks the charge up locklessly (see
 * qgpu_mem_charge_of()): @ops is published after @payload. A channel group's (a copy of one, or an
 * import) is held as the group's own node holds it (qgpu_mem_hold()), which leaves the node's
 * @ops to the scheduler: the copy names the same group on the GPU (qgpu_sched_rm_copy()).
 */
bool qgpu_mem_attach(struct qgpu_rmnode *node, struct qgpu_mem_charge *c)
{
	if (node->ops || node->held)
		return false;
	if (c->group) {
		qgpu_mem_hold(node, c);
		return true;
	}
	node->payload = c;
	/* Pairs with the acquire in qgpu_mem_charge_of(): who sees @ops sees @payload. */
	smp_store_release(&node->ops, &qgpu_mem_node_ops);
	return true;
}

/*
 * A charge of @size bytes (none for 0) in @sys's pool, if it fits (a refusal is counted), or
 * whatever the limit says (@force).
 */
static struct qgpu_mem_charge *qgpu_mem_charge_make(struct qgpu_instance *inst, bool sys,
						    u64 size, bool force)
{
	struct qgpu_mem_charge *c;

	if (force) {
		qgpu_mem_force_charge(inst, sys, size);
	} else if (size && !qgpu_mem_try_charge(inst, sys, size)) {
		qgpu_mem_refused(inst, sys, size);
		return NULL;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c) {
		qgpu_mem_uncharge(inst, sys, size);
		return NULL;
	}
	refcount_set(&c->ref, 1);
	c->size = size;
	c->inst = inst;
	c->sys = sys;
	return c;
}

/**
 * qgpu_mem_charge_new() - charge video memory RM allocates for an object that is not memory
 * @inst: the instance
 * @size: bytes, 0 for none (the charge then only carries what qgpu_mem_hold() gives it)
 *
 * For what RM will allocate, before the call is forwarded: over the limit it is counted as a
 * refusal (``events``, netlink ``oom``).
 *
 * Return: the charge (counted, one reference), or NULL: over the limit, or out of memory.
 */
struct qgpu_mem_charge *qgpu_mem_charge_new(struct qgpu_instance *inst, u64 size)
{
	return qgpu_mem_charge_make(inst, false, size, false);
}

/**
 * qgpu_mem_charge_forced() - charge video memory RM already holds for the instance, whatever the
 * limit says
 * @inst: the instance
 * @size: bytes
 *
 * For what could not be refused any more (qgpu_uvm_channel.c). The instance's use may then read
 * above its ``mem_max`` until the charge goes.
 *
 * Return: the charge, or NULL when out of memory (nothing charged then).
 */
struct qgpu_mem_charge *qgpu_mem_charge_forced(struct qgpu_instance *inst, u64 size)
{
	return qgpu_mem_charge_make(inst, false, size, true);
}

/**
 * qgpu_mem_charge_count_channel() - a charge takes over one of its instance's ``channels`` count
 * @c: a charge of a channel or channel group, not yet shared
 *
 * The count is given back with the charge's last reference (qgpu_mem_charge_put()).
 */
void qgpu_mem_charge_count_channel(struct qgpu_mem_charge *c)
{
	c->channel = true;
}

/**
 * qgpu_mem_charge_mark_group() - a charge is a channel group's
 * @c: a charge of a channel group, not yet shared
 */
void qgpu_mem_charge_mark_group(struct qgpu_mem_charge *c)
{
	c->group = true;
}

/**
 * qgpu_mem_charge_is_group() - is this a channel group's charge?
 * @c: the charge
 *
 * A copy of a group made through another file's client, or imported, has a mirror node whose
 * class qgpu did not read; its charge is the group's, or one of its own that RM's answer made a
 * group's (qgpu_ctxbuf_own()).
 *
 * Return: whether qgpu_mem_charge_mark_group() marked it.
 */
bool qgpu_mem_charge_is_group(const struct qgpu_mem_charge *c)
{
	return c->group;
}

/**
 * qgpu_mem_hold() - an object that is not memory holds a charge until its last holder goes
 * @node: the object's node, which carries no such charge yet
 * @c: the charge; the node takes over the caller's reference
 *
 * Its copies and exports share the charge (qgpu_mem_charge_of(), qgpu_mem_node_charge()).
 *
 * Context: the tracker's lock held.
 */
void qgpu_mem_hold(struct qgpu_rmnode *node, struct qgpu_mem_charge *c)
{
	/* Pairs with the acquire in qgpu_mem_charge_of(). */
	smp_store_release(&node->held, c);
}

/**
 * qgpu_mem_node_charge() - the charge a mirror node carries, as a new reference
 * @node: the node (its tracker's lock held), or NULL
 *
 * Return: the charge, or NULL when @node holds nothing charged: neither charged memory nor what RM
 * allocated for the object itself (qgpu_mem_hold()).
 */
struct qgpu_mem_charge *qgpu_mem_node_charge(struct qgpu_rmnode *node)
{
	struct qgpu_mem_charge *c;

	if (!node)
		return NULL;
	c = node->ops == &qgpu_mem_node_ops ? node->payload : node->held;
	if (c)
		refcount_inc(&c->ref);
	return c;
}

/**
 * qgpu_mem_charge_tryget() - another reference to a charge found under RCU
 * @c: the charge, or NULL
 *
 * Context: rcu_read_lock() held since @c was found.
 * Return: @c, or NULL when its last holder is letting it go.
 */
struct qgpu_mem_charge *qgpu_mem_charge_tryget(struct qgpu_mem_charge *c)
{
	return c && refcount_inc_not_zero(&c->ref) ? c : NULL;
}

/* Asking RM, and acting on the tenant's behalf */

/* Is the system memory under @handle RM's own allocation (0x3E), rather than pinned user pages? */
static bool qgpu_mem_rm_sysmem(u32 hclient, u32 handle)
{
	u32 hclass;

	return qgpu_kclient_class_of(hclient, handle, &hclass) == NVRM_OK &&
	       hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM;
}

/**
 * qgpu_mem_rm_query() - what RM holds under a tenant's handle
 * @hclient: the tenant's client
 * @handle: the object
 * @size: the bytes of charged memory it is
 * @sys: set to whether it is system memory (DOC: system memory) rather than video memory
 *
 * Return: 0 for charged memory (@size and @sys set); -ENOENT when RM has no such object; -EINVAL
 * when it is something else; -ENODEV when qgpu cannot ask (no kernel client).
 */
static int qgpu_mem_rm_query(u32 hclient, u32 handle, u64 *size, bool *sys)
{
	struct nvrm_surface_info list[2] = {
		{ .index = NVRM_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE },
		{ .index = NVRM_SURFACE_INFO_INDEX_PHYS_SIZE },
	};
	struct nvrm_get_surface_info p = {
		.surface_info_list_size = ARRAY_SIZE(list),
		.surface_info_list = (u64)(uintptr_t)list,
	};
	u32 status;

	if (!qgpu_kclient_ready())
		return -ENODEV;
	/* Kernel calls may name the tenant's client: ask about its handle directly. */
	status = qgpu_kclient_control_in(hclient, handle, NVRM_CTRL_CMD_NV0041_GET_SURFACE_INFO,
					 &p, sizeof(p));
	switch (status) {
	case NVRM_OK:
		break;
	case NVRM_ERR_OBJECT_NOT_FOUND:
	case NVRM_ERR_INVALID_OBJECT_HANDLE:
	case NVRM_ERR_INVALID_CLIENT:
		return -ENOENT;
	default:
		return -EINVAL;	/* not a memory object */
	}
	switch (list[0].data) {
	case NVRM_ADDR_SPACE_TYPE_VIDMEM:
		*sys = false;
		break;
	case NVRM_ADDR_SPACE_TYPE_SYSMEM:
		if (!qgpu_mem_rm_sysmem(hclient, handle))
			return -EINVAL;
		*sys = true;
		break;
	default:
		return -EINVAL;
	}
	*size = (u64)list[1].data * NVRM_SURFACE_INFO_PHYS_SIZE_SCALE;
	return 0;
}

/**
 * struct qgpu_mem_req - one charged allocation in flight
 * @track: the tracker whose mirror gets the object (the ctl file's whose clients RM uses)
 * @hclient: the tenant's client
 * @hparent: the parent the request named
 * @handle: the handle the kernel copy named, 0 when RM chooses
 * @hclass: the class RM is to make
 * @sys: system memory (DOC: system memory), not video memory
 * @reserved: bytes reserved before forwarding
 * @ustatus: the status field in the tenant's parameters
 */
struct qgpu_mem_req {
	struct qgpu_rmtrack *track;
	u32 hclient;
	u32 hparent;
	u32 handle;
	u32 hclass;
	bool sys;
	u64 reserved;
	u32 __user *ustatus;
};

static long qgpu_mem_fail(const struct qgpu_mem_req *r)
{
	return put_user(NVRM_ERR_NO_MEMORY, r->ustatus) ? -EFAULT : 0;
}

/*
 * The tenant raced its own call: what RM made is not what qgpu can name. Free the whole client;
 * if even that does not take, the reservation stays charged to the client until RM frees it.
 */
static long qgpu_mem_tampered(struct qgpu_file *qf, const struct qgpu_mem_req *r)
{
	struct qgpu_rmtrack *t = r->track;
	struct qgpu_rmnode *root;

	pr_warn_ratelimited("instance %s: pid %d raced its own allocation; freeing its RM client 0x%x\n",
			    qf->inst->name, task_tgid_nr(current), r->hclient);
	qgpu_kclient_free_in(r->hclient, r->hclient);
	if (!qgpu_rmtrack_rm_has(r->hclient, r->hclient)) {
		qgpu_rmtrack_freed(t, r->hclient, r->hclient);
		qgpu_mem_uncharge(qf->inst, r->sys, r->reserved);
	} else {
		root = qgpu_rmtrack_find(t, r->hclient, r->hclient);
		if (root && root->ops == &qgpu_mem_client_ops)
			((struct qgpu_mem_client *)root->payload)->held[r->sys] += r->reserved;
	}
	return qgpu_mem_fail(r);
}

/*
 * RM made @hnew of @actual bytes of @r's kind of memory: settle the reservation into a charge on
 * its mirror node. False when it no longer fits and was freed again (the call is to fail with
 * NV_ERR_NO_MEMORY). Context: the tracker's lock held.
 */
static bool qgpu_mem_charge_made(struct qgpu_file *qf, const struct qgpu_mem_req *r, u32 hnew,
				 u64 actual)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_rmtrack *t = r->track;
	struct qgpu_mem_made *made;

	if (actual > r->reserved && !qgpu_mem_try_charge(inst, r->sys, actual - r->reserved)) {
		qgpu_mem_uncharge(inst, r->sys, r->reserved);
		qgpu_mem_refused(inst, r->sys, actual);
		qgpu_kclient_free_in(r->hclient, hnew);
		if (!qgpu_rmtrack_rm_has(r->hclient, hnew))
			return false;
		/* the free did not take: keep it counted */
		qgpu_mem_force_charge(inst, r->sys, actual);
	} else if (actual < r->reserved) {
		qgpu_mem_uncharge(inst, r->sys, r->reserved - actual);
	}

	made = kzalloc(sizeof(*made), GFP_KERNEL_ACCOUNT);
	if (made) {
		refcount_set(&made->charge.ref, 1);
		made->charge.size = actual;
		made->charge.inst = inst;
		made->charge.sys = r->sys;
		made->charge.in_node = true;
		made->node.handle = hnew;
		made->node.hclass = r->hclass;
		made->node.in_payload = true;
		qgpu_mem_attach(&made->node, &made->charge);	/* a new node: cannot fail */
		if (qgpu_rmtrack_insert_made(t, r->hclient, r->hparent, &made->node))
			return true;
		kfree(made);
	}
	/* Out of memory for the record: RM's object cannot be accounted, so it goes. */
	qgpu_kclient_free_in(r->hclient, hnew);
	if (!qgpu_rmtrack_rm_has(r->hclient, hnew)) {
		qgpu_rmtrack_freed(t, r->hclient, hnew);
		qgpu_mem_uncharge(inst, r->sys, actual);
		return false;
	}
	return true;	/* stays charged, never uncharged: errs on the tenant's side of the limit */
}

/*
 * RM said it allocated @hnew: verify, settle the reservation into a charge on its mirror node.
 * Context: the tracker's lock held.
 */
static long qgpu_mem_settle(struct qgpu_file *qf, const struct qgpu_mem_req *r, u32 hnew)
{
	u64 actual = r->reserved;
	bool sys = r->sys;
	int q;

	if (!hnew || (r->handle && hnew != r->handle) ||
	    qgpu_rmtrack_find(r->track, r->hclient, hnew))
		return qgpu_mem_tampered(qf, r);
	q = qgpu_mem_rm_query(r->hclient, hnew, &actual, &sys);
	if ((q && q != -ENODEV) || sys != r->sys)
		return qgpu_mem_tampered(qf, r);
	return qgpu_mem_charge_made(qf, r, hnew, actual) ? 0 : qgpu_mem_fail(r);
}

/*
 * Reserve before forwarding; false (status written) when it does not fit. System memory is
 * reserved at the least RM can allocate for it (whole pages); RM may choose larger pages, and
 * the settlement charges what it did.
 */
static bool qgpu_mem_reserve(struct qgpu_file *qf, struct qgpu_mem_req *r, u64 size, u32 attr,
			     u32 flags, u64 alignment, long *ret)
{
	u64 want = r->sys ? qgpu_sysmem_reserve_size(size) :
			    qgpu_mem_reserve_size(size, attr, flags, alignment);

	if (want && qgpu_mem_try_charge(qf->inst, r->sys, want)) {
		r->reserved = want;
		return true;
	}
	qgpu_mem_refused(qf->inst, r->sys, want ?: size);
	*ret = qgpu_mem_fail(r);
	return false;
}

/*
 * Does RM allocate memory for these params of @r's class? RM refuses 0x40 outside video memory
 * (video_mem.c) and 0x3E in it or virtual (sysmemConstruct_IMPL() in system_mem.c); what it
 * refuses reserves nothing.
 */
static bool qgpu_mem_placed(const struct qgpu_mem_req *r, const struct nvrm_mem_alloc *m)
{
	if (r->sys)
		return !m->is_vidmem && !(m->flags & NVRM_ALLOC_FLAGS_VIRTUAL);
	return m->is_vidmem;
}

/* The charged allocation an RM_ALLOC (NVOS21 or NVOS64 at @arg) asks for, as qgpu decoded it. */
static struct qgpu_mem_req qgpu_mem_req_of(struct qgpu_file *qf, unsigned long arg,
					   const struct nvrm_alloc *a)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;

	return (struct qgpu_mem_req) {
		.track = qf->track,
		.hclient = a->hroot,
		.hparent = a->hparent,
		.handle = a->hnew,
		.hclass = a->hclass,
		.sys = a->hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM,
		.ustatus = (u32 __user *)(arg + (a->is_nvos64 ? abi->nvos64_status_off :
						 abi->nvos21_status_off)),
	};
}

/*
 * RM_ALLOC of charged memory (0x40, 0x3E) without a kernel client: reserve, forward, verify,
 * charge. RM reads the tenant's request itself, so a sibling that rewrites both the handle and
 * the status around RM's reads leaves the allocation uncharged (see DOC: memory limits).
 */
static long qgpu_mem_rm_alloc_forward(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				      bool compat, const struct nvrm_alloc *a)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u8 ap[sizeof(struct nvrm_memory_allocation_params)];
	u32 ap_size = abi->mem_alloc_params_size;
	struct qgpu_mem_req r = qgpu_mem_req_of(qf, arg, a);
	struct nvrm_mem_alloc m;
	u32 status, hnew;
	long ret;

	/*
	 * Parameters qgpu cannot read, or that RM refuses for the class, reserve nothing: RM fails
	 * the call, or, if a sibling fixed them meanwhile, verification charges it.
	 */
	if (a->params_ptr && ap_size <= sizeof(ap) &&
	    !copy_from_user(ap, u64_to_user_ptr(a->params_ptr), ap_size) &&
	    !nvrm_mem_alloc_decode(abi, ap, ap_size, &m) && qgpu_mem_placed(&r, &m) &&
	    !qgpu_mem_reserve(qf, &r, m.size, m.attr, m.flags, m.alignment, &ret))
		return ret;

	ret = qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	/*
	 * What RM wrote back: the status and hObjectNew, at places the kernel copy's layout fixed
	 * (NVOS21 and NVOS64 share the prefix up to pAllocParms); two loads, no copy and decode.
	 */
	if (ret || get_user(status, r.ustatus) ||
	    get_user(hnew, (u32 __user *)(arg + offsetof(struct nvrm_nvos21_v535, hobject_new))) ||
	    status != NVRM_OK) {
		/* Failed, or the status was rewritten: verification tells which. */
		if (!ret && r.handle && qgpu_rmtrack_rm_has(r.hclient, r.handle) &&
		    !qgpu_rmtrack_find(qf->track, r.hclient, r.handle))
			return qgpu_mem_settle(qf, &r, r.handle);
		qgpu_mem_uncharge(qf->inst, r.sys, r.reserved);
		return ret;
	}
	return qgpu_mem_settle(qf, &r, hnew);
}

/**
 * qgpu_mem_rm_alloc_done() - RM_ALLOC of another class succeeded and is mirrored
 * @qf: the proxy ctl file
 * @arg: the tenant's NVOS21/NVOS64
 * @a: the kernel copy of the request
 * @node: its mirror node, or NULL
 * @hnew: the handle RM wrote back
 *
 * A new client joins the instance's clients. Anything else is asked of RM: charged memory here
 * means the tenant changed the class after qgpu looked (see DOC: memory limits).
 *
 * Context: the tracker's lock held.
 * Return: 0, or what the ioctl returns instead (its status then says NV_ERR_NO_MEMORY).
 */
long qgpu_mem_rm_alloc_done(struct qgpu_file *qf, unsigned long arg, const struct nvrm_alloc *a,
			    struct qgpu_rmnode *node, u32 hnew)
{
	struct qgpu_mem_req r = qgpu_mem_req_of(qf, arg, a);
	struct qgpu_mem_client *mc;
	bool sys;
	u64 size;

	if (node && !node->parent) {
		mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
		if (!mc)
			return 0;
		mc->inst = qf->inst;
		mc->root = node;
		mc->serial = atomic64_inc_return(&qgpu_mem_client_serials);
		mc->track = qf->track;
		if (xa_err(xa_store(&qf->inst->mem.clients, qgpu_mem_client_key(node->handle),
				    mc, GFP_KERNEL_ACCOUNT))) {
			kfree(mc);
			return 0;
		}
		node->ops = &qgpu_mem_client_ops;
		node->payload = mc;
		return 0;
	}
	if (qgpu_mem_rm_query(a->hroot, hnew, &size, &sys))
		return 0;
	return qgpu_mem_tampered(qf, &r);
}

/* The charged allocation a VID_HEAP_CONTROL ALLOC_* (NVOS32 at @arg) asks for. */
static struct qgpu_mem_req qgpu_mem_vid_heap_req_of(struct qgpu_file *qf, unsigned long arg,
						    const struct nvrm_vidheap *v)
{
	return (struct qgpu_mem_req) {
		.track = qf->track,
		.hclient = v->hroot,
		.hparent = v->hparent,
		.handle = v->alloc_flags & NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED ? v->hmemory : 0,
		/* what the converter makes (rmapi_deprecated_vidheapctrl.c) */
		.hclass = v->is_vidmem ? NVRM_CLASS_NV01_MEMORY_LOCAL_USER :
					 NVRM_CLASS_NV01_MEMORY_SYSTEM,
		.sys = !v->is_vidmem,
		.ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos32, status)),
	};
}

/**
 * qgpu_mem_vid_heap_done() - RM_VID_HEAP_CONTROL ALLOC_* of virtual memory succeeded
 * @qf: the proxy ctl file
 * @arg: the tenant's NVOS32
 * @v: the kernel copy of the request
 * @hmemory: the handle RM wrote back
 *
 * Charged memory here means the tenant changed the request after qgpu looked.
 *
 * Context: the tracker's lock held.
 * Return: 0, or what the ioctl returns instead (its status then says NV_ERR_NO_MEMORY).
 */
long qgpu_mem_vid_heap_done(struct qgpu_file *qf, unsigned long arg,
			    const struct nvrm_vidheap *v, u32 hmemory)
{
	struct qgpu_mem_req r = qgpu_mem_vid_heap_req_of(qf, arg, v);
	bool sys;
	u64 size;

	if (qgpu_mem_rm_query(v->hroot, hmemory, &size, &sys))
		return 0;
	return qgpu_mem_tampered(qf, &r);
}

/* VID_HEAP_CONTROL ALLOC_* of charged memory without a kernel client: as above. */
static long qgpu_mem_vid_heap_forward(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				      u32 size, bool compat, const struct nvrm_vidheap *v)
{
	struct qgpu_mem_req r = qgpu_mem_vid_heap_req_of(qf, arg, v);
	struct nvrm_vidheap done;
	struct nvrm_nvos32 raw;
	long ret;

	if (!qgpu_mem_reserve(qf, &r, v->size, v->attr, v->alloc_flags, 0, &ret))
		return ret;
	ret = qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (ret || copy_from_user(&raw, (void __user *)arg, size) ||
	    nvrm_vidheap_decode(&raw, size, &done) || done.status != NVRM_OK) {
		if (!ret && r.handle && qgpu_rmtrack_rm_has(r.hclient, r.handle) &&
		    !qgpu_rmtrack_find(qf->track, r.hclient, r.handle))
			return qgpu_mem_settle(qf, &r, r.handle);
		qgpu_mem_uncharge(qf->inst, r.sys, r.reserved);
		return ret;
	}
	return qgpu_mem_settle(qf, &r, done.hmemory);
}

/*
 * Before qgpu makes an allocation itself: the client must be one this file made (RM checks that
 * only for user calls), and what RM honours only for kernel callers is refused as RM refuses it
 * a user (nvrm_abi.h). NVRM_OK, or the status to answer.
 */
static u32 qgpu_mem_made_check(struct qgpu_file *qf, u32 hclient, u32 attr2, u32 internal_flags)
{
	if (!qgpu_rmtrack_find(qf->track, hclient, hclient))
		return NVRM_ERR_INVALID_CLIENT;
	return nvrm_mem_alloc_user_status(attr2, internal_flags);
}

/**
 * qgpu_mem_rm_alloc() - RM_ALLOC of NV01_MEMORY_LOCAL_USER or NV01_MEMORY_SYSTEM: reserve,
 * allocate, charge
 * @qf: the proxy ctl file
 * @cmd: the command to forward (only without a kernel client)
 * @arg: the tenant's NVOS21/NVOS64
 * @size: its size
 * @compat: forward to compat_ioctl
 * @a: qgpu's decoded kernel copy of it
 *
 * qgpu makes the allocation itself, through its kernel client and from its own copies of the
 * request and of NV_MEMORY_ALLOCATION_PARAMS, so RM reads nothing a sibling thread can rewrite:
 * the handle, the parent, the class and the size RM uses are the ones qgpu charged, and the
 * handle and size RM writes back land in qgpu's copy. It then writes back what a direct call
 * would: the params, hObjectNew and the status. pRightsRequested is not passed on (RM's
 * default rights, as for NVOS21). See DOC: memory limits and DOC: system memory.
 *
 * Context: the tracker's lock held.
 * Return: what the ioctl returns.
 */
long qgpu_mem_rm_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
		       bool compat, const struct nvrm_alloc *a)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u8 ap[sizeof(struct nvrm_memory_allocation_params)];
	u32 ap_size = abi->mem_alloc_params_size;
	struct qgpu_mem_req r = qgpu_mem_req_of(qf, arg, a);
	struct nvrm_mem_alloc m = { 0 };
	bool decoded = false, sys;
	void *params = NULL;
	u32 status, hnew = a->hnew;
	u64 actual;
	long ret;

	if (!qgpu_kclient_ready())
		return qgpu_mem_rm_alloc_forward(qf, cmd, arg, compat, a);
	if (a->params_ptr) {
		/* RM copies the class's params at its own size for the version (alloc_free.c) */
		if (ap_size > sizeof(ap) ||
		    copy_from_user(ap, u64_to_user_ptr(a->params_ptr), ap_size)) {
			status = NVRM_ERR_INVALID_ADDRESS;
			goto out;
		}
		params = ap;
		decoded = !nvrm_mem_alloc_decode(abi, ap, ap_size, &m);
	}
	status = qgpu_mem_made_check(qf, a->hroot, m.attr2, m.internal_flags);
	if (status)
		goto out;
	if (decoded) {
		nvrm_mem_alloc_as_user(abi, ap, ap_size);
		/* What RM refuses for the class has nothing to reserve. */
		if (qgpu_mem_placed(&r, &m) &&
		    !qgpu_mem_reserve(qf, &r, m.size, m.attr, m.flags, m.alignment, &ret))
			return ret;
	}
	status = qgpu_kclient_alloc_in(a->hroot, a->hparent, a->hclass, params, &hnew);
	if (status != NVRM_OK) {
		qgpu_mem_uncharge(qf->inst, r.sys, r.reserved);
		goto out;
	}
	/* RM wrote the size it allocated into qgpu's copy; without params, it is RM's to tell */
	if (decoded && !nvrm_mem_alloc_decode(abi, ap, ap_size, &m))	/* same size: cannot fail */
		actual = m.size;
	else if (qgpu_mem_rm_query(a->hroot, hnew, &actual, &sys))
		actual = r.reserved;
	if (!qgpu_mem_charge_made(qf, &r, hnew, actual))
		return qgpu_mem_fail(&r);
	/* As RM: the object stays when the params cannot be copied back. */
	if (params && copy_to_user(u64_to_user_ptr(a->params_ptr), ap, ap_size))
		pr_debug("alloc params copy-back failed\n");
	if (put_user(hnew, (u32 __user *)(arg + offsetof(struct nvrm_nvos21_v535, hobject_new))))
		return -EFAULT;
out:
	return put_user(status, r.ustatus) ? -EFAULT : 0;
}

/**
 * qgpu_mem_vid_heap_alloc() - RM_VID_HEAP_CONTROL ALLOC_* in video or system memory: reserve,
 * allocate, charge
 * @qf: the proxy ctl file
 * @cmd: the command to forward (only without a kernel client)
 * @arg: the tenant's NVOS32
 * @size: its size
 * @compat: forward to compat_ioctl
 * @raw: qgpu's kernel copy of it; RM's outputs are written into it
 * @v: the same, decoded (not VIRTUAL)
 *
 * As qgpu_mem_rm_alloc(): qgpu makes the call through its kernel client from @raw, whose attr and
 * flags also decide the class RM makes, and copies the whole NVOS32 back as the driver does.
 *
 * Context: the tracker's lock held.
 * Return: what the ioctl returns.
 */
long qgpu_mem_vid_heap_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			     u32 size, bool compat, struct nvrm_nvos32 *raw,
			     const struct nvrm_vidheap *v)
{
	struct qgpu_mem_req r = qgpu_mem_vid_heap_req_of(qf, arg, v);
	struct nvrm_vidheap done;
	u32 status;
	long ret;

	if (!qgpu_kclient_ready())
		return qgpu_mem_vid_heap_forward(qf, cmd, arg, size, compat, v);
	status = qgpu_mem_made_check(qf, v->hroot, v->attr2, 0);
	if (status)
		return put_user(status, r.ustatus) ? -EFAULT : 0;
	nvrm_vidheap_as_user(raw, size);
	if (!qgpu_mem_reserve(qf, &r, v->size, v->attr, v->alloc_flags, 0, &ret))
		return ret;
	status = qgpu_kclient_vid_heap_in(raw);
	if (status != NVRM_OK || nvrm_vidheap_decode(raw, size, &done)) {
		qgpu_mem_uncharge(qf->inst, r.sys, r.reserved);
		return copy_to_user((void __user *)arg, raw, size) ? -EFAULT : 0;
	}
	if (!qgpu_mem_charge_made(qf, &r, done.hmemory, done.size))
		return qgpu_mem_fail(&r);
	return copy_to_user((void __user *)arg, raw, size) ? -EFAULT : 0;
}

/**
 * qgpu_mem_dup_refused() - RM_DUP_OBJECT from a client outside the instance is refused
 * @qf: the proxy ctl file
 * @p: qgpu's kernel copy of NVOS55
 * @arg: the tenant's NVOS55
 * @ret: what the ioctl returns, when refused
 *
 * Return: true if refused (NV_ERR_INVALID_CLIENT in the status; RM never sees the call).
 */
bool qgpu_mem_dup_refused(struct qgpu_file *qf, const struct nvrm_nvos55 *p, unsigned long arg,
			  long *ret)
{
	u32 __user *ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos55, status));

	if (xa_load(&qf->inst->mem.clients, qgpu_mem_client_key(p->hclient_src)))
		return false;
	*ret = put_user(NVRM_ERR_INVALID_CLIENT, ustatus) ? -EFAULT : 0;
	return true;
}

/**
 * qgpu_mem_client_mark() - where a client's objects stand, before a handle of it is looked up
 * @inst: the instance
 * @hclient: the client
 * @mark: filled in, for qgpu_mem_client_unchanged()
 *
 * Return: false when @hclient is not one of the instance's clients.
 */
bool qgpu_mem_client_mark(struct qgpu_instance *inst, u32 hclient, struct qgpu_mem_mark *mark)
{
	struct qgpu_mem_client *mc;

	rcu_read_lock();
	mc = xa_load(&inst->mem.clients, qgpu_mem_client_key(hclient));
	if (mc) {
		mark->serial = mc->serial;
		mark->made = atomic_long_read_acquire(&mc->track->made);
	}
	rcu_read_unlock();
	return mc;
}

/**
 * qgpu_mem_client_unchanged() - no object could have appeared in the client since the mark
 * @inst: the instance
 * @hclient: the client
 * @mark: what qgpu_mem_client_mark() found
 *
 * True when it is the same client record and no call that can make an object in it, of the file
 * it is bound to, was in flight at the mark or began since (struct qgpu_rmtrack @making): a handle
 * the mirror had at the mark then names, for any call RM ordered after the mark, what it named
 * then or nothing (a free and reuse of a handle needs a call that makes one). Sealed, RM makes an
 * object in the client qgpu read; unsealed, a sibling thread can move a call to another client of
 * the same file, which is counted the same, but not to another file's: RM refuses those.
 */
bool qgpu_mem_client_unchanged(struct qgpu_instance *inst, u32 hclient,
			       const struct qgpu_mem_mark *mark)
{
	struct qgpu_mem_client *mc;
	bool same;

	/* RM's lock ordered the call after every making it saw: see them counted. */
	smp_mb();
	rcu_read_lock();
	mc = xa_load(&inst->mem.clients, qgpu_mem_client_key(hclient));
	same = mc && mc->serial == mark->serial &&
	       atomic_long_read(&mc->track->making) == mark->made;
	rcu_read_unlock();
	return same;
}

/**
 * qgpu_mem_charge_of() - the charge of an instance's memory, found through its client's mirror
 * @inst: the instance
 * @hclient: a client, named by the tenant
 * @handle: memory in it
 * @known: if not NULL, set to whether @hclient is one of @inst's clients
 *
 * For a duplicate's source (in this ctl file or another of the instance) and for UVM's duplicates
 * (qgpu_uvm_hold.c). Takes no tracker's lock: the client's mirror is read under RCU.
 *
 * Return: a reference to the charge, or NULL: no such client in @inst, or no charged memory.
 */
struct qgpu_mem_charge *qgpu_mem_charge_of(struct qgpu_instance *inst, u32 hclient, u32 handle,
					   bool *known)
{
	struct qgpu_mem_charge *c = NULL;
	struct qgpu_mem_client *mc;
	struct qgpu_rmnode *src;

	rcu_read_lock();
	mc = xa_load(&inst->mem.clients, qgpu_mem_client_key(hclient));
	if (known)
		*known = mc;
	src = mc ? qgpu_rmtrack_lookup_rcu(mc->root, handle) : NULL;
	/* Pairs with the release in qgpu_mem_attach(): @payload is the charge once @ops says so. */
	if (src && smp_load_acquire(&src->ops) == &qgpu_mem_node_ops)
		c = READ_ONCE(src->payload);
	else if (src)	/* what RM allocated for the object itself (qgpu_mem_hold()) */
		c = smp_load_acquire(&src->held);
	if (c && !refcount_inc_not_zero(&c->ref))
		c = NULL;
	rcu_read_unlock();
	return c;
}

/**
 * qgpu_mem_dup_begin() - before RM duplicates: find the source's charge
 * @qf: the proxy ctl file
 * @p: qgpu's kernel copy of NVOS55 (the request RM is given)
 * @d: filled in; passed to qgpu_mem_dup_end()
 *
 * Context: the tracker's lock held.
 */
void qgpu_mem_dup_begin(struct qgpu_file *qf, const struct nvrm_nvos55 *p,
			struct qgpu_mem_dup *d)
{
	d->local = qgpu_rmtrack_find(qf->track, p->hclient_src, p->hclient_src);
	qgpu_rmtrack_making(qf->track);
	/* ORDER: the mark before the lookup; a making seen after it voids what was found. */
	d->marked = qgpu_mem_client_mark(qf->inst, p->hclient_src, &d->src);
	d->charge = qgpu_mem_charge_of(qf->inst, p->hclient_src, p->hobject_src, NULL);
}

/**
 * qgpu_mem_dup_abort() - RM made no duplicate
 * @qf: the proxy ctl file
 * @d: what qgpu_mem_dup_begin() found
 */
void qgpu_mem_dup_abort(struct qgpu_file *qf, struct qgpu_mem_dup *d)
{
	if (d->charge)
		qgpu_mem_charge_put(d->charge);
	qgpu_rmtrack_made(qf->track);
}

/**
 * qgpu_mem_own_charge() - a new charge for what RM says a handle is
 * @inst: the instance to charge
 * @hclient: the tenant's client
 * @handle: a duplicate or import of memory the mirror could not vouch for
 * @status: NVRM_OK, or NVRM_ERR_NO_MEMORY when it is charged memory that cannot be charged
 *	(over the limit, counted as a refusal, or RM cannot be asked)
 *
 * Return: the charge (counted in the instance's use), or NULL: no charged memory, or @status.
 */
struct qgpu_mem_charge *qgpu_mem_own_charge(struct qgpu_instance *inst, u32 hclient, u32 handle,
					    u32 *status)
{
	struct qgpu_mem_charge *c;
	bool sys = false;
	u64 size;
	int q;

	*status = NVRM_OK;
	q = qgpu_mem_rm_query(hclient, handle, &size, &sys);
	if (q == -EINVAL || q == -ENOENT)
		return NULL;	/* something else, or gone already: nothing held */
	*status = NVRM_ERR_NO_MEMORY;
	if (q)
		return NULL;
	c = qgpu_mem_charge_make(inst, sys, size, false);
	if (c)
		*status = NVRM_OK;
	return c;
}

/* qgpu_mem_dup_end() but for the file's count of calls that make objects */
static u32 qgpu_mem_dup_settle(struct qgpu_file *qf, const struct nvrm_nvos55 *p,
			       struct qgpu_mem_dup *d, struct qgpu_rmnode *node)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_mem_charge *c = d->charge;
	u32 status = NVRM_OK;

	if (!d->local &&
	    (!d->marked || !qgpu_mem_client_unchanged(inst, p->hclient_src, &d->src)) &&
	    qgpu_kclient_ready()) {
		if (c)
			qgpu_mem_charge_put(c);
		c = qgpu_mem_own_charge(inst, p->hclient, p->hobject, &status);
		if (!c && status == NVRM_OK)	/* not memory: a channel or group? */
			c = qgpu_ctxbuf_own(inst, p->hclient, p->hobject, &status);
	}
	if (!c && status == NVRM_OK)
		return NVRM_OK;
	if (c && node && qgpu_mem_attach(node, c))
		return NVRM_OK;
	if (c)
		qgpu_mem_charge_put(c);
	/* Nothing may hold memory the instance is not charged for: the duplicate goes. */
	qgpu_kclient_free_in(p->hclient, p->hobject);
	if (!qgpu_rmtrack_rm_has(p->hclient, p->hobject)) {
		if (node)
			qgpu_rmtrack_freed(qf->track, p->hclient, p->hobject);
	} else {
		pr_warn_ratelimited("instance %s: could not free an uncharged duplicate 0x%x\n",
				    inst->name, p->hobject);
	}
	return NVRM_ERR_NO_MEMORY;
}

/**
 * qgpu_mem_dup_end() - RM made the duplicate: it shares the charge of what it duplicates
 * @qf: the proxy ctl file
 * @p: the request, @p->hobject the duplicate's handle
 * @d: what qgpu_mem_dup_begin() found
 * @node: the duplicate's mirror node, or NULL when it could not be mirrored
 *
 * The source's charge as the mirror had it before the call is the duplicate's when nothing could
 * have changed the source handle's meaning in between: the source client is the calling file's
 * (its mirror changes only under the lock held), or no call that makes an object in the source
 * client was in flight or began meanwhile (qgpu_mem_client_unchanged(); a free and reuse of the
 * handle needs one: an allocation, a duplicate into it, an import). Otherwise the handle's object
 * may not be mirrored yet, or the source may have been freed and its handle reused, and the mirror
 * cannot tell which memory RM duplicated: the duplicate then gets its own charge, for the size RM
 * reports. That counts the memory twice while both handles live, which errs on the tenant's side
 * of its limit and happens only for a duplicate across files racing a call that makes objects in
 * the source's client. A charged duplicate that cannot be
 * mirrored, or its own charge that does not fit, is freed again and the call fails with
 * NV_ERR_NO_MEMORY.
 *
 * Context: the tracker's lock held.
 * Return: the RM status for the tenant.
 */
u32 qgpu_mem_dup_end(struct qgpu_file *qf, const struct nvrm_nvos55 *p, struct qgpu_mem_dup *d,
		     struct qgpu_rmnode *node)
{
	u32 status = qgpu_mem_dup_settle(qf, p, d, node);

	qgpu_rmtrack_made(qf->track);
	return status;
}

/* The tenant's view */

/* The instance's total and free, from the GPU's real free (bytes). */
static void qgpu_mem_view(struct qgpu_instance *inst, u64 real_free, u64 *total, u64 *free)
{
	struct qgpu_mem_inst *m = &inst->mem;
	u64 memory = inst->gpu->memory;

	spin_lock(&m->lock);
	*total = qgpu_mem_effective_max(m->vid.max, memory);
	*free = qgpu_mem_view_free(m->vid.max, m->vid.used, memory, real_free);
	spin_unlock(&m->lock);
}

/*
 * FB_GET_INFO_V2 on qgpu's own subdevice of the GPU with the tenant's indices, rewritten for the
 * instance: @p is a kernel buffer of the version's size.
 */
static u32 qgpu_mem_fb_info(struct qgpu_instance *inst, struct nvrm_fb_get_info_v2 *p, u32 psize)
{
	u32 i, hsub, status, free_kb = 0, n = p->fb_info_list_size;
	bool found = false;
	u64 total, free;

	status = qgpu_kclient_subdevice(inst->gpu, &hsub);
	if (status)
		return status;
	status = qgpu_kclient_control(hsub, NVRM_CTRL_CMD_FB_GET_INFO_V2, p, psize);
	if (status)
		return status;
	for (i = 0; i < n; i++) {
		if (p->fb_info_list[i].index == NVRM_FB_INFO_INDEX_HEAP_FREE) {
			free_kb = p->fb_info_list[i].data;
			found = true;
		}
	}
	if (!found) {
		struct nvrm_fb_get_info_v2 *q = kzalloc(psize, GFP_KERNEL);

		if (!q)
			return NVRM_ERR_NO_MEMORY;
		q->fb_info_list_size = 1;
		q->fb_info_list[0].index = NVRM_FB_INFO_INDEX_HEAP_FREE;
		status = qgpu_kclient_control(hsub, NVRM_CTRL_CMD_FB_GET_INFO_V2, q, psize);
		free_kb = q->fb_info_list[0].data;
		kfree(q);
		if (status)
			return status;
	}
	qgpu_mem_view(inst, (u64)free_kb << 10, &total, &free);
	for (i = 0; i < n; i++)
		qgpu_mem_fb_index_view(p->fb_info_list[i].index, total, free,
				       &p->fb_info_list[i].data);
	return NVRM_OK;
}

/* Is the object a control names the tenant's subdevice? Asked of the mirror. */
static bool qgpu_mem_is_subdevice(struct qgpu_file *qf, u32 hclient, u32 hobject)
{
	struct qgpu_rmnode *node;
	bool ok;

	if (!qf->track)
		return false;
	mutex_lock(&qf->track->lock);
	node = qgpu_rmtrack_find(qf->track, hclient, hobject);
	ok = node && node->hclass == NVRM_CLASS_NV20_SUBDEVICE_0;
	mutex_unlock(&qf->track->lock);
	return ok;
}

static u32 qgpu_mem_ctrl_fb_info(struct qgpu_file *qf, const struct nvrm_control *c)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u32 psize = abi->fb_get_info_v2_size, status, n;
	struct nvrm_fb_get_info_v2 *p;
	struct nvrm_fb_get_info v1;

	if (c->cmd == NVRM_CTRL_CMD_FB_GET_INFO_V2 && c->params_size != psize)
		return NVRM_ERR_INVALID_PARAM_STRUCT;
	if (c->cmd == NVRM_CTRL_CMD_FB_GET_INFO && c->params_size != sizeof(v1))
		return NVRM_ERR_INVALID_PARAM_STRUCT;
	p = kzalloc(psize, GFP_KERNEL);
	if (!p)
		return NVRM_ERR_NO_MEMORY;
	status = NVRM_ERR_INVALID_ADDRESS;
	if (c->cmd == NVRM_CTRL_CMD_FB_GET_INFO_V2) {
		if (copy_from_user(p, u64_to_user_ptr(c->params_ptr), psize))
			goto out;
		status = NVRM_ERR_INVALID_ARGUMENT;
		if (p->fb_info_list_size > abi->fb_info_max_list_size)
			goto out;
		status = qgpu_mem_fb_info(qf->inst, p, psize);
		if (!status && copy_to_user(u64_to_user_ptr(c->params_ptr), p, psize))
			status = NVRM_ERR_INVALID_ADDRESS;
		goto out;
	}
	/* v1: the list behind a user pointer, answered as V2 (as RM converts it) */
	if (copy_from_user(&v1, u64_to_user_ptr(c->params_ptr), sizeof(v1)))
		goto out;
	n = v1.fb_info_list_size;
	status = NVRM_ERR_INVALID_ARGUMENT;
	if (!n || n > abi->fb_info_max_list_size)
		goto out;
	status = NVRM_ERR_INVALID_ADDRESS;
	if (copy_from_user(p->fb_info_list, u64_to_user_ptr(v1.fb_info_list),
			   n * sizeof(p->fb_info_list[0])))
		goto out;
	p->fb_info_list_size = n;
	status = qgpu_mem_fb_info(qf->inst, p, psize);
	if (!status && copy_to_user(u64_to_user_ptr(v1.fb_info_list), p->fb_info_list,
				    n * sizeof(p->fb_info_list[0])))
		status = NVRM_ERR_INVALID_ADDRESS;
out:
	kfree(p);
	return status;
}

/* Is RM's pid number @nr (in @ns) a process with a file of @inst open? */
static bool qgpu_mem_pid_in(struct qgpu_instance *inst, struct pid_namespace *ns, u32 nr)
{
	struct qgpu_file *qf;
	pid_t global;
	bool found = false;

	rcu_read_lock();
	global = pid_nr(find_pid_ns(nr, ns));
	rcu_read_unlock();
	if (!global)
		return false;
	mutex_lock(&qgpu_lock);
	list_for_each_entry(qf, &inst->files, inst_link) {
		if (qf->tgid == global) {
			found = true;
			break;
		}
	}
	mutex_unlock(&qgpu_lock);
	return found;
}

/* GET_PIDS / GET_PID_INFO through qgpu's client, filtered to the instance's processes. */
static u32 qgpu_mem_ctrl_pids(struct qgpu_file *qf, const struct nvrm_control *c)
{
	struct qgpu_instance *inst = qf->inst;
	struct pid_namespace *ns = inst->gpu->abi.has_pid_namespaces ?
				   task_active_pid_ns(current) : &init_pid_ns;
	u32 psize, status, hsub, i, n = 0;
	struct nvrm_gpu_get_pid_info *pi;
	struct nvrm_gpu_get_pids *pp;
	void *p;

	psize = c->cmd == NVRM_CTRL_CMD_GPU_GET_PIDS ? sizeof(*pp) : sizeof(*pi);
	if (c->params_size != psize)
		return NVRM_ERR_INVALID_PARAM_STRUCT;
	p = kvmalloc(psize, GFP_KERNEL);
	if (!p)
		return NVRM_ERR_NO_MEMORY;
	status = NVRM_ERR_INVALID_ADDRESS;
	if (copy_from_user(p, u64_to_user_ptr(c->params_ptr), psize))
		goto out;
	status = qgpu_kclient_subdevice(inst->gpu, &hsub);
	if (!status)
		status = qgpu_kclient_control(hsub, c->cmd, p, psize);
	if (status)
		goto out;
	if (c->cmd == NVRM_CTRL_CMD_GPU_GET_PIDS) {
		pp = p;
		for (i = 0; i < pp->pid_tbl_count && i < NVRM_GPU_GET_PIDS_MAX_COUNT; i++)
			if (qgpu_mem_pid_in(inst, ns, pp->pid_tbl[i]))
				pp->pid_tbl[n++] = pp->pid_tbl[i];
		for (i = n; i < NVRM_GPU_GET_PIDS_MAX_COUNT; i++)
			pp->pid_tbl[i] = 0;
		pp->pid_tbl_count = n;
	} else {
		pi = p;
		for (i = 0; i < pi->pid_info_list_count && i < NVRM_GPU_GET_PID_INFO_MAX_COUNT;
		     i++) {
			struct nvrm_gpu_pid_info *e = &pi->pid_info_list[i];

			if (e->result != NVRM_OK || qgpu_mem_pid_in(inst, ns, e->pid))
				continue;
			e->mem_private = 0;	/* another instance's process: nothing to see */
			e->mem_shared_owned = 0;
			e->mem_shared_duped = 0;
			e->protected_mem_private = 0;
			e->protected_mem_shared_owned = 0;
			e->protected_mem_shared_duped = 0;
		}
	}
	if (copy_to_user(u64_to_user_ptr(c->params_ptr), p, psize))
		status = NVRM_ERR_INVALID_ADDRESS;
out:
	kvfree(p);
	return status;
}

/**
 * qgpu_mem_control() - RM_CONTROLs that show the GPU's memory or processes, answered for the
 *	instance
 * @qf: the proxy
 * @c: qgpu's decoded kernel copy of NVOS54
 * @arg: the tenant's NVOS54
 * @ret: what the ioctl returns, when answered here
 *
 * FB_GET_INFO(_V2), GPU_GET_PIDS and GPU_GET_PID_INFO on the tenant's subdevice are issued on
 * qgpu's own subdevice of the GPU through its kernel client, rewritten, and copied out once: the
 * GPU's values never sit in tenant memory. Calls on anything but a subdevice qgpu mirrors for
 * the client are forwarded: RM refuses them (with its own error), so they show nothing.
 *
 * Return: true if answered here.
 */
bool qgpu_mem_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
		      long *ret)
{
	u32 __user *ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos54, status));
	u32 status;

	switch (c->cmd) {
	case NVRM_CTRL_CMD_FB_GET_INFO:
	case NVRM_CTRL_CMD_FB_GET_INFO_V2:
	case NVRM_CTRL_CMD_GPU_GET_PIDS:
	case NVRM_CTRL_CMD_GPU_GET_PID_INFO:
		break;
	default:
		return false;
	}
	if (c->finn_serialized || !qgpu_kclient_ready() || qf->node != QGPU_NODE_CTL)
		return false;
	/* Not the tenant's subdevice: RM refuses it, with its own error. */
	if (!c->params_ptr || !qgpu_mem_is_subdevice(qf, c->hclient, c->hobject))
		return false;
	if (c->cmd == NVRM_CTRL_CMD_FB_GET_INFO || c->cmd == NVRM_CTRL_CMD_FB_GET_INFO_V2)
		status = qgpu_mem_ctrl_fb_info(qf, c);
	else
		status = qgpu_mem_ctrl_pids(qf, c);
	*ret = put_user(status, ustatus) ? -EFAULT : 0;
	return true;
}

/**
 * qgpu_mem_vid_heap_info() - RM_VID_HEAP_CONTROL INFO, answered for the instance
 * @qf: the proxy ctl file
 * @arg: the tenant's NVOS32
 * @v: qgpu's decoded kernel copy
 * @ret: what the ioctl returns, when answered here
 *
 * Return: true if answered here (the parent is the tenant's device or subdevice).
 */
bool qgpu_mem_vid_heap_info(struct qgpu_file *qf, unsigned long arg,
			    const struct nvrm_vidheap *v, long *ret)
{
	u32 psize = qf->inst->gpu->abi.fb_get_info_v2_size;
	struct nvrm_fb_get_info_v2 *p;
	struct qgpu_rmnode *node;
	struct nvrm_nvos32 raw;
	u64 total, free, base;
	u32 status;

	if (!qgpu_kclient_ready() || !qf->track)
		return false;
	mutex_lock(&qf->track->lock);
	node = qgpu_rmtrack_find(qf->track, v->hroot, v->hparent);
	if (!node || (node->hclass != NVRM_CLASS_NV01_DEVICE_0 &&
		      node->hclass != NVRM_CLASS_NV20_SUBDEVICE_0)) {
		mutex_unlock(&qf->track->lock);
		return false;	/* RM refuses it */
	}
	mutex_unlock(&qf->track->lock);
	if (copy_from_user(&raw, (void __user *)arg, sizeof(raw))) {
		*ret = -EFAULT;
		return true;
	}
	p = kzalloc(psize, GFP_KERNEL);
	if (!p) {
		*ret = -ENOMEM;
		return true;
	}
	p->fb_info_list_size = 3;
	p->fb_info_list[0].index = NVRM_FB_INFO_INDEX_HEAP_SIZE;
	p->fb_info_list[1].index = NVRM_FB_INFO_INDEX_HEAP_FREE;
	p->fb_info_list[2].index = NVRM_FB_INFO_INDEX_HEAP_BASE_KB;
	status = qgpu_mem_fb_info(qf->inst, p, psize);
	total = (u64)p->fb_info_list[0].data << 10;
	free = (u64)p->fb_info_list[1].data << 10;
	base = (u64)p->fb_info_list[2].data << 10;
	kfree(p);
	raw.status = status;
	if (!status) {
		raw.total = total;
		raw.free = free;
		memcpy(raw.data.raw + NVRM_NVOS32_INFO_BASE_OFF - 40, &base, sizeof(base));
		memcpy(raw.data.raw + NVRM_NVOS32_INFO_SIZE_OFF - 40, &free, sizeof(free));
		memset(raw.data.raw + NVRM_NVOS32_INFO_OFFSET_OFF - 40, 0, sizeof(u64));
	}
	*ret = copy_to_user((void __user *)arg, &raw, sizeof(raw)) ? -EFAULT : 0;
	return true;
}

/**
 * qgpu_mem_alloc_memory_view() - what RM_ALLOC_MEMORY returned, as the instance sees it
 * @qf: the proxy
 * @p: the returned parameters (a kernel copy)
 *
 * For NV01_MEMORY_LOCAL_USER RM allocates nothing and returns the heap size as limit: it becomes
 * the instance's.
 */
void qgpu_mem_alloc_memory_view(struct qgpu_file *qf, struct nvrm_nvos02_with_fd *p)
{
	u64 total, free;

	if (p->params.hclass != NVRM_CLASS_NV01_MEMORY_LOCAL_USER || p->params.status != NVRM_OK)
		return;
	qgpu_mem_view(qf->inst, U64_MAX, &total, &free);
	if (p->params.limit >= total)
		p->params.limit = total - 1;
}

/**
 * qgpu_mem_alloc_memory_done() - an unsealed RM_ALLOC_MEMORY returned: a 0x40 limit shows the
 *	instance's
 * @qf: the proxy
 * @arg: the tenant's NVOS02 with fd
 * @size: its size
 *
 * RM wrote the heap size to tenant memory before qgpu can rewrite it: without the seal (DOC:
 * sealed forwarding), the one place where the GPU's total is visible to a tenant, for the
 * duration of the call, or for good where a sibling thread rewrites the class qgpu reads back.
 */
void qgpu_mem_alloc_memory_done(struct qgpu_file *qf, unsigned long arg, u32 size)
{
	struct nvrm_nvos02_with_fd p;
	u64 limit;

	if (size != sizeof(p) || copy_from_user(&p, (void __user *)arg, sizeof(p)))
		return;
	limit = p.params.limit;
	qgpu_mem_alloc_memory_view(qf, &p);
	if (p.params.limit == limit)
		return;
	/* A fault here leaves the tenant its own bad pointer's result, as the driver would. */
	if (copy_to_user((void __user *)(arg + offsetof(struct nvrm_nvos02, limit)),
			 &p.params.limit, sizeof(p.params.limit)))
		return;
}

/**
 * qgpu_mem_alloc_memory_reserve() - before RM_ALLOC_MEMORY is forwarded: reserve its system memory
 * @qf: the proxy
 * @p: qgpu's copy of the request
 * @reserved: set to the bytes reserved (0 for any other class)
 *
 * NV01_MEMORY_SYSTEM asks for limit + 1 bytes (the converter to 0x3E, RmAllocMemory()). Without
 * a handle in hObjectNew RM would make one it never tells anyone (it passes the field by value),
 * and qgpu could not find the memory to charge: refused, as RM refuses a bad handle.
 *
 * Return: NVRM_OK; NVRM_ERR_NO_MEMORY (counted as a refusal) when it does not fit;
 * NVRM_ERR_INVALID_OBJECT_HANDLE without a handle.
 */
u32 qgpu_mem_alloc_memory_reserve(struct qgpu_file *qf, const struct nvrm_nvos02 *p,
				  u64 *reserved)
{
	u64 want;

	*reserved = 0;
	if (p->hclass != NVRM_CLASS_NV01_MEMORY_SYSTEM)
		return NVRM_OK;
	if (!p->hobject_new) {
		qgpu_mem_call_refused(qf->inst, "system memory without a handle (RM_ALLOC_MEMORY)");
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	}
	want = p->limit == U64_MAX ? 0 : qgpu_sysmem_reserve_size(p->limit + 1);
	if (!want || !qgpu_mem_try_charge(qf->inst, true, want)) {
		qgpu_mem_refused(qf->inst, true, want ?: p->limit);
		return NVRM_ERR_NO_MEMORY;
	}
	*reserved = want;
	return NVRM_OK;
}

/**
 * qgpu_mem_alloc_memory_made() - RM_ALLOC_MEMORY returned: charge what RM made in system memory
 * @qf: the proxy
 * @t: the tracker whose clients RM used (the mirror gets the object)
 * @p: the request with RM's status (qgpu's copy when sealed, else read back)
 * @reserved: what qgpu_mem_alloc_memory_reserve() reserved
 * @status: set to the status for the tenant when handled
 *
 * RM is asked what the new handle is, whatever class qgpu read before the call: unsealed, a
 * sibling thread can have changed it. System memory is charged at the size RM reports and
 * mirrored with its charge; one that no longer fits is freed again (NV_ERR_NO_MEMORY).
 *
 * Context: @t's lock held.
 * Return: true if handled (mirrored, or freed); false when it is something else, for the caller
 * to mirror as an uncharged object.
 */
bool qgpu_mem_alloc_memory_made(struct qgpu_file *qf, struct qgpu_rmtrack *t,
				const struct nvrm_nvos02 *p, u64 reserved, u32 *status)
{
	struct qgpu_mem_req r = {
		.track = t,
		.hclient = p->hroot,
		.hparent = p->hobject_parent,
		.handle = p->hobject_new,
		.hclass = NVRM_CLASS_NV01_MEMORY_SYSTEM,
		.sys = true,
		.reserved = reserved,
	};
	u64 actual = reserved;
	bool sys = true;
	int q = -EINVAL;

	if (p->status == NVRM_OK)
		q = qgpu_mem_rm_query(p->hroot, p->hobject_new, &actual, &sys);
	/* Without a kernel client what qgpu read is all there is to go by. */
	if (q == -ENODEV && p->hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM)
		q = 0;
	if (q || !sys) {
		qgpu_mem_uncharge(qf->inst, true, reserved);
		return false;
	}
	*status = qgpu_mem_charge_made(qf, &r, p->hobject_new, actual) ? NVRM_OK :
									 NVRM_ERR_NO_MEMORY;
	return true;
}

/**
 * qgpu_mem_card_fb_size() - CARD_INFO fb_size as the instance sees it
 * @inst: the instance
 * @fb_size: the GPU's
 *
 * Return: never more than the instance's limit.
 */
u64 qgpu_mem_card_fb_size(struct qgpu_instance *inst, u64 fb_size)
{
	u64 max = READ_ONCE(inst->mem.vid.max);

	return max && max < fb_size ? max : fb_size;
}

/**
 * qgpu_mem_uvm_mmap() - mmap() of an instance's nvidia-uvm node
 * @qf: the proxy
 * @vma: the mapping
 *
 * Managed memory grows by GPU page faults, which no ioctl can charge; UVM creates managed ranges
 * by mmap() of its node. With ``managed`` at refuse that fails, so the limit is hard.
 *
 * Return: 0, or -EPERM when refused.
 */
int qgpu_mem_uvm_mmap(struct qgpu_file *qf, struct vm_area_struct *vma)
{
	if (qf->node == QGPU_NODE_UVM && READ_ONCE(qf->inst->mem.refuse_managed)) {
		qgpu_mem_call_refused(qf->inst, "UVM managed memory (managed=refuse)");
		return -EPERM;
	}
	return 0;
}

/* Instance life */

/**
 * qgpu_mem_inst_init() - the memory state of a new instance
 * @inst: the instance
 * @max: its video-memory limit, 0 for unlimited
 * @sysmem_max: its system-memory limit, 0 for unlimited
 */
void qgpu_mem_inst_init(struct qgpu_instance *inst, u64 max, u64 sysmem_max)
{
	struct qgpu_mem_inst *m = &inst->mem;

	spin_lock_init(&m->lock);
	m->vid.max = max;
	m->sys.max = sysmem_max;
	atomic64_set(&m->events, 0);
	xa_init(&m->clients);
}

/*
 * The instance is freed: its trackers, and with them every charge, went before (except a charge
 * kept on purpose for an object RM would not free, see qgpu_mem_settle(): nothing to return then).
 */
void qgpu_mem_inst_destroy(struct qgpu_instance *inst)
{
	xa_destroy(&inst->mem.clients);
}

/* Sum of the effective limits of @gpu's instances other than @skip. Under qgpu_lock. */
static u64 qgpu_mem_limits_sum(struct qgpu_gpu *gpu, struct qgpu_instance *skip)
{
	struct qgpu_instance *inst;
	u64 sum = 0;

	lockdep_assert_held(&qgpu_lock);
	list_for_each_entry(inst, &gpu->instances, gpu_link)
		if (inst != skip)
			sum += qgpu_mem_committed(inst->mem.vid.max, gpu->memory);
	return sum;
}

/**
 * qgpu_mem_create_fits() - may an instance with limit @max be created on @gpu?
 * @gpu: the GPU
 * @max: the new limit, 0 for unlimited
 *
 * Context: qgpu_lock held.
 * Return: true with overcommit on, or if the limits still fit in the GPU's memory.
 */
bool qgpu_mem_create_fits(struct qgpu_gpu *gpu, u64 max)
{
	return READ_ONCE(gpu->overcommit) ||
	       qgpu_mem_sum_fits(qgpu_mem_limits_sum(gpu, NULL), max, gpu->memory);
}

/* sysfs */

static ssize_t qgpu_mem_max_show(u64 max, char *buf)
{
	return max ? sysfs_emit(buf, "%llu\n", max) : sysfs_emit(buf, "max\n");
}

static ssize_t mem_max_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_max_show(READ_ONCE(qgpu_instance_of(kobj)->mem.vid.max), buf);
}

/* A new limit for a pool: -EBUSY below what is charged now. Context: qgpu_lock held. */
static int qgpu_mem_set_max(struct qgpu_instance *inst, bool sys, u64 max)
{
	struct qgpu_mem_pool *p = qgpu_mem_pool(inst, sys);
	int ret = 0;

	spin_lock(&inst->mem.lock);
	if (max && max < p->used)
		ret = -EBUSY;
	else
		WRITE_ONCE(p->max, max);
	spin_unlock(&inst->mem.lock);
	return ret;
}

/*
 * mem_max and sysmem_max: live. Only video memory's limits are summed against the GPU's memory;
 * the host's memory is not the GPU's to divide, and it is shared with everything else on the host.
 */
static ssize_t qgpu_mem_max_store(struct kobject *kobj, bool sys, const char *buf, size_t count)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	struct qgpu_gpu *gpu = inst->gpu;
	int ret = 0;
	u64 max;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (qgpu_mem_parse_max(buf, count, &max))
		return -EINVAL;
	mutex_lock(&qgpu_lock);
	if (!sys && !READ_ONCE(gpu->overcommit) &&
	    !qgpu_mem_sum_fits(qgpu_mem_limits_sum(gpu, inst), max, gpu->memory))
		ret = -ENOSPC;
	if (!ret)
		ret = qgpu_mem_set_max(inst, sys, max);
	if (!ret && sys)
		inst->settings.sysmem = max;
	else if (!ret)
		inst->settings.mem = max;
	mutex_unlock(&qgpu_lock);
	return ret ?: count;
}

static ssize_t mem_max_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			     size_t count)
{
	return qgpu_mem_max_store(kobj, false, buf, count);
}

/* A pool's current use (@peak false) or peak, for sysfs. */
static ssize_t qgpu_mem_use_show(struct kobject *kobj, bool sys, bool peak, char *buf)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);
	struct qgpu_mem_pool *p = qgpu_mem_pool(inst, sys);
	u64 v;

	spin_lock(&inst->mem.lock);
	v = peak ? p->peak : p->used;
	spin_unlock(&inst->mem.lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t mem_current_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_use_show(kobj, false, false, buf);
}

static ssize_t mem_peak_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_use_show(kobj, false, true, buf);
}

static ssize_t sysmem_max_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_max_show(READ_ONCE(qgpu_instance_of(kobj)->mem.sys.max), buf);
}

static ssize_t sysmem_max_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	return qgpu_mem_max_store(kobj, true, buf, count);
}

static ssize_t sysmem_current_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_use_show(kobj, true, false, buf);
}

static ssize_t sysmem_peak_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_mem_use_show(kobj, true, true, buf);
}

static ssize_t events_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct qgpu_instance *inst = qgpu_instance_of(kobj);

	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&inst->mem.events));
}

/* The allow|refuse knobs (managed, dmabuf): read locklessly where they act. */
static ssize_t qgpu_refuse_show(const bool *refuse, char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(*refuse) ? "refuse" : "allow");
}

static ssize_t qgpu_refuse_store(bool *refuse, const char *buf, size_t count)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sysfs_streq(buf, "allow"))
		WRITE_ONCE(*refuse, false);
	else if (sysfs_streq(buf, "refuse"))
		WRITE_ONCE(*refuse, true);
	else
		return -EINVAL;
	return count;
}

static ssize_t managed_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_refuse_show(&qgpu_instance_of(kobj)->mem.refuse_managed, buf);
}

static ssize_t managed_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			     size_t count)
{
	return qgpu_refuse_store(&qgpu_instance_of(kobj)->mem.refuse_managed, buf, count);
}

static ssize_t dmabuf_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_refuse_show(&qgpu_instance_of(kobj)->mem.refuse_dmabuf, buf);
}

static ssize_t dmabuf_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			    size_t count)
{
	return qgpu_refuse_store(&qgpu_instance_of(kobj)->mem.refuse_dmabuf, buf, count);
}

static struct kobj_attribute qgpu_attr_mem_max = __ATTR_RW(mem_max);
static struct kobj_attribute qgpu_attr_mem_current = __ATTR_RO(mem_current);
static struct kobj_attribute qgpu_attr_mem_peak = __ATTR_RO(mem_peak);
static struct kobj_attribute qgpu_attr_sysmem_max = __ATTR_RW(sysmem_max);
static struct kobj_attribute qgpu_attr_sysmem_current = __ATTR_RO(sysmem_current);
static struct kobj_attribute qgpu_attr_sysmem_peak = __ATTR_RO(sysmem_peak);
static struct kobj_attribute qgpu_attr_events = __ATTR_RO(events);
static struct kobj_attribute qgpu_attr_managed = __ATTR_RW(managed);
static struct kobj_attribute qgpu_attr_dmabuf = __ATTR_RW(dmabuf);

static struct attribute *qgpu_mem_instance_attrs[] = {
	&qgpu_attr_mem_max.attr,
	&qgpu_attr_mem_current.attr,
	&qgpu_attr_mem_peak.attr,
	&qgpu_attr_sysmem_max.attr,
	&qgpu_attr_sysmem_current.attr,
	&qgpu_attr_sysmem_peak.attr,
	&qgpu_attr_events.attr,
	&qgpu_attr_managed.attr,
	&qgpu_attr_dmabuf.attr,
	NULL,
};

const struct attribute_group qgpu_mem_instance_group = {
	.attrs = qgpu_mem_instance_attrs,
};

static ssize_t overcommit_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct qgpu_gpu *gpu = container_of(dev, struct qgpu_gpu, dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(gpu->overcommit) ? 1 : 0);
}

static ssize_t overcommit_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct qgpu_gpu *gpu = container_of(dev, struct qgpu_gpu, dev);
	int ret = 0;
	bool on;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (sysfs_streq(buf, "1"))
		on = true;
	else if (sysfs_streq(buf, "0"))
		on = false;
	else
		return -EINVAL;
	mutex_lock(&qgpu_lock);
	if (!on && qgpu_mem_limits_sum(gpu, NULL) > gpu->memory)
		ret = -EINVAL;
	else
		WRITE_ONCE(gpu->overcommit, on);
	mutex_unlock(&qgpu_lock);
	return ret ?: count;
}

DEVICE_ATTR_RW(overcommit);
