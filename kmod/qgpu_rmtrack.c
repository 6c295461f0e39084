// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: a mirror of the RM objects allocated through each proxy ctl file.
 *
 * RM frees an object with its whole subtree, a client with everything in it, and every client of
 * a ctl file when that (real) file is released. qgpu keeps per-object state of its own for some
 * objects (memory charges, channel-group duplicates) and must drop it at exactly those moments,
 * without scanning unrelated objects. So each proxy ctl file has a tracker: per client, the
 * handles allocated through it as a tree. A successful RM_ALLOC, RM_DUP_OBJECT, VID_HEAP
 * allocation or import from an export fd (qgpu_export.c) adds a node; RM_FREE and VID_HEAP
 * FREE remove a subtree; the tracker goes with the real file.
 *
 * The real file can outlive the proxy: a VMA of a mapping made through the ctl file, or a
 * registered GPU file (which holds its ctl file, as the driver's REGISTER_FD does), keeps it, and
 * with it RM's clients. A tracker whose proxy is gone therefore waits, holding the real file,
 * until it is the file's last holder, and only then drops its state and the file: that is the
 * moment RM frees the clients.
 *
 * What the tenant's parameters say after a call cannot be trusted (another thread may rewrite
 * them). So qgpu frees a mirrored object itself, from its own copy of the request, through its
 * kernel client (qgpu_escape.c), and a free it forwarded is believed only after asking RM
 * whether the handle is really gone (qgpu_rmtrack_rm_has()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "nvrm/nvrm_ctrl_mem.h"
#include "qgpu_export.h"
#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mapped.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_uvm_channel.h"
#include "qgpu_uvm_hold.h"

/*
 * How often a tracker waiting for its real file looks again. Any proxy's release also looks at
 * once (qgpu_rmtrack_kick()): the last holder is usually another proxy's real file, released
 * right after it (a registered GPU file, at process exit).
 */
#define QGPU_RMTRACK_POLL	(HZ / 50)

/*
 * The client index is keyed by handle minus RM's generated-handle base (XOR, so any handle still
 * has its own key): RM's client handles then fit few levels of the xarray.
 */
static unsigned long qgpu_rmclient_key(u32 hclient)
{
	return hclient ^ NVRM_CLIENT_HANDLE_BASE;
}

/*
 * A client's objects are indexed by a hash table, not an xarray: an allocation made and freed
 * again (the common case) then costs no index memory of its own. In an xarray a new handle
 * usually lands in a range no live handle shares (RM's generated handles only grow), so each
 * such pair allocated and freed one to three tree nodes, which made up half of what qgpu added
 * to an alloc+free (bench/bench_memory.py).
 */
static const struct rhashtable_params qgpu_rmnode_params = {
	.key_len = sizeof(u32),
	.key_offset = offsetof(struct qgpu_rmnode, handle),
	.head_offset = offsetof(struct qgpu_rmnode, hash),
	/* A client holds a handful of objects: a smaller table would resize at every pair. */
	.min_size = 64,
	.automatic_shrinking = true,
};

/**
 * struct qgpu_rmclient - one RM client allocated through the tracked file
 * @root: the client's own node (@root.handle is the client handle)
 * @nodes: handle -> node, the root not included
 * @inst: the tracker's instance, whose ``rm_objects`` counts the nodes
 * @free_work: frees the client after a grace period: lockless readers
 *	(qgpu_rmtrack_lookup_rcu()) may still be walking @nodes, and destroying the table sleeps
 */
struct qgpu_rmclient {
	struct qgpu_rmnode root;
	struct rhashtable nodes;
	struct qgpu_instance *inst;
	struct rcu_work free_work;
};

/* Runs the clients' deferred frees; drained at module exit (qgpu_rmtrack_exit()). */
static struct workqueue_struct *qgpu_rmtrack_wq;

/* Trackers whose proxy is gone and whose real file still lives; under qgpu_rmtrack_zlock. */
static LIST_HEAD(qgpu_rmtrack_zombies);
static DEFINE_MUTEX(qgpu_rmtrack_zlock);
static void qgpu_rmtrack_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(qgpu_rmtrack_reaper, qgpu_rmtrack_reap);

/**
 * qgpu_is_root_class() - does an RM_ALLOC of @hclass make a client?
 * @hclass: the class
 *
 * Return: true for the NV01_ROOT classes.
 */
bool qgpu_is_root_class(u32 hclass)
{
	return hclass == NVRM_CLASS_NV01_ROOT || hclass == NVRM_CLASS_NV01_ROOT_NON_PRIV ||
	       hclass == NVRM_CLASS_NV01_ROOT_CLIENT;
}

/**
 * qgpu_rmtrack_new() - the tracker of a new proxy ctl or UVM file, or of a GPU proxy's OS events
 * @inst: its instance
 *
 * Return: the tracker, or NULL when out of memory.
 */
struct qgpu_rmtrack *qgpu_rmtrack_new(struct qgpu_instance *inst)
{
	struct qgpu_rmtrack *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	if (!t)
		return NULL;
	mutex_init(&t->lock);
	xa_init(&t->clients);
	xa_init(&t->exports);
	INIT_LIST_HEAD(&t->zombie);
	INIT_LIST_HEAD(&t->uvm_channels);
	kobject_get(&inst->kobj);
	t->inst = inst;
	return t;
}

/*
 * Drop @node and everything under it, children first. A node leaves the index before its state
 * is released: a release may free the node with its payload (@in_payload).
 */
static void qgpu_rmnode_free(struct qgpu_rmclient *client, struct qgpu_rmnode *node)
{
	bool mirror_frees = node->parent && !node->in_payload;
	struct qgpu_rmnode *child, *tmp;

	list_for_each_entry_safe(child, tmp, &node->children, sibling)
		qgpu_rmnode_free(client, child);
	if (node->parent) {
		rhashtable_remove_fast(&client->nodes, &node->hash, qgpu_rmnode_params);
		list_del(&node->sibling);
	}
	qgpu_objects_gone(client->inst);
	if (node->held)
		qgpu_mem_charge_put(node->held);
	qgpu_mapped_node_gone(client->inst, node);
	if (node->ops)
		node->ops->release(node);
	if (mirror_frees)
		kfree_rcu(node, rcu);
}

static void qgpu_rmclient_free_work(struct work_struct *work)
{
	struct qgpu_rmclient *client = container_of(to_rcu_work(work), struct qgpu_rmclient,
						    free_work);

	rhashtable_destroy(&client->nodes);
	kfree(client);
}

static void qgpu_rmclient_free(struct qgpu_rmtrack *t, struct qgpu_rmclient *client)
{
	qgpu_rmnode_free(client, &client->root);
	xa_erase(&t->clients, qgpu_rmclient_key(client->root.handle));
	queue_rcu_work(qgpu_rmtrack_wq, &client->free_work);
}

static void qgpu_rmtrack_destroy(struct qgpu_rmtrack *t)
{
	struct qgpu_rmclient *client;
	unsigned long h;

	mutex_lock(&t->lock);
	xa_for_each(&t->clients, h, client)
		qgpu_rmclient_free(t, client);
	mutex_unlock(&t->lock);
	xa_destroy(&t->clients);
	qgpu_mapped_release(t);
	qgpu_export_release(t);
	qgpu_uvm_release(t);
	qgpu_uvm_channels_release(t, true);
	qgpu_os_events_release(t);
	kobject_put(&t->inst->kobj);
	kfree_rcu(t, rcu);
}

/*
 * Only the tracker holds the real file any more: RM is about to free its clients. A file's count
 * only goes down once no fd and no VMA refers to it, so a count of one stays one.
 */
static bool qgpu_rmtrack_real_idle(const struct qgpu_rmtrack *t)
{
	return file_count(t->real) == 1;
}

static void qgpu_rmtrack_reap(struct work_struct *work)
{
	struct qgpu_rmtrack *t, *tmp;
	LIST_HEAD(done);

	mutex_lock(&qgpu_rmtrack_zlock);
	list_for_each_entry_safe(t, tmp, &qgpu_rmtrack_zombies, zombie)
		if (qgpu_rmtrack_real_idle(t))
			list_move(&t->zombie, &done);
	if (!list_empty(&qgpu_rmtrack_zombies))
		schedule_delayed_work(&qgpu_rmtrack_reaper, QGPU_RMTRACK_POLL);
	mutex_unlock(&qgpu_rmtrack_zlock);

	list_for_each_entry_safe(t, tmp, &done, zombie) {
		struct file *real = t->real;

		qgpu_rmtrack_destroy(t);
		fput(real);
	}
}

/**
 * qgpu_rmtrack_release() - the proxy file is going
 * @t: its tracker
 * @real: its backend file; the proxy's reference is handed over
 *
 * When nothing else holds @real, RM frees the clients (and the file's OS events) as soon as it
 * is put: drop the tracker now. Otherwise keep both until nothing else does (see the file
 * comment).
 *
 * Context: process context (release).
 */
void qgpu_rmtrack_release(struct qgpu_rmtrack *t, struct file *real)
{
	t->real = real;
	if (qgpu_rmtrack_real_idle(t)) {
		qgpu_rmtrack_destroy(t);
		fput(real);
		return;
	}
	mutex_lock(&qgpu_rmtrack_zlock);
	list_add_tail(&t->zombie, &qgpu_rmtrack_zombies);
	schedule_delayed_work(&qgpu_rmtrack_reaper, QGPU_RMTRACK_POLL);
	mutex_unlock(&qgpu_rmtrack_zlock);
}

/**
 * qgpu_rmtrack_kick() - a proxy went: waiting trackers may be free to go; look now
 *
 * Context: any process context.
 */
void qgpu_rmtrack_kick(void)
{
	mutex_lock(&qgpu_rmtrack_zlock);
	if (!list_empty(&qgpu_rmtrack_zombies))
		mod_delayed_work(system_wq, &qgpu_rmtrack_reaper, 0);
	mutex_unlock(&qgpu_rmtrack_zlock);
}

/**
 * qgpu_rmtrack_init() - module init: the workqueue that frees clients after a grace period
 *
 * Return: 0, or -ENOMEM.
 */
int qgpu_rmtrack_init(void)
{
	qgpu_rmtrack_wq = alloc_workqueue("qgpu_rmtrack", 0, 0);
	return qgpu_rmtrack_wq ? 0 : -ENOMEM;
}

/* Module exit: no proxy is open; trackers still waiting let their real files go now. */
void qgpu_rmtrack_exit(void)
{
	struct qgpu_rmtrack *t, *tmp;

	cancel_delayed_work_sync(&qgpu_rmtrack_reaper);
	list_for_each_entry_safe(t, tmp, &qgpu_rmtrack_zombies, zombie) {
		struct file *real = t->real;

		list_del(&t->zombie);
		qgpu_rmtrack_destroy(t);
		fput(real);
	}
	/* ORDER: the grace periods queue the clients' frees; then the queue runs them all. */
	rcu_barrier();
	destroy_workqueue(qgpu_rmtrack_wq);
}

/**
 * qgpu_rmtrack_find() - the node of a handle, or NULL
 * @t: the tracker (its lock held)
 * @hclient: the client
 * @handle: the handle; the client handle finds the client's own node
 */
struct qgpu_rmnode *qgpu_rmtrack_find(struct qgpu_rmtrack *t, u32 hclient, u32 handle)
{
	struct qgpu_rmclient *client;

	lockdep_assert_held(&t->lock);
	client = xa_load(&t->clients, qgpu_rmclient_key(hclient));
	if (!client)
		return NULL;
	if (handle == hclient)
		return &client->root;
	return rhashtable_lookup_fast(&client->nodes, &handle, qgpu_rmnode_params);
}

/**
 * qgpu_rmtrack_lookup_rcu() - the node of a handle, without the tracker's lock
 * @root: a client's own node (qgpu_rmtrack_add() of a root class returned it)
 * @handle: the handle
 *
 * For readers on another tracker than @root's (a duplicate's source, qgpu_mem_charge_of()):
 * nodes, clients and their index are freed only after a grace period, so what is found stays
 * readable until rcu_read_unlock(); it may be leaving the mirror meanwhile. Only @ops and
 * @payload may be read (see struct qgpu_rmnode).
 *
 * Context: rcu_read_lock() held, and @root known to be alive when it was taken.
 * Return: the node, or NULL.
 */
struct qgpu_rmnode *qgpu_rmtrack_lookup_rcu(struct qgpu_rmnode *root, u32 handle)
{
	struct qgpu_rmclient *client = container_of(root, struct qgpu_rmclient, root);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "mirror lookup outside RCU");
	if (handle == root->handle)
		return root;
	return rhashtable_lookup(&client->nodes, &handle, qgpu_rmnode_params);
}

static struct qgpu_rmnode *qgpu_rmtrack_add_client(struct qgpu_rmtrack *t, u32 hclient,
						   u32 hclass)
{
	struct qgpu_rmclient *client, *old;

	old = xa_load(&t->clients, qgpu_rmclient_key(hclient));
	if (old)
		qgpu_rmclient_free(t, old);	/* a free qgpu missed; RM reused the handle */
	client = kzalloc(sizeof(*client), GFP_KERNEL_ACCOUNT);
	if (!client)
		return NULL;
	if (rhashtable_init(&client->nodes, &qgpu_rmnode_params))
		goto err_free;
	client->root.handle = hclient;
	client->root.hclass = hclass;
	client->inst = t->inst;
	INIT_LIST_HEAD(&client->root.children);
	INIT_LIST_HEAD(&client->root.dma_maps);
	INIT_RCU_WORK(&client->free_work, qgpu_rmclient_free_work);
	if (xa_err(xa_store(&t->clients, qgpu_rmclient_key(hclient), client, GFP_KERNEL_ACCOUNT)))
		goto err_destroy;
	qgpu_objects_mirrored(t);
	return &client->root;

err_destroy:
	rhashtable_destroy(&client->nodes);
err_free:
	kfree(client);
	return NULL;
}

/* Index @node and hang it under its parent (the client's own node when @hparent is unknown). */
static bool qgpu_rmclient_link(struct qgpu_rmtrack *t, struct qgpu_rmclient *client, u32 hparent,
			       struct qgpu_rmnode *node)
{
	struct qgpu_rmnode *parent = NULL;

	if (hparent != client->root.handle)
		parent = rhashtable_lookup_fast(&client->nodes, &hparent, qgpu_rmnode_params);
	if (!parent)
		parent = &client->root;
	node->parent = parent;
	INIT_LIST_HEAD(&node->children);
	INIT_LIST_HEAD(&node->dma_maps);
	if (rhashtable_insert_fast(&client->nodes, &node->hash, qgpu_rmnode_params))
		return false;
	list_add_tail(&node->sibling, &parent->children);
	qgpu_objects_mirrored(t);
	return true;
}

/**
 * qgpu_rmtrack_add() - RM allocated @handle: add it to the mirror
 * @t: the tracker (its lock held)
 * @hclient: its client (for a new client: the new client's handle)
 * @hparent: its parent; a parent the mirror does not know puts it under the client
 * @handle: the new handle
 * @hclass: its class (a root class makes a new client)
 *
 * Return: the node, for the caller to attach state to; NULL when out of memory or the client is
 * not tracked (nothing is tracked then, and nothing of qgpu's may be attached).
 */
struct qgpu_rmnode *qgpu_rmtrack_add(struct qgpu_rmtrack *t, u32 hclient, u32 hparent,
				     u32 handle, u32 hclass)
{
	struct qgpu_rmclient *client;
	struct qgpu_rmnode *node;

	lockdep_assert_held(&t->lock);
	if (qgpu_is_root_class(hclass))
		return qgpu_rmtrack_add_client(t, handle, hclass);
	client = xa_load(&t->clients, qgpu_rmclient_key(hclient));
	if (!client || handle == hclient)
		return NULL;
	node = rhashtable_lookup_fast(&client->nodes, &handle, qgpu_rmnode_params);
	if (node) {
		/*
		 * RM reused a handle the mirror still has, or the tenant rewrote the handle RM
		 * wrote back. The second must not cost qgpu its state (a charge, a channel-group
		 * duplicate): a node that carries some stays, and the new object goes untracked.
		 * A stateless one is replaced: nothing is lost either way.
		 */
		if (node->ops || node->held || !list_empty(&node->children) ||
		    !list_empty(&node->dma_maps) || node->mapped_units)
			return NULL;
		qgpu_rmnode_free(client, node);
	}
	node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return NULL;
	node->handle = handle;
	node->hclass = hclass;
	if (!qgpu_rmclient_link(t, client, hparent, node)) {
		kfree(node);
		return NULL;
	}
	return node;
}

/* Does @node or anything under it carry state of qgpu's? */
static bool qgpu_rmnode_has_state(const struct qgpu_rmnode *node)
{
	const struct qgpu_rmnode *child;

	if (node->ops || node->held || !list_empty(&node->dma_maps) || node->mapped_units)
		return true;
	list_for_each_entry(child, &node->children, sibling)
		if (qgpu_rmnode_has_state(child))
			return true;
	return false;
}

/*
 * Drop the subtree under @node, whose own object RM confirmed gone, except what RM still has.
 *
 * The mirror placed each node under the parent the tenant's request named, as qgpu read it; RM
 * read the request again and may have used another parent. A node that carries state is
 * dropped only once RM confirms it is gone too; one RM still has moves under its client, where
 * it stays until RM frees it or the client. Stateless nodes go on the mirror's word.
 */
static void qgpu_rmnode_free_checked(struct qgpu_rmclient *client, struct qgpu_rmnode *node)
{
	struct qgpu_rmnode *child, *tmp;

	list_for_each_entry_safe(child, tmp, &node->children, sibling) {
		if (!qgpu_rmnode_has_state(child)) {
			qgpu_rmnode_free(client, child);
		} else if (qgpu_rmtrack_rm_has(client->root.handle, child->handle)) {
			child->parent = &client->root;
			list_move_tail(&child->sibling, &client->root.children);
		} else {
			qgpu_rmnode_free_checked(client, child);
		}
	}
	qgpu_rmnode_free(client, node);
}

/**
 * qgpu_rmtrack_insert_made() - qgpu had RM make an object: put its node, the caller's, in the
 * mirror
 * @t: the tracker (its lock held)
 * @hclient: its client
 * @hparent: its parent; a parent the mirror does not know puts it under the client
 * @node: the node: zeroed but for @handle, @hclass, and @ops, @payload and @in_payload if set
 *
 * For an object qgpu made through its kernel client (or verified with RM): the handle is RM's
 * answer to qgpu, not the tenant's word, so a node the mirror still has for it is stale (RM
 * freed it without qgpu seeing) and goes first, with its state, as by qgpu_rmtrack_freed().
 * A lockless reader can find @node as soon as it is indexed, so @ops and @payload are set
 * before.
 *
 * Context: process context; sleeps.
 * Return: true if @node is in the mirror; false (the node stays the caller's) when @hclient is
 * not tracked or the index is out of memory.
 */
bool qgpu_rmtrack_insert_made(struct qgpu_rmtrack *t, u32 hclient, u32 hparent,
			      struct qgpu_rmnode *node)
{
	struct qgpu_rmclient *client;
	struct qgpu_rmnode *stale;

	lockdep_assert_held(&t->lock);
	client = xa_load(&t->clients, qgpu_rmclient_key(hclient));
	if (!client || node->handle == hclient)
		return false;
	stale = rhashtable_lookup_fast(&client->nodes, &node->handle, qgpu_rmnode_params);
	if (stale)
		qgpu_rmnode_free_checked(client, stale);
	return qgpu_rmclient_link(t, client, hparent, node);
}

/**
 * qgpu_rmtrack_freed() - RM freed @handle (and its subtree): drop them from the mirror
 * @t: the tracker (its lock held)
 * @hclient: the client
 * @handle: the handle; the client handle drops the whole client
 *
 * A client takes everything in it along (RM's objects never change client). Under any other
 * object, what carries qgpu's state is dropped only once RM confirms it gone too (see
 * qgpu_rmnode_free_checked()): one RM call per such descendant, on frees of devices and other
 * parents, which are rare next to frees of memory.
 *
 * Context: process context; sleeps.
 */
void qgpu_rmtrack_freed(struct qgpu_rmtrack *t, u32 hclient, u32 handle)
{
	struct qgpu_rmnode *node = qgpu_rmtrack_find(t, hclient, handle);

	if (node)
		qgpu_rmtrack_freed_node(t, node);
}

/**
 * qgpu_rmtrack_freed_node() - RM freed a mirrored object: drop its node and subtree
 * @t: the tracker (its lock held)
 * @node: the node, as qgpu_rmtrack_find() returned it (a client's own node frees the client)
 *
 * As qgpu_rmtrack_freed(), for a caller that has the node already.
 *
 * Context: process context; sleeps.
 */
void qgpu_rmtrack_freed_node(struct qgpu_rmtrack *t, struct qgpu_rmnode *node)
{
	struct qgpu_rmnode *root = qgpu_rmnode_root(node);
	struct qgpu_rmclient *client;

	lockdep_assert_held(&t->lock);
	client = container_of(root, struct qgpu_rmclient, root);
	if (node == root)
		qgpu_rmclient_free(t, client);
	else
		qgpu_rmnode_free_checked(client, node);
}

/**
 * qgpu_rmtrack_gone() - after a free RM reported as done: may the mirror drop this handle?
 * @t: the tracker (its lock held)
 * @hclient: the client
 * @handle: the handle the tenant's call named
 *
 * A node that carries nothing of qgpu's and has nothing under it is dropped on the tenant's
 * word: if the word was false, the object merely lives on untracked, and anything allocated under
 * it later hangs off its client (released with the client, later rather than earlier). Anything
 * else is dropped only once RM confirms it no longer has the handle.
 *
 * Context: process context; sleeps.
 * Return: true if the handle is tracked and may be dropped.
 */
bool qgpu_rmtrack_gone(struct qgpu_rmtrack *t, u32 hclient, u32 handle)
{
	struct qgpu_rmnode *node = qgpu_rmtrack_find(t, hclient, handle);

	if (!node)
		return false;
	if (!node->ops && !node->held && list_empty(&node->children))
		return true;
	return !qgpu_rmtrack_rm_has(hclient, handle);
}

/**
 * qgpu_rmtrack_rm_has() - does RM still have this object? Asked of RM, not of the tenant
 * @hclient: its client
 * @handle: the object
 *
 * qgpu's kernel client asks the tenant's client itself (NV0000 CLIENT_GET_HANDLE_INFO; kernel
 * calls may name any client): "not found" or "no such client" means gone; any other answer means
 * it exists. Without a kernel client qgpu cannot ask and believes the tenant's status.
 *
 * Context: process context; sleeps.
 * Return: false if RM does not have it (or cannot be asked), true if it does.
 */
bool qgpu_rmtrack_rm_has(u32 hclient, u32 handle)
{
	struct nvrm_client_get_handle_info p = {
		.hobject = handle,
		.index = NVRM_HANDLE_INFO_INDEX_PARENT,
	};
	const u32 cmd = NVRM_CTRL_CMD_NV0000_CLIENT_GET_HANDLE_INFO;
	u32 status;

	if (handle == hclient)	/* the client itself: any NV0000 control tells */
		p.index = NVRM_HANDLE_INFO_INDEX_CLASSID;
	status = qgpu_kclient_control_in(hclient, hclient, cmd, &p, sizeof(p));
	switch (status) {
	case NVRM_OK:
		return true;
	case NVRM_ERR_OBJECT_NOT_FOUND:
	case NVRM_ERR_INVALID_OBJECT_HANDLE:
	case NVRM_ERR_INVALID_CLIENT:
	case NVRM_ERR_INVALID_STATE:
		return false;
	default:
		return true;
	}
}
