// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: video memory that UVM holds keeps its charge, and what UVM maps counts against mapped_max.
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
 * Every mapping, of charged memory or not, also counts against ``mapped_max`` (DOC: GPU mappings)
 * the 2 MiB regions its span touches, as an RM mapping does: for each, UVM keeps records in
 * kernel memory no cgroup is charged for, and allocates page tables from the GPU's memory
 * (uvm_page_table_range_vec_init(), a 4 KiB or 256 B table per 2 MiB region, 580.142), with no
 * bound of its own. The regions are reserved before the map is forwarded, with those a mapping
 * over a span may add by cutting an older one in two, and an unmap that cuts a hole reserves the
 * same way; past the bound either answers NV_ERR_NO_MEMORY, UVM's answer when it cannot
 * allocate them, and is not forwarded. A sparse mapping (UVM_MAP_EXTERNAL_SPARSE) is a mapping of
 * no memory and counts the same; a dynamic-parallelism region (UVM_MAP_DYNAMIC_PARALLELISM_REGION)
 * is a range of one GPU page, whose page tables count until UVM_FREE of it or the VA space's end.
 *
 * UVM_ALLOC_DEVICE_P2P, which duplicates memory too, is refused (qgpu_uvm_hold_ioctl()). The
 * channels UVM retains keep their charges in qgpu_uvm_channel.c.
 *
 * Locking: the model is under the tracker's mutex, held across each forwarded call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interval_tree.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_uvm.h"
#include "qgpu_internal.h"
#include "qgpu_mapped.h"
#include "qgpu_mem.h"
#include "qgpu_mem_limit.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"
#include "qgpu_uvm_channel.h"
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

/*
 * A mapping, or what a partial unmap left of one, in a range's @maps. It counts the 2 MiB regions
 * its span touches against mapped_max (UVM's records and page tables for it); @hold is NULL for
 * memory qgpu does not charge.
 */
struct qgpu_uvm_frag {
	struct interval_tree_node it;
	struct qgpu_uvm_hold *hold;
};

/*
 * An external range as UVM has it, and the mappings in it; or a dynamic-parallelism region, a
 * range of one GPU page with no mappings, whose page tables count @sked_units.
 */
struct qgpu_uvm_range {
	struct interval_tree_node it;
	struct rb_root_cached maps;
	u32 sked_units;
	bool sked;
};

/**
 * struct qgpu_uvm_model - what one VA-space file's UVM holds of the instance's memory and maps
 * @ranges: external ranges (struct qgpu_uvm_range)
 * @pinned: mappings qgpu could not place (struct qgpu_uvm_pin), kept to the end
 */
struct qgpu_uvm_model {
	struct rb_root_cached ranges;
	struct list_head pinned;
};

/* A mapping UVM may have made where qgpu cannot place it: its charge (or NULL) and regions */
struct qgpu_uvm_pin {
	struct list_head link;
	struct qgpu_mem_charge *charge;
	u32 units;
};

/* The 2 MiB regions [@start, @last] touches: what a fragment there counts. */
static s64 qgpu_uvm_units(u64 start, u64 last)
{
	return qgpu_mapped_units(start, last - start + 1);
}

static void qgpu_uvm_hold_put(struct qgpu_uvm_hold *hold)
{
	if (!hold || --hold->ref)
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
		if (hold)
			hold->ref++;
	}
	return f;
}

/*
 * UVM unmaps [start, last] of @maps: fragments there go, and those only partly inside keep their
 * parts outside. Return: the change in the regions the fragments count (more where a hole cuts
 * one region in two). With @apply false nothing changes: the same sum, for the bound before the
 * call. Out of memory for a part, the whole fragment stays, still counted: kept, not lost.
 */
static s64 qgpu_uvm_unmap_span(struct rb_root_cached *maps, u64 start, u64 last, bool apply)
{
	struct interval_tree_node *it, *next;
	s64 change = 0;

	for (it = interval_tree_iter_first(maps, start, last); it; it = next) {
		struct qgpu_uvm_frag *f = container_of(it, struct qgpu_uvm_frag, it);
		struct qgpu_uvm_frag *left = NULL, *right = NULL;
		s64 parts = 0;

		next = interval_tree_iter_next(it, start, last);
		if (it->start < start)
			parts += qgpu_uvm_units(it->start, start - 1);
		if (it->last > last)
			parts += qgpu_uvm_units(last + 1, it->last);
		if (!apply) {
			change += parts - qgpu_uvm_units(it->start, it->last);
			continue;
		}
		if (it->start < start) {
			left = qgpu_uvm_frag_new(it->start, start - 1, f->hold);
			if (!left)
				continue;
		}
		if (it->last > last) {
			right = qgpu_uvm_frag_new(last + 1, it->last, f->hold);
			if (!right) {
				if (left)
					qgpu_uvm_hold_put(left->hold);
				kfree(left);
				continue;
			}
		}
		change += parts - qgpu_uvm_units(it->start, it->last);
		interval_tree_remove(it, maps);
		if (left)
			interval_tree_insert(&left->it, maps);
		if (right)
			interval_tree_insert(&right->it, maps);
		qgpu_uvm_hold_put(f->hold);
		kfree(f);
	}
	return change;
}

static struct qgpu_uvm_range *to_range(struct interval_tree_node *it)
{
	return it ? container_of(it, struct qgpu_uvm_range, it) : NULL;
}

/* UVM frees range @r: every mapping in it goes. Return: the change in the regions counted. */
static s64 qgpu_uvm_range_free(struct qgpu_uvm_model *m, struct qgpu_uvm_range *r)
{
	s64 change = qgpu_uvm_unmap_span(&r->maps, 0, ULONG_MAX, true) - r->sked_units;

	interval_tree_remove(&r->it, &m->ranges);
	kfree(r);
	return change;
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

/* The external range of the model that holds all of [@base, @last], or NULL */
static struct qgpu_uvm_range *qgpu_uvm_range_of(struct qgpu_uvm_model *m, u64 base, u64 last)
{
	struct interval_tree_node *it = interval_tree_iter_first(&m->ranges, base, base);

	return it && it->last >= last && !to_range(it)->sked ? to_range(it) : NULL;
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
	s64 change = 0;

	if (!m)
		return;
	while ((it = interval_tree_iter_first(&m->ranges, 0, ULONG_MAX)))
		change += qgpu_uvm_range_free(m, to_range(it));
	list_for_each_entry_safe(pin, tmp, &m->pinned, link) {
		change -= pin->units;
		if (pin->charge)
			qgpu_mem_charge_put(pin->charge);
		kfree(pin);
	}
	qgpu_mapped_settle(t->inst, 0, change);
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

/**
 * qgpu_uvm_believed() - an unsealed UVM call qgpu can vouch for
 * @qf: the UVM proxy
 * @arg: the tenant's params
 * @before: qgpu's copy of them, read before the call
 * @same: how many bytes of it steer what qgpu records (at most 40)
 * @status_off: where rmStatus is
 *
 * Return: true when UVM says it succeeded, and the parameters that steer the model read as they
 * did before the call.
 */
bool qgpu_uvm_believed(struct qgpu_file *qf, unsigned long arg, const void *before, u32 same,
		       u32 status_off)
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

/**
 * qgpu_uvm_answer() - answer a call qgpu does not forward, as UVM answers
 * @arg: the tenant's params
 * @status_off: where rmStatus is
 * @status: the status to write there
 *
 * Return: 0, or -EFAULT.
 */
long qgpu_uvm_answer(unsigned long arg, u32 status_off, u32 status)
{
	return put_user(status, (u32 __user *)(arg + status_off)) ? -EFAULT : 0;
}

/**
 * struct qgpu_uvm_map_call - a UVM mapping qgpu follows (UVM_MAP_EXTERNAL_ALLOCATION or _SPARSE)
 * @base: the mapping's first address, as qgpu read it
 * @last: its last address (valid when @span_ok)
 * @span_ok: a span UVM may map
 * @units: the regions the mapping counts
 * @reserved: what was reserved for it under mapped_max before it was forwarded
 * @frag: its fragment, made before the call; @frag->hold is its charge's, or NULL
 * @pin: where it goes if qgpu cannot place it
 */
struct qgpu_uvm_map_call {
	u64 base, last;
	bool span_ok;
	u32 units, reserved;
	struct qgpu_uvm_frag *frag;
	struct qgpu_uvm_pin *pin;
};

/*
 * UVM made the mapping: record it in its range, where UVM unmapped what was there first, or pin
 * it where qgpu cannot place it. Either way it counts, and @call->frag and @call->pin are used.
 */
static void qgpu_uvm_mapped(struct qgpu_rmtrack *t, struct qgpu_uvm_map_call *call, bool placed)
{
	struct qgpu_uvm_model *m = t->uvm;
	struct qgpu_uvm_range *r;
	s64 change;

	r = placed && call->span_ok ? qgpu_uvm_range_of(m, call->base, call->last) : NULL;
	if (r) {
		change = qgpu_uvm_unmap_span(&r->maps, call->base, call->last, true);
		interval_tree_insert(&call->frag->it, &r->maps);
		qgpu_mapped_settle(t->inst, call->reserved, change + call->units);
		kfree(call->pin);
		call->frag = NULL;
		call->pin = NULL;
		return;
	}
	/* Not vouched for: UVM may hold it, so it stays until the VA space goes. */
	call->pin->charge = call->frag->hold ? call->frag->hold->charge : NULL;
	call->pin->units = call->units;
	list_add(&call->pin->link, &m->pinned);
	qgpu_mapped_settle(t->inst, call->reserved, call->units);
	kfree(call->frag->hold);
	kfree(call->frag);
	call->frag = NULL;
	call->pin = NULL;
}

/*
 * Before a UVM mapping is forwarded: the fragment and pin it may need, and its regions reserved
 * (@c: the memory's charge, NULL for memory qgpu does not charge). Return: NVRM_OK, or the status
 * to answer instead (nothing reserved then).
 */
static u32 qgpu_uvm_map_prepare(struct qgpu_file *qf, struct qgpu_uvm_map_call *call,
				const u64 head[2], struct qgpu_mem_charge *c)
{
	struct qgpu_uvm_model *m = qgpu_uvm_model(qf->track);
	struct qgpu_uvm_hold *hold = NULL;
	struct qgpu_uvm_range *r;
	s64 want;

	call->base = head[0];
	call->span_ok = qgpu_uvm_span_ok(head[0], head[1]);
	call->last = call->span_ok ? head[0] + head[1] - 1 : head[0];
	want = call->span_ok ? qgpu_uvm_units(call->base, call->last) : 0;
	/* Longer than any memory a GPU has: UVM refuses it for the memory's size */
	if (want > QGPU_MAPPED_UNITS_LIMIT)
		return NVRM_ERR_INVALID_OFFSET;
	call->units = want;
	call->pin = kzalloc(sizeof(*call->pin), GFP_KERNEL_ACCOUNT);
	if (c) {
		hold = kzalloc(sizeof(*hold), GFP_KERNEL_ACCOUNT);
		if (hold)
			hold->charge = c;
	}
	call->frag = (!c || hold) ? qgpu_uvm_frag_new(call->base, call->last, hold) : NULL;
	if (!m || !call->pin || !call->frag) {
		kfree(call->frag);
		kfree(hold);
		kfree(call->pin);
		return NVRM_ERR_NO_MEMORY;
	}
	/* UVM unmaps what the span covers first: a mapping cut in two may count a region more */
	r = call->span_ok ? qgpu_uvm_range_of(m, call->base, call->last) : NULL;
	if (r)
		want += qgpu_uvm_unmap_span(&r->maps, call->base, call->last, false);
	call->reserved = want > 0 ? want : 0;
	if (call->reserved && !qgpu_bound_reserve(&qf->inst->mapped, call->reserved)) {
		kfree(call->frag);
		kfree(hold);
		kfree(call->pin);
		qgpu_mem_call_refused(qf->inst, "a UVM mapping past mapped_max");
		return NVRM_ERR_NO_MEMORY;
	}
	return NVRM_OK;
}

/* The call was not made, or UVM mapped nothing: what was prepared goes. */
static void qgpu_uvm_map_undo(struct qgpu_instance *inst, struct qgpu_uvm_map_call *call)
{
	qgpu_bound_put(&inst->mapped, call->reserved);
	kfree(call->frag->hold);
	kfree(call->frag);
	kfree(call->pin);
}

/*
 * UVM_MAP_EXTERNAL_ALLOCATION: the instance's clients only; charged memory holds its charge, and
 * every mapping counts against mapped_max. Sealed (DOC: sealed forwarding), UVM maps what qgpu
 * read and its handler's status is the truth; unsealed, qgpu believes only a call whose
 * parameters read the same after it as before.
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
	struct qgpu_uvm_map_call call;
	struct qgpu_mem_charge *c;
	bool known, sealed, placed;
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
		status = NVRM_ERR_INVALID_CLIENT;
		goto out_answer;
	}
	/* ORDER: where to keep the charge and the count first; without it, UVM is asked nothing. */
	status = qgpu_uvm_map_prepare(qf, &call, head, c);
	if (status) {
		if (c)
			qgpu_mem_charge_put(c);
		goto out_answer;
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, params, size, status_off, &status,
				      &sealed);
	/*
	 * Sealed, the handler's status says what UVM did, whatever the ioctl returns: a mapping
	 * made whose parameters could not be copied back to the tenant still holds the memory.
	 */
	if (sealed && status != NVRM_OK) {
		qgpu_uvm_map_undo(qf->inst, &call);	/* UVM mapped nothing, and holds nothing */
		if (c)
			qgpu_mem_charge_put(c);
		goto out_unlock;
	}
	placed = sealed;
	if (!sealed && !ret && call.span_ok &&
	    qgpu_uvm_believed(qf, arg, head, sizeof(head), status_off) &&
	    qgpu_uvm_read(arg + tail_off, &tail_after, sizeof(tail_after))) {
		placed = tail_after.hclient == tail.hclient && tail_after.hmemory == tail.hmemory;
		if (!placed)
			qgpu_uvm_raced(qf);
	}
	qgpu_uvm_mapped(t, &call, placed);
out_unlock:
	mutex_unlock(&t->lock);
	kfree(params);
	return ret;
out_answer:
	mutex_unlock(&t->lock);
	kfree(params);
	return qgpu_uvm_answer(arg, status_off, status);
}

/*
 * UVM_MAP_EXTERNAL_SPARSE: a mapping of no memory, with page tables all the same (64 KiB pages for
 * the whole span), counted and followed as UVM_MAP_EXTERNAL_ALLOCATION's are.
 */
static long qgpu_uvm_map_sparse(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				bool compat)
{
	const u32 status_off = offsetof(struct nvrm_uvm_unmap_external, rm_status);
	struct nvrm_uvm_unmap_external p;	/* the same layout */
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_uvm_map_call call;
	u64 head[2];	/* base, length */
	bool sealed, placed;
	u32 status;
	long ret;

	if (!qgpu_uvm_read(arg, &p, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	head[0] = p.base;
	head[1] = p.length;
	mutex_lock(&t->lock);
	status = qgpu_uvm_map_prepare(qf, &call, head, NULL);
	if (status) {
		mutex_unlock(&t->lock);
		return qgpu_uvm_answer(arg, status_off, status);
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, &p, sizeof(p), status_off,
				      &status, &sealed);
	if (sealed && status != NVRM_OK) {
		qgpu_uvm_map_undo(qf->inst, &call);
	} else {
		placed = sealed || (!ret && call.span_ok &&
				    qgpu_uvm_believed(qf, arg, head, sizeof(head), status_off));
		qgpu_uvm_mapped(t, &call, placed);
	}
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * UVM_MAP_DYNAMIC_PARALLELISM_REGION: a range of its own, whose page tables count the regions of
 * its page until UVM_FREE of it or the VA space's end. Reserved before it is forwarded.
 */
static long qgpu_uvm_map_sked(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			      bool compat)
{
	const u32 status_off = offsetof(struct nvrm_uvm_unmap_external, rm_status);
	struct nvrm_uvm_unmap_external p;	/* the same layout */
	struct qgpu_rmtrack *t = qf->track;
	struct qgpu_uvm_range *r;
	struct qgpu_uvm_model *m;
	struct qgpu_uvm_pin *pin;
	bool sealed, made;
	u32 status, units;
	u64 want = 0;
	long ret;

	if (!qgpu_uvm_read(arg, &p, sizeof(p)))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	if (qgpu_uvm_span_ok(p.base, p.length))
		want = qgpu_uvm_units(p.base, p.base + p.length - 1);
	/* No GPU has a page that large: UVM refuses the length */
	if (want > QGPU_MAPPED_UNITS_LIMIT)
		return qgpu_uvm_answer(arg, status_off, NVRM_ERR_INVALID_ADDRESS);
	units = want;
	mutex_lock(&t->lock);
	m = qgpu_uvm_model(t);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	pin = kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT);
	if (!m || !r || !pin) {
		status = NVRM_ERR_NO_MEMORY;
		goto out_answer;
	}
	if (units && !qgpu_bound_reserve(&qf->inst->mapped, units)) {
		qgpu_mem_call_refused(qf->inst, "a UVM dynamic-parallelism region past mapped_max");
		status = NVRM_ERR_NO_MEMORY;
		goto out_answer;
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, &p, sizeof(p), status_off,
				      &status, &sealed);
	if (sealed)
		made = status == NVRM_OK;
	else
		made = !ret && qgpu_uvm_believed(qf, arg, &p, 16, status_off);
	if (sealed && !made) {
		qgpu_bound_put(&qf->inst->mapped, units);	/* UVM made nothing */
	} else if (made && units &&
		   !interval_tree_iter_first(&m->ranges, p.base, p.base + p.length - 1)) {
		r->it.start = p.base;
		r->it.last = p.base + p.length - 1;
		r->maps = RB_ROOT_CACHED;
		r->sked = true;
		r->sked_units = units;
		interval_tree_insert(&r->it, &m->ranges);
		r = NULL;
	} else if (units) {
		/* Not vouched for, or where the model has another range: kept to the end */
		pin->units = units;
		list_add(&pin->link, &m->pinned);
		pin = NULL;
	}
	mutex_unlock(&t->lock);
	kfree(r);
	kfree(pin);
	return ret;
out_answer:
	mutex_unlock(&t->lock);
	kfree(r);
	kfree(pin);
	return qgpu_uvm_answer(arg, status_off, status);
}

/*
 * A range call UVM is believed to have made (@p: base and length, or the GPU's UUID): the same in
 * the model. A range it cannot add leaves mappings there to be pinned: nothing is lost.
 * Return: the change in the regions the model's mappings count.
 */
static s64 qgpu_uvm_range_done(struct qgpu_rmtrack *t, unsigned int cmd, const u64 p[2])
{
	struct qgpu_uvm_model *m = t->uvm;
	struct qgpu_uvm_range *r;
	s64 change = 0;

	switch (cmd) {
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
		m = qgpu_uvm_model(t);
		if (!m || !qgpu_uvm_span_ok(p[0], p[1]) ||
		    interval_tree_iter_first(&m->ranges, p[0], p[0] + p[1] - 1))
			return 0;
		r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
		if (!r)
			return 0;
		r->it.start = p[0];
		r->it.last = p[0] + p[1] - 1;
		r->maps = RB_ROOT_CACHED;
		interval_tree_insert(&r->it, &m->ranges);
		return 0;
	case NVRM_UVM_UNMAP_EXTERNAL:	/* one GPU per instance: the UUID changes nothing here */
		r = m && qgpu_uvm_span_ok(p[0], p[1]) ?
		    to_range(interval_tree_iter_first(&m->ranges, p[0], p[0])) : NULL;
		return r ? qgpu_uvm_unmap_span(&r->maps, p[0], p[0] + p[1] - 1, true) : 0;
	case NVRM_UVM_FREE:
		r = m ? to_range(interval_tree_iter_first(&m->ranges, p[0], p[0])) : NULL;
		return r && r->it.start == p[0] ? qgpu_uvm_range_free(m, r) : 0;
	default:	/* UNREGISTER_GPU(_VASPACE) of the instance's one GPU: every mapping goes */
		for (r = m ? to_range(interval_tree_iter_first(&m->ranges, 0, ULONG_MAX)) : NULL; r;
		     r = to_range(interval_tree_iter_next(&r->it, 0, ULONG_MAX)))
			change += qgpu_uvm_unmap_span(&r->maps, 0, ULONG_MAX, true);
		return change;
	}
}

/*
 * What UVM_UNMAP_EXTERNAL of @p (base, length) may add: a hole cut in one region of a mapping
 * leaves UVM two records, as qgpu counts them. Tracker's lock held.
 */
static u32 qgpu_uvm_unmap_grows(struct qgpu_rmtrack *t, const u64 p[2])
{
	struct qgpu_uvm_range *r;
	s64 change;

	if (!t->uvm || !qgpu_uvm_span_ok(p[0], p[1]))
		return 0;
	r = to_range(interval_tree_iter_first(&t->uvm->ranges, p[0], p[0]));
	change = r ? qgpu_uvm_unmap_span(&r->maps, p[0], p[0] + p[1] - 1, false) : 0;
	return change > 0 ? change : 0;
}

/*
 * UVM_CREATE_EXTERNAL_RANGE, UVM_UNMAP_EXTERNAL, UVM_FREE, UVM_UNREGISTER_GPU(_VASPACE): the model
 * follows what UVM did; sealed, what qgpu read is what UVM did it to.
 */
static long qgpu_uvm_range_call(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
				bool compat)
{
	struct qgpu_rmtrack *t = qf->track;
	u32 size, same, status_off, status, grows = 0;
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
		size = nvrm_uvm_free_size(qf->inst->gpu->abi.major);	/* with the length to 580 */
		status_off = size - 2 * sizeof(u32);
		same = status_off;
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
	if (cmd == NVRM_UVM_UNMAP_EXTERNAL)
		grows = qgpu_uvm_unmap_grows(t, params);
	if (grows && !qgpu_bound_reserve(&qf->inst->mapped, grows)) {
		mutex_unlock(&t->lock);
		qgpu_mem_call_refused(qf->inst, "a UVM mapping split past mapped_max");
		return qgpu_uvm_answer(arg, status_off, NVRM_ERR_NO_MEMORY);
	}
	ret = qgpu_forward_uvm_sealed(qf->real, cmd, arg, compat, params, size, status_off, &status,
				      &sealed);
	if (sealed)
		done = status == NVRM_OK;	/* what UVM did, as for a mapping */
	else
		done = !ret && qgpu_uvm_believed(qf, arg, params, same, status_off);
	qgpu_mapped_settle(qf->inst, grows, done ? qgpu_uvm_range_done(t, cmd, params) : 0);
	/* with the GPU's VA space go the channels UVM retained (DOC: UVM channel registrations) */
	if (done && (cmd == NVRM_UVM_UNREGISTER_GPU || cmd == NVRM_UVM_UNREGISTER_GPU_VASPACE))
		qgpu_uvm_channels_release(t, false);
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
		*ret = qgpu_uvm_answer(arg, offsetof(struct nvrm_uvm_alloc_device_p2p, rm_status),
				       NVRM_ERR_NOT_SUPPORTED);
		return true;
	case NVRM_UVM_MAP_EXTERNAL_ALLOCATION:
		*ret = qgpu_uvm_map_external(qf, cmd, arg, compat);
		return true;
	case NVRM_UVM_MAP_EXTERNAL_SPARSE:
		*ret = qgpu_uvm_map_sparse(qf, cmd, arg, compat);
		return true;
	case NVRM_UVM_MAP_DYNAMIC_PARALLELISM_REGION:
		*ret = qgpu_uvm_map_sked(qf, cmd, arg, compat);
		return true;
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
	case NVRM_UVM_UNMAP_EXTERNAL:
	case NVRM_UVM_FREE:
	case NVRM_UVM_UNREGISTER_GPU:
	case NVRM_UVM_UNREGISTER_GPU_VASPACE:
		*ret = qgpu_uvm_range_call(qf, cmd, arg, compat);
		return true;
	case NVRM_UVM_UNREGISTER_CHANNEL:
		*ret = qgpu_uvm_channel_unregister(qf, cmd, arg, compat);
		return true;
	default:
		return false;
	}
}
