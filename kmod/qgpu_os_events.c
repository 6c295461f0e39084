// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the OS events the driver holds for an instance, counted and bounded.
 *
 * DOC: OS events
 *
 * The driver keeps the ALLOC_OS_EVENT keys (hClient, fd) of all its files in one list, in memory
 * no cgroup is charged for, and walks the whole list under a spinlock on every ALLOC_OS_EVENT of
 * any process and on every file's release (allocate_os_event(), free_os_events() in osapi.c,
 * 525-595). It checks neither part of a key, so one tenant could grow the list without end: host
 * memory, and a walk that every other tenant's CUDA start-up and exit waits on. qgpu counts the
 * keys each proxy file of an instance allocated and refuses one past QGPU_OS_EVENTS_PER_FILE on
 * the file or QGPU_OS_EVENTS_PER_INSTANCE on the instance with NV_ERR_INSUFFICIENT_RESOURCES, the
 * driver's own answer to any ALLOC_OS_EVENT that fails; the operator gets the netlink event
 * ``refused``. CUDA allocated at most 9 keys per process in the traces of session 17, all on its
 * /dev/nvidia0 file.
 *
 * The count follows the driver: a key goes with FREE_OS_EVENT (through any file), with an RM_FREE
 * of its client through the escape (rm_client_free_os_events()), and with the real file it was
 * allocated on, which a mapping can keep after the proxy has gone. So the keys belong to the
 * file's tracker, which waits for the real file (qgpu_rmtrack_release()): a ctl file's own, or
 * one a GPU file gets at its first ALLOC_OS_EVENT.
 *
 * RM's status decides. The forwards are sealed (RM reads and writes qgpu's copy), so a sibling
 * thread that rewrites the status in the tenant's memory hides nothing from the count. Unsealed
 * (seal=0, or no probe), qgpu believes the status in the tenant's memory.
 *
 * Locking: the instance's os_events.lock (a mutex) is held across each forwarded ALLOC_OS_EVENT,
 * FREE_OS_EVENT and RM_FREE of a client and the update that follows, so the records change in the
 * order RM's list does: a key allocated for a client that RM has just freed stays, as RM keeps it.
 * It is taken after a tracker's lock. The records themselves are under os_events.keys_lock (a
 * spinlock), the only lock a tracker's release takes: a tenant can stall a forward on its own
 * memory (userfaultfd) while it holds the mutex, and the reaper that releases every instance's
 * trackers must not wait for that (no forward can be in flight on a file being released).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>

#include "qgpu_internal.h"
#include "qgpu_os_events.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"

/**
 * struct qgpu_os_event - a key RM holds because a proxy file of the instance allocated it
 * @link: entry in the instance's os_events.keys
 * @hclient: the key's client
 * @fd: the key's fd number (only a number to RM)
 * @owner: the tracker of the file it was allocated through (RM frees it with the real file)
 */
struct qgpu_os_event {
	struct list_head link;
	u32 hclient;
	u32 fd;
	struct qgpu_rmtrack *owner;
};

/**
 * qgpu_os_events_init() - an instance without OS events
 * @e: the instance's os_events
 */
void qgpu_os_events_init(struct qgpu_os_events *e)
{
	mutex_init(&e->lock);
	spin_lock_init(&e->keys_lock);
	INIT_LIST_HEAD(&e->keys);
	e->count = 0;
}

/*
 * The tracker the keys of @qf belong to: a ctl proxy's own, or the one a GPU proxy gets now, at
 * its first ALLOC_OS_EVENT, to keep its real file until RM has let the keys go. NULL when out
 * of memory. Under the instance's os_events.lock.
 */
static struct qgpu_rmtrack *qgpu_os_events_owner(struct qgpu_file *qf)
{
	lockdep_assert_held(&qf->inst->os_events.lock);
	if (qf->track)
		return qf->track;
	if (!qf->events_track)
		qf->events_track = qgpu_rmtrack_new(qf->inst);
	return qf->events_track;
}

static void qgpu_os_event_drop(struct qgpu_os_events *e, struct qgpu_os_event *key)
{
	lockdep_assert_held(&e->keys_lock);
	list_del(&key->link);
	key->owner->os_events--;
	e->count--;
	kfree(key);
}

/* The status RM gave: from qgpu's copy when RM ran on it, else from the tenant's memory. */
static u32 qgpu_os_event_status(long ret, bool sealed, unsigned long arg,
				const struct nvrm_alloc_os_event *p)
{
	u32 status;

	if (ret)
		return NVRM_ERR_GENERIC;
	if (sealed)
		return p->status;
	if (get_user(status, &((struct nvrm_alloc_os_event __user *)arg)->status))
		return NVRM_ERR_GENERIC;
	return status;
}

/**
 * qgpu_os_event_alloc() - ALLOC_OS_EVENT of a checked client: bounded, forwarded, counted
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's nv_ioctl_alloc_os_event_t
 * @compat: use the backend's compat_ioctl
 * @p: qgpu's copy of it, whose client is the instance's
 *
 * Context: process context; takes the instance's os_events.lock.
 * Return: what the ioctl returns.
 */
long qgpu_os_event_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			 struct nvrm_alloc_os_event *p)
{
	struct qgpu_os_events *e = &qf->inst->os_events;
	struct qgpu_rmtrack *owner;
	struct qgpu_os_event *key;
	bool sealed, file_full, full;
	long ret;

	key = kzalloc(sizeof(*key), GFP_KERNEL_ACCOUNT);
	if (!key)
		return -ENOMEM;
	ret = mutex_lock_killable(&e->lock);
	if (ret)
		goto out_free;
	owner = qgpu_os_events_owner(qf);
	if (!owner) {
		mutex_unlock(&e->lock);
		ret = -ENOMEM;
		goto out_free;
	}
	spin_lock(&e->keys_lock);
	file_full = owner->os_events >= QGPU_OS_EVENTS_PER_FILE;
	full = file_full || e->count >= QGPU_OS_EVENTS_PER_INSTANCE;
	spin_unlock(&e->keys_lock);
	if (full) {
		mutex_unlock(&e->lock);
		qgpu_mem_call_refused(qf->inst, file_full ?
			"ALLOC_OS_EVENT past " __stringify(QGPU_OS_EVENTS_PER_FILE)
			" OS events on one file" :
			"ALLOC_OS_EVENT past " __stringify(QGPU_OS_EVENTS_PER_INSTANCE)
			" OS events on the instance");
		p->status = NVRM_ERR_INSUFFICIENT_RESOURCES;
		ret = copy_to_user((void __user *)arg, p, sizeof(*p)) ? -EFAULT : 0;
		goto out_free;
	}
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, p, &sealed);
	if (qgpu_os_event_status(ret, sealed, arg, p) == NVRM_OK) {
		key->hclient = p->hclient;
		key->fd = p->fd;
		key->owner = owner;
		spin_lock(&e->keys_lock);
		list_add_tail(&key->link, &e->keys);
		owner->os_events++;
		e->count++;
		spin_unlock(&e->keys_lock);
		key = NULL;
	}
	mutex_unlock(&e->lock);
	ret = qgpu_seal_copy_back(ret, sealed, arg, p, sizeof(*p));
out_free:
	kfree(key);
	return ret;
}

/**
 * qgpu_os_event_free() - FREE_OS_EVENT of a checked client: forwarded, and uncounted if RM freed it
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the tenant's nv_ioctl_free_os_event_t
 * @compat: use the backend's compat_ioctl
 * @p: qgpu's copy of it, whose client is the instance's
 *
 * Context: process context; takes the instance's os_events.lock.
 * Return: what the ioctl returns.
 */
long qgpu_os_event_free(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			struct nvrm_alloc_os_event *p)
{
	struct qgpu_os_events *e = &qf->inst->os_events;
	struct qgpu_os_event *key;
	bool sealed;
	long ret;

	ret = mutex_lock_killable(&e->lock);
	if (ret)
		return ret;
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, p, &sealed);
	if (qgpu_os_event_status(ret, sealed, arg, p) == NVRM_OK) {
		spin_lock(&e->keys_lock);
		list_for_each_entry(key, &e->keys, link) {
			if (key->hclient == p->hclient && key->fd == p->fd) {
				qgpu_os_event_drop(e, key);
				break;
			}
		}
		spin_unlock(&e->keys_lock);
	}
	mutex_unlock(&e->lock);
	return qgpu_seal_copy_back(ret, sealed, arg, p, sizeof(*p));
}

/**
 * qgpu_os_events_client_free_begin() - an RM_FREE of a client is about to go through the escape
 * @inst: the instance
 *
 * RM frees the client's keys with it; hold the records still until qgpu_os_events_client_freed().
 *
 * Context: process context; a tracker's lock may be held.
 * Return: 0, or -EINTR when killed meanwhile (nothing to undo).
 */
int qgpu_os_events_client_free_begin(struct qgpu_instance *inst)
{
	return mutex_lock_killable(&inst->os_events.lock);
}

/**
 * qgpu_os_events_client_freed() - the RM_FREE of a client is done
 * @inst: the instance
 * @hclient: the client
 * @freed: RM freed it, and with it its keys
 */
void qgpu_os_events_client_freed(struct qgpu_instance *inst, u32 hclient, bool freed)
{
	struct qgpu_os_events *e = &inst->os_events;
	struct qgpu_os_event *key, *tmp;

	if (freed) {
		spin_lock(&e->keys_lock);
		list_for_each_entry_safe(key, tmp, &e->keys, link)
			if (key->hclient == hclient)
				qgpu_os_event_drop(e, key);
		spin_unlock(&e->keys_lock);
	}
	mutex_unlock(&e->lock);
}

/**
 * qgpu_os_events_release() - a tracker is going with its real file: RM frees the file's keys
 * @t: the tracker
 *
 * Context: any process context, the reaper's included; never waits for a tenant's forward.
 */
void qgpu_os_events_release(struct qgpu_rmtrack *t)
{
	struct qgpu_os_events *e = &t->inst->os_events;
	struct qgpu_os_event *key, *tmp;

	/* No proxy is left to add keys; others only take them away. */
	if (!READ_ONCE(t->os_events))
		return;
	spin_lock(&e->keys_lock);
	list_for_each_entry_safe(key, tmp, &e->keys, link)
		if (key->owner == t)
			qgpu_os_event_drop(e, key);
	spin_unlock(&e->keys_lock);
}
