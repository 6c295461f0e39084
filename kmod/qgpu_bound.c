// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: a count of what an instance holds, and the most it may hold.
 *
 * The count goes up by a reservation before qgpu lets a call make something, and down when what
 * was made goes (or was never made). Only a reservation is checked against the bound, under the
 * lock that a change of the bound takes too: the count never passes the bound, and a bound below
 * the count is refused, as mem_max refuses one below mem_current.
 */
#include <linux/errno.h>
#include <linux/sysfs.h>

#include "qgpu_bound.h"

/**
 * qgpu_bound_init() - nothing held yet
 * @b: the count
 * @max: its bound, 0 for none
 */
void qgpu_bound_init(struct qgpu_bound *b, u32 max)
{
	spin_lock_init(&b->lock);
	b->max = max;
	atomic_set(&b->count, 0);
}

/**
 * qgpu_bound_reserve() - count @n more, if they fit
 * @b: the count
 * @n: how many
 *
 * The caller gives them back with qgpu_bound_put() when they were not made or when they go.
 *
 * Return: true if they fit under the bound (and are counted), false if not (nothing changed).
 */
bool qgpu_bound_reserve(struct qgpu_bound *b, u32 n)
{
	bool fits;

	spin_lock(&b->lock);
	fits = !b->max || (u64)atomic_read(&b->count) + n <= b->max;
	if (fits)
		atomic_add(n, &b->count);
	spin_unlock(&b->lock);
	return fits;
}

/**
 * qgpu_bound_force() - count @n more, whatever the bound says
 * @b: the count
 * @n: how many
 *
 * For what the driver already holds and qgpu could not refuse any more; the count may then read
 * above the bound until they go (qgpu_bound_put()).
 */
void qgpu_bound_force(struct qgpu_bound *b, u32 n)
{
	atomic_add(n, &b->count);
}

/**
 * qgpu_bound_put() - @n counted are gone, or were never made
 * @b: the count
 * @n: how many
 */
void qgpu_bound_put(struct qgpu_bound *b, u32 n)
{
	WARN_ON_ONCE(atomic_sub_return(n, &b->count) < 0);
}

/**
 * qgpu_bound_max() - the bound
 * @b: the count
 *
 * Return: the bound, 0 for none.
 */
u32 qgpu_bound_max(struct qgpu_bound *b)
{
	u32 max;

	spin_lock(&b->lock);
	max = b->max;
	spin_unlock(&b->lock);
	return max;
}

/**
 * qgpu_bound_set_max() - a new bound
 * @b: the count
 * @max: the bound, 0 for none
 *
 * Return: 0, or -EBUSY (nothing changed) when more than @max is held.
 */
int qgpu_bound_set_max(struct qgpu_bound *b, u32 max)
{
	int ret = 0;

	spin_lock(&b->lock);
	if (max && (u32)atomic_read(&b->count) > max)
		ret = -EBUSY;
	else
		b->max = max;
	spin_unlock(&b->lock);
	return ret;
}

/**
 * qgpu_bound_max_show() - the bound as a sysfs knob shows it
 * @b: the count
 * @buf: the sysfs page
 *
 * Return: the length written: the bound, or ``max`` for none.
 */
ssize_t qgpu_bound_max_show(struct qgpu_bound *b, char *buf)
{
	u32 max = qgpu_bound_max(b);

	return max ? sysfs_emit(buf, "%u\n", max) : sysfs_emit(buf, "max\n");
}
