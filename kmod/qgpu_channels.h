/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the channels and channel groups an instance holds, counted and bounded (qgpu_channels.c).
 */
#ifndef QGPU_CHANNELS_H
#define QGPU_CHANNELS_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/types.h>

struct qgpu_instance;

/**
 * struct qgpu_channels - an instance's channels and channel groups
 * @lock: serialises a reservation against a change of @max, so that @count never passes it
 * @max: the bound, 0 for none (``channels_max``); written under @lock, read under it
 * @count: the channels and channel groups RM holds for the instance, as the mirror counts them,
 *	plus those reserved for an RM_ALLOC in flight; raised under @lock, lowered without it
 */
struct qgpu_channels {
	spinlock_t lock;	/* see @lock above */
	u32 max;
	atomic_t count;
};

void qgpu_channels_init(struct qgpu_channels *c, u32 max);
bool qgpu_is_channel_class(u32 hclass);
bool qgpu_channels_counted(u32 hclass);
bool qgpu_channels_reserve(struct qgpu_instance *inst);
void qgpu_channels_put(struct qgpu_instance *inst);

extern const struct attribute_group qgpu_channels_instance_group;

#endif /* QGPU_CHANNELS_H */
