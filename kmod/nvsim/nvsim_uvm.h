/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim: what nvsim_uvm.c (the VA-space file and its dispatch) shares with nvsim_uvm_ext.c
 * (external ranges and mappings).
 */
#ifndef NVSIM_UVM_H
#define NVSIM_UVM_H

#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "nvrm/nvrm_uvm.h"
#include "nvsim_internal.h"

/* Protects every UVM file's state (see nvsim_uvm.c). Order: nvsim_uvm_lock -> nvsim_rm_lock. */
extern struct mutex nvsim_uvm_lock;

enum nvsim_uvm_type {
	NVSIM_UVM_UNINITIALIZED,
	NVSIM_UVM_VA_SPACE,
	NVSIM_UVM_MM,
};

/* uvm_va_space_mm_state_t: whether an MM file has claimed the VA space's mm */
enum nvsim_uvm_mm_state {
	NVSIM_UVM_MM_UNINITIALIZED,
	NVSIM_UVM_MM_ALIVE,
	NVSIM_UVM_MM_RELEASED,
};

/**
 * struct nvsim_uvm_file - one open of /dev/nvidia-uvm (file->private_data)
 * @type: what UVM_INITIALIZE / UVM_MM_INITIALIZE made of it
 * @flags: a VA space's UVM_INIT_FLAGS_*
 * @mm: a VA space's process mm (a mmgrab reference), NULL in multi-process sharing mode
 * @mm_state: a VA space's mm state (UVM_MM_INITIALIZE)
 * @registered: a VA space's registered GPUs, by index
 * @vas: the RM VA space of each registered GPU that also has a GPU VA space
 *	(UVM_REGISTER_GPU_VASPACE), a reference counted in its @uvm_users; NULL for none
 * @ranges: a VA space's external ranges (struct nvsim_uvm_range), by VA
 * @channels: a VA space's registered channels (struct nvsim_uvm_channel, nvsim_uvm_channel.c)
 * @va_file: an MM file's VA-space file (a reference, dropped on release)
 *
 * All fields under nvsim_uvm_lock.
 */
struct nvsim_uvm_file {
	enum nvsim_uvm_type type;
	u64 flags;
	struct mm_struct *mm;
	enum nvsim_uvm_mm_state mm_state;
	DECLARE_BITMAP(registered, NVSIM_MAX_GPUS);
	struct nvsim_vaspace *vas[NVSIM_MAX_GPUS];
	struct rb_root_cached ranges;
	struct list_head channels;
	struct file *va_file;
};

struct nvsim_gpu *nvsim_uvm_gpu_by_uuid(const u8 uuid[NVRM_UVM_UUID_LEN]);

/* uvm_api_range_invalid_4k(), and uvm_api_range_invalid() with x86's 4 KiB pages */
static inline bool nvsim_uvm_span_invalid(u64 base, u64 length)
{
	return !IS_ALIGNED(base, SZ_4K) || !IS_ALIGNED(length, SZ_4K) || !base || !length ||
	       base + length < base;
}

/* nvsim_uvm_ext.c; each under nvsim_uvm_lock, on a VA-space file */
u32 nvsim_uvm_register_gpu(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_register_gpu_vaspace(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_unregister_gpu_vaspace(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_create_external_range(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_map_external(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_unmap_external(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_map_external_sparse(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_map_dynamic_parallelism_region(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_free(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_alloc_device_p2p(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_unregister_gpu(struct nvsim_uvm_file *uf, void *params);
void nvsim_uvm_gpu_unmapped(struct nvsim_uvm_file *uf, unsigned int gpu, bool registration);
void nvsim_uvm_vaspace_drop(struct nvsim_uvm_file *uf, unsigned int gpu);

/* nvsim_uvm_channel.c; each under nvsim_uvm_lock, on a VA-space file */
u32 nvsim_uvm_register_channel(struct nvsim_uvm_file *uf, void *params);
u32 nvsim_uvm_unregister_channel(struct nvsim_uvm_file *uf, void *params);
void nvsim_uvm_channels_release(struct nvsim_uvm_file *uf, unsigned int gpu);

/* nvsim_uvm_api.c: the real driver's handlers, by name (see there) */
u32 uvm_api_register_gpu(void *params, struct file *filp);
u32 uvm_api_register_gpu_va_space(void *params, struct file *filp);
u32 uvm_api_register_channel(void *params, struct file *filp);
u32 uvm_api_unregister_channel(void *params, struct file *filp);
u32 uvm_api_create_external_range(void *params, struct file *filp);
u32 uvm_api_map_external_allocation(void *params, struct file *filp);
u32 uvm_api_unmap_external(void *params, struct file *filp);
u32 uvm_api_map_external_sparse(void *params, struct file *filp);
u32 uvm_api_map_dynamic_parallelism_region(void *params, struct file *filp);
u32 uvm_api_free(void *params, struct file *filp);
u32 uvm_api_unregister_gpu(void *params, struct file *filp);
u32 uvm_api_unregister_gpu_va_space(void *params, struct file *filp);
void nvsim_uvm_ranges_release(struct nvsim_uvm_file *uf);

#endif /* NVSIM_UVM_H */
