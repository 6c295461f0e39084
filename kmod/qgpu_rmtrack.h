/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mirror of the RM objects a tenant allocated through one proxy ctl file, so that qgpu knows
 * which of its own per-object state (memory charges, channel-group duplicates) goes when RM
 * frees an object's subtree, a whole client, or everything the real ctl file owned.
 */
#ifndef QGPU_RMTRACK_H
#define QGPU_RMTRACK_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable-types.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct file;
struct qgpu_instance;
struct qgpu_mem_charge;
struct qgpu_rmnode;
struct qgpu_uvm_model;

/**
 * struct qgpu_rmnode_ops - what qgpu keeps for one kind of tracked object
 * @release: the object is gone (RM freed it, or its subtree, client or file); drop the state,
 *	and with it the node if the node is part of it (@in_payload). Called with the tracker's
 *	lock held, children before parents, once the node has left the mirror.
 */
struct qgpu_rmnode_ops {
	void (*release)(struct qgpu_rmnode *node);
};

/**
 * struct qgpu_rmnode - one RM handle allocated through the tracked file
 * @handle: the handle
 * @hash: entry in its client's index (not for a client's own node)
 * @hclass: its class
 * @parent: the node of its parent; NULL for a client
 * @children: nodes allocated under it
 * @sibling: entry in @parent->children
 * @ops: what to do when it goes, or NULL; set once, after @payload (store-release), so that a
 *	lockless reader (qgpu_rmtrack_lookup_rcu()) that sees it sees @payload too
 * @payload: the state @ops manages
 * @in_payload: the node is part of @payload's allocation, which @ops->release lets go of: the
 *	mirror never frees it itself (qgpu_rmtrack_insert_made())
 * @held: what RM allocated for the object itself, a reference to its charge until the node goes:
 *	a channel group's context buffers (its copies' nodes hold the same charge) or a channel's
 *	instance block, and its ``channels`` count (qgpu_ctxbuf.c); set once (store-release) and
 *	read under RCU by qgpu_mem_charge_of(); NULL for none
 * @dma_maps: its parts in the RM_MAP_MEMORY_DMA mappings qgpu models (qgpu_mapped.c), as the
 *	virtual allocation, the memory or the device; they go with it
 * @mapped_units: for a virtual range RM maps up front, the 2 MiB regions the instance's
 *	``mapped_current`` counts for it until the node goes (qgpu_mapped.c)
 * @rcu: freed after a grace period (lookups under RCU, qgpu_rmtrack_lookup_rcu())
 *
 * Everything but @ops and @payload is read under the tracker's lock only.
 */
struct qgpu_rmnode {
	u32 handle;
	u32 hclass;
	struct rhash_head hash;
	struct qgpu_rmnode *parent;
	struct list_head children;
	struct list_head sibling;
	const struct qgpu_rmnode_ops *ops;
	void *payload;
	bool in_payload;
	struct qgpu_mem_charge *held;
	struct list_head dma_maps;
	u32 mapped_units;
	struct rcu_head rcu;
};

/**
 * struct qgpu_rmtrack - the mirror of one proxy ctl file
 * @lock: held around each forwarded RM_ALLOC / RM_FREE / RM_DUP_OBJECT / VID_HEAP_CONTROL and
 *	the update that follows, so the mirror follows RM's order of events
 * @inst: the instance (a reference on its kobject while the tracker lives)
 * @clients: client handle -> struct qgpu_rmclient (keyed by qgpu_rmclient_key())
 * @real: the backend ctl file, when the proxy has gone but the real file lives on (a VMA or a
 *	registered GPU file holds it): the tracker then waits for RM to release it
 * @zombie: entry in the list of such trackers
 * @exports: when the file is an export fd (NV0000 OS_UNIX export controls), slot index -> the
 *	struct qgpu_mem_charge of the video memory RM holds exported there (a reference each), until
 *	RM lets it go with the real file (qgpu_export.c). The xarray's own lock; lookups under RCU.
 * @uvm: on a UVM proxy's tracker, what UVM holds of the instance's memory (qgpu_uvm_hold.c);
 *	NULL until the first mapping. Under @lock.
 * @uvm_channels: on a UVM proxy's tracker, the channels UVM retains (struct qgpu_uvm_channel,
 *	qgpu_uvm_channel.c). Under @lock.
 * @os_events: ALLOC_OS_EVENT keys RM holds that were allocated through the file (they go with
 *	the real file), under the instance's os_events.keys_lock (qgpu_os_events.c)
 * @objects_reserved: RM objects the call in progress reserved under the instance's
 *	``rm_objects_max`` and the mirror has not yet recorded (qgpu_objects.c); under @lock
 * @mapped_pinned: 2 MiB regions of RM_MAP_MEMORY_DMA mappings qgpu could not place in its model,
 *	counted in the instance's ``mapped_current`` until the tracker goes (qgpu_mapped.c); under
 *	@lock
 * @making: calls forwarded so far that can make an object in one of the file's clients (RM binds
 *	a client to its file, so no other file's can): RM_ALLOC, RM_VID_HEAP_CONTROL ALLOC_*,
 *	RM_ALLOC_MEMORY, RM_DUP_OBJECT, the imports from an fd (qgpu_rmtrack_making())
 * @made: those whose outcome is in the mirror; equal to @making when none is in flight. Another
 *	file that looked a handle of the file's clients up, then had the driver act on it, knows the
 *	handle named the same object throughout when @making did not move past what @made was when
 *	it looked (qgpu_mem_client_mark(); a free and reuse of a handle needs one of those calls)
 * @rcu: freed after a grace period (those lookups read the counters under RCU)
 */
struct qgpu_rmtrack {
	struct mutex lock;	/* see above */
	struct qgpu_instance *inst;
	struct xarray clients;
	struct file *real;
	struct list_head zombie;
	struct xarray exports;
	struct qgpu_uvm_model *uvm;
	struct list_head uvm_channels;
	unsigned int os_events;
	u32 objects_reserved;
	u32 mapped_pinned;
	atomic_long_t making;
	atomic_long_t made;
	struct rcu_head rcu;
};

/* A call that can make an object in one of @t's clients is to be forwarded (@t->lock held). */
/* The client node @node hangs under (its tracker's lock held): @node itself for a client. */
static inline struct qgpu_rmnode *qgpu_rmnode_root(struct qgpu_rmnode *node)
{
	while (node->parent)
		node = node->parent;
	return node;
}

static inline void qgpu_rmtrack_making(struct qgpu_rmtrack *t)
{
	atomic_long_inc(&t->making);
}

/* What that call made is in @t's mirror, or it made nothing (@t->lock still held). */
static inline void qgpu_rmtrack_made(struct qgpu_rmtrack *t)
{
	/* Pairs with the acquire in qgpu_mem_client_mark(): the mirror's update is seen first. */
	smp_mb__before_atomic();
	atomic_long_inc(&t->made);
}

/* The class of a mirrored duplicate whose source qgpu does not mirror (0 would be NV01_ROOT). */
#define QGPU_CLASS_UNKNOWN	0xffffffffu

bool qgpu_is_root_class(u32 hclass);
struct qgpu_rmtrack *qgpu_rmtrack_new(struct qgpu_instance *inst);
void qgpu_rmtrack_release(struct qgpu_rmtrack *t, struct file *real);
void qgpu_rmtrack_kick(void);
int qgpu_rmtrack_init(void);
void qgpu_rmtrack_exit(void);

struct qgpu_rmnode *qgpu_rmtrack_find(struct qgpu_rmtrack *t, u32 hclient, u32 handle);
struct qgpu_rmnode *qgpu_rmtrack_lookup_rcu(struct qgpu_rmnode *root, u32 handle);
struct qgpu_rmnode *qgpu_rmtrack_add(struct qgpu_rmtrack *t, u32 hclient, u32 hparent,
				     u32 handle, u32 hclass);
bool qgpu_rmtrack_insert_made(struct qgpu_rmtrack *t, u32 hclient, u32 hparent,
			      struct qgpu_rmnode *node);
void qgpu_rmtrack_freed(struct qgpu_rmtrack *t, u32 hclient, u32 handle);
void qgpu_rmtrack_freed_node(struct qgpu_rmtrack *t, struct qgpu_rmnode *node);
bool qgpu_rmtrack_gone(struct qgpu_rmtrack *t, u32 hclient, u32 handle);
bool qgpu_rmtrack_rm_has(u32 hclient, u32 handle);

#endif /* QGPU_RMTRACK_H */
