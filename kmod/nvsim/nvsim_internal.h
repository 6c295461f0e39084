/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim internals shared between its files.
 *
 * Locking: nvsim_rm_lock (a mutex, like the real RM's global API lock) protects every client, every
 * object and every GPU's framebuffer accounting below. Handlers may sleep and copy user memory
 * while holding it. Files' own fields are set once under it and read under it.
 */
#ifndef NVSIM_INTERNAL_H
#define NVSIM_INTERNAL_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "nvrm/nvrm_decode.h"

#define NVSIM_MAJOR		195	/* kernel-open/common/inc/nv.h, 525-595 */
#define NVSIM_CTL_MINOR		255
#define NVSIM_MAX_GPUS		32	/* NV_MAX_DEVICES, 525-595 */
#define NVSIM_NAME_LEN		NVRM_GPU_MAX_NAME_STRING_LENGTH
#define NVSIM_UUID_LEN		41	/* "GPU-" + 36 + NUL */

/**
 * struct nvsim_gpu - one simulated GPU
 * @index: its minor number, /dev/nvidia<index>
 * @gpu_id: the id CARD_INFO and ATTACH_GPUS_TO_FD use (PCI-derived, as the real driver's)
 * @fb_size: framebuffer size in bytes
 * @fb_used: bytes of framebuffer allocated by clients (under nvsim_rm_lock)
 * @uuid: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 */
struct nvsim_gpu {
	unsigned int index;
	u32 gpu_id;
	u64 fb_size;
	u64 fb_used;
	char uuid[NVSIM_UUID_LEN];
};

/**
 * struct nvsim_file - what one open of an nvsim node is
 * @gpu: the GPU for /dev/nvidiaN, NULL for /dev/nvidiactl and /dev/nvidia-uvm
 * @is_ctl: this is /dev/nvidiactl
 * @ctl_file: for a GPU file after REGISTER_FD, the ctl file it is registered to (a reference kept
 *	until this file closes, as the real driver does)
 */
struct nvsim_file {
	struct nvsim_gpu *gpu;
	bool is_ctl;
	struct file *ctl_file;
};

extern struct mutex nvsim_rm_lock;
extern struct nvsim_gpu nvsim_gpus[NVSIM_MAX_GPUS];
extern unsigned int nvsim_num_gpus;
extern const char *nvsim_gpu_name;
extern struct nvrm_abi nvsim_abi;
extern const struct file_operations nvsim_fops;

/* nvsim_escape.c: the ioctl entry point */
long nvsim_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* nvsim_rm.c: RM clients and objects */
int nvsim_rm_alloc(struct file *file, void *params, u32 size);
int nvsim_rm_free(struct file *file, void *params, u32 size);
int nvsim_rm_control(struct file *file, void *params, u32 size);
void nvsim_rm_release_file(struct file *file);
void nvsim_rm_exit(void);

#endif /* NVSIM_INTERNAL_H */
