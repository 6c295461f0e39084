/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: a count of what an instance holds, and the most it may hold (qgpu_bound.c). Its channels
 * (qgpu_channels.c) and its RM objects (qgpu_objects.c) are such counts.
 */
#ifndef QGPU_BOUND_H
#define QGPU_BOUND_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * struct qgpu_bound - a count and its bound
 * @lock: serialises a reservation against a change of @max, so that no reservation takes
 *	@count past @max
 * @max: the bound, 0 for none; written under @lock, read under it
 * @count: what is held, reservations in flight included; a reservation raises it under @lock,
 *	everything else changes it without
 */
struct qgpu_bound {
	spinlock_t lock;	/* see @lock above */
	u32 max;
	atomic_t count;
};

void qgpu_bound_init(struct qgpu_bound *b, u32 max);
bool qgpu_bound_reserve(struct qgpu_bound *b, u32 n);
void qgpu_bound_force(struct qgpu_bound *b, u32 n);
void qgpu_bound_put(struct qgpu_bound *b, u32 n);
u32 qgpu_bound_max(struct qgpu_bound *b);
int qgpu_bound_set_max(struct qgpu_bound *b, u32 max);
ssize_t qgpu_bound_max_show(struct qgpu_bound *b, char *buf);

/* What is held now, reservations in flight included. */
static inline int qgpu_bound_count(const struct qgpu_bound *b)
{
	return atomic_read(&b->count);
}

#endif /* QGPU_BOUND_H */
