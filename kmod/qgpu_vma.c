// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: interposing on doorbell mappings, for the compute scheduler.
 *
 * A GPU proxy on which the tenant had RM map a usermode object (the doorbell page,
 * qgpu_sched_map_memory()) gets its next mappings wrapped: after the driver's mmap set up the
 * VMA, its vm_ops are replaced by a copy whose fault and pfn_mkwrite first tell the scheduler
 * of the ring (and wait while the instance is held), then call the driver's; open and close
 * count the VMAs sharing the copy (fork, split, mremap) and call the driver's. Every other
 * operation is the driver's own, and vm_private_data stays the driver's.
 *
 * Only a write to the mapping's first page is a ring (the doorbell register is at +0x90 of it).
 * The gate sleeps with mmap_lock held for reading (pfn_mkwrite cannot drop it): while a
 * thread of a held instance waits at its doorbell, other threads of that process that map or
 * unmap memory wait too. The wait is killable.
 *
 * A racing tenant thread that rewrites RM_MAP_MEMORY's hMemory between qgpu's read and RM's can
 * map a doorbell qgpu does not wrap; that instance then escapes the gate (not the channel-group
 * controls). Closing that needs RM's own record of what was mapped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/slab.h>

#include "qgpu_internal.h"
#include "qgpu_sched.h"

/**
 * struct qgpu_vma_ctx - the wrapped vm_ops of one doorbell mapping (and its forks and splits)
 * @ops: what the VMAs point to: the driver's, with open/close/fault/pfn_mkwrite wrapped
 * @orig: the driver's
 * @inst: the instance (a reference)
 * @ref: VMAs using @ops
 * @rcu: freed after a grace period (a fault may look at @ops until then)
 */
struct qgpu_vma_ctx {
	/* not const: filled in once, before any VMA points to it (split for checkpatch) */
	struct
	vm_operations_struct ops;
	const struct vm_operations_struct *orig;
	struct qgpu_instance *inst;
	refcount_t ref;
	struct rcu_head rcu;
};

static struct qgpu_vma_ctx *qgpu_vma_ctx(struct vm_area_struct *vma)
{
	return container_of(vma->vm_ops, struct qgpu_vma_ctx, ops);
}

static void qgpu_vma_open(struct vm_area_struct *vma)
{
	struct qgpu_vma_ctx *ctx = qgpu_vma_ctx(vma);

	refcount_inc(&ctx->ref);
	if (ctx->orig->open)
		ctx->orig->open(vma);
}

static void qgpu_vma_close(struct vm_area_struct *vma)
{
	struct qgpu_vma_ctx *ctx = qgpu_vma_ctx(vma);

	if (ctx->orig->close)
		ctx->orig->close(vma);
	if (refcount_dec_and_test(&ctx->ref)) {
		kobject_put(&ctx->inst->kobj);
		kfree_rcu(ctx, rcu);
		module_put(THIS_MODULE);
	}
}

static void qgpu_vma_maybe_ring(struct vm_fault *vmf, bool write)
{
	struct qgpu_vma_ctx *ctx = qgpu_vma_ctx(vmf->vma);

	if (write && vmf->pgoff == vmf->vma->vm_pgoff && ctx->inst->sched)
		qgpu_sched_ring(ctx->inst->sched);
}

static vm_fault_t qgpu_vma_fault(struct vm_fault *vmf)
{
	qgpu_vma_maybe_ring(vmf, vmf->flags & FAULT_FLAG_WRITE);
	return qgpu_vma_ctx(vmf->vma)->orig->fault(vmf);
}

static vm_fault_t qgpu_vma_pfn_mkwrite(struct vm_fault *vmf)
{
	qgpu_vma_maybe_ring(vmf, true);
	return qgpu_vma_ctx(vmf->vma)->orig->pfn_mkwrite(vmf);
}

/**
 * qgpu_vma_prepare() - before a GPU proxy's mmap: is it a doorbell mapping to wrap?
 * @qf: the proxy
 *
 * Return: a context for qgpu_vma_wrap(), NULL when there is nothing to wrap, or
 * ERR_PTR(-ENOMEM) (the mmap fails rather than escape the gate).
 */
void *qgpu_vma_prepare(struct qgpu_file *qf)
{
	struct qgpu_vma_ctx *ctx;

	if (!READ_ONCE(qf->doorbell) || !qf->inst->sched)
		return NULL;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	kobject_get(&qf->inst->kobj);
	ctx->inst = qf->inst;
	return ctx;
}

/**
 * qgpu_vma_wrap() - after the driver's mmap: wrap the VMA's operations
 * @p: from qgpu_vma_prepare() (NULL: nothing to do)
 * @vma: the new VMA
 * @ret: what the driver's mmap returned; on an error, or without a fault handler, nothing is
 *	wrapped and the context goes
 */
void qgpu_vma_wrap(void *p, struct vm_area_struct *vma, int ret)
{
	struct qgpu_vma_ctx *ctx = p;

	if (!ctx)
		return;
	if (ret || !vma->vm_ops || !vma->vm_ops->fault) {
		kobject_put(&ctx->inst->kobj);
		kfree(ctx);
		return;
	}
	ctx->orig = vma->vm_ops;
	ctx->ops = *ctx->orig;
	ctx->ops.open = qgpu_vma_open;
	ctx->ops.close = qgpu_vma_close;
	ctx->ops.fault = qgpu_vma_fault;
	if (ctx->orig->pfn_mkwrite)
		ctx->ops.pfn_mkwrite = qgpu_vma_pfn_mkwrite;
	refcount_set(&ctx->ref, 1);
	__module_get(THIS_MODULE);
	vma->vm_ops = &ctx->ops;
}
