// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the RM objects an instance's tenants hold, counted and bounded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/lockdep.h>

#include "qgpu_internal.h"
#include "qgpu_kclient.h"
#include "qgpu_mem.h"
#include "qgpu_objects.h"
#include "qgpu_rmtrack.h"

/**
 * DOC: RM objects
 *
 * Every RM object a tenant makes takes the driver's memory, which no cgroup is charged for, and
 * on a GSP GPU most take the firmware's too, which all of the GPU's tenants share. RM bounds
 * only the handles it generates for one client (2^19, RS_UNIQUE_HANDLE_RANGE; past them
 * clientGenResourceHandle() answers NV_ERR_INSUFFICIENT_RESOURCES): a tenant that names its own
 * handles, or makes more clients, has no bound. ``mem_max`` bounds video memory, not objects: a
 * 4 GiB limit still lets a million 4 KiB allocations through.
 *
 * ``rm_objects_max`` (0644, ``max`` or 1..QGPU_RM_OBJECTS_LIMIT; ``rm_objects=`` at creation,
 * default ``max``) bounds the RM objects the instance's processes hold at once: the objects
 * qgpu's mirror counts (qgpu_rmtrack.c), clients included. A PyTorch process that made its CUDA
 * context and allocated and freed 1 GiB made 128 RM objects in all, 81 of them other than memory
 * (traced on an H200, driver 580), and each allocation, duplicate or import adds one. A
 * call that would make objects past the bound is not forwarded: RM_ALLOC, RM_DUP_OBJECT,
 * RM_VID_HEAP_CONTROL's ALLOC_* and RM_ALLOC_MEMORY answer NV_ERR_INSUFFICIENT_RESOURCES in their
 * status, what RM answers when a client's handles run out, and so does the NV0000 OS_UNIX import
 * of the objects it would import (the single import counts one, IMPORT_OBJECTS_FROM_FD as many
 * as it asks for). The netlink event ``refused`` names the process, and the kernel log says so
 * (rate-limited). ``rm_objects`` (0444) is the count, also on the instance's line of
 * /proc/qgpu/status. Lowering ``rm_objects_max`` below it is refused with -EBUSY, as ``mem_max``
 * is.
 *
 * The count is the mirror's. A call reserves what it may make before it is forwarded, under its
 * tracker's lock; each object the mirror records takes one of the reservation, and what is left
 * when the call returns goes back. The count goes down when the mirror drops an object, which it
 * does once RM has freed it (the object, an ancestor, the client, or the file at process exit).
 * An object RM made that the mirror cannot record (out of memory for its node) is freed again
 * when the instance is bounded, and the call fails with NV_ERR_NO_MEMORY, as for a channel.
 *
 * Sealed (DOC: sealed forwarding), the handle and status qgpu mirrors are RM's. Unsealed (seal=0,
 * or no probe), qgpu believes the status and handle in the tenant's memory, as for OS events: a
 * sibling thread that rewrites them misleads only the mirror of its own objects, and an object RM
 * made in a call that then failed (RM_ALLOC_MEMORY with a bad fd) goes uncounted.
 *
 * Objects made through a GPU node (RM_ALLOC_MEMORY, and RM_ALLOC, which the driver takes there
 * for the event classes only) are made in the clients of the ctl file REGISTER_FD bound the node
 * to, and count in that file's mirror; through a node never bound RM makes none.
 *
 * Not counted: what RM makes inside a call for its own purposes (a mapping's records, a channel's
 * instance block). Those are not tenant handles; ``channels_max`` bounds a channel's (and
 * ``mem_max`` charges its memory, DOC: context buffers in qgpu_ctxbuf.c), and ``mapped_max`` a
 * GPU mapping's (DOC: GPU mappings in qgpu_mapped.c).
 */

/**
 * qgpu_objects_reserve() - @t's call may make @n RM objects, if they fit
 * @t: the calling file's tracker (its lock held)
 * @n: how many
 *
 * On refusal the operator is told (netlink ``refused``, the log). The objects the mirror records
 * until qgpu_objects_settle() take the reservation; settling gives back the rest.
 *
 * Return: true if they fit under ``rm_objects_max``.
 */
bool qgpu_objects_reserve(struct qgpu_rmtrack *t, u32 n)
{
	lockdep_assert_held(&t->lock);
	if (qgpu_bound_reserve(&t->inst->objects, n)) {
		t->objects_reserved += n;
		return true;
	}
	qgpu_mem_call_refused(t->inst, "RM objects past rm_objects_max");
	return false;
}

/**
 * qgpu_objects_settle() - @t's call returns: what it reserved and the mirror did not record goes
 * back
 * @t: the tracker (its lock held)
 */
void qgpu_objects_settle(struct qgpu_rmtrack *t)
{
	lockdep_assert_held(&t->lock);
	if (t->objects_reserved)
		qgpu_bound_put(&t->inst->objects, t->objects_reserved);
	t->objects_reserved = 0;
}

/**
 * qgpu_objects_mirrored() - the mirror recorded an object of @t's: it takes one reserved, or
 * counts one more
 * @t: the tracker (its lock held)
 */
void qgpu_objects_mirrored(struct qgpu_rmtrack *t)
{
	lockdep_assert_held(&t->lock);
	if (t->objects_reserved)
		t->objects_reserved--;
	else
		atomic_inc(&t->inst->objects.count);	/* unreserved: counted, never refused */
}

/**
 * qgpu_objects_gone() - the mirror dropped an object of @inst's
 * @inst: the instance
 */
void qgpu_objects_gone(struct qgpu_instance *inst)
{
	qgpu_bound_put(&inst->objects, 1);
}

/**
 * qgpu_objects_bounded() - does @inst have an ``rm_objects_max``?
 * @inst: the instance
 *
 * Return: true if it has; a bound set or lifted meanwhile may be missed (the caller only decides
 * whether an object the mirror could not record must go).
 */
bool qgpu_objects_bounded(struct qgpu_instance *inst)
{
	return qgpu_bound_max(&inst->objects);
}

/**
 * qgpu_objects_unmade() - RM made an object the mirror could not record: free it again
 * @hclient: its client
 * @handle: its handle (@hclient for a client)
 *
 * Context: process context; the kernel client's calls sleep.
 * Return: true if RM no longer has it (the call is to fail with NV_ERR_NO_MEMORY); false if the
 * free did not take, and the object stays, unmirrored.
 */
bool qgpu_objects_unmade(u32 hclient, u32 handle)
{
	qgpu_kclient_free_in(hclient, handle);
	return !qgpu_rmtrack_rm_has(hclient, handle);
}

static ssize_t rm_objects_max_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return qgpu_bound_max_show(&qgpu_instance_of(kobj)->objects, buf);
}

static ssize_t rm_objects_max_store(struct kobject *kobj, struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	int ret;
	u32 max;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (qgpu_parse_rm_objects(buf, count, &max))
		return -EINVAL;
	ret = qgpu_bound_set_max(&qgpu_instance_of(kobj)->objects, max);
	return ret ?: count;
}

static ssize_t rm_objects_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", qgpu_bound_count(&qgpu_instance_of(kobj)->objects));
}

static struct kobj_attribute qgpu_attr_rm_objects_max = __ATTR_RW(rm_objects_max);
static struct kobj_attribute qgpu_attr_rm_objects = __ATTR_RO(rm_objects);

static struct attribute *qgpu_objects_instance_attrs[] = {
	&qgpu_attr_rm_objects_max.attr,
	&qgpu_attr_rm_objects.attr,
	NULL,
};

const struct attribute_group qgpu_objects_instance_group = {
	.attrs = qgpu_objects_instance_attrs,
};
