// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: OS events (ALLOC_OS_EVENT / FREE_OS_EVENT), NV01_EVENT_OS_EVENT objects, poll() and
 * RM_GET_EVENT_DATA, as the real driver's osapi.c / os.c / nv.c (525-595).
 *
 * ALLOC_OS_EVENT records a key (hClient, fd) with the file the ioctl was issued on; neither is
 * validated: the fd is only a number and the client need not exist. An NV01_EVENT_OS_EVENT object
 * allocated by that client with NV0005_ALLOC_PARAMETERS.data = fd attaches to the key
 * (osUserHandleToKernelPtr; NV_ERR_OBJECT_NOT_FOUND without one) and, when its source resource's
 * GPU signals its notifier index, posts to that file: an event with data is queued for
 * RM_GET_EVENT_DATA, one without data (NV01_EVENT_WITHOUT_EVENT_DATA) sets a flag; either wakes
 * the file's poll(). poll() reports EPOLLIN | EPOLLPRI once per dataless event (edge-triggered:
 * poll clears the flag) and while data is queued; it sleeps only for files without O_NONBLOCK.
 * A key goes with FREE_OS_EVENT, with RM_FREE of its client through the escape, or when its file
 * is released; event objects still attached to it stay allocated but are never signalled again.
 *
 * Locking: nvsim_event_lock (a spinlock, taken with interrupts off) protects the key list, the
 * event object list, each key's file and reference count and every file's event queue, so that
 * nvsim_event_notify() may be called from any context. Event objects are created and destroyed
 * under nvsim_rm_lock as well.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsim_internal.h"

DEFINE_SPINLOCK(nvsim_event_lock);
/* Active keys and event objects, under nvsim_event_lock. */
static LIST_HEAD(nvsim_os_events);
static LIST_HEAD(nvsim_event_objects);

/**
 * struct nvsim_os_event - an ALLOC_OS_EVENT key
 * @node: entry in nvsim_os_events while active
 * @hclient: the client handle given (not validated)
 * @fd: the fd number given (only a key)
 * @file: the file to post to; NULL once the key is freed
 * @refs: event objects attached to it; a freed key lives on until the last one goes
 */
struct nvsim_os_event {
	struct list_head node;
	u32 hclient;
	u32 fd;
	struct file *file;
	unsigned int refs;
};

/**
 * struct nvsim_event - the resource of an NV01_EVENT_OS_EVENT object
 * @res: the shared resource
 * @node: entry in nvsim_event_objects
 * @os: the key it posts through
 * @gpu: the GPU of its source resource (NULL: never signalled by a GPU)
 * @handle: the event object's handle, reported as hObject
 * @index: the notifier index (NV0005 notifyIndex bits 15:0, as RM reads it: the NV01_EVENT_*
 *	flags and the subdevice field do not take part in matching)
 * @flags: the NV01_EVENT_* flags of notifyIndex
 */
struct nvsim_event {
	struct nvsim_res res;
	struct list_head node;
	struct nvsim_os_event *os;
	struct nvsim_gpu *gpu;
	u32 handle;
	u32 index;
	u32 flags;
};

/* One queued event with data. */
struct nvsim_event_data {
	struct list_head node;
	struct nvrm_unix_event ev;
};

/* Under nvsim_event_lock: detach the key; free it unless event objects still hold it. */
static void nvsim_os_event_free_locked(struct nvsim_os_event *os)
{
	lockdep_assert_held(&nvsim_event_lock);
	list_del_init(&os->node);
	os->file = NULL;
	if (!os->refs)
		kfree(os);
}

/*
 * /proc/driver/nvsim/os_events: how many keys the driver's list holds, for every file and client
 * together (the real driver has one list, walked under a spinlock by every ALLOC_OS_EVENT and
 * every file's release).
 */
static int nvsim_os_events_show(struct seq_file *m, void *v)
{
	struct nvsim_os_event *os;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&nvsim_event_lock, flags);
	list_for_each_entry(os, &nvsim_os_events, node)
		n++;
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	seq_printf(m, "%u\n", n);
	return 0;
}

/**
 * nvsim_event_proc_init() - create /proc/driver/nvsim/os_events
 * @root: /proc/driver/nvsim (removed with it)
 *
 * Return: 0, or -ENOMEM.
 */
int nvsim_event_proc_init(struct proc_dir_entry *root)
{
	return proc_create_single("os_events", 0444, root, nvsim_os_events_show) ? 0 : -ENOMEM;
}

static struct nvsim_os_event *nvsim_os_event_find_locked(u32 hclient, u32 fd)
{
	struct nvsim_os_event *os;

	lockdep_assert_held(&nvsim_event_lock);
	list_for_each_entry(os, &nvsim_os_events, node)
		if (os->hclient == hclient && os->fd == fd)
			return os;
	return NULL;
}

/**
 * nvsim_alloc_os_event() - NV_ESC_ALLOC_OS_EVENT, on any nvsim RM file
 * @file: the file events will wake
 * @params: kernel copy of nv_ioctl_alloc_os_event_t; Status is written back
 * @size: must be 16
 *
 * Context: process context.
 * Return: 0 with the status in @params (NV_ERR_INSUFFICIENT_RESOURCES for a key in use, as the
 * real driver maps every failure), or -EINVAL for a wrong size.
 */
int nvsim_alloc_os_event(struct file *file, void *params, u32 size)
{
	struct nvrm_alloc_os_event *p = params;
	struct nvsim_os_event *os;
	unsigned long flags;

	if (size != sizeof(*p))
		return -EINVAL;
	os = kzalloc(sizeof(*os), GFP_KERNEL);
	if (!os) {
		p->status = NVRM_ERR_INSUFFICIENT_RESOURCES;
		return 0;
	}
	os->hclient = p->hclient;
	os->fd = p->fd;
	os->file = file;
	spin_lock_irqsave(&nvsim_event_lock, flags);
	if (nvsim_os_event_find_locked(p->hclient, p->fd)) {
		spin_unlock_irqrestore(&nvsim_event_lock, flags);
		kfree(os);
		p->status = NVRM_ERR_INSUFFICIENT_RESOURCES;
		return 0;
	}
	list_add(&os->node, &nvsim_os_events);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	p->status = NVRM_OK;
	return 0;
}

/**
 * nvsim_free_os_event() - NV_ESC_FREE_OS_EVENT, on any nvsim RM file
 * @file: unused (the key alone names the event, as in the real driver)
 * @params: kernel copy of nv_ioctl_free_os_event_t; Status is written back
 * @size: must be 16
 *
 * Context: process context.
 * Return: 0 with NV_OK or NV_ERR_INVALID_EVENT in @params, or -EINVAL for a wrong size.
 */
int nvsim_free_os_event(struct file *file, void *params, u32 size)
{
	struct nvrm_alloc_os_event *p = params;
	struct nvsim_os_event *os;
	unsigned long flags;

	if (size != sizeof(*p))
		return -EINVAL;
	spin_lock_irqsave(&nvsim_event_lock, flags);
	os = nvsim_os_event_find_locked(p->hclient, p->fd);
	if (os)
		nvsim_os_event_free_locked(os);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	p->status = os ? NVRM_OK : NVRM_ERR_INVALID_EVENT;
	return 0;
}

/**
 * nvsim_event_client_gone() - free the keys of a client freed through the RM_FREE escape
 *	(rm_client_free_os_events)
 * @hclient: its handle
 *
 * Context: any.
 */
void nvsim_event_client_gone(u32 hclient)
{
	struct nvsim_os_event *os, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&nvsim_event_lock, flags);
	list_for_each_entry_safe(os, tmp, &nvsim_os_events, node)
		if (os->hclient == hclient)
			nvsim_os_event_free_locked(os);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
}

/* A new file has no events. */
void nvsim_event_file_init(struct nvsim_file *nf)
{
	init_waitqueue_head(&nf->waitq);
	INIT_LIST_HEAD(&nf->event_data);
	nf->dataless_pending = false;
}

/**
 * nvsim_event_file_release() - @file is going: free its keys and its queued events
 * @file: the file
 *
 * Context: process context (release).
 */
void nvsim_event_file_release(struct file *file)
{
	struct nvsim_file *nf = file->private_data;
	struct nvsim_event_data *d, *dtmp;
	struct nvsim_os_event *os, *tmp;
	unsigned long flags;
	LIST_HEAD(queued);

	spin_lock_irqsave(&nvsim_event_lock, flags);
	list_for_each_entry_safe(os, tmp, &nvsim_os_events, node)
		if (os->file == file)
			nvsim_os_event_free_locked(os);
	list_splice_init(&nf->event_data, &queued);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	list_for_each_entry_safe(d, dtmp, &queued, node)
		kfree(d);
}

/* The last handle to an event object went. Under nvsim_rm_lock. */
static void nvsim_event_release(struct nvsim_res *res)
{
	struct nvsim_event *ev = container_of(res, struct nvsim_event, res);
	unsigned long flags;

	spin_lock_irqsave(&nvsim_event_lock, flags);
	list_del(&ev->node);
	if (!--ev->os->refs && !ev->os->file)
		kfree(ev->os);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	kfree(ev);
}

/**
 * nvsim_event_construct() - an NV01_EVENT_OS_EVENT object from NV0005_ALLOC_PARAMETERS
 * @caller: the call
 * @obj: the new object
 * @ap: kernel copy of NV0005_ALLOC_PARAMETERS, or NULL
 *
 * Context: under nvsim_rm_lock.
 * Return: NV_OK, NV_ERR_INVALID_ARGUMENT (no params), NV_ERR_INVALID_OBJECT_HANDLE (no such
 * source resource), NV_ERR_OBJECT_NOT_FOUND (no ALLOC_OS_EVENT key for this client and fd) or
 * NV_ERR_NO_MEMORY.
 */
u32 nvsim_event_construct(const struct nvsim_caller *caller, struct nvsim_object *obj, void *ap)
{
	const struct nvrm_nv0005_alloc_params *p = ap;
	struct nvsim_client *src_client;
	struct nvsim_object *src;
	struct nvsim_os_event *os;
	struct nvsim_event *ev;
	unsigned long flags;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!p)
		return NVRM_ERR_INVALID_ARGUMENT;
	/* 0 names the allocating client (event_api.c, 525-595); any other client is taken */
	src_client = !p->hparent_client || p->hparent_client == obj->client->root.handle ?
		     obj->client : nvsim_client_lookup(p->hparent_client);
	src = src_client ? nvsim_object_lookup(src_client, p->hsrc_resource) : NULL;
	if (!src)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return NVRM_ERR_NO_MEMORY;
	nvsim_res_init(&ev->res, nvsim_event_release);
	ev->gpu = src->gpu;
	ev->handle = obj->handle;
	ev->index = p->notify_index & NVRM_NV0005_NOTIFY_INDEX_INDEX;
	ev->flags = p->notify_index & NVRM_NV01_EVENT_FLAGS;

	spin_lock_irqsave(&nvsim_event_lock, flags);
	os = nvsim_os_event_find_locked(obj->client->root.handle, (u32)p->data);
	if (os) {
		os->refs++;
		ev->os = os;
		list_add_tail(&ev->node, &nvsim_event_objects);
	}
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	if (!os) {
		kfree(ev);
		return NVRM_ERR_OBJECT_NOT_FOUND;
	}
	obj->res = &ev->res;
	return NVRM_OK;
}

/**
 * nvsim_event_notify() - signal every event object on @gpu with notifier index @notify_index
 * @gpu: the GPU whose engine raised the notification
 * @notify_index: the notifier index (e.g. NVRM_NV2080_NOTIFIERS_GRAPHICS for work completion)
 *
 * Each event posts to the file that issued its ALLOC_OS_EVENT and wakes its poll().
 *
 * Context: any (takes nvsim_event_lock with interrupts off; allocates with GFP_ATOMIC).
 */
void nvsim_event_notify(struct nvsim_gpu *gpu, u32 notify_index)
{
	struct nvsim_event_data *d;
	struct nvsim_event *ev;
	struct nvsim_file *nf;
	unsigned long flags;

	spin_lock_irqsave(&nvsim_event_lock, flags);
	list_for_each_entry(ev, &nvsim_event_objects, node) {
		if (ev->gpu != gpu || ev->index != notify_index || !ev->os->file)
			continue;
		nf = ev->os->file->private_data;
		if (ev->flags & NVRM_NV01_EVENT_WITHOUT_EVENT_DATA) {
			nf->dataless_pending = true;
		} else {
			d = kzalloc(sizeof(*d), GFP_ATOMIC);
			if (!d)
				continue;	/* as nv_post_event: the event is lost */
			d->ev.hobject = ev->handle;
			d->ev.notify_index = ev->index;
			list_add_tail(&d->node, &nf->event_data);
		}
		wake_up_interruptible(&nf->waitq);
	}
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
}
EXPORT_SYMBOL_GPL(nvsim_event_notify);

/**
 * nvsim_poll() - the poll of nvsim's RM files (nvidia_poll)
 * @file: the file
 * @wait: the poll table
 *
 * Context: process context.
 * Return: EPOLLIN | EPOLLPRI when an event is pending, else 0.
 */
__poll_t nvsim_poll(struct file *file, struct poll_table_struct *wait)
{
	struct nvsim_file *nf = file->private_data;
	unsigned long flags;
	__poll_t mask = 0;

	if (!(file->f_flags & O_NONBLOCK))
		poll_wait(file, &nf->waitq, wait);
	spin_lock_irqsave(&nvsim_event_lock, flags);
	if (!list_empty(&nf->event_data) || nf->dataless_pending) {
		mask = EPOLLPRI | EPOLLIN;
		nf->dataless_pending = false;
	}
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	return mask;
}

/**
 * nvsim_get_event_data() - NV_ESC_RM_GET_EVENT_DATA (NVOS41), on any nvsim RM file
 * @file: the file whose queue to pop
 * @params: kernel copy of NVOS41; MoreEvents and status are written back
 * @size: must be 16
 *
 * Context: process context.
 * Return: 0 with the status in @params (NV_ERR_OPERATING_SYSTEM when nothing is queued), or
 * -EINVAL for a wrong size.
 */
int nvsim_get_event_data(struct file *file, void *params, u32 size)
{
	struct nvsim_file *nf = file->private_data;
	struct nvrm_nvos41 *p = params;
	struct nvsim_event_data *d;
	unsigned long flags;

	if (size != sizeof(*p))
		return -EINVAL;
	spin_lock_irqsave(&nvsim_event_lock, flags);
	d = list_first_entry_or_null(&nf->event_data, struct nvsim_event_data, node);
	if (d)
		list_del(&d->node);
	p->more_events = !list_empty(&nf->event_data);
	spin_unlock_irqrestore(&nvsim_event_lock, flags);
	if (!d) {
		p->status = NVRM_ERR_OPERATING_SYSTEM;
		return 0;
	}
	p->status = copy_to_user(u64_to_user_ptr(p->pevent), &d->ev, sizeof(d->ev)) ?
		    NVRM_ERR_INVALID_ADDRESS : NVRM_OK;
	kfree(d);
	return 0;
}
