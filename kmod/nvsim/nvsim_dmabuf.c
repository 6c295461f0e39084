// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: EXPORT_TO_DMABUF_FD, video memory exported as a dma-buf (what
 * cuMemGetHandleForAddressRange(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD) asks for, e.g. for
 * GPUDirect RDMA through ibv_reg_dmabuf_mr()).
 *
 * As the real driver does it (nv-dmabuf.c nv_dma_buf_export(), nv_dma_buf_create(),
 * nv_dma_buf_reuse(); osapi.c rm_dma_buf_dup_mem_handle(), RmDmabufVerifyMemHandle(), 525-595):
 *   - on a GPU file only (-EINVAL on nvidiactl), with the version's exact size (-EINVAL);
 *   - fd -1 makes a dma-buf of total_size bytes with room for total_objects ranges, fills
 *     num_objects of them from index on, and installs a new fd (O_CLOEXEC) in the caller's table;
 *     fd >= 0 adds ranges to that dma-buf, which must be one of ours;
 *   - each range is (handle of hClient, offset, size): video memory of this GPU, page aligned,
 *     inside the allocation. The driver duplicates the memory into its own RM client with
 *     kernel privilege (RMAPI_GPU_LOCK_INTERNAL, flags 0), and neither it nor the verification
 *     asks whether hClient belongs to the caller: any process that has a GPU file open can
 *     export any client's video memory of that GPU. nvsim does the same (this is the point of
 *     simulating it: qgpu must not rely on the driver to keep instances apart here);
 *   - the memory stays allocated, and its framebuffer used, until the dma-buf is released
 *     (every fd and every importer let go), whatever its handles do meanwhile.
 * nvsim has no BAR1, so importers cannot map its dma-bufs (map_dma_buf fails), and mmap() of
 * one fails as the driver's does for a discrete GPU (-EOPNOTSUPP here; the driver returns the
 * kernel-internal ENOTSUPP). The driver answers NV_ERR_NOT_SUPPORTED where the GPU has no
 * dma-buf capability; the "dmabuf" parameter turns nvsim's off the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

MODULE_IMPORT_NS(DMA_BUF);

/* NV2080_CTRL_GPU_INFO_INDEX_DMABUF_CAPABILITY of the simulated GPUs (osinit.c, 525-595). */
static bool dmabuf = true;
module_param(dmabuf, bool, 0644);
MODULE_PARM_DESC(dmabuf, "GPUs can export video memory as dma-bufs (default on)");

/* DMABUF_CAPABILITY of GPU_GET_INFO_V2 (nvsim_gpuinfo.c): what the parameter says now. */
bool nvsim_dmabuf_capable(void)
{
	return READ_ONCE(dmabuf);
}

/**
 * struct nvsim_dmabuf_range - one slot of a dma-buf
 * @mem: the memory it holds (a reference on @mem->res), NULL while the slot is empty
 * @offset: where the range starts in @mem
 * @size: its size
 */
struct nvsim_dmabuf_range {
	struct nvsim_mem *mem;
	u64 offset;
	u64 size;
};

/**
 * struct nvsim_dmabuf - what an nvsim dma-buf holds (dma_buf->priv); under nvsim_rm_lock
 * @gpu: the GPU it was exported from
 * @total_objects: its number of slots
 * @num_objects: slots filled
 * @total_size: its size
 * @attached_size: bytes of the filled slots' ranges
 * @mapping_type: NVRM_DMABUF_MAPPING_TYPE_* it was made with (appends must match)
 * @allow_mmap: bAllowMmap it was made with (580+; appends must match)
 * @ranges: @total_objects slots
 */
struct nvsim_dmabuf {
	struct nvsim_gpu *gpu;
	u32 total_objects;
	u32 num_objects;
	u64 total_size;
	u64 attached_size;
	u32 mapping_type;
	bool allow_mmap;
	struct nvsim_dmabuf_range ranges[];
};

/* Empty slots [@index, @index + @n) again (nv_dma_buf_undup_mem_handles_unlocked()). */
static void nvsim_dmabuf_undup(struct nvsim_dmabuf *priv, u32 index, u32 n)
{
	struct nvsim_dmabuf_range *r;
	u32 i;

	lockdep_assert_held(&nvsim_rm_lock);
	for (i = 0; i < n; i++) {
		r = &priv->ranges[index + i];
		if (!r->mem)
			continue;
		priv->attached_size -= r->size;
		priv->num_objects--;
		nvsim_res_put(&r->mem->res);
		memset(r, 0, sizeof(*r));
	}
}

/*
 * RmDmabufVerifyMemHandle(): the memory a range names. The client is looked up, never checked
 * against the caller (see the file comment).
 */
static u32 nvsim_dmabuf_verify(const struct nvsim_dmabuf *priv, u32 hclient, u32 handle,
			       u64 offset, u64 size, struct nvsim_mem **out)
{
	struct nvsim_client *client = nvsim_client_lookup(hclient);
	struct nvsim_object *obj;
	struct nvsim_mem *mem;

	if (!client)
		return NVRM_ERR_INVALID_OBJECT_HANDLE;	/* serverGetClientUnderLock() */
	obj = nvsim_object_lookup(client, handle);
	if (!obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;	/* clientGetResourceRef() */
	mem = nvsim_obj_mem(obj);
	if (!mem)
		return NVRM_ERR_INVALID_OBJECT;
	if (mem->gpu != priv->gpu)
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	if (!IS_ALIGNED(offset, PAGE_SIZE) || !IS_ALIGNED(size, PAGE_SIZE))
		return NVRM_ERR_INVALID_ARGUMENT;
	/* video memory only: nvsim has no zero-FB GPU */
	if (mem->hclass != NVRM_CLASS_NV01_MEMORY_LOCAL_USER)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (!size || size > mem->size || offset > mem->size - size)
		return NVRM_ERR_INVALID_ARGUMENT;
	*out = mem;
	return NVRM_OK;
}

/* nv_dma_buf_dup_mem_handles(): fill the call's slots, or none of them. */
static u32 nvsim_dmabuf_dup(struct nvsim_dmabuf *priv, const void *params,
			    const struct nvrm_dmabuf_export *d)
{
	struct nvsim_dmabuf_range *r;
	struct nvsim_mem *mem;
	u64 offset, size;
	u32 i, handle;
	u32 status = NVRM_OK;

	lockdep_assert_held(&nvsim_rm_lock);
	for (i = 0; i < d->num_objects; i++) {
		r = &priv->ranges[d->index + i];
		nvrm_dmabuf_export_object(params, d, i, &handle, &offset, &size);
		if (r->mem) {
			status = NVRM_ERR_IN_USE;
			break;
		}
		if (size > priv->total_size - priv->attached_size) {
			status = NVRM_ERR_INVALID_ARGUMENT;
			break;
		}
		status = nvsim_dmabuf_verify(priv, d->hclient, handle, offset, size, &mem);
		if (status)
			break;
		/* The internal duplicate: a reference on the memory, as an RM_DUP_OBJECT copy. */
		kref_get(&mem->res.ref);
		r->mem = mem;
		r->offset = offset;
		r->size = size;
		priv->attached_size += size;
		priv->num_objects++;
	}
	if (!status && priv->num_objects == priv->total_objects &&
	    priv->attached_size != priv->total_size)
		status = NVRM_ERR_INVALID_ARGUMENT;
	if (status)
		nvsim_dmabuf_undup(priv, d->index, i);
	return status;
}

static struct sg_table *nvsim_dmabuf_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);	/* no BAR1 to hand an importer (see the file comment) */
}

static void nvsim_dmabuf_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
			       enum dma_data_direction dir)
{
}

static int nvsim_dmabuf_mmap(struct dma_buf *buf, struct vm_area_struct *vma)
{
	return -EOPNOTSUPP;
}

/* The last reference to the dma-buf went: what it held is let go (nv_dma_buf_release()). */
static void nvsim_dmabuf_release(struct dma_buf *buf)
{
	struct nvsim_dmabuf *priv = buf->priv;

	mutex_lock(&nvsim_rm_lock);
	nvsim_dmabuf_undup(priv, 0, priv->total_objects);
	mutex_unlock(&nvsim_rm_lock);
	kvfree(priv);
}

static const struct dma_buf_ops nvsim_dmabuf_ops = {
	.map_dma_buf = nvsim_dmabuf_map,
	.unmap_dma_buf = nvsim_dmabuf_unmap,
	.mmap = nvsim_dmabuf_mmap,
	.release = nvsim_dmabuf_release,
};

/* nv_dma_buf_create(): a new dma-buf; its fd is written to @fd. */
static u32 nvsim_dmabuf_create(struct nvsim_gpu *gpu, const void *params,
			       const struct nvrm_dmabuf_export *d, s32 *fd)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct nvsim_dmabuf *priv;
	struct dma_buf *buf;
	u32 status;
	int rc;

	if (!nvsim_dmabuf_capable())
		return NVRM_ERR_NOT_SUPPORTED;
	/* A caller's count may be anything: the allocation fails, as os_alloc_mem() would. */
	priv = kvzalloc(struct_size(priv, ranges, d->total_objects), GFP_KERNEL | __GFP_NOWARN);
	if (!priv)
		return NVRM_ERR_NO_MEMORY;
	priv->gpu = gpu;
	priv->total_objects = d->total_objects;
	priv->total_size = d->total_size;
	priv->mapping_type = d->mapping_type;
	priv->allow_mmap = d->allow_mmap;
	/* RmDmabufGetClientAndDevice(): FORCE_PCIE is for coherent platforms only. */
	status = NVRM_ERR_NOT_SUPPORTED;
	if (d->mapping_type == NVRM_DMABUF_MAPPING_TYPE_FORCE_PCIE)
		goto out_free;

	mutex_lock(&nvsim_rm_lock);
	status = nvsim_dmabuf_dup(priv, params, d);
	mutex_unlock(&nvsim_rm_lock);
	if (status)
		goto out_free;
	/* mmap only where the memory allows it: zero-FB GPUs, none here (580+) */
	status = NVRM_ERR_NOT_SUPPORTED;
	if (priv->allow_mmap)
		goto out_undup;

	exp_info.exp_name = "nv_dmabuf";
	exp_info.ops = &nvsim_dmabuf_ops;
	exp_info.size = d->total_size;
	exp_info.flags = O_RDWR | O_CLOEXEC;
	exp_info.priv = priv;
	buf = dma_buf_export(&exp_info);
	status = NVRM_ERR_OPERATING_SYSTEM;
	if (IS_ERR(buf))
		goto out_undup;
	rc = dma_buf_fd(buf, O_RDWR | O_CLOEXEC);
	if (rc < 0) {
		dma_buf_put(buf);	/* its release lets the ranges go */
		return NVRM_ERR_OPERATING_SYSTEM;
	}
	*fd = rc;
	return NVRM_OK;

out_undup:
	mutex_lock(&nvsim_rm_lock);
	nvsim_dmabuf_undup(priv, 0, priv->total_objects);
	mutex_unlock(&nvsim_rm_lock);
out_free:
	kvfree(priv);
	return status;
}

/* nv_dma_buf_reuse(): more ranges for the dma-buf @fd names. */
static u32 nvsim_dmabuf_reuse(const void *params, const struct nvrm_dmabuf_export *d)
{
	struct nvsim_dmabuf *priv;
	struct dma_buf *buf;
	u32 status;

	buf = dma_buf_get(d->fd);
	if (IS_ERR(buf))
		return NVRM_ERR_OPERATING_SYSTEM;
	status = NVRM_ERR_INVALID_ARGUMENT;
	if (buf->ops != &nvsim_dmabuf_ops)
		goto out;
	priv = buf->priv;
	mutex_lock(&nvsim_rm_lock);
	if (priv->total_objects >= d->num_objects &&
	    d->index <= priv->total_objects - d->num_objects &&
	    d->mapping_type == priv->mapping_type && d->allow_mmap == priv->allow_mmap)
		status = nvsim_dmabuf_dup(priv, params, d);
	mutex_unlock(&nvsim_rm_lock);
out:
	dma_buf_put(buf);
	return status;
}

/**
 * nvsim_export_dmabuf() - the EXPORT_TO_DMABUF_FD escape
 * @file: the file it was issued on (a GPU file)
 * @params: kernel copy of nv_ioctl_export_to_dma_buf_fd_t, copied back afterwards
 * @size: its size
 *
 * Context: process context; takes nvsim_rm_lock.
 * Return: 0 with the RM status in the parameters, or -EINVAL (nvidiactl, wrong size).
 */
int nvsim_export_dmabuf(struct file *file, void *params, u32 size)
{
	struct nvsim_file *nf = file->private_data;
	struct nvrm_dmabuf_export d;
	u32 status;
	s32 fd;

	if (nvrm_dmabuf_export_decode(&nvsim_abi, params, size, &d) || !nf->gpu)
		return -EINVAL;
	status = nvrm_dmabuf_export_check(&d);
	if (!status && d.fd == -1) {
		status = nvsim_dmabuf_create(nf->gpu, params, &d, &fd);
		if (!status)
			memcpy(params, &fd, sizeof(fd));	/* fd@0 in every layout */
	} else if (!status) {
		status = nvsim_dmabuf_reuse(params, &d);
	}
	memcpy((u8 *)params + d.status_off, &status, sizeof(status));
	return 0;
}
