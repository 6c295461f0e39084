// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: /dev/nvidia-uvm, minimal and faithful to the real driver's uvm.c (facts in
 * kmod/nvrm/nvrm_uvm.h).
 *
 * Simulated: UVM_INITIALIZE, UVM_DEINITIALIZE, UVM_MM_INITIALIZE (535+), UVM_REGISTER_GPU,
 * UVM_UNREGISTER_GPU and UVM_PAGEABLE_MEM_ACCESS here, external ranges and mappings in
 * nvsim_uvm_ext.c, channel registrations in nvsim_uvm_channel.c, with the real dispatch: raw
 * command numbers,
 * sizeof(params) copies (-EFAULT when a copy faults), results in rmStatus, NV_ERR_ILLEGAL_ACTION
 * before UVM_INITIALIZE, and the real errno for an unknown command (-EINVAL before 570,
 * -NVRM_UVM_ERRNO_UNKNOWN_CMD from 570). The other UVM commands are not simulated and get that
 * errno too.
 *
 * Not simulated: managed memory. The real mmap of a VA-space file creates a managed range; nvsim
 * makes the real mmap's argument checks and then refuses with -EBADFD, what the real driver answers
 * for a file that is not a VA space, so callers see "no UVM memory here" and nothing else.
 * UVM_PAGEABLE_MEM_ACCESS reports false (nvsim has neither ATS nor HMM). UVM_MM_INITIALIZE checks
 * that the VA space's mm is alive but does not pin it (the real one holds mm_users until the MM
 * file closes, for its mmu notifier teardown, which nvsim does not have).
 *
 * Locking: nvsim_uvm_lock (a mutex) protects every UVM file's state; one lock because
 * UVM_MM_INITIALIZE looks at two files. Nothing else is taken under it except the files table
 * (iterate_fd, in nv_is_gpu_accessible()) and mm reference counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvsim_uvm.h"

/* Every UVM file's state (see the top and nvsim_uvm.h) */
DEFINE_MUTEX(nvsim_uvm_lock);

static int nvsim_uvm_open(struct inode *inode, struct file *file)
{
	struct nvsim_uvm_file *uf = kzalloc(sizeof(*uf), GFP_KERNEL);

	if (!uf)
		return -ENOMEM;
	uf->ranges = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&uf->channels);
	file->private_data = uf;
	return 0;
}

static int nvsim_uvm_release(struct inode *inode, struct file *file)
{
	struct nvsim_uvm_file *uf = file->private_data;
	struct file *va_file = NULL;
	unsigned int gpu;

	mutex_lock(&nvsim_uvm_lock);
	if (uf->type == NVSIM_UVM_MM) {
		struct nvsim_uvm_file *va = uf->va_file->private_data;

		/* Once the MM file goes, the mm cannot be claimed again (uvm_release_mm). */
		va->mm_state = NVSIM_UVM_MM_RELEASED;
		va_file = uf->va_file;
	}
	nvsim_uvm_ranges_release(uf);
	nvsim_uvm_channels_release(uf, NVSIM_MAX_GPUS);
	for (gpu = 0; gpu < NVSIM_MAX_GPUS; gpu++)
		if (uf->vas[gpu])
			nvsim_uvm_vaspace_drop(uf, gpu);
	mutex_unlock(&nvsim_uvm_lock);
	if (va_file)
		fput(va_file);
	if (uf->mm)
		mmdrop(uf->mm);
	kfree(uf);
	return 0;
}

/* UVM_INITIALIZE (uvm_api_initialize) */
static u32 nvsim_uvm_initialize(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_initialize *p = params;

	switch (uf->type) {
	case NVSIM_UVM_UNINITIALIZED:
		if (p->flags & ~NVRM_UVM_INIT_FLAGS_MASK)
			return NVRM_ERR_INVALID_ARGUMENT;
		uf->type = NVSIM_UVM_VA_SPACE;
		uf->flags = p->flags;
		if (!(p->flags & NVRM_UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE) && current->mm) {
			mmgrab(current->mm);
			uf->mm = current->mm;
		}
		return NVRM_OK;
	case NVSIM_UVM_VA_SPACE:
		return p->flags == uf->flags ? NVRM_OK : NVRM_ERR_INVALID_ARGUMENT;
	default:
		return NVRM_ERR_INVALID_ARGUMENT;
	}
}

/* UVM_MM_INITIALIZE (uvm_api_mm_initialize): this file claims uvmFd's VA space's mm. */
static u32 nvsim_uvm_mm_initialize(struct file *file, void *params)
{
	struct nvrm_uvm_mm_initialize *p = params;
	struct nvsim_uvm_file *uf = file->private_data;
	struct nvsim_uvm_file *va;
	struct file *va_file;
	u32 status;

	va_file = fget(p->uvm_fd);
	if (!va_file || va_file->f_op != &nvsim_uvm_fops) {
		status = NVRM_ERR_INVALID_ARGUMENT;
		goto out_put;
	}
	va = va_file->private_data;
	if (va->type != NVSIM_UVM_VA_SPACE) {
		status = NVRM_ERR_INVALID_ARGUMENT;
		goto out_put;
	}
	/* No mm association in multi-process sharing mode: the MM file is not needed. */
	if (va->flags & NVRM_UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE) {
		status = NVRM_WARN_NOTHING_TO_DO;
		goto out_put;
	}
	if (uf->type != NVSIM_UVM_UNINITIALIZED) {
		status = NVRM_ERR_IN_USE;
		goto out_put;
	}
	switch (va->mm_state) {
	case NVSIM_UVM_MM_ALIVE:
		status = NVRM_ERR_INVALID_STATE;
		goto out_put;
	case NVSIM_UVM_MM_RELEASED:
		status = NVRM_ERR_PAGE_TABLE_NOT_AVAIL;
		goto out_put;
	default:
		if (!va->mm || !mmget_not_zero(va->mm)) {
			status = NVRM_ERR_PAGE_TABLE_NOT_AVAIL;
			goto out_put;
		}
		mmput(va->mm);	/* only checked: nvsim does not pin the mm (see the top) */
		break;
	}
	va->mm_state = NVSIM_UVM_MM_ALIVE;
	uf->type = NVSIM_UVM_MM;
	uf->va_file = va_file;	/* the reference is kept until this file is released */
	return NVRM_OK;

out_put:
	if (va_file)
		fput(va_file);
	return status;
}

/* Parse "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into the 16 raw bytes UVM names GPUs by. */
static void nvsim_gpu_uuid_bin(const struct nvsim_gpu *gpu, u8 out[NVRM_UVM_UUID_LEN])
{
	static const u8 groups[] = { 4, 2, 2, 2, 6 };
	const char *s = gpu->uuid + 4;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		if (hex2bin(out, s, groups[i]))
			memset(out, 0, groups[i]);	/* unreachable: checked at load */
		out += groups[i];
		s += 2 * groups[i] + 1;
	}
}

struct nvsim_gpu *nvsim_uvm_gpu_by_uuid(const u8 uuid[NVRM_UVM_UUID_LEN])
{
	u8 bin[NVRM_UVM_UUID_LEN];
	unsigned int i;

	for (i = 0; i < nvsim_num_gpus; i++) {
		nvsim_gpu_uuid_bin(&nvsim_gpus[i], bin);
		if (!memcmp(bin, uuid, sizeof(bin)))
			return &nvsim_gpus[i];
	}
	return NULL;
}

/* UVM_REGISTER_GPU (uvm_api_register_gpu -> uvm_va_space_register_gpu) */
u32 nvsim_uvm_register_gpu(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_register_gpu *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);

	if (!gpu)
		return NVRM_ERR_GPU_UUID_NOT_FOUND;
	if (!nv_is_gpu_accessible(gpu))
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	if (test_and_set_bit(gpu->index, uf->registered))
		return NVRM_ERR_INVALID_DEVICE;
	/* No MIG: the instance UUID written back is the GPU's own; no NUMA memory. */
	p->numa_enabled = 0;
	p->numa_node_id = -1;
	return NVRM_OK;
}

/* UVM_UNREGISTER_GPU (uvm_va_space_unregister_gpu) */
u32 nvsim_uvm_unregister_gpu(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_unregister_gpu *p = params;
	struct nvsim_gpu *gpu = nvsim_uvm_gpu_by_uuid(p->gpu_uuid);

	if (!gpu || !test_and_clear_bit(gpu->index, uf->registered))
		return NVRM_ERR_INVALID_DEVICE;
	nvsim_uvm_gpu_unmapped(uf, gpu->index, true);	/* its VA space, mappings, P2P ranges too */
	return NVRM_OK;
}

/* UVM_PAGEABLE_MEM_ACCESS: nvsim has neither ATS nor HMM. */
static u32 nvsim_uvm_pageable_mem_access(struct nvsim_uvm_file *uf, void *params)
{
	struct nvrm_uvm_pageable_mem_access *p = params;

	p->pageable_mem_access = 0;
	return NVRM_OK;
}

#define NVSIM_UVM_LAYOUT(type) \
	do { \
		*size = sizeof(struct type); \
		*status_off = offsetof(struct type, rm_status); \
	} while (0)

/* Where rmStatus sits in each simulated command's params, and their size. */
static bool nvsim_uvm_cmd_layout(unsigned int cmd, u32 *size, u32 *status_off, bool *init_check)
{
	*init_check = true;
	switch (cmd) {
	case NVRM_UVM_REGISTER_GPU_VASPACE:
		NVSIM_UVM_LAYOUT(nvrm_uvm_register_gpu_vaspace);
		return true;
	case NVRM_UVM_UNREGISTER_GPU_VASPACE:
		NVSIM_UVM_LAYOUT(nvrm_uvm_unregister_gpu_vaspace);
		return true;
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
		NVSIM_UVM_LAYOUT(nvrm_uvm_create_external_range);
		return true;
	case NVRM_UVM_MAP_EXTERNAL_ALLOCATION:
		*size = nvsim_abi.uvm_map_external_allocation_size;
		*status_off = *size - sizeof(u32);
		return true;
	case NVRM_UVM_UNMAP_EXTERNAL:
	case NVRM_UVM_MAP_EXTERNAL_SPARSE:
	case NVRM_UVM_MAP_DYNAMIC_PARALLELISM_REGION:
		NVSIM_UVM_LAYOUT(nvrm_uvm_unmap_external);
		return true;
	case NVRM_UVM_FREE:
		*size = nvrm_uvm_free_size(nvsim_abi.major);
		*status_off = *size - 2 * sizeof(u32);
		return true;
	case NVRM_UVM_ALLOC_DEVICE_P2P:
		if (nvsim_abi.major < NVRM_UVM_ALLOC_DEVICE_P2P_SINCE)
			return false;
		NVSIM_UVM_LAYOUT(nvrm_uvm_alloc_device_p2p);
		return true;
	case NVRM_UVM_INITIALIZE:
		*init_check = false;
		NVSIM_UVM_LAYOUT(nvrm_uvm_initialize);
		return true;
	case NVRM_UVM_MM_INITIALIZE:
		if (nvsim_abi.major < NVRM_UVM_MM_INITIALIZE_SINCE)
			return false;
		*init_check = false;
		NVSIM_UVM_LAYOUT(nvrm_uvm_mm_initialize);
		return true;
	case NVRM_UVM_REGISTER_GPU:
		NVSIM_UVM_LAYOUT(nvrm_uvm_register_gpu);
		return true;
	case NVRM_UVM_REGISTER_CHANNEL:
		NVSIM_UVM_LAYOUT(nvrm_uvm_register_channel);
		return true;
	case NVRM_UVM_UNREGISTER_CHANNEL:
		*size = nvrm_uvm_unregister_channel_size(nvsim_abi.major);
		*status_off = *size - sizeof(u32);
		return true;
	case NVRM_UVM_UNREGISTER_GPU:
		NVSIM_UVM_LAYOUT(nvrm_uvm_unregister_gpu);
		return true;
	case NVRM_UVM_PAGEABLE_MEM_ACCESS:
		NVSIM_UVM_LAYOUT(nvrm_uvm_pageable_mem_access);
		return true;
	default:
		return false;
	}
}

static u32 nvsim_uvm_call(struct file *file, unsigned int cmd, void *params)
{
	struct nvsim_uvm_file *uf = file->private_data;

	switch (cmd) {
	case NVRM_UVM_INITIALIZE:
		return nvsim_uvm_initialize(uf, params);
	case NVRM_UVM_MM_INITIALIZE:
		return nvsim_uvm_mm_initialize(file, params);
	case NVRM_UVM_REGISTER_GPU:
		return uvm_api_register_gpu(params, file);
	case NVRM_UVM_UNREGISTER_GPU:
		return uvm_api_unregister_gpu(params, file);
	case NVRM_UVM_REGISTER_GPU_VASPACE:
		return uvm_api_register_gpu_va_space(params, file);
	case NVRM_UVM_REGISTER_CHANNEL:
		return uvm_api_register_channel(params, file);
	case NVRM_UVM_UNREGISTER_CHANNEL:
		return uvm_api_unregister_channel(params, file);
	case NVRM_UVM_UNREGISTER_GPU_VASPACE:
		return uvm_api_unregister_gpu_va_space(params, file);
	case NVRM_UVM_CREATE_EXTERNAL_RANGE:
		return uvm_api_create_external_range(params, file);
	case NVRM_UVM_MAP_EXTERNAL_ALLOCATION:
		return uvm_api_map_external_allocation(params, file);
	case NVRM_UVM_UNMAP_EXTERNAL:
		return uvm_api_unmap_external(params, file);
	case NVRM_UVM_MAP_EXTERNAL_SPARSE:
		return uvm_api_map_external_sparse(params, file);
	case NVRM_UVM_MAP_DYNAMIC_PARALLELISM_REGION:
		return uvm_api_map_dynamic_parallelism_region(params, file);
	case NVRM_UVM_FREE:
		return uvm_api_free(params, file);
	case NVRM_UVM_ALLOC_DEVICE_P2P:
		return nvsim_uvm_alloc_device_p2p(uf, params);
	default:
		return nvsim_uvm_pageable_mem_access(uf, params);
	}
}

/**
 * nvsim_uvm_ioctl() - the unlocked_ioctl of /dev/nvidia-uvm (uvm_ioctl)
 * @file: the UVM file
 * @cmd: the UVM command, a plain number
 * @arg: user pointer to its params
 *
 * Context: process context; takes nvsim_uvm_lock.
 * Return: 0 with the result in rmStatus; -EFAULT when copying the params in or out faults;
 * -EINVAL (before 570) or -NVRM_UVM_ERRNO_UNKNOWN_CMD (570+) for a command nvsim does not know.
 */
static long nvsim_uvm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nvsim_uvm_file *uf = file->private_data;
	void __user *uptr = (void __user *)arg;
	u32 size, status_off, status;
	bool init_check;
	long ret = 0;
	u8 *params;

	if (cmd == NVRM_UVM_DEINITIALIZE)
		return 0;
	if (!nvsim_uvm_cmd_layout(cmd, &size, &status_off, &init_check))
		return nvsim_abi.major >= NVRM_UVM_UNKNOWN_CMD_ERRNO_SINCE ?
		       -NVRM_UVM_ERRNO_UNKNOWN_CMD : -EINVAL;
	/* One copy in, as UVM_ROUTE_CMD_* make it (the largest, MAP_EXTERNAL, is 9 KiB). */
	params = memdup_user(uptr, size);
	if (IS_ERR(params))
		return PTR_ERR(params) == -ENOMEM ? -ENOMEM : -EFAULT;

	mutex_lock(&nvsim_uvm_lock);
	if (init_check && uf->type != NVSIM_UVM_VA_SPACE)
		status = NVRM_ERR_ILLEGAL_ACTION;
	else
		status = nvsim_uvm_call(file, cmd, params);
	mutex_unlock(&nvsim_uvm_lock);
	memcpy(params + status_off, &status, sizeof(status));

	if (copy_to_user(uptr, params, size))
		ret = -EFAULT;
	kfree(params);
	return ret;
}

/*
 * uvm_mmap's checks, in its order; where the real driver would then create a managed range, nvsim
 * refuses as for a file that is not a VA space (managed memory is not simulated).
 */
static int nvsim_uvm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nvsim_uvm_file *uf = file->private_data;
	int ret = -EBADFD;

	mutex_lock(&nvsim_uvm_lock);
	if (uf->type != NVSIM_UVM_VA_SPACE)
		goto out;
	if (uf->mm && uf->mm != current->mm) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (vma->vm_start != vma->vm_pgoff << PAGE_SHIFT ||
	    (vma->vm_flags & (VM_SHARED | VM_READ | VM_WRITE)) !=
	    (VM_SHARED | VM_READ | VM_WRITE))
		ret = -EINVAL;
out:
	mutex_unlock(&nvsim_uvm_lock);
	return ret;
}

/* The real nvidia-uvm has no poll, read or llseek either. */
const struct file_operations nvsim_uvm_fops = {
	.owner		= THIS_MODULE,
	.open		= nvsim_uvm_open,
	.release	= nvsim_uvm_release,
	.unlocked_ioctl	= nvsim_uvm_ioctl,
	.compat_ioctl	= nvsim_uvm_ioctl,
	.mmap		= nvsim_uvm_mmap,
};
