// SPDX-License-Identifier: GPL-2.0
/*
 * nvrm_work: a channel and work submission over nvrm_client, the way libcuda sets them up
 * (reference nvidia-rm-abi.md section 5, "Observed CUDA-like flow" and "Work submission and the
 * doorbell"): usermode object + RM_MAP_MEMORY + mmap of its doorbell page, VA space, channel
 * group, context share, ring and USERD memory mapped through a fresh GPU file, a channel with
 * its compute object, the work-submit token, and GPFIFO_SCHEDULE(1).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nvrm_client.h"

/* One RM call of the bring-up; on a refusal the client's message names it and the status. */
static int step_done(struct nvrm_client *c, const char *step, int ret, u32 status)
{
	char s[64];

	if (ret) {
		snprintf(c->errmsg, sizeof(c->errmsg), "%s: %s", step, strerror(-ret));
		return ret;
	}
	if (status != NVRM_OK) {
		snprintf(c->errmsg, sizeof(c->errmsg), "%s: %s", step,
			 nvrm_client_status_str(status, s, sizeof(s)));
		return -EPROTO;
	}
	return 0;
}

/* RM_MAP_MEMORY @length bytes of @hmemory onto a fresh GPU file and mmap() them. */
static int map_object(struct nvrm_client *c, const char *dir, u32 hparent, u32 hmemory,
		      u64 length, int *fd, void **va, u32 *status)
{
	int ret;

	ret = nvrm_client_open_gpu_fd(c, dir, fd);
	if (ret)
		return ret;
	ret = nvrm_client_map_memory(c, hparent, hmemory, length, 0, *fd, status);
	if (ret || *status != NVRM_OK)
		return ret ? ret : -EPROTO;
	*va = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (*va == MAP_FAILED) {
		ret = -errno;
		*va = NULL;
		snprintf(c->errmsg, sizeof(c->errmsg), "mmap of 0x%x (%llu bytes): %s", hmemory,
			 (unsigned long long)length, strerror(-ret));
		return ret;
	}
	return 0;
}

/**
 * nvrm_work_open() - set up one schedulable channel, as libcuda does
 * @c: client with device and subdevice
 * @w: filled in
 * @dir: where the device nodes are
 * @status: the RM status of the step that failed, NVRM_OK otherwise
 *
 * On failure the client's message names the step; nvrm_work_close() undoes what was done.
 *
 * Return: 0, or a negative errno (-EPROTO when RM refused a step).
 */
int nvrm_work_open(struct nvrm_client *c, struct nvrm_work *w, const char *dir, u32 *status)
{
	struct nvrm_channel_group_alloc_params tsg = { 0 };
	struct nvrm_ctxshare_alloc_params cs = { 0 };
	struct nvrm_channel_alloc_params ch = { 0 };
	struct nvrm_vaspace_alloc_params va = { 0 };
	struct nvrm_work_submit_token tok = { 0 };
	struct nvrm_gpfifo_schedule sched = { .enable = 1 };
	struct nvrm_gr_set_preemption_mode pm = {
		.flags = NVRM_GR_PREEMPTION_FLAGS_CILP_SET,
		.hchannel = NVRM_WORK_HCHANNEL,
		.cilp_mode = NVRM_GR_COMPUTE_PREEMPT_CILP,
	};
	u64 allocated;
	int ret;

	memset(w, 0, sizeof(*w));
	w->usermode_fd = -1;
	w->mem_fd = -1;

	ret = nvrm_client_alloc(c, c->hsubdevice, NVRM_WORK_HUSERMODE, NVRM_CLASS_HOPPER_USERMODE_A,
				NULL, NULL, status);
	ret = step_done(c, "RM_ALLOC usermode (0xc661)", ret, *status);
	if (ret)
		return ret;
	ret = map_object(c, dir, c->hsubdevice, NVRM_WORK_HUSERMODE, NVRM_USERMODE_SIZE,
			 &w->usermode_fd, &w->usermode, status);
	if (ret)
		return ret;

	ret = nvrm_client_alloc(c, c->hdevice, NVRM_WORK_HVASPACE, NVRM_CLASS_FERMI_VASPACE_A, &va,
				NULL, status);
	ret = step_done(c, "RM_ALLOC VA space (0x90f1)", ret, *status);
	if (ret)
		return ret;

	tsg.hva_space = NVRM_WORK_HVASPACE;
	tsg.engine_type = NVRM_NV2080_ENGINE_TYPE_GRAPHICS;
	ret = nvrm_client_alloc(c, c->hdevice, NVRM_WORK_HTSG, NVRM_CLASS_KEPLER_CHANNEL_GROUP_A,
				&tsg, NULL, status);
	ret = step_done(c, "RM_ALLOC channel group (0xa06c)", ret, *status);
	if (ret)
		return ret;

	cs.hva_space = NVRM_WORK_HVASPACE;
	ret = nvrm_client_alloc(c, NVRM_WORK_HTSG, NVRM_WORK_HCTXSHARE,
				NVRM_CLASS_FERMI_CONTEXT_SHARE_A, &cs, NULL, status);
	ret = step_done(c, "RM_ALLOC context share (0x9067)", ret, *status);
	if (ret)
		return ret;

	ret = nvrm_client_alloc_vidmem_va(c, NVRM_WORK_HMEMORY, NVRM_WORK_MEM_SIZE, &allocated,
					  &w->gpu_va, status);
	if (ret || *status != NVRM_OK)
		return ret ? ret : -EPROTO;
	ret = map_object(c, dir, c->hdevice, NVRM_WORK_HMEMORY, NVRM_WORK_MEM_SIZE, &w->mem_fd,
			 &w->mem, status);
	if (ret)
		return ret;
	/* no kernel done yet, whatever the memory held */
	w->kernels = 0;
	__atomic_store_n((u32 *)((u8 *)w->mem + NVRM_WORK_SEM_OFFSET), 0, __ATOMIC_RELEASE);

	ch.gp_fifo_offset = w->gpu_va;
	ch.gp_fifo_entries = NVRM_WORK_ENTRIES;
	/* its subcontext names the VA space: a group's channel naming one too is refused */
	ch.hcontext_share = NVRM_WORK_HCTXSHARE;
	ch.huserd_memory[0] = NVRM_WORK_HMEMORY;
	ch.userd_offset[0] = NVRM_WORK_USERD_OFFSET;
	ch.engine_type = NVRM_NV2080_ENGINE_TYPE_GRAPHICS;
	ret = nvrm_client_alloc(c, NVRM_WORK_HTSG, NVRM_WORK_HCHANNEL,
				NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A, &ch, NULL, status);
	ret = step_done(c, "RM_ALLOC channel (0xc86f)", ret, *status);
	if (ret)
		return ret;

	ret = nvrm_client_alloc(c, NVRM_WORK_HCHANNEL, NVRM_WORK_HCOMPUTE,
				NVRM_CLASS_HOPPER_COMPUTE_A, NULL, NULL, status);
	ret = step_done(c, "RM_ALLOC compute (0xcbc0)", ret, *status);
	if (ret)
		return ret;

	/* instruction-level compute preemption, as libcuda asks for it (a new context is WFI) */
	ret = nvrm_client_control(c, c->hsubdevice, NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, &pm,
				  sizeof(pm), status);
	ret = step_done(c, "RM_CONTROL GR_SET_CTXSW_PREEMPTION_MODE (0x20801210)", ret, *status);
	if (ret)
		return ret;

	ret = nvrm_client_control(c, NVRM_WORK_HCHANNEL, NVRM_CTRL_CMD_NVC36F_GET_WORK_SUBMIT_TOKEN,
				  &tok, sizeof(tok), status);
	ret = step_done(c, "RM_CONTROL GPFIFO_GET_WORK_SUBMIT_TOKEN (0xc36f0108)", ret, *status);
	if (ret)
		return ret;
	w->token = tok.work_submit_token;

	ret = nvrm_client_control(c, NVRM_WORK_HTSG, NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE, &sched,
				  c->abi->gpfifo_schedule_size, status);
	return step_done(c, "RM_CONTROL GPFIFO_SCHEDULE (0xa06c0101)", ret, *status);
}

static u32 *userd_word(const struct nvrm_work *w, u32 off)
{
	return (u32 *)((u8 *)w->mem + NVRM_WORK_USERD_OFFSET + off);
}

/* GP_GET from USERD, as far as the GPU writes it back (for messages only). */
u32 nvrm_work_gp_get(const struct nvrm_work *w)
{
	return __atomic_load_n(userd_word(w, NVRM_USERD_GP_GET), __ATOMIC_ACQUIRE);
}

static u32 *sem_word(const struct nvrm_work *w)
{
	return (u32 *)((u8 *)w->mem + NVRM_WORK_SEM_OFFSET);
}

/* How many of the kernels pushed are done: the last semaphore release's value. */
u32 nvrm_work_done(const struct nvrm_work *w)
{
	return __atomic_load_n(sem_word(w), __ATOMIC_ACQUIRE);
}

static void push(struct nvrm_work *w, u64 entry)
{
	u64 *ring = w->mem;

	__atomic_store_n(&ring[w->put], entry, __ATOMIC_RELAXED);
	w->put = (w->put + 1) % NVRM_WORK_ENTRIES;
}

/*
 * Write a kernel of @ns and the semaphore release that numbers it at put; they are not visible
 * to the GPU before nvrm_work_kick().
 */
void nvrm_work_push_kernel(struct nvrm_work *w, u64 ns)
{
	w->kernels++;
	push(w, (NVRM_WORK_OP_KERNEL << 56) | (ns & ((1ull << 48) - 1)));
	push(w, (NVRM_WORK_OP_SEM_RELEASE << 56) | ((u64)NVRM_WORK_SEM_OFFSET << 32) | w->kernels);
}

/* Publish GP_PUT (after the entries), then ring the doorbell with the channel's token. */
void nvrm_work_kick(struct nvrm_work *w)
{
	u32 *doorbell = (u32 *)((u8 *)w->usermode + NVRM_USERMODE_NOTIFY_CHANNEL_PENDING);

	__atomic_store_n(userd_word(w, NVRM_USERD_GP_PUT), w->put, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(doorbell, w->token, __ATOMIC_RELAXED);
}

/* Unmap and close what nvrm_work_open() mapped (the RM objects go with the client). */
void nvrm_work_close(struct nvrm_work *w)
{
	if (w->mem)
		munmap(w->mem, NVRM_WORK_MEM_SIZE);
	if (w->usermode)
		munmap(w->usermode, NVRM_USERMODE_SIZE);
	if (w->mem_fd >= 0)
		close(w->mem_fd);
	if (w->usermode_fd >= 0)
		close(w->usermode_fd);
	w->mem = NULL;
	w->usermode = NULL;
	w->mem_fd = -1;
	w->usermode_fd = -1;
}
