// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: memory objects (video memory 0x40, system memory 0x3E, virtual 0x50A0) and the pages
 * behind them.
 *
 * Video memory comes out of the GPU's configured framebuffer and fails with NV_ERR_NO_MEMORY when
 * that is exhausted, as the real PMA does. Memory that user space maps, and that the simulated
 * engine reads (GPFIFO rings, USERD), needs CPU-visible pages: each memory object has a backing
 * store whose pages are allocated, zeroed, the first time something touches them, so a 16 GiB
 * allocation nobody maps costs nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

/* Where nvsim's per-GPU address space starts: above the first 4 GiB, like real GPU VAs. */
#define NVSIM_GPU_ADDR_BASE	BIT_ULL(32)

/**
 * nvsim_backing_create() - an empty backing store of @size bytes
 * @size: bytes; pages are allocated on first touch
 *
 * Return: the store with one reference, or NULL when out of memory.
 */
struct nvsim_backing *nvsim_backing_create(u64 size)
{
	struct nvsim_backing *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return NULL;
	kref_init(&b->ref);
	b->size = size;
	xa_init(&b->pages);
	return b;
}

struct nvsim_backing *nvsim_backing_get(struct nvsim_backing *b)
{
	kref_get(&b->ref);
	return b;
}

static void nvsim_backing_release(struct kref *ref)
{
	struct nvsim_backing *b = container_of(ref, struct nvsim_backing, ref);
	struct page *page;
	unsigned long index;

	xa_for_each(&b->pages, index, page)
		__free_page(page);
	xa_destroy(&b->pages);
	kfree(b);
}

void nvsim_backing_put(struct nvsim_backing *b)
{
	if (b)
		kref_put(&b->ref, nvsim_backing_release);
}

/**
 * nvsim_backing_page() - the page at @index of a backing store
 * @b: the store
 * @index: page index within it
 * @alloc: allocate (zeroed) if it was never touched
 *
 * Context: may sleep when @alloc is true.
 * Return: the page (owned by the store, valid while a reference to it is held), or NULL when
 * @index is out of range, the page was never touched and @alloc is false, or out of memory.
 */
struct page *nvsim_backing_page(struct nvsim_backing *b, pgoff_t index, bool alloc)
{
	struct page *page, *old;

	if (index >= DIV_ROUND_UP(b->size, PAGE_SIZE))
		return NULL;
	page = xa_load(&b->pages, index);
	if (page || !alloc)
		return page;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&b->pages, index, NULL, page, GFP_KERNEL);
	if (old) {
		/* Lost a race with another toucher, or the xarray could not grow. */
		__free_page(page);
		return xa_is_err(old) ? NULL : old;
	}
	return page;
}

/* Untouched pages read as zero, as freshly allocated memory does. */
u32 nvsim_backing_read32(struct nvsim_backing *b, u64 offset)
{
	struct page *page = nvsim_backing_page(b, offset >> PAGE_SHIFT, false);
	u32 *va, val;

	if (!page || offset % sizeof(u32))
		return 0;
	va = kmap_local_page(page);
	val = READ_ONCE(va[offset_in_page(offset) / sizeof(u32)]);
	kunmap_local(va);
	return val;
}

u64 nvsim_backing_read64(struct nvsim_backing *b, u64 offset)
{
	struct page *page = nvsim_backing_page(b, offset >> PAGE_SHIFT, false);
	u64 *va, val;

	if (!page || offset % sizeof(u64))
		return 0;
	va = kmap_local_page(page);
	val = READ_ONCE(va[offset_in_page(offset) / sizeof(u64)]);
	kunmap_local(va);
	return val;
}

/* Context: may sleep (allocates the page on first touch). */
void nvsim_backing_write32(struct nvsim_backing *b, u64 offset, u32 val)
{
	struct page *page = nvsim_backing_page(b, offset >> PAGE_SHIFT, true);
	u32 *va;

	if (!page || offset % sizeof(u32))
		return;
	va = kmap_local_page(page);
	WRITE_ONCE(va[offset_in_page(offset) / sizeof(u32)], val);
	kunmap_local(va);
}

bool nvsim_is_memory_class(u32 hclass)
{
	return hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER ||
	       hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM ||
	       hclass == NVRM_CLASS_NV50_MEMORY_VIRTUAL;
}

struct nvsim_mem *nvsim_obj_mem(const struct nvsim_object *obj)
{
	if (!obj || !obj->res || !nvsim_is_memory_class(obj->hclass))
		return NULL;
	return container_of(obj->res, struct nvsim_mem, res);
}

/**
 * nvsim_fb_take() - take framebuffer for something RM allocates itself
 * @gpu: the GPU
 * @bytes: how much
 *
 * Context: under nvsim_rm_lock.
 * Return: false (nothing taken) when the framebuffer has less free.
 */
bool nvsim_fb_take(struct nvsim_gpu *gpu, u64 bytes)
{
	lockdep_assert_held(&nvsim_rm_lock);
	if (bytes > gpu->fb_size - gpu->fb_used)
		return false;
	gpu->fb_used += bytes;
	return true;
}

/**
 * nvsim_fb_give() - give back what nvsim_fb_take() took, or what memory held
 * @gpu: the GPU
 * @bytes: how much
 *
 * Context: under nvsim_rm_lock.
 */
void nvsim_fb_give(struct nvsim_gpu *gpu, u64 bytes)
{
	lockdep_assert_held(&nvsim_rm_lock);
	if (WARN_ON_ONCE(gpu->fb_used < bytes))
		gpu->fb_used = 0;
	else
		gpu->fb_used -= bytes;
}

/* The last handle to the memory went: give its framebuffer back. Under nvsim_rm_lock. */
static void nvsim_mem_release(struct nvsim_res *res)
{
	struct nvsim_mem *mem = container_of(res, struct nvsim_mem, res);

	lockdep_assert_held(&nvsim_rm_lock);
	nvsim_fb_give(mem->gpu, mem->fb_bytes);
	if (WARN_ON_ONCE(mem->gpu->rsvd_used < mem->rsvd_bytes))
		mem->gpu->rsvd_used = 0;
	else
		mem->gpu->rsvd_used -= mem->rsvd_bytes;
	nvsim_backing_put(mem->backing);
	kfree(mem);
}

/**
 * nvsim_mem_construct() - allocate a memory object's resource from its alloc params
 * @obj: the new object (class 0x40, 0x3E or 0x50A0; @obj->gpu set from its parent)
 * @ap: kernel copy of NV_MEMORY_ALLOCATION_PARAMS; size and offset are written back
 * @ap_size: its size for this ABI version
 * @kernel: the caller has kernel privilege
 *
 * Class 0x40 must be placed in video memory and be physical (video_mem.c), and is charged to the
 * framebuffer; 0x3E is system memory, and refused placed in video memory or virtual
 * (sysmemConstruct_IMPL() in system_mem.c); 0x50A0 is GPU address space only. The size is
 * rounded up as RM rounds it (the page size attr asks for, 2 MiB for video memory at the default
 * from 2 MiB on, or a forced alignment above it: nvrm_vidmem_granule(); system memory at the
 * default page size in 4 KiB pages), and the
 * rounded size is what is charged and written back.
 *
 * 0x40 and 0x3E check what only kernel callers may ask for as stdmemValidateParams() does
 * (nvrm_mem_alloc_user_status()), and a kernel caller's 0x40 with ALLOCATE_FROM_RESERVED_HEAP
 * comes from RM's reserved heap (NVSIM_RESERVED_HEAP bytes), not the framebuffer heap clients
 * see; a user's is ignored (video_mem.c).
 *
 * Context: under nvsim_rm_lock.
 * Return: an RM status.
 */
u32 nvsim_mem_construct(struct nvsim_object *obj, void *ap, u32 ap_size, bool kernel)
{
	struct nvrm_memory_allocation_params *p = ap;
	struct nvsim_gpu *gpu = obj->gpu;
	struct nvrm_mem_alloc m;
	struct nvsim_mem *mem;
	bool rsvd = false;
	u64 page, size;
	u32 status;

	lockdep_assert_held(&nvsim_rm_lock);
	if (!ap || nvrm_mem_alloc_decode(&nvsim_abi, ap, ap_size, &m) || !m.size)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (!kernel && obj->hclass != NVRM_CLASS_NV50_MEMORY_VIRTUAL) {
		status = nvrm_mem_alloc_user_status(m.attr2, m.internal_flags);
		if (status)
			return status;
	}
	if (obj->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER && !m.is_vidmem)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (obj->hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM &&
	    (m.is_vidmem || (m.flags & NVRM_ALLOC_FLAGS_VIRTUAL)))
		return NVRM_ERR_INVALID_ARGUMENT;
	/*
	 * System memory at the default page size is whole 4 KiB pages: RM allocated 6 205 440 B
	 * for a 6 202 384 B request (tests/unit/c/fixtures/, 580 on an H200).
	 */
	if (obj->hclass == NVRM_CLASS_NV01_MEMORY_SYSTEM &&
	    NVRM_ATTR_GET(m.attr, PAGE_SIZE) == NVRM_ATTR_PAGE_SIZE_DEFAULT)
		page = 4096;
	else if (obj->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER)
		page = nvrm_vidmem_granule(m.size, m.attr, m.flags, m.alignment);
	else
		page = nvrm_mem_alloc_granule(m.attr, m.flags, m.alignment);
	size = round_up(m.size, page);
	if (size < m.size)
		return NVRM_ERR_NO_MEMORY;
	if (obj->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER) {
		rsvd = kernel && (m.attr & NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP);
		if (rsvd ? size > NVSIM_RESERVED_HEAP - gpu->rsvd_used :
			   size > gpu->fb_size - gpu->fb_used)
			return NVRM_ERR_NO_MEMORY;
	}

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return NVRM_ERR_NO_MEMORY;
	nvsim_res_init(&mem->res, nvsim_mem_release);
	mem->gpu = gpu;
	mem->hclass = obj->hclass;
	mem->size = size;
	mem->page_size = obj->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER ?
			 nvrm_vidmem_page_size(m.size, m.attr) : nvrm_mem_alloc_page_size(m.attr);
	mem->owner = obj->client;
	mem->owner_obj = obj;
	mem->owner_tgid = obj->client->tgid;
	if (obj->hclass != NVRM_CLASS_NV50_MEMORY_VIRTUAL) {
		mem->backing = nvsim_backing_create(size);
		if (!mem->backing) {
			kfree(mem);
			return NVRM_ERR_NO_MEMORY;
		}
	}
	mem->gpu_addr = round_up(gpu->next_gpu_addr ?: NVSIM_GPU_ADDR_BASE, page);
	gpu->next_gpu_addr = mem->gpu_addr + size;
	if (rsvd) {
		mem->rsvd_bytes = size;
		gpu->rsvd_used += size;
	} else if (obj->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER) {
		mem->fb_bytes = size;
		gpu->fb_used += size;
	}
	obj->res = &mem->res;
	nvrm_mem_alloc_set_size(&nvsim_abi, ap, ap_size, size);
	/* RM reports where the allocation was placed; nvsim's address space is identity. */
	p->offset = mem->gpu_addr;
	return NVRM_OK;
}

/**
 * nvsim_mem_find_by_addr() - the memory object of @client that holds [@addr, @addr + @len)
 * @client: whose objects to search
 * @addr: a GPU address (nvsim's identity address space)
 * @len: bytes from @addr that must lie inside the memory
 *
 * Context: under nvsim_rm_lock.
 * Return: the object, or NULL.
 */
struct nvsim_object *nvsim_mem_find_by_addr(struct nvsim_client *client, u64 addr, u64 len)
{
	struct nvsim_object *obj;
	struct nvsim_mem *mem;
	unsigned long handle;

	lockdep_assert_held(&nvsim_rm_lock);
	xa_for_each(&client->objects, handle, obj) {
		mem = nvsim_obj_mem(obj);
		if (mem && mem->backing && addr >= mem->gpu_addr &&
		    len <= mem->size && addr - mem->gpu_addr <= mem->size - len)
			return obj;
	}
	return NULL;
}
