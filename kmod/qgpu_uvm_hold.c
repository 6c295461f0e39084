// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: video memory that UVM holds keeps its charge.
 *
 * UVM_MAP_EXTERNAL_ALLOCATION has UVM duplicate the tenant's RM memory into UVM's own client
 * (kmod/nvrm/nvrm_uvm.h), and the duplicate lives until no part of the mapping is left, however
 * the tenant's own handles come and go. Uncharged at the tenant's last RM_FREE, memory could be
 * allocated, mapped, freed and allocated again without end. So each UVM proxy keeps a model of
 * UVM's external ranges and mappings, in its tracker (qgpu_rmtrack.h), and each mapping of charged
 * memory holds a reference to the charge until UVM lets the mapping go: UVM_UNMAP_EXTERNAL of all
 * of it (a partial unmap splits it; the parts share the reference), UVM_FREE of its range, a
 * mapping over it, UVM_UNREGISTER_GPU(_VASPACE), or the release of the real VA-space file, which
 * the tracker waits for as it does for a ctl file (an MM file or a managed VMA can hold it).
 *
 * UVM reads its parameters itself, once, when the call starts, and writes them back with the
 * status when it ends. Where UVM calls are sealed (DOC: sealed forwarding), its handler reads
 * qgpu's copy and qgpu keeps the handler's status, so the model follows exactly what UVM did.
 * Unsealed, qgpu reads them before it forwards the call and again after, and believes only a call
 * whose parameters read the same both times and whose status says success; anything else errs
 * on the tenant's side: a mapping qgpu cannot place keeps its charge pinned to the VA space until
 * the VA space goes, and an unmap or free qgpu cannot vouch for lets nothing go. What stays open
 * there is a sibling thread that changes the parameters between qgpu's read and UVM's
 * (microseconds) and back before qgpu's second read (docs/design/memory-limits.md, "UVM external
 * mappings").
 *
 * UVM_ALLOC_DEVICE_P2P, which duplicates memory too, is refused (qgpu_uvm_hold_ioctl()).
 *
 * Locking: the model is under the tracker's mutex, held across each forwarded call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interval_tree.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_uvm.h"
#include "qgpu_internal.h"
#include "qgpu_mem.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"
#include "qgpu_uvm_hold.h"

/**
 * struct qgpu_uvm_hold - a charge one mapping's fragments share
 * @ref: one per fragment
 * @charge: the memory's charge (a reference)
 */
struct qgpu_uvm_hold {
	unsigned int ref;
	struct qgpu_mem_charge *charge;
};

/* A mapping, or what a partial unmap left of one, in a range's @maps */
struct qgpu_uvm_frag {
	struct interval_tree_node it;
	struct qgpu_uvm_hold *hold;
};

/* An external range as UVM has it, and the charged mappings in it */
struct qgpu_uvm_range {
	struct interval_tree_node it;
	struct rb_root_cached maps;
};

/**
 * struct qgpu_uvm_model - what one VA-space file's UVM holds of the instance's memory
 * @ranges: external ranges (struct qgpu_uvm_range)
 * @pinned: charges of mappings qgpu could not place (struct qgpu_uvm_pin), kept to the end
 */
struct qgpu_uvm_model {
	struct rb_root_cached ranges;
	struct list_head pinned;
};

struct qgpu_uvm_pin {
	struct list_head link;
	struct qgpu_mem_charge *charge;
};

static void qgpu_uvm_hold_put(struct qgpu_uvm_hold *hold)
{
	if (--hold->ref)
		return;
	qgpu_mem_charge_put(hold->charge);
	kfree(hold);
}

static struct qgpu_uvm_frag *qgpu_uvm_frag_new(u64 start, u64 last, struct qgpu_uvm_hold *hold)
{
	struct qgpu_uvm_frag *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

	if (f) {
		f->it.start = start;
		f->it.last = last;
		f->hold = hold;
	}
	return f;
}

/*
 * UVM unmapped [start, last]: fragments there go, and those only partly inside keep their parts
 * outside. Out of memory for a part, the whole fragment stays: its charge is kept, not lost.
 */
static void qgpu_uvm_unmap_span(struct rb_root_cached *maps, u64 start, u64 last)
{
	struct interval_tree_node *it, *next;

	for (it = interval_tree_iter_first(maps, start, last); it; it = next) {
		struct qgpu_uvm_frag *f = container_of(it, struct qgpu_uvm_frag, it);
		struct qgpu_uvm_frag *left = NULL, *right = NULL;

		next = interval_tree_iter_next(it, start, last);
		if (it->start < start) {
			left = qgpu_uvm_frag_new(it->start, start - 1, f->hold);
			if (!left)
				continue;
		}
		if (it->last > last) {
			right = qgpu_uvm_frag_new(last + 1, it->last, f->hold);
			if (!right) {
				kfree(left);
				continue;
			}
		}
		interval_tree_remove(it, maps);
		if (left) {
			f->hold->ref++;
			interval_tree_insert(&left->it, maps);
		}
		if (right) {
			f->hold->ref++;
			interval_tree_insert(&right->it, maps);
		}
		qgpu_uvm_hold_put(f->hold);
		kfree(f);
	}
}

static struct qgpu_uvm_range *to_range(struct interval_tree_node *it)
{
	return it ? container_of(it, struct qgpu_uvm_range, it) : NULL;
}

static void qgpu_uvm_range_free(struct qgpu_uvm_model *m, struct qgpu_uvm_range *r)
{
	qgpu_uvm_unmap_span(&r->maps, 0, ULONG_MAX);
	interval_tree_remove(&r->it, &m->ranges);
	kfree(r);
}

static struct qgpu_uvm_model *qgpu_uvm_model(struct qgpu_rmtrack *t)
{
	if (!t->uvm) {
		t->uvm = kzalloc(sizeof(*t->uvm), GFP_KERNEL_ACCOUNT);
		if (t->uvm) {
			t->uvm->ranges = RB_ROOT_CACHED;
			INIT_LIST_HEAD(&t->uvm->pinned);
		}
	}
	return t->uvm;
}

/*
 * UVM mapped charged memory at [base, last] of the range holding @base: record it, taking over
 * the reference to @c. False when qgpu cannot place it (no such range in the model, or out of
 * memory): the caller pins the charge instead.
 */
static bool qgpu_uvm_mapped(struct qgpu_uvm_model *m, u64 base, u64 last,
			    struct qgpu_mem_charge *c)
{
	struct interval_tree_node *it = interval_tree_iter_first(&m->ranges, base, base);
	struct qgpu_uvm_range *r;
	struct qgpu_uvm_hold *hold;
	struct qgpu_uvm_frag *f;

	if (!it || it->last < last)
		return false;
	r = to_range(it);
	hold = kzalloc(sizeof(*hold), GFP_KERNEL_ACCOUNT);
	if (!hold)
		return false;
	hold->ref = 1;
	hold->charge = c;
	f = qgpu_uvm_frag_new(base, last, hold);
	if (!f) {
		kfree(hold);
		return false;
	}
	qgpu_uvm_unmap_span(&r->maps, base, last);	/* UVM unmaps what was there first */
	interval_tree_insert(&f->it, &r->maps);
	return true;
}

/**
 * qgpu_uvm_release() - the real VA-space file is going: UVM lets go of everything it held
 * @t: the UVM proxy's tracker, being destroyed
 */
void qgpu_uvm_release(struct qgpu_rmtrack *t)
{
	struct qgpu_uvm_model *m = t->uvm;
	struct interval_tree_node *it;
	struct qgpu_uvm_pin *pin, *tmp;

	if (!m)
		return;
	while ((it = interval_tree_iter_first(&m->ranges, 0, ULONG_MAX)))
		qgpu_uvm_range_free(m, to_range(it));
	list_for_each_entry_safe(pin, tmp, &m->pinned, link) {
		qgpu_mem_charge_put(pin->charge);
		kfree(pin);
	}
	kfree(m);
	t->uvm = NULL;
}

/* A span UVM could have taken: not empty, not wrapping (uvm_api_range_invalid_4k() says more). */
static bool qgpu_uvm_span_ok(u64 base, u64 length)
{
	return length && base + length > base;
}

/* Read @size bytes of the tenant's params; false when they cannot be read. */
static bool qgpu_uvm_read(unsigned long arg, void *buf, u32 size)
{
	return !copy_from_user(buf, (void __user *)arg, size);
}

/* Parameters that changed while UVM had the call: only a racing sibling thread does that. */
static void qgpu_uvm_raced(struct qgpu_file *qf)
{
	pr_warn_ratelimited("instance %s: pid %d changed its UVM parameters during the call; the charges stay\n",
			    qf->inst->name, task_tgid_nr(current));
}

/*
 * After the call: UVM says it succeeded, and the parameters that steer the model (the first
 * @same bytes of the kernel copy @before) read as they did before the call.
 */
static bool qgpu_uvm_believed(struct qgpu_file *qf, unsigned long arg, const void *before,
			      u32 same, u32 status_off)
{
	u8 after[40];
	u32 status;

	if (same > sizeof(after) || get_user(status, (u32 __user *)(arg + status_off)) ||
	    status != NVRM_OK || !qgpu_uvm_read(arg, after, same))
		return false;
	if (memcmp(before, after, same)) {
		qgpu_uvm_raced(qf);
		return false;
	}
	return true;
}

/*
 * UVM_MAP_EXTERNAL_ALLOCATION: the instance's clients only; charged memory holds its charge.
 * Sealed (DOC: sealed forwarding), UVM maps what qgpu read and its handler's status is the truth;
 * unsealed, qgpu believes only a call whose parameters read the same after it as before.
 */
static long qgpu_uvm_map_external(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				  bool compat)
{
	u32 size = qf->inst->gpu->abi.uvm_map_external_allocation_size;
	u32 gpus = size == NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550 ?
		   NVRM_UVM_MAP_EXT_GPUS_V550 : NVRM_UVM_MAP_EXT_GPUS_V525;
	u32 tail_off = NVRM_UVM_MAP_EXT_TAIL_OFFSET(gpus);
	u32 status_off = tail_off + offsetof(struct nvrm_uvm_map_external_tail, rm_status);
	struct nvrm_uvm_map_external_tail tail, tail_after;
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_uvm_pin *pin = NULL;
	struct qgpu_mem_charge *c;
	struct qgpu_uvm_model *m;
	bool known, sealed;
	u64 head[2];	/* base, length */
	u32 status;
	u8 *params;
	long ret;

	if (size != tail_off + sizeof(tail))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	/*
	 * The largest size of any version, zeroed past @size: the handler reads its own version's
	 * struct from qgpu's copy, which must never end before it, even with a wrong ABI profile.
	 */
	params = kzalloc(max_t(u32, size, NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550), GFP_KERNEL);
	if (!params)
		return -ENOMEM;
	if (copy_from_user(params, (void __user *)arg, size)) {
		kfree(params);
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);	/* UVM faults too */
	}
	memcpy(head, params, sizeof(head));
	memcpy(&tail, params + tail_off, sizeof(tail));
	mutex_lock(&t->lock);
	c = qgpu_mem_charge_of(qf->inst, tail.hclient, tail.hmemory, &known);
	if (!known) {
		/* Another instance's client, or none: as UVM answers for a client it cannot see */
		mutex_unlock(&t->lock);
		kfree(params);
		return put_user(NVRM_ERR_INVALID_CLIENT, (u32 __user *)(arg + status_off)) ?
		       -EFAULT : 0;
	}
	/* ORDER: where to keep the charge first; without it, UVM is not asked to hold anything. */
	if (c) {
		m = qgpu_uvm_model(t);
		pin = kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT);
		if (!m || !pin) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, params, size, status_off, &status,
				      &sealed);
	if (!c)
		goto out_unlock;
	/*
	 * Sealed, the handler's status says what UVM did, whatever the ioctl returns: a mapping
	 * made whose parameters could not be copied back to the tenant still holds the memory.
	 */
	if (sealed && status != NVRM_OK)
		goto out_put;	/* UVM mapped nothing, and holds nothing */
	if (sealed && qgpu_uvm_span_ok(head[0], head[1]) &&
	    qgpu_uvm_mapped(m, head[0], head[0] + head[1] - 1, c))
		goto out_unlock;
	if (!sealed && !ret && qgpu_uvm_span_ok(head[0], head[1]) &&
	    qgpu_uvm_believed(qf, arg, head, sizeof(head), status_off) &&
	    qgpu_uvm_read(arg + tail_off, &tail_after, sizeof(tail_after))) {
		if (tail_after.hclient != tail.hclient || tail_after.hmemory != tail.hmemory)
			qgpu_uvm_raced(qf);
		else if (qgpu_uvm_mapped(m, head[0], head[0] + head[1] - 1, c))
			goto out_unlock;
	}
	/* Not vouched for: UVM may hold it, so the charge stays until the VA space goes. */
	pin->charge = c;
	list_add(&pin->link, &m->pinned);
	pin = NULL;
	goto out_unlock;
out_put:
	qgpu_mem_charge_put(c);
out_unlock:
	mutex_unlock(&t->lock);
	kfree(pin);
	kfree(params);
	return ret;
}

/*
 * A range call UVM is believed to have made (@p: base and length, or the GPU's UUID): the same in
 * the model. A range it cannot add leaves mappings there to be pinned: nothing is lost.
 */
static void qgpu_uvm_range_done(struct qgpu_rmtrack *t, unsigned int cmd, const u64 p[2])
{
	struct qgpu_uvm_model *m = t->uvm;
	struct qgpu_uvm_range *r;

	switch (cmd) {
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
		m = qgpu_uvm_model(t);
		if (!m || !qgpu_uvm_span_ok(p[0], p[1]) ||
		    interval_tree_iter_first(&m->ranges, p[0], p[0] + p[1] - 1))
			return;
		r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
		if (!r)
			return;
		r->it.start = p[0];
		r->it.last = p[0] + p[1] - 1;
		r->maps = RB_ROOT_CACHED;
		interval_tree_insert(&r->it, &m->ranges);
		return;
	case NVRM_UVM_UNMAP_EXTERNAL:	/* one GPU per instance: the UUID changes nothing here */
		r = m && qgpu_uvm_span_ok(p[0], p[1]) ?
		    to_range(interval_tree_iter_first(&m->ranges, p[0], p[0])) : NULL;
		if (r)
			qgpu_uvm_unmap_span(&r->maps, p[0], p[0] + p[1] - 1);
		return;
	case NVRM_UVM_FREE:
		r = m ? to_range(interval_tree_iter_first(&m->ranges, p[0], p[0])) : NULL;
		if (r && r->it.start == p[0])
			qgpu_uvm_range_free(m, r);
		return;
	default:	/* UNREGISTER_GPU(_VASPACE) of the instance's one GPU: every mapping goes */
		for (r = m ? to_range(interval_tree_iter_first(&m->ranges, 0, ULONG_MAX)) : NULL; r;
		     r = to_range(interval_tree_iter_next(&r->it, 0, ULONG_MAX)))
			qgpu_uvm_unmap_span(&r->maps, 0, ULONG_MAX);
		return;
	}
}

/*
 * UVM_CREATE_EXTERNAL_RANGE, UVM_UNMAP_EXTERNAL, UVM_FREE, UVM_UNREGISTER_GPU(_VASPACE): the model
 * follows what UVM did; sealed, what qgpu read is what UVM did it to.
 */
static long qgpu_uvm_range_call(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				bool compat)
{
	struct qgpu_rmtrack *t = qf->track;
	u32 size, same, status_off, status;
	u64 params[5];	/* the largest: UNMAP_EXTERNAL, 40 B */
	bool sealed, done;
	long ret;

	switch (cmd) {
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
		same = 16;
		size = sizeof(struct nvrm_uvm_create_external_range);
		status_off = offsetof(struct nvrm_uvm_create_external_range, rm_status);
		break;
	case NVRM_UVM_UNMAP_EXTERNAL:
		same = 16;
		size = sizeof(struct nvrm_uvm_unmap_external);
		status_off = offsetof(struct nvrm_uvm_unmap_external, rm_status);
		break;
	case NVRM_UVM_FREE:
		same = 8;
		size = sizeof(struct nvrm_uvm_free);
		status_off = offsetof(struct nvrm_uvm_free, rm_status);
		break;
	default:	/* UNREGISTER_GPU, UNREGISTER_GPU_VASPACE: the UUID, then the status */
		same = 16;
		size = sizeof(struct nvrm_uvm_unregister_gpu);
		status_off = offsetof(struct nvrm_uvm_unregister_gpu, rm_status);
		break;
	}
	BUILD_BUG_ON(sizeof(struct nvrm_uvm_unmap_external) > sizeof(params));
	if (!qgpu_uvm_read(arg, params, size))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	mutex_lock(&t->lock);
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, params, size, status_off, &status,
				      &sealed);
	if (sealed)
		done = status == NVRM_OK;	/* what UVM did, as for a mapping */
	else
		done = !ret && qgpu_uvm_believed(qf, arg, params, same, status_off);
	if (done)
		qgpu_uvm_range_done(t, cmd, params);
	mutex_unlock(&t->lock);
	return ret;
}

/**
 * qgpu_uvm_hold_ioctl() - the UVM commands that make or end UVM's holds on RM memory
 * @qf: the UVM proxy
 * @cmd: the command
 * @arg: the tenant's params
 * @compat: the caller is a 32-bit process
 * @ret: what the ioctl returns, when handled
 *
 * Return: true when @cmd is one of them (and was handled).
 */
bool qgpu_uvm_hold_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, bool compat,
			 long *ret)
{
	if (!qf->track)
		return false;
	switch (cmd) {
	case NVRM_UVM_ALLOC_DEVICE_P2P:
		/*
		 * It duplicates the memory as a mapping does, for peer DMA (GPUDirect Storage's
		 * kernel path). Refused with what UVM answers on a GPU without P2PDMA set up, most
		 * hosts' answer: followed like a mapping, its race would be one more way past the
		 * limit. Drivers without the command answer the same (they know no 78).
		 */
		*ret = put_user(NVRM_ERR_NOT_SUPPORTED,
				(u32 __user *)(arg + offsetof(struct nvrm_uvm_alloc_device_p2p,
							      rm_status))) ? -EFAULT : 0;
		return true;
	case NVRM_UVM_MAP_EXTERNAL_ALLOCATION:
		*ret = qgpu_uvm_map_external(qf, cmd, arg, compat);
		return true;
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
	case NVRM_UVM_UNMAP_EXTERNAL:
	case NVRM_UVM_FREE:
	case NVRM_UVM_UNREGISTER_GPU:
	case NVRM_UVM_UNREGISTER_GPU_VASPACE:
		*ret = qgpu_uvm_range_call(qf, cmd, arg, compat);
		return true;
	default:
		return false;
	}
}
