/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: per-instance video-memory limits (issue 5): charging, refusal, uncharging, and what the
 * tenant is shown of the GPU's memory. See DOC: memory limits in qgpu_mem.c.
 */
#ifndef QGPU_MEM_H
#define QGPU_MEM_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "nvrm/nvrm_decode.h"

struct device_attribute;
struct qgpu_file;
struct qgpu_gpu;
struct qgpu_instance;
struct qgpu_mem_charge;
struct qgpu_rmnode;
struct qgpu_rmtrack;
struct vm_area_struct;

/**
 * struct qgpu_mem_pool - one kind of memory charged to an instance, and its limit
 * @max: the limit in bytes, 0 for unlimited
 * @used: bytes charged now (``mem_current``, ``sysmem_current``)
 * @peak: highest @used seen (``mem_peak``, ``sysmem_peak``)
 */
struct qgpu_mem_pool {
	u64 max;
	u64 used;
	u64 peak;
};

/**
 * struct qgpu_mem_inst - the memory state of one instance
 * @lock: protects both pools (a spinlock: taken on every charge, never across a call)
 * @vid: video memory (``mem_max``); @vid.max is also written under qgpu_lock (limit sums)
 * @sys: system memory RM allocates for the instance's processes (``sysmem_max``; DOC: system
 *	memory in qgpu_mem.c)
 * @events: allocations refused for either limit
 * @refuse_managed: the ``managed`` knob is "refuse" (read locklessly)
 * @refuse_dmabuf: the ``dmabuf`` knob is "refuse" (read locklessly; qgpu_dmabuf.c)
 * @clients: RM client handle -> struct qgpu_mem_client, for the instance's tenants' clients on
 *	all its proxy ctl files (the DUP isolation check, and where a duplicate finds its
 *	source's charge: through the source client's mirror); internal locking, lookups under RCU
 */
struct qgpu_mem_inst {
	spinlock_t lock;	/* see above */
	struct qgpu_mem_pool vid;
	struct qgpu_mem_pool sys;
	atomic64_t events;
	bool refuse_managed;
	bool refuse_dmabuf;
	struct xarray clients;
};

/*
 * The index of client @hclient in struct qgpu_mem_inst.clients. RM's generated client handles
 * count up from NVRM_CLIENT_HANDLE_BASE: offset from it, they keep the tree one or two levels deep
 * instead of six (every RM_ALLOC and duplicate looks a client up there).
 */
static inline unsigned long qgpu_mem_client_key(u32 hclient)
{
	return hclient ^ NVRM_CLIENT_HANDLE_BASE;
}

/**
 * struct qgpu_mem_mark - where a client's objects stood (qgpu_mem_client_mark())
 * @serial: the client record's serial
 * @made: its file's count of calls that made objects (struct qgpu_rmtrack), then
 */
struct qgpu_mem_mark {
	u64 serial;
	long made;
};

/**
 * struct qgpu_mem_dup - a duplicate in flight, as qgpu_mem_dup_begin() found its source
 * @charge: the source's charge (a reference), or NULL
 * @src: where the source client's objects stood before the source was looked up
 * @marked: @src is set (the source client is one of the instance's)
 * @local: the source client is the calling file's, whose mirror cannot change meanwhile
 */
struct qgpu_mem_dup {
	struct qgpu_mem_charge *charge;
	struct qgpu_mem_mark src;
	bool marked;
	bool local;
};

extern const struct attribute_group qgpu_mem_instance_group;
extern struct device_attribute dev_attr_overcommit;

void qgpu_mem_inst_init(struct qgpu_instance *inst, u64 max, u64 sysmem_max);
void qgpu_mem_inst_destroy(struct qgpu_instance *inst);
bool qgpu_mem_create_fits(struct qgpu_gpu *gpu, u64 max);

/* Hooks of qgpu_escape.c; the tracker's lock is held around the alloc/dup/free ones. */
long qgpu_mem_rm_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg, u32 size,
		       bool compat, const struct nvrm_alloc *a);
long qgpu_mem_rm_alloc_done(struct qgpu_file *qf, unsigned long arg, const struct nvrm_alloc *a,
			    struct qgpu_rmnode *node, u32 hnew);
long qgpu_mem_vid_heap_alloc(struct qgpu_file *qf, unsigned int cmd, unsigned long arg,
			     u32 size, bool compat, struct nvrm_nvos32 *raw,
			     const struct nvrm_vidheap *v);
long qgpu_mem_vid_heap_done(struct qgpu_file *qf, unsigned long arg,
			    const struct nvrm_vidheap *v, u32 hmemory);
bool qgpu_mem_vid_heap_info(struct qgpu_file *qf, unsigned long arg,
			    const struct nvrm_vidheap *v, long *ret);
bool qgpu_mem_dup_refused(struct qgpu_file *qf, const struct nvrm_nvos55 *p,
			  unsigned long arg, long *ret);
void qgpu_mem_dup_begin(struct qgpu_file *qf, const struct nvrm_nvos55 *p,
			struct qgpu_mem_dup *d);
void qgpu_mem_dup_abort(struct qgpu_file *qf, struct qgpu_mem_dup *d);
u32 qgpu_mem_dup_end(struct qgpu_file *qf, const struct nvrm_nvos55 *p, struct qgpu_mem_dup *d,
		     struct qgpu_rmnode *node);
bool qgpu_mem_client_mark(struct qgpu_instance *inst, u32 hclient, struct qgpu_mem_mark *mark);
bool qgpu_mem_client_unchanged(struct qgpu_instance *inst, u32 hclient,
			       const struct qgpu_mem_mark *mark);
bool qgpu_mem_control(struct qgpu_file *qf, const struct nvrm_control *c, unsigned long arg,
		      long *ret);
void qgpu_mem_alloc_memory_done(struct qgpu_file *qf, unsigned long arg, u32 size);
void qgpu_mem_alloc_memory_view(struct qgpu_file *qf, struct nvrm_nvos02_with_fd *p);
u32 qgpu_mem_alloc_memory_reserve(struct qgpu_file *qf, const struct nvrm_nvos02 *p,
				  u64 *reserved);
bool qgpu_mem_alloc_memory_made(struct qgpu_file *qf, struct qgpu_rmtrack *t,
				const struct nvrm_nvos02 *p, u64 reserved, u32 *status);

/* Charges that more than one holder shares (duplicates, exports and imports: qgpu_export.c) */
struct qgpu_mem_charge *qgpu_mem_node_charge(struct qgpu_rmnode *node);
struct qgpu_mem_charge *qgpu_mem_charge_new(struct qgpu_instance *inst, u64 size);
struct qgpu_mem_charge *qgpu_mem_charge_forced(struct qgpu_instance *inst, u64 size);
void qgpu_mem_charge_keep(struct qgpu_mem_charge *c, struct qgpu_mem_charge *under);
void qgpu_mem_charge_mark_group(struct qgpu_mem_charge *c);
bool qgpu_mem_charge_is_group(const struct qgpu_mem_charge *c);
bool qgpu_mem_pool_draw(struct qgpu_mem_charge *chan, struct qgpu_mem_charge *group);
void qgpu_mem_charge_put_retained(struct qgpu_mem_charge *c);
void qgpu_mem_charge_count_channel(struct qgpu_mem_charge *c);
void qgpu_mem_hold(struct qgpu_rmnode *node, struct qgpu_mem_charge *c);
struct qgpu_mem_charge *qgpu_mem_charge_tryget(struct qgpu_mem_charge *c);
struct qgpu_mem_charge *qgpu_mem_own_charge(struct qgpu_instance *inst, u32 hclient, u32 handle,
					    u32 *status);
bool qgpu_mem_attach(struct qgpu_rmnode *node, struct qgpu_mem_charge *c);
void qgpu_mem_charge_put(struct qgpu_mem_charge *c);
struct qgpu_mem_charge *qgpu_mem_charge_of(struct qgpu_instance *inst, u32 hclient, u32 handle,
					   bool *known);
u64 qgpu_mem_card_fb_size(struct qgpu_instance *inst, u64 fb_size);
void qgpu_mem_call_refused(struct qgpu_instance *inst, const char *what);
bool qgpu_mem_sysmem_class_refused(struct qgpu_file *qf, u32 hclass);
int qgpu_mem_uvm_mmap(struct qgpu_file *qf, struct vm_area_struct *vma);

#endif /* QGPU_MEM_H */
