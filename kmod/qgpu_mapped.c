// SPDX-License-Identifier: GPL-2.0
/*
 * qgpu: the GPU virtual address space an instance's RM mappings span, counted and bounded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvrm/nvrm_decode.h"
#include "qgpu_internal.h"
#include "qgpu_mapped.h"
#include "qgpu_mem.h"
#include "qgpu_mem_limit.h"
#include "qgpu_rmtrack.h"
#include "qgpu_seal.h"

/**
 * DOC: GPU mappings
 *
 * RM_MAP_MEMORY_DMA maps memory into a range of GPU virtual addresses (a virtual allocation,
 * NV50_MEMORY_VIRTUAL). RM makes no object for it, so neither ``mem_max`` nor ``rm_objects_max``
 * sees it, yet each mapping costs what no limit charges (580.142, open-gpu-kernel-modules):
 *
 * - a record in the driver's memory (an RsInterMapping, a CLI_DMA_MAPPING_INFO and a sub-memory
 *   descriptor, from kmalloc without __GFP_ACCOUNT: no cgroup is charged), kept until the
 *   mapping goes; RM bounds their number nowhere;
 * - page tables for the regions it touches, in video memory from a page-level pool every
 *   client of the GPU shares (RM reserves them for 4 KiB pages, the worst case, before each map:
 *   gvaspaceReserveMempool()). One small allocation mapped at many addresses far apart, or a
 *   large one mapped many times, takes the GPU's memory past every tenant's limit.
 *
 * A virtual range reserved without LAZY or EXTERNALLY_MANAGED (NV50_MEMORY_VIRTUAL, by RM_ALLOC
 * or VID_HEAP_CONTROL's VIRTUAL requests) costs the same without a single mapping: RM allocates
 * the page tables of its whole span when it reserves it (gvaspaceAlloc_IMPL()'s
 * mmuWalkReserveEntries(), 4 KiB and big pages, after gvaspaceReserveMempool()), about 8 KiB a
 * 2 MiB region, and bounds a range's size only by the address space.
 *
 * ``mapped_max`` (0644; a size, a multiple of 2 MiB, or ``max``; ``mapped=`` at creation, default
 * ``max``) bounds the address space whose page tables RM allocates for the instance: its live
 * mappings, each counted in the whole 2 MiB regions it touches (qgpu_mapped_units()), and its
 * virtual ranges mapped up front, each counted at the most its size may touch
 * (qgpu_mapped_virtual_units()). A 4 KiB mapping counts 2 MiB, a 1 GiB one 1 GiB or 1 GiB and
 * 2 MiB. So it bounds the records (one region at least each) and the page tables (one region's
 * worth per region) together. A mapping into a range mapped up front counts again: RM's
 * records are new, its page tables are not. ``mapped_current`` (0444) is what they count, in
 * bytes. Lowering ``mapped_max`` below it is -EBUSY, as for the other bounds.
 *
 * A map is reserved before it is forwarded: exactly where the call names the address
 * (DMA_OFFSET_FIXED), otherwise the most any placement of its length touches, settled on the
 * address RM wrote back. Past the bound the call answers NV_ERR_NO_MEMORY, what RM answers when
 * its page tables cannot be allocated, and is not forwarded; the netlink event ``refused`` names
 * the process. A partial unmap (550+) that cuts a hole in a mapping leaves RM two records, and
 * reserves the region the second may add the same way.
 *
 * qgpu keeps a model of RM's mappings on the tracker's mirror (qgpu_rmtrack.c): each mapping
 * names its virtual allocation, its memory handle and its device, and goes when
 * RM_UNMAP_MEMORY_DMA takes it (all of it, or the part in a span, as serverInterUnmap() does) or
 * when any of the three leaves the mirror (RM_FREE of it or an ancestor, the client, the file):
 * clientFreeResource() unmaps every mapping an object takes part in. A mapping whose objects
 * the mirror does not have stays counted until its file goes.
 *
 * A virtual range's reservation is made before its RM_ALLOC is forwarded, from qgpu's copy of the
 * parameters, which RM reads (the params seal, DOC: client handles in parameters; VID_HEAP_CONTROL
 * carries its flags and size in the sealed escape itself), and stays the range's node's until
 * the node goes. Past the bound the allocation answers NV_ERR_NO_MEMORY, not forwarded.
 *
 * Sealed (DOC: sealed forwarding), RM reads qgpu's copy, and qgpu follows what RM wrote back.
 * Unsealed, qgpu believes a call only if the tenant's parameters read the same after it and the
 * status says NV_OK; a map it cannot believe stays counted until the file goes, an unmap it
 * cannot believe lets nothing go, and a virtual range the tenant's memory says failed stays
 * counted until the file goes. A sibling thread that changes the parameters between qgpu's read
 * and RM's, and back, can still map more than qgpu counts; so can one that changes a virtual
 * range's parameters where the params seal is missing (``seal_params: -``).
 *
 * UVM's external mappings (UVM_MAP_EXTERNAL_ALLOCATION, and UVM_MAP_EXTERNAL_SPARSE's of no
 * memory) count the same way, each in the regions its span touches, and so does each
 * UVM_MAP_DYNAMIC_PARALLELISM_REGION: UVM keeps records and allocates page tables for them as RM
 * does (qgpu_uvm_hold.c follows them). UVM_ALLOC_SEMAPHORE_POOL's page tables are not counted: the
 * pool is system memory charged to the caller's memory cgroup, 512 times what its tables take.
 *
 * NV_MEMORY_MAPPER (0xFE, any user from 560) maps and unmaps for its client from RM's work queue,
 * through the same map as RM_MAP_MEMORY_DMA (memmapperExecuteMap(), 580.142), after the control
 * that queued the operations has returned: qgpu sees neither the mappings nor their outcome. So
 * where ``mapped_max`` bounds the instance, the class and NV00FE_CTRL_CMD_SUBMIT_OPERATIONS are
 * answered NV_ERR_NOT_SUPPORTED, what every driver before 560 answers for the class by default,
 * with the netlink event ``refused``; a mapper made while the knob was ``max`` gets no operation
 * through once it is not. Unbounded, both are forwarded, and what a mapper maps is not counted.
 *
 * Not counted: CPU mappings (RM_MAP_MEMORY), which map no GPU addresses; a VA space's own root and
 * its server range (a few pages each, FERMI_VASPACE_A, which rm_objects_max bounds in number).
 * A virtual range RM frees with its VA space (resserv's dependants) keeps its count until its
 * handle is freed (RM leaves the handle, and frees it with NV_OK).
 */

enum qgpu_mapped_role { QGPU_MAPPED_MAPPER, QGPU_MAPPED_MEMORY, QGPU_MAPPED_CONTEXT,
			QGPU_MAPPED_ROLES };

/* A node's part in a mapping: an entry in the node's dma_maps */
struct qgpu_mapped_ref {
	struct list_head node;
	struct qgpu_mapped_map *map;
};

/**
 * struct qgpu_mapped_map - one mapping RM keeps, as qgpu models it
 * @ref: its entries in the mirror nodes' dma_maps
 * @node: those nodes: the virtual allocation (hDma), the memory (hMemory), the device (hDevice)
 * @inst: the instance whose ``mapped_current`` counts it
 * @va: its absolute GPU virtual address
 * @len: its length
 * @units: the 2 MiB regions it touches
 */
struct qgpu_mapped_map {
	struct qgpu_mapped_ref ref[QGPU_MAPPED_ROLES];
	struct qgpu_rmnode *node[QGPU_MAPPED_ROLES];
	struct qgpu_instance *inst;
	u64 va;
	u64 len;
	u32 units;
};

/* Count @units more for @inst without asking the bound: RM has made them already. */
static void qgpu_mapped_force(struct qgpu_instance *inst, u32 units)
{
	atomic_add(units, &inst->mapped.count);
}

/**
 * qgpu_mapped_settle() - a call that reserved @reserved regions left @held more counted
 * @inst: the instance
 * @reserved: what the call reserved under the bound before it was forwarded
 * @held: the change it made to what the instance's mappings count (negative where less is left)
 *
 * Whatever was made is counted, past the bound or not: it exists.
 */
void qgpu_mapped_settle(struct qgpu_instance *inst, u32 reserved, s64 held)
{
	if (held > (s64)reserved)
		qgpu_mapped_force(inst, held - reserved);
	else if (held < (s64)reserved)
		qgpu_bound_put(&inst->mapped, reserved - held);
}

static void qgpu_mapped_drop(struct qgpu_mapped_map *map)
{
	int i;

	for (i = 0; i < QGPU_MAPPED_ROLES; i++)
		list_del(&map->ref[i].node);
	qgpu_bound_put(&map->inst->mapped, map->units);
	kfree(map);
}

/* A mapping of @units regions RM made that qgpu cannot place: counted until the file goes. */
static void qgpu_mapped_pin(struct qgpu_rmtrack *t, u32 units)
{
	t->mapped_pinned += units;
}

/*
 * Record a mapping RM made, whose @units the instance counts already, on its nodes.
 * Context: the tracker's lock held.
 */
static void qgpu_mapped_add(struct qgpu_rmtrack *t, struct qgpu_rmnode *node[QGPU_MAPPED_ROLES],
			    u64 va, u64 len, u32 units)
{
	struct qgpu_mapped_map *map;
	int i;

	lockdep_assert_held(&t->lock);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map) {
		qgpu_mapped_pin(t, units);
		return;
	}
	for (i = 0; i < QGPU_MAPPED_ROLES; i++) {
		map->node[i] = node[i];
		map->ref[i].map = map;
		list_add_tail(&map->ref[i].node, &node[i]->dma_maps);
	}
	map->inst = t->inst;
	map->va = va;
	map->len = len;
	map->units = units;
}

/*
 * RM mapped @p at @va: settle the @reserved regions on what it touches, and record it.
 * Context: the tracker's lock held.
 */
static void qgpu_mapped_made(struct qgpu_rmtrack *t, const struct nvrm_dma_map *p, u64 va,
			     u32 reserved)
{
	struct qgpu_instance *inst = t->inst;
	struct qgpu_rmnode *node[QGPU_MAPPED_ROLES];
	u64 units = qgpu_mapped_units(va, p->length);

	if (units > QGPU_MAPPED_UNITS_LIMIT)	/* RM wrote back what it cannot have mapped */
		units = reserved;
	qgpu_mapped_settle(inst, reserved, units);
	node[QGPU_MAPPED_MAPPER] = qgpu_rmtrack_find(t, p->hclient, p->hdma);
	node[QGPU_MAPPED_MEMORY] = qgpu_rmtrack_find(t, p->hclient, p->hmemory);
	node[QGPU_MAPPED_CONTEXT] = qgpu_rmtrack_find(t, p->hclient, p->hdevice);
	if (!node[QGPU_MAPPED_MAPPER] || !node[QGPU_MAPPED_MEMORY] || !node[QGPU_MAPPED_CONTEXT] ||
	    p->hdma == p->hclient || p->hmemory == p->hclient || p->hdevice == p->hclient) {
		qgpu_mapped_pin(t, units);
		return;
	}
	qgpu_mapped_add(t, node, va, p->length, units);
}

/* Did the unsealed call's parameters read the same after it as before, but for its results? */
static bool qgpu_mapped_same_map(const struct nvrm_dma_map *a, const struct nvrm_dma_map *b)
{
	return a->hclient == b->hclient && a->hdevice == b->hdevice && a->hdma == b->hdma &&
	       a->hmemory == b->hmemory && a->offset == b->offset && a->length == b->length &&
	       a->flags == b->flags;
}

/**
 * qgpu_mapped_map_ioctl() - RM_MAP_MEMORY_DMA on a ctl proxy: reserve, forward, record
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the caller's parameters
 * @size: their size
 * @compat: the caller is a 32-bit process
 *
 * See DOC: GPU mappings.
 *
 * Context: the caller's process context; takes the tracker's lock.
 * Return: what the driver returns, or -EFAULT.
 */
long qgpu_mapped_map_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			   bool compat)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_rmtrack *t = qf->track;
	u8 buf[NVRM_NVOS46_SIZE_V580] __aligned(8);
	struct nvrm_dma_map p, done;
	bool sealed, believed;
	u64 most;
	long ret;

	if (!t || size > sizeof(buf) || copy_from_user(buf, (void __user *)arg, size) ||
	    nvrm_dma_map_decode(&inst->gpu->abi, buf, size, &p))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);
	most = p.flags & NVRM_NVOS46_FLAGS_DMA_OFFSET_FIXED ?
	       qgpu_mapped_units(p.dma_offset, p.length) : qgpu_mapped_units_most(p.length);
	/* More than any memory or address space has: RM refuses it too, for the length. */
	if (most > QGPU_MAPPED_UNITS_LIMIT)
		return put_user(NVRM_ERR_INVALID_LIMIT, (u32 __user *)(arg + p.status_off)) ?
		       -EFAULT : 0;

	mutex_lock(&t->lock);
	if (!qgpu_bound_reserve(&inst->mapped, most)) {
		mutex_unlock(&t->lock);
		qgpu_mem_call_refused(inst, "a GPU mapping past mapped_max");
		return put_user(NVRM_ERR_NO_MEMORY, (u32 __user *)(arg + p.status_off)) ?
		       -EFAULT : 0;
	}
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, buf, &sealed);
	if (sealed) {
		believed = !nvrm_dma_map_decode(&inst->gpu->abi, buf, size, &done);
	} else {
		believed = !ret && !copy_from_user(buf, (void __user *)arg, size) &&
			   !nvrm_dma_map_decode(&inst->gpu->abi, buf, size, &done) &&
			   qgpu_mapped_same_map(&p, &done);
	}
	if (believed && done.status == NVRM_OK)
		qgpu_mapped_made(t, &done, done.dma_offset, most);
	else if (believed)
		qgpu_bound_put(&inst->mapped, most);	/* RM mapped nothing */
	else
		qgpu_mapped_pin(t, most);
	mutex_unlock(&t->lock);
	return sealed ? qgpu_seal_copy_back(ret, sealed, arg, buf, size) : ret;
}

/* Is @r the mapper's entry of a mapping of @dma made with @ctx (and @mem, when given)? */
static struct qgpu_mapped_map *qgpu_mapped_of(struct qgpu_mapped_ref *r, struct qgpu_rmnode *dma,
					      struct qgpu_rmnode *ctx, struct qgpu_rmnode *mem)
{
	struct qgpu_mapped_map *m = r->map;

	if (r != &m->ref[QGPU_MAPPED_MAPPER] || m->node[QGPU_MAPPED_MAPPER] != dma ||
	    m->node[QGPU_MAPPED_CONTEXT] != ctx || (mem && m->node[QGPU_MAPPED_MEMORY] != mem))
		return NULL;
	return m;
}

/* The regions a partial unmap of [@lo, @hi) may add to @m: one piece more, at most one region. */
static u32 qgpu_mapped_cut_grows(const struct qgpu_mapped_map *m, u64 lo, u64 hi)
{
	u64 end = m->va + m->len, pieces;

	if (lo <= m->va || hi >= end)
		return 0;	/* no hole in the middle: what is left only shrinks */
	pieces = qgpu_mapped_units(m->va, lo - m->va) + qgpu_mapped_units(hi, end - hi);
	return pieces > m->units ? pieces - m->units : 0;
}

/* Cut [@lo, @hi) out of @m as RM does (serverInterUnmapInternal()). Tracker's lock held. */
static void qgpu_mapped_cut(struct qgpu_rmtrack *t, struct qgpu_mapped_map *m, u64 lo, u64 hi)
{
	u64 end = m->va + m->len;
	u32 units;

	if (lo <= m->va && hi >= end) {
		qgpu_mapped_drop(m);
		return;
	}
	if (lo > m->va && hi < end) {
		units = qgpu_mapped_units(hi, end - hi);
		qgpu_mapped_force(m->inst, units);	/* reserved by the caller */
		qgpu_mapped_add(t, m->node, hi, end - hi, units);
		end = lo;
	} else if (lo <= m->va) {
		m->va = hi;
	} else {
		end = lo;
	}
	m->len = end - m->va;
	units = qgpu_mapped_units(m->va, m->len);
	qgpu_bound_put(&m->inst->mapped, m->units - units);
	m->units = units;
}

/*
 * RM unmapped what @p names: drop it from the model (a span of @size, or the mapping at
 * exactly its address). Tracker's lock held.
 */
static void qgpu_mapped_unmapped(struct qgpu_rmtrack *t, const struct nvrm_dma_unmap *p)
{
	struct qgpu_rmnode *dma, *ctx, *mem = NULL;
	struct qgpu_mapped_ref *r, *tmp;
	u64 lo = p->dma_offset, hi = p->dma_offset + p->size;

	dma = qgpu_rmtrack_find(t, p->hclient, p->hdma);
	ctx = qgpu_rmtrack_find(t, p->hclient, p->hdevice);
	if (!p->has_size)
		mem = qgpu_rmtrack_find(t, p->hclient, p->hmemory);
	if (!dma || !ctx || (!p->has_size && !mem))
		return;
	if (hi < lo)
		hi = ~0ULL;
	list_for_each_entry_safe(r, tmp, &dma->dma_maps, node) {
		struct qgpu_mapped_map *m = qgpu_mapped_of(r, dma, ctx, mem);

		if (!m)
			continue;
		if (!p->size) {
			if (m->va == p->dma_offset) {
				qgpu_mapped_drop(m);
				return;
			}
		} else if (m->va < hi && m->va + m->len > lo) {
			qgpu_mapped_cut(t, m, lo, hi);
		}
	}
}

/*
 * The regions an unmap may add (a partial one that cuts a hole), by the model. Tracker's lock
 * held.
 */
static u32 qgpu_mapped_unmap_grows(struct qgpu_rmtrack *t, const struct nvrm_dma_unmap *p)
{
	struct qgpu_rmnode *dma, *ctx;
	struct qgpu_mapped_ref *r;
	u64 lo = p->dma_offset, hi = p->dma_offset + p->size;

	if (!p->size || hi < lo)
		return 0;
	dma = qgpu_rmtrack_find(t, p->hclient, p->hdma);
	ctx = qgpu_rmtrack_find(t, p->hclient, p->hdevice);
	if (!dma || !ctx)
		return 0;
	list_for_each_entry(r, &dma->dma_maps, node) {
		struct qgpu_mapped_map *m = qgpu_mapped_of(r, dma, ctx, NULL);

		if (m && m->va < lo && m->va + m->len > hi)
			return qgpu_mapped_cut_grows(m, lo, hi);
	}
	return 0;
}

static bool qgpu_mapped_same_unmap(const struct nvrm_dma_unmap *a,
				   const struct nvrm_dma_unmap *b)
{
	return a->hclient == b->hclient && a->hdevice == b->hdevice && a->hdma == b->hdma &&
	       a->hmemory == b->hmemory && a->dma_offset == b->dma_offset && a->size == b->size;
}

/**
 * qgpu_mapped_unmap_ioctl() - RM_UNMAP_MEMORY_DMA on a ctl proxy: forward, and follow it
 * @qf: the proxy
 * @cmd: the command (the direct one for an unwrapped XFER)
 * @arg: the caller's parameters
 * @size: their size
 * @compat: the caller is a 32-bit process
 *
 * See DOC: GPU mappings.
 *
 * Context: the caller's process context; takes the tracker's lock.
 * Return: what the driver returns, or -EFAULT.
 */
long qgpu_mapped_unmap_ioctl(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
			     bool compat)
{
	struct qgpu_instance *inst = qf->inst;
	struct qgpu_rmtrack *t = qf->track;
	u8 buf[NVRM_NVOS47_SIZE_V550] __aligned(8);
	struct nvrm_dma_unmap p, done;
	bool sealed, believed;
	u32 grows;
	long ret;

	if (!t || size > sizeof(buf) || copy_from_user(buf, (void __user *)arg, size) ||
	    nvrm_dma_unmap_decode(&inst->gpu->abi, buf, size, &p))
		return qgpu_forward_ioctl(qf->real, cmd, arg, compat);

	mutex_lock(&t->lock);
	grows = qgpu_mapped_unmap_grows(t, &p);
	if (grows && !qgpu_bound_reserve(&inst->mapped, grows)) {
		mutex_unlock(&t->lock);
		qgpu_mem_call_refused(inst, "a GPU mapping split past mapped_max");
		return put_user(NVRM_ERR_NO_MEMORY, (u32 __user *)(arg + p.status_off)) ?
		       -EFAULT : 0;
	}
	ret = qgpu_forward_sealed_nocopy(qf->real, cmd, arg, compat, buf, &sealed);
	if (sealed) {
		believed = !nvrm_dma_unmap_decode(&inst->gpu->abi, buf, size, &done);
	} else {
		believed = !ret && !copy_from_user(buf, (void __user *)arg, size) &&
			   !nvrm_dma_unmap_decode(&inst->gpu->abi, buf, size, &done) &&
			   qgpu_mapped_same_unmap(&p, &done);
	}
	if (believed && done.status == NVRM_OK)
		qgpu_mapped_unmapped(t, &done);
	if (grows)	/* the cut counted what it added itself */
		qgpu_bound_put(&inst->mapped, grows);
	mutex_unlock(&t->lock);
	return sealed ? qgpu_seal_copy_back(ret, sealed, arg, buf, size) : ret;
}

/**
 * qgpu_mapped_node_gone() - @node leaves the mirror: RM unmapped every mapping it took part in,
 * and let go of a virtual range's page tables
 * @inst: the instance whose mirror it was in
 * @node: the node
 *
 * Context: the tracker's lock held.
 */
void qgpu_mapped_node_gone(struct qgpu_instance *inst, struct qgpu_rmnode *node)
{
	struct qgpu_mapped_ref *r, *tmp;

	list_for_each_entry_safe(r, tmp, &node->dma_maps, node)
		qgpu_mapped_drop(r->map);
	if (node->mapped_units)
		qgpu_bound_put(&inst->mapped, node->mapped_units);
	node->mapped_units = 0;
}

/**
 * qgpu_mapped_virtual_reserve() - a virtual range is to be reserved: what RM maps of it up front
 * must fit under ``mapped_max``
 * @qf: the proxy
 * @flags: its allocation flags
 * @size: its size
 * @units: set to the regions reserved (0 for a range RM maps nothing of up front)
 *
 * See DOC: GPU mappings. On refusal the operator is told.
 *
 * Return: NVRM_OK, or NV_ERR_NO_MEMORY to answer instead of forwarding.
 */
u32 qgpu_mapped_virtual_reserve(struct qgpu_file *qf, u32 flags, u64 size, u32 *units)
{
	u64 want = qgpu_mapped_virtual_units(flags, size);

	*units = 0;
	if (!want)
		return NVRM_OK;
	if (!qgpu_bound_reserve(&qf->inst->mapped, (u32)want)) {
		qgpu_mem_call_refused(qf->inst, "a GPU virtual range past mapped_max");
		return NVRM_ERR_NO_MEMORY;
	}
	*units = (u32)want;
	return NVRM_OK;
}

/**
 * qgpu_mapped_virtual_made() - RM made the virtual range a call reserved @units for
 * @t: the tracker (its lock held)
 * @node: the range's node, or NULL where RM made it but the mirror could not record it
 * @units: what the call reserved
 *
 * The reservation becomes the node's count, kept until the node goes; a range qgpu cannot place
 * stays counted until the file goes. (The most the size may touch, not the regions RM chose:
 * at most one region more.)
 */
void qgpu_mapped_virtual_made(struct qgpu_rmtrack *t, struct qgpu_rmnode *node, u32 units)
{
	lockdep_assert_held(&t->lock);
	if (!units)
		return;
	if (node && !node->mapped_units)
		node->mapped_units = units;
	else
		qgpu_mapped_pin(t, units);
}

/**
 * qgpu_mapped_virtual_begin() - an RM_ALLOC of NV50_MEMORY_VIRTUAL: reserve what RM maps of it up
 * front, and have RM read what qgpu read
 * @qf: the proxy
 * @a: the decoded allocation
 * @seal: set up so that RM reads qgpu's copy of the parameters, for the forward that follows
 * @v: filled for qgpu_mapped_virtual_end()
 *
 * Context: the tracker's lock held; takes the instance's params_seal until
 *	qgpu_mapped_virtual_end() where @v->params is set.
 * Return: NVRM_OK (forward it), or the status to answer instead (nothing reserved then).
 */
u32 qgpu_mapped_virtual_begin(struct qgpu_file *qf, const struct nvrm_alloc *a,
			      struct qgpu_seal *seal, struct qgpu_mapped_virtual *v)
{
	const struct nvrm_abi *abi = &qf->inst->gpu->abi;
	u32 size = abi->mem_alloc_params_size;
	struct nvrm_mem_alloc m;
	void *p;
	u32 status;

	v->params = NULL;
	v->units = 0;
	if (a->hclass != NVRM_CLASS_NV50_MEMORY_VIRTUAL || !a->params_ptr)
		return NVRM_OK;	/* no parameters: RM refuses the class */
	p = memdup_user(u64_to_user_ptr(a->params_ptr), size);
	if (IS_ERR(p))	/* RM's answer to parameters it cannot read */
		return NVRM_ERR_INVALID_ADDRESS;
	if (nvrm_mem_alloc_decode(abi, p, size, &m)) {
		kfree(p);
		return NVRM_OK;
	}
	status = qgpu_mapped_virtual_reserve(qf, m.flags, m.size, &v->units);
	if (status) {
		kfree(p);
		return status;
	}
	/* sealed even where RM maps nothing up front: a sibling could clear LAZY under RM's read */
	if (qgpu_seal_params_lock(&qf->inst->params_seal, seal, a->params_ptr, p, size)) {
		/* killed while another forward waited on RM: the process never sees the status */
		qgpu_mapped_virtual_end(qf, seal, v, false, false);
		kfree(p);
		return NVRM_ERR_INVALID_STATE;
	}
	v->params = p;
	return NVRM_OK;
}

/**
 * qgpu_mapped_virtual_end() - the forward qgpu_mapped_virtual_begin() allowed returned
 * @qf: the proxy
 * @seal: as set up there
 * @v: as filled there; @v->units stays reserved unless RM surely made nothing
 * @rm_ok: RM made the range (its own status, in qgpu's copy of a sealed call)
 * @unsure: an unsealed call the driver took: only the tenant's memory says what RM did, so the
 *	reservation stays (qgpu_mapped_virtual_made() pins it where no range is mirrored)
 */
void qgpu_mapped_virtual_end(struct qgpu_file *qf, struct qgpu_seal *seal,
			     struct qgpu_mapped_virtual *v, bool rm_ok, bool unsure)
{
	if (v->params) {
		qgpu_seal_params_unlock(&qf->inst->params_seal, seal, rm_ok);
		kfree(v->params);
		v->params = NULL;
	}
	if (!rm_ok && !unsure && v->units) {
		qgpu_bound_put(&qf->inst->mapped, v->units);
		v->units = 0;
	}
}

/* A memory mapper on an instance whose mappings are bounded: refused (see DOC: GPU mappings). */
static bool qgpu_mapped_mapper_refused(struct qgpu_instance *inst, const char *what)
{
	if (!qgpu_bound_max(&inst->mapped))
		return false;
	qgpu_mem_call_refused(inst, what);
	return true;
}

/**
 * qgpu_mapped_alloc_refused() - whether an RM_ALLOC is of a memory mapper qgpu refuses
 * @qf: the proxy ctl file
 * @hclass: the class qgpu read (sealed, the class RM makes)
 *
 * Return: true when the call is to be answered NV_ERR_NOT_SUPPORTED, not forwarded.
 */
bool qgpu_mapped_alloc_refused(struct qgpu_file *qf, u32 hclass)
{
	return hclass == NVRM_CLASS_NV_MEMORY_MAPPER &&
	       qgpu_mapped_mapper_refused(qf->inst, "NV_MEMORY_MAPPER under mapped_max");
}

/**
 * qgpu_mapped_control() - answer a memory mapper's submission on a bounded instance
 * @qf: the proxy ctl file
 * @c: the decoded RM_CONTROL
 * @arg: the tenant's NVOS54
 * @ret: what the ioctl returns, when answered
 *
 * Return: true when qgpu answered the call (NV_ERR_NOT_SUPPORTED in its status).
 */
bool qgpu_mapped_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
			 long *ret)
{
	u32 __user *ustatus = (u32 __user *)(arg + offsetof(struct nvrm_nvos54, status));

	if (c->cmd != NVRM_CTRL_CMD_NV00FE_SUBMIT_OPERATIONS ||
	    !qgpu_mapped_mapper_refused(qf->inst, "NV_MEMORY_MAPPER operations, past mapped_max"))
		return false;
	*ret = put_user(NVRM_ERR_NOT_SUPPORTED, ustatus) ? -EFAULT : 0;
	return true;
}

/**
 * qgpu_mapped_release() - the tracker's file is gone: what it kept counted goes
 * @t: the tracker, every client of which the mirror has dropped
 */
void qgpu_mapped_release(struct qgpu_rmtrack *t)
{
	if (t->mapped_pinned)
		qgpu_bound_put(&t->inst->mapped, t->mapped_pinned);
	t->mapped_pinned = 0;
}

static ssize_t mapped_max_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 max = qgpu_bound_max(&qgpu_instance_of(kobj)->mapped);

	return max ? sysfs_emit(buf, "%llu\n", max << QGPU_MAPPED_UNIT_SHIFT) :
		     sysfs_emit(buf, "max\n");
}

static ssize_t mapped_max_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	int ret;
	u32 max;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (qgpu_parse_mapped(buf, count, &max))
		return -EINVAL;
	ret = qgpu_bound_set_max(&qgpu_instance_of(kobj)->mapped, max);
	return ret ?: count;
}

static ssize_t mapped_current_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	int units = qgpu_bound_count(&qgpu_instance_of(kobj)->mapped);

	return sysfs_emit(buf, "%llu\n", (u64)max(units, 0) << QGPU_MAPPED_UNIT_SHIFT);
}

static struct kobj_attribute qgpu_attr_mapped_max = __ATTR_RW(mapped_max);
static struct kobj_attribute qgpu_attr_mapped_current = __ATTR_RO(mapped_current);

static struct attribute *qgpu_mapped_instance_attrs[] = {
	&qgpu_attr_mapped_max.attr,
	&qgpu_attr_mapped_current.attr,
	NULL,
};

const struct attribute_group qgpu_mapped_instance_group = {
	.attrs = qgpu_mapped_instance_attrs,
};
