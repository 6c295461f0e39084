// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: NV2080 GPU_GET_INFO_V2 and GPU_GET_CACHED_INFO, the GPU's capability flags, and
 * MC_GET_ARCH_INFO, its architecture.
 *
 * As getGpuInfos() (subdevice_ctrl_gpu_kernel.c, 525-595): on a subdevice, with the version's
 * params size; a list size of 0 or over NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE, or an index at or
 * over it, is NV_ERR_INVALID_ARGUMENT (nvrm_gpu_info_check()). nvsim models one index,
 * DMABUF_CAPABILITY: YES while the "dmabuf" parameter is on (what the kernel module itself
 * reads at start, osinit.c, and by inference what CUDA reports as
 * CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED).
 * Every other valid index reads 0, which for the ones a discrete GPU's start-up asks
 * (4K_PAGE_ISOLATION_REQUIRED, MOBILE_CONFIG_ENABLED, COHERENT_GPU_MEMORY_MODE) is the real
 * answer; a GSP-based GPU answers the rest from its firmware, with values nvsim does not know.
 */
#include <linux/moduleparam.h>

#include "nvsim_internal.h"

#include "nvrm/nvrm_ctxbuf.h"

/*
 * architecture: what MC_GET_ARCH_INFO reports (NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*), and so
 * whether channel groups take their buffers from the framebuffer (DOC: context buffers,
 * nvsim_fifo.c): Hopper by default, as the GPU's name says; 0x160 makes it a Turing.
 */
static unsigned int architecture = NVRM_ARCH_GH100;
module_param(architecture, uint, 0444);
MODULE_PARM_DESC(architecture, "Architecture MC_GET_ARCH_INFO reports (default 0x180, Hopper)");

/**
 * nvsim_ctxbuf_pools_on() - do channel groups take their buffers from the framebuffer?
 *
 * As RM from 535 on an Ampere or later GPU (nvrm_ctxbuf_pools_on()).
 *
 * Return: true if so.
 */
bool nvsim_ctxbuf_pools_on(void)
{
	return nvsim_abi.major >= NVRM_CTXBUF_POOL_SINCE && nvrm_ctxbuf_pools_on(architecture);
}

/* @engine is a valid NV2080 engine type (NV2080_ENGINE_TYPE_IS_VALID()) of nvsim's ABI. */
static bool nvsim_engine_type_valid(u32 engine)
{
	return engine && engine < nvrm_engine_type_last(nvsim_abi.major);
}

/*
 * A channel of a valid engine type other than its group's is refused on this GPU, as RM refuses it
 * on an Ampere or later (nvrm_channel_engine_checked()).
 */
bool nvsim_channel_engine_refused(u32 channel_engine, u32 group_engine)
{
	return nvrm_channel_engine_checked(architecture) &&
	       nvsim_engine_type_valid(channel_engine) && channel_engine != group_engine;
}

/*
 * A group (or a channel under a device, which makes one) of no valid engine type is refused on an
 * Ampere or later, where the engine picks the group's runlist (kchangrpapiConstruct_IMPL(),
 * kernel_channel_group_api.c, 525.60.13-595.45.04: NV_ERR_INVALID_ARGUMENT).
 */
bool nvsim_group_engine_refused(u32 group_engine)
{
	return nvrm_channel_engine_checked(architecture) && !nvsim_engine_type_valid(group_engine);
}

/* MC_GET_ARCH_INFO: the architecture parameter; implementation and revisions 0. */
static u32 nvsim_ctrl_mc_get_arch_info(const struct nvsim_caller *caller, struct nvsim_object *obj,
				       void *buf)
{
	struct nvrm_mc_arch_info *p = buf;

	memset(p, 0, sizeof(*p));
	p->architecture = architecture;
	return NVRM_OK;
}

static u32 nvsim_ctrl_gpu_get_info(const struct nvsim_caller *caller, struct nvsim_object *obj,
				   void *buf)
{
	u32 size = nvrm_gpu_get_info_v2_size(&nvsim_abi), status, i, n;
	struct nvrm_fb_get_info_v2 *p = buf;	/* the same layout: a count and index/data pairs */

	status = nvrm_gpu_info_check(&nvsim_abi, buf, size);
	if (status)
		return status;
	n = p->fb_info_list_size;
	for (i = 0; i < n; i++) {
		struct nvrm_fb_info *e = &p->fb_info_list[i];

		e->data = 0;
		if (e->index == NVRM_GPU_INFO_INDEX_DMABUF_CAPABILITY && nvsim_dmabuf_capable())
			e->data = NVRM_GPU_INFO_DMABUF_CAPABILITY_YES;
	}
	return NVRM_OK;
}

/* size 0: nvrm_gpu_get_info_v2_size() of the ABI (nvsim_rm.c nvsim_control_size()) */
const struct nvsim_control nvsim_gpuinfo_controls[] = {
	{ NVRM_CTRL_CMD_GPU_GET_INFO_V2, NVRM_CLASS_NV20_SUBDEVICE_0, 0, nvsim_ctrl_gpu_get_info },
	{ NVRM_CTRL_CMD_GPU_GET_CACHED_INFO, NVRM_CLASS_NV20_SUBDEVICE_0, 0,
	  nvsim_ctrl_gpu_get_info },
	{ NVRM_CTRL_CMD_MC_GET_ARCH_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_mc_arch_info), nvsim_ctrl_mc_get_arch_info },
};

const unsigned int nvsim_gpuinfo_num_controls = ARRAY_SIZE(nvsim_gpuinfo_controls);
