/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the OS events (ALLOC_OS_EVENT keys) the driver holds for an instance, counted and bounded
 * (DOC: OS events, qgpu_os_events.c).
 */
#ifndef QGPU_OS_EVENTS_H
#define QGPU_OS_EVENTS_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct nvrm_alloc_os_event;
struct qgpu_file;
struct qgpu_instance;
struct qgpu_rmtrack;

/* Keys one proxy file may have RM hold: CUDA took at most 9 per process in the traces. */
#define QGPU_OS_EVENTS_PER_FILE		64
/* Keys an instance's files may have RM hold together: 455 such CUDA processes. */
#define QGPU_OS_EVENTS_PER_INSTANCE	4096

/**
 * struct qgpu_os_events - the OS events an instance's files allocated and RM still holds
 * @lock: held across each forward that adds or frees keys and the update that follows, so the
 *	records change in RM's order (DOC: OS events); taken after a tracker's lock
 * @keys_lock: protects @keys, @count and each tracker's os_events; taken inside @lock, and
 *	alone by a tracker's release, which must not wait for a tenant's forward
 * @keys: the keys (struct qgpu_os_event), under @keys_lock
 * @count: how many, under @keys_lock
 */
struct qgpu_os_events {
	struct mutex lock;	/* see above */
	spinlock_t keys_lock;	/* see above */
	struct list_head keys;
	unsigned int count;
};

void qgpu_os_events_init(struct qgpu_os_events *e);
long qgpu_os_event_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			 struct nvrm_alloc_os_event *p);
long qgpu_os_event_free(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			struct nvrm_alloc_os_event *p);
int qgpu_os_events_client_free_begin(struct qgpu_instance *inst);
void qgpu_os_events_client_freed(struct qgpu_instance *inst, u32 hclient, bool freed);
void qgpu_os_events_release(struct qgpu_rmtrack *t);

#endif /* QGPU_OS_EVENTS_H */
