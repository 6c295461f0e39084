// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the usermode object (HOPPER_USERMODE_A) and its doorbell.
 *
 * On a real GPU, kernel launches never enter the kernel: user space writes a channel's work-submit
 * token to offset 0x90 of the usermode region it mapped from BAR0 (NVC361_NOTIFY_CHANNEL_PENDING),
 * a posted MMIO write the GPU sees at once. nvsim has no MMIO, so it has to notice a store to a
 * normal page. It does so with the page tables: the doorbell page is mapped write-protected, so
 * the first store after each ring faults; the fault queues a ring; a worker write-protects the
 * page again (zapping the PTE through the file's own address space) and only then reads and
 * clears the token, so a store that lands after that read faults again and is not lost.
 *
 * The fault returns before its store lands. The worker (on the high-priority system workqueue:
 * hardware sees a doorbell at once) therefore waits for the token to appear, up to
 * NVSIM_RING_LAND_NS after the fault, before it write-protects: re-protecting earlier makes the
 * store fault again, queue another ring, and so on for as long as the worker keeps winning that
 * race (on a 2-vCPU TCG guest: about a thousand faults a second from one busy process). A write
 * fault maps the page writable at once, so one store is one fault. (When this was first tried,
 * a test saw entries run twice; the cause was the test writing GP_PUT with struct.pack_into, which
 * zeroes the field before writing it byte by byte, so a prompt engine read GP_PUT 0 and ran the
 * ring round again. The tests now store words whole, as drivers do.)
 *
 * Two stores between one fault and the worker's re-protect are seen as one ring, with the later
 * token. So that the earlier token's channel is not left waiting for its next ring, every ring
 * also makes the engine re-read GP_PUT of all channels of the process that stored
 * (nvsim_engine_doorbell() says why that is faithful enough). Stores of two processes to one
 * doorbell page (shared after fork) can still coalesce. TIME_0/1 at 0x80/0x84 read as zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "nvsim_compat.h"
#include "nvsim_internal.h"

/* NVC361_NOTIFY_CHANNEL_PENDING (clc361.h, 525-595) */
#define NVSIM_NOTIFY_CHANNEL_PENDING	0x90
/* how long after its fault the worker waits for a ring's store to land */
#define NVSIM_RING_LAND_NS		(1000 * NSEC_PER_USEC)

/**
 * struct nvsim_doorbell - the usermode region of one usermode object
 * @ref: held by the object's resource, by each mapping context and VMA that maps it
 * @gpu: its GPU
 * @page: page 0 of the region: the doorbell (and the TIME registers, which read as zero)
 * @rest: what the other pages of the 64 KiB region map to (nothing nvsim models lives there)
 */
struct nvsim_doorbell {
	struct kref ref;
	struct nvsim_gpu *gpu;
	struct page *page;
	struct page *rest;
};

/**
 * struct nvsim_usermode - a usermode object's resource
 * @res: the shared resource
 * @db: its doorbell
 */
struct nvsim_usermode {
	struct nvsim_res res;
	struct nvsim_doorbell *db;
};

/**
 * struct nvsim_ring - a doorbell store seen by a fault, waiting for the worker
 * @node: entry in nvsim_rings
 * @file: the nvidia file whose mapping faulted (a reference)
 * @db: the doorbell (a reference)
 * @tgid: the process whose store faulted
 * @at: when (ktime ns), for the engine's trace
 */
struct nvsim_ring {
	struct list_head node;
	struct file *file;
	struct nvsim_doorbell *db;
	pid_t tgid;
	s64 at;
};

/* Rings not yet handled; nvsim_rings_lock protects the list (taken in fault handlers). */
static LIST_HEAD(nvsim_rings);
static DEFINE_SPINLOCK(nvsim_rings_lock);
static void nvsim_rings_work(struct work_struct *work);
static DECLARE_WORK(nvsim_rings_worker, nvsim_rings_work);

static void nvsim_doorbell_release(struct kref *ref)
{
	struct nvsim_doorbell *db = container_of(ref, struct nvsim_doorbell, ref);

	__free_page(db->page);
	__free_page(db->rest);
	kfree(db);
}

struct nvsim_doorbell *nvsim_doorbell_get(struct nvsim_doorbell *db)
{
	kref_get(&db->ref);
	return db;
}

void nvsim_doorbell_put(struct nvsim_doorbell *db)
{
	kref_put(&db->ref, nvsim_doorbell_release);
}

struct nvsim_gpu *nvsim_doorbell_gpu(const struct nvsim_doorbell *db)
{
	return db->gpu;
}

static void nvsim_usermode_release(struct nvsim_res *res)
{
	struct nvsim_usermode *um = container_of(res, struct nvsim_usermode, res);

	nvsim_doorbell_put(um->db);
	kfree(um);
}

static bool nvsim_is_usermode_class(u32 hclass)
{
	return hclass == NVRM_CLASS_HOPPER_USERMODE_A;
}

struct nvsim_doorbell *nvsim_obj_doorbell(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || !nvsim_is_usermode_class(obj->hclass))
		return NULL;
	return container_of(obj->res, struct nvsim_usermode, res)->db;
}

/**
 * nvsim_usermode_construct() - a usermode object: its doorbell page
 * @obj: the new object (under a subdevice; @obj->gpu set)
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_usermode_construct(struct nvsim_object *obj)
{
	struct nvsim_usermode *um;
	struct nvsim_doorbell *db;

	lockdep_assert_held(&nvsim_rm_lock);
	um = kzalloc(sizeof(*um), GFP_KERNEL);
	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!um || !db)
		goto err;
	db->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	db->rest = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!db->page || !db->rest)
		goto err;
	kref_init(&db->ref);
	db->gpu = obj->gpu;
	um->db = db;
	nvsim_res_init(&um->res, nvsim_usermode_release);
	obj->res = &um->res;
	return NVRM_OK;
err:
	if (db && db->page)
		__free_page(db->page);
	if (db && db->rest)
		__free_page(db->rest);
	kfree(db);
	kfree(um);
	return NVRM_ERR_NO_MEMORY;
}

/* Queue a ring seen on @vma; the worker re-protects the page and reads the token. */
static void nvsim_doorbell_rung(struct vm_area_struct *vma)
{
	struct nvsim_ring *ring = kmalloc(sizeof(*ring), GFP_KERNEL);

	if (!ring)
		return;	/* the store lands; the next fault will queue it */
	ring->file = get_file(vma->vm_file);
	ring->db = nvsim_doorbell_get(vma->vm_private_data);
	ring->tgid = task_tgid_nr(current);	/* a fault runs in the storing task */
	ring->at = ktime_get_ns();
	spin_lock(&nvsim_rings_lock);
	list_add_tail(&ring->node, &nvsim_rings);
	spin_unlock(&nvsim_rings_lock);
	queue_work(system_highpri_wq, &nvsim_rings_worker);
}

static void nvsim_rings_work(struct work_struct *work)
{
	struct nvsim_ring *ring, *tmp;
	LIST_HEAD(rings);
	u32 *va, token;

	spin_lock(&nvsim_rings_lock);
	list_splice_init(&nvsim_rings, &rings);
	spin_unlock(&nvsim_rings_lock);

	list_for_each_entry_safe(ring, tmp, &rings, node) {
		va = page_address(ring->db->page);
		/* Let the store that faulted land first (see the top of the file). */
		while (!READ_ONCE(va[NVSIM_NOTIFY_CHANNEL_PENDING / sizeof(u32)]) &&
		       ktime_get_ns() - ring->at < NVSIM_RING_LAND_NS)
			usleep_range(10, 20);
		/* Write-protect first, then read: a later store faults and queues another ring. */
		unmap_mapping_range(ring->file->f_mapping, 0, PAGE_SIZE, 1);
		token = xchg(&va[NVSIM_NOTIFY_CHANNEL_PENDING / sizeof(u32)], 0);
		/* 0: an earlier pass took this store's token; its process's channels still look */
		nvsim_engine_doorbell(ring->db->gpu, token, ring->tgid, ring->at);
		list_del(&ring->node);
		fput(ring->file);
		nvsim_doorbell_put(ring->db);
		kfree(ring);
	}
}

static void nvsim_doorbell_vm_open(struct vm_area_struct *vma)
{
	nvsim_doorbell_get(vma->vm_private_data);
}

static void nvsim_doorbell_vm_close(struct vm_area_struct *vma)
{
	nvsim_doorbell_put(vma->vm_private_data);
}

/*
 * Page 0 is mapped read-only by a read fault and writable by a write fault, which is a ring; a
 * store to the read-only page comes through pfn_mkwrite, also a ring. The other pages map a
 * plain page.
 */
static vm_fault_t nvsim_doorbell_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct nvsim_doorbell *db = vma->vm_private_data;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	pgprot_t prot = vma->vm_page_prot;
	vm_fault_t ret;

	if (vmf->pgoff) {
		/* insert_pfn() maps it writable when the fault is a write. */
		return vmf_insert_pfn_prot(vma, vmf->address, page_to_pfn(db->rest), prot);
	}
	/* vm_page_prot is read-only here (pfn_mkwrite): a write maps it writable at once */
	prot = vm_get_page_prot(write ? vma->vm_flags : vma->vm_flags & ~VM_WRITE);
	ret = vmf_insert_pfn_prot(vma, vmf->address, page_to_pfn(db->page), prot);
	if (write && ret == VM_FAULT_NOPAGE)
		nvsim_doorbell_rung(vma);
	return ret;
}

static vm_fault_t nvsim_doorbell_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	if (!vmf->pgoff)
		nvsim_doorbell_rung(vmf->vma);
	return 0;
}

static const struct vm_operations_struct nvsim_doorbell_vm_ops = {
	.open		= nvsim_doorbell_vm_open,
	.close		= nvsim_doorbell_vm_close,
	.fault		= nvsim_doorbell_vm_fault,
	.pfn_mkwrite	= nvsim_doorbell_vm_pfn_mkwrite,
};

/**
 * nvsim_doorbell_mmap() - map a usermode region as the real driver maps BAR0
 * @db: the doorbell
 * @vma: a shared mapping of the region (a private one would copy the page, and no store would
 *	ever reach the GPU)
 *
 * Return: 0 or -EINVAL.
 */
int nvsim_doorbell_mmap(struct nvsim_doorbell *db, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	nvsim_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = nvsim_doorbell_get(db);
	vma->vm_ops = &nvsim_doorbell_vm_ops;
	return 0;
}

/* Module unload: no file is open, so no ring can be queued any more; finish the last ones. */
void nvsim_doorbell_exit(void)
{
	flush_work(&nvsim_rings_worker);
}
