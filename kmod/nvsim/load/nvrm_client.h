/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvrm_client: a small user-space client of the NVIDIA RM ioctl ABI.
 *
 * It drives /dev/nvidiactl and /dev/nvidiaN the way libcuda does (reference nvidia-rm-abi.md
 * section 5, "Observed CUDA-like flow"), so that the same binary exercises nvsim.ko, qgpu.ko in
 * front of either, and a real NVIDIA driver. Every version-dependent size comes from the
 * struct nvrm_abi profile that kmod/nvrm picks for the driver's own version string; nothing here
 * assumes nvsim.
 *
 * Conventions: every function returns 0 when the ioctl itself succeeded, or a negative errno when
 * it did not (or when a step before the ioctl failed). RM's verdict travels separately, through a
 * u32 *status out-parameter: 0 (NVRM_OK) or an NVRM_ERR_* code. On any failure, ioctl-level or RM,
 * the client remembers a one-line description naming the step; nvrm_client_strerror() returns it.
 */
#ifndef QGPU_NVRM_CLIENT_H
#define QGPU_NVRM_CLIENT_H

#include <stddef.h>

#include "nvrm/nvrm_decode.h"

/* CARD_INFO takes an array; libcuda and the driver both size it for NV_MAX_DEVICES (32). */
#define NVRM_CLIENT_MAX_CARDS	32

/* Handles we choose ourselves (RM accepts any unused non-zero handle below the client's). */
#define NVRM_CLIENT_HDEVICE	0xcaf00001u
#define NVRM_CLIENT_HSUBDEVICE	0xcaf00002u
#define NVRM_CLIENT_HMEMORY_BASE 0xcaf10000u

/* Longest device-node path we open, and room for it in an error message. */
#define NVRM_CLIENT_PATH_MAX	1024
#define NVRM_CLIENT_ERRMSG_LEN	(NVRM_CLIENT_PATH_MAX + 256)

/**
 * struct nvrm_client - one RM client and the files it lives on
 * @ctl_fd: /dev/nvidiactl, or -1; RM objects die when it is closed
 * @gpu_fd: /dev/nvidia<minor>, or -1; must stay open while the device object exists
 * @abi: profile for the driver's version, NULL until nvrm_client_query_version()
 * @version: the driver's version string as CHECK_VERSION_STR returned it
 * @hclient: client handle RM generated (0 when none)
 * @hdevice: device (NV01_DEVICE_0) handle, 0 when none
 * @hsubdevice: subdevice (NV20_SUBDEVICE_0) handle, 0 when none
 * @card: the CARD_INFO entry of the chosen GPU
 * @gpu_index: position of that GPU among the valid CARD_INFO entries
 * @device_instance: RM's device instance of that GPU (NV0080 deviceId)
 * @errmsg: description of the last failure, "" when none
 */
struct nvrm_client {
	int ctl_fd;
	int gpu_fd;
	const struct nvrm_abi *abi;
	char version[NVRM_RM_API_VERSION_STRING_LENGTH];
	u32 hclient;
	u32 hdevice;
	u32 hsubdevice;
	struct nvrm_card_info card;
	u32 gpu_index;
	u32 device_instance;
	char errmsg[NVRM_CLIENT_ERRMSG_LEN];
};

/**
 * struct nvrm_client_fb - framebuffer sizes from NV2080_CTRL_CMD_FB_GET_INFO_V2, in KiB
 * @total_ram_kib: TOTAL_RAM_SIZE
 * @heap_size_kib: HEAP_SIZE
 * @heap_free_kib: HEAP_FREE
 * @usable_ram_kib: USABLE_RAM_SIZE
 */
struct nvrm_client_fb {
	u32 total_ram_kib;
	u32 heap_size_kib;
	u32 heap_free_kib;
	u32 usable_ram_kib;
};

void nvrm_client_init(struct nvrm_client *c);

/* The steps of the CUDA-like bring-up, in order. */
int nvrm_client_open_ctl(struct nvrm_client *c, const char *dir);
int nvrm_client_query_version(struct nvrm_client *c);
int nvrm_client_alloc_root(struct nvrm_client *c, u32 *status);
int nvrm_client_card_info(struct nvrm_client *c, int minor);
int nvrm_client_open_gpu(struct nvrm_client *c, const char *dir);
int nvrm_client_device_instance(struct nvrm_client *c, u32 *status);
int nvrm_client_alloc_device(struct nvrm_client *c, u32 hdevice, u32 *status);
int nvrm_client_alloc_subdevice(struct nvrm_client *c, u32 hsubdevice, u32 *status);

/* All of the above; stops at the first failing step. @minor < 0: the first valid GPU. */
int nvrm_client_open(struct nvrm_client *c, const char *dir, int minor, u32 *status);

/* Generic escapes */
int nvrm_client_alloc(struct nvrm_client *c, u32 hparent, u32 hnew, u32 hclass,
		      void *params, u32 *hnew_out, u32 *status);
int nvrm_client_control(struct nvrm_client *c, u32 hobject, u32 cmd, void *params,
			u32 params_size, u32 *status);
int nvrm_client_free(struct nvrm_client *c, u32 hparent, u32 hobject, u32 *status);

/* Subdevice controls */
int nvrm_client_gpu_name(struct nvrm_client *c, char *buf, size_t len, u32 *status);
int nvrm_client_gpu_uuid(struct nvrm_client *c, char *buf, size_t len, u32 *status);
int nvrm_client_fb_info(struct nvrm_client *c, struct nvrm_client_fb *fb, u32 *status);
int nvrm_client_dmabuf_capable(struct nvrm_client *c, bool *capable, u32 *status);

/* Video memory */
int nvrm_client_alloc_vidmem(struct nvrm_client *c, u32 hmemory, u64 size, u64 *allocated,
			     u32 *status);
int nvrm_client_alloc_vidmem_va(struct nvrm_client *c, u32 hmemory, u64 size, u64 *allocated,
				u64 *gpu_va, u32 *status);

/*
 * Work submission (nvrm_work.c): a channel group with one compute channel whose ring and USERD
 * live in one mapped video-memory allocation, and the mapped usermode doorbell page, set up the
 * way libcuda does it. Entries use nvsim's synthetic GPFIFO format (kmod/nvsim/README.md).
 */
#define NVRM_WORK_HUSERMODE	0xcaf00003u
#define NVRM_WORK_HVASPACE	0xcaf00004u
#define NVRM_WORK_HTSG		0xcaf00005u
#define NVRM_WORK_HCTXSHARE	0xcaf00006u
#define NVRM_WORK_HMEMORY	0xcaf00007u
#define NVRM_WORK_HCHANNEL	0xcaf00008u
#define NVRM_WORK_HCOMPUTE	0xcaf00009u

#define NVRM_WORK_ENTRIES	1024u		/* ring entries, a power of two */
#define NVRM_WORK_SEM_OFFSET	0x8000u		/* the progress semaphore, after the ring */
#define NVRM_WORK_USERD_OFFSET	0x10000u	/* USERD after the ring, in the same memory */
#define NVRM_WORK_MEM_SIZE	0x20000u	/* what is allocated and mapped */

#define NVRM_WORK_OP_KERNEL	0xA5ull		/* nvsim synthetic entry: run bits 47:0 ns */
#define NVRM_WORK_OP_SEM_RELEASE 0xA7ull	/* ...: write bits 31:0 at offset bits 55:32 */
/* Kernels that fit the ring at once: each takes two entries, and a full ring reads as empty. */
#define NVRM_WORK_MAX_KERNELS	((NVRM_WORK_ENTRIES - 1) / 2)

/**
 * struct nvrm_work - one channel and what user space maps for it
 * @usermode_fd: the registered /dev/nvidiaN the doorbell page is mapped through
 * @mem_fd: the registered /dev/nvidiaN the ring and USERD are mapped through
 * @usermode: the mapped usermode page (NVRM_USERMODE_SIZE bytes)
 * @mem: the mapped memory (NVRM_WORK_MEM_SIZE bytes): ring at 0, the progress semaphore at
 *	NVRM_WORK_SEM_OFFSET, USERD at NVRM_WORK_USERD_OFFSET
 * @gpu_va: the memory's GPU address, as RM wrote it back in the alloc params' offset
 * @token: the channel's work-submit token
 * @put: the next ring entry to write (what GP_PUT says once published)
 * @kernels: kernels pushed; each one's semaphore release writes its number, so the semaphore
 *	says how many are done (GP_GET in USERD need not say: real GPUs write it back late, and
 *	Blackwell's not at all)
 */
struct nvrm_work {
	int usermode_fd;
	int mem_fd;
	void *usermode;
	void *mem;
	u64 gpu_va;
	u32 token;
	u32 put;
	u32 kernels;
};

int nvrm_work_open(struct nvrm_client *c, struct nvrm_work *w, const char *dir, u32 *status);
u32 nvrm_work_gp_get(const struct nvrm_work *w);
u32 nvrm_work_done(const struct nvrm_work *w);
void nvrm_work_push_kernel(struct nvrm_work *w, u64 ns);
void nvrm_work_kick(struct nvrm_work *w);
void nvrm_work_close(struct nvrm_work *w);
int nvrm_client_open_gpu_fd(struct nvrm_client *c, const char *dir, int *fd);
int nvrm_client_map_memory(struct nvrm_client *c, u32 hdevice, u32 hmemory, u64 length,
			   u32 flags, int fd, u32 *status);

/* Frees the client (and with it every object) and closes both files. */
int nvrm_client_close(struct nvrm_client *c, u32 *status);

/* Messages */
const char *nvrm_client_strerror(const struct nvrm_client *c);
const char *nvrm_client_status_str(u32 status, char *buf, size_t len);

#endif /* QGPU_NVRM_CLIENT_H */
