/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The video memory RM takes for a channel group's and a channel's own buffers, which no RM_ALLOC
 * of memory names: pure arithmetic of RM's context-buffer pools (nvrm_ctxbuf.c).
 */
#ifndef NVRM_CTXBUF_H
#define NVRM_CTXBUF_H

#include "nvrm/nvrm_types.h"

struct nvrm_constructed_falcon_info;

/*
 * From 535.43.02 every channel group a user client makes gets its own context-buffer pools, fed
 * from the allocator that serves RM_ALLOC of video memory (ctxBufPoolInit() in
 * kchangrpapiConstruct_IMPL(), kernel_channel_group_api.c; PDB_PROP_GPU_MOVE_CTX_BUFFERS_TO_PMA,
 * set on Ampere to Blackwell outside a vGPU host, kern_gpu_ga100.c). In 525 and 530 the pools
 * existed only under MIG, and these buffers came from memory RM reserves at boot.
 */
#define NVRM_CTXBUF_POOL_SINCE		535u

/*
 * ...and only on a GPU whose chip has gpuIsCtxBufAllocInPmaSupported_GA100(): every Ampere, Ada,
 * Hopper and Blackwell chip each driver from 535.43.02 to 595.45.04 supports (g_gpu_nvoc.c), none
 * of Turing's, which keep taking the buffers from RM's reserved heap. The function answers false
 * on a vGPU host (hypervisorIsVgxHyper(), kern_gpu_ga100.c), and a guest's RM uses no pools
 * (ctxBufPoolIsSupported(), ctx_buf_pool.c): neither shows in the architecture.
 */
bool nvrm_ctxbuf_pools_on(u32 architecture);

/*
 * A channel's instance block is 4 KiB (NV_RAMIN_ALLOC_SIZE, dev_ram.h) and physically
 * contiguous: the pool gives it a whole chunk of its smallest pool, 64 KiB
 * (ctxBufPoolGetSizeAndPageSize(), ctx_buf_pool.c, 535-595).
 */
#define NVRM_CTXBUF_CHANNEL_BYTES	(64u << 10)

/*
 * A channel group holds at most 128 channels (kfifoGetMaxChannelGroupSize_GV100(): the runlist's
 * NV_RAMRL_ENTRY_TSG_LENGTH_MAX, gv100 dev_ram.h, 535.43.02-595.45.04, the only implementation):
 * kchangrpAddChannel_IMPL() refuses the 129th with NV_ERR_INSUFFICIENT_RESOURCES. So its channel
 * pool holds one chunk for each, and one more that a refused channel's reservation leaves
 * (kchannelConstruct_IMPL() reserves before it adds the channel to its group, kernel_channel.c,
 * 580.142; an H200 with GSP 580.159.04 kept that chunk, session 34).
 */
#define NVRM_TSG_CHANNELS_MAX		128u
#define NVRM_CTXBUF_POOL_CHUNKS_MAX	(NVRM_TSG_CHANNELS_MAX + 1u)

/*
 * kchannelConstruct_IMPL() also refuses, after that reservation, a channel whose engine type is
 * valid (above NULL, below the version's NV2080_ENGINE_TYPE_LAST) and not its group's, with
 * NV_ERR_INVALID_ARGUMENT, on a GPU whose channel RAM is per runlist
 * (kfifoIsPerRunlistChramSupportedInHw(): GA100 to GB20x, g_kernel_fifo_nvoc.c, 580.142); 0 takes
 * the group's (525.60.13-595.45.04; seen on an H200, session 34).
 */
bool nvrm_channel_engine_checked(u32 architecture);
u32 nvrm_engine_type_last(u32 major);

/*
 * The main context buffer carries a 4 KiB-aligned header for each subcontext
 * (kgraphicsGetMainCtxBufferSize(), kernel_graphics.c): at most 64 of them, the instance block's
 * subcontext page directories (NV_RAMIN_SC_PAGE_DIR_BASE_TARGET__SIZE_1, gv100 dev_ram.h).
 */
#define NVRM_CTXBUF_SUBCTX_MAX		64u
#define NVRM_CTXBUF_SUBCTX_HEADER	(4u << 10)

/*
 * A channel group of a falcon engine (video decode and encode, JPEG, optical flow, SEC2) reserves
 * one contiguous context buffer, of the size the engine's falcon gives, when it is made on a
 * GSP-based GPU (kchangrpapiConstruct_IMPL(), kernel_channel_group_api.c, 535.43.02-595.45.04);
 * an engine without a falcon reserves none. The sizes come from the firmware, and a user client
 * can read them from 550 (NVRM_CTRL_CMD_GPU_GET_CONSTRUCTED_FALCON_INFO, nvrm_abi.h).
 *
 * The falcons' engDesc is MKENGDESC(NVOC class id, instance) (g_eng_desc_nvoc.h), and these
 * class ids are the same from 550.40.07 to 595.45.04 (g_eng_desc_nvoc.h); the engine types that
 * name each falcon are rmClientEngineTable's (gpu.c, 580.142) and NV2080_ENGINE_TYPE_*
 * (cl2080_notification.h; OFA1 from 560.28.03, NVENC3 from 575.51.02).
 */
#define NVRM_FALCON_CLASS_NVDEC		0x8F99E1u	/* __nvoc_class_id_OBJBSP */
#define NVRM_FALCON_CLASS_NVENC		0xE97B6Cu	/* __nvoc_class_id_OBJMSENC */
#define NVRM_FALCON_CLASS_NVJPG		0x2B3A54u	/* __nvoc_class_id_OBJNVJPG */
#define NVRM_FALCON_CLASS_OFA		0xDD7BABu	/* __nvoc_class_id_OBJOFA */
#define NVRM_FALCON_CLASS_SEC2		0x28C408u	/* __nvoc_class_id_OBJSEC2 */
#define NVRM_ENGDESC(class_id, inst)	(((class_id) << 8) | (inst))

#define NVRM_NV2080_ENGINE_TYPE_NVDEC0	0x13u	/* NVDEC0-7: 0x13-0x1a */
#define NVRM_NV2080_ENGINE_TYPE_NVENC0	0x1Bu	/* NVENC0-2: 0x1b-0x1d */
#define NVRM_NV2080_ENGINE_TYPE_SEC2	0x26u
#define NVRM_NV2080_ENGINE_TYPE_NVJPEG0	0x2Bu	/* NVJPEG0-7: 0x2b-0x32 */
#define NVRM_NV2080_ENGINE_TYPE_OFA0	0x33u
#define NVRM_NV2080_ENGINE_TYPE_OFA1	0x3Eu
#define NVRM_NV2080_ENGINE_TYPE_NVENC3	0x3Fu

/*
 * SEC2's falcon on Turing and Ampere is kernel RM's own (KernelSec2), not the firmware's list,
 * with a context buffer of FLCN_CTX_ENG_BUFFER_SIZE_HW << 4 (kernel_sec2_tu102.c,
 * kernel_sec2_ga100.c, falcon_common.h, 535-595).
 */
#define NVRM_CTXBUF_SEC2_BYTES		(64u << 10)

u64 nvrm_ctxbuf_contig(u64 bytes);
u64 nvrm_ctxbuf_gr_group(u32 main, u32 patch, u32 pm);
u64 nvrm_ctxbuf_gr_group_floor(void);
bool nvrm_ctxbuf_engine_is_gr(u32 engine_type);
u32 nvrm_ctxbuf_falcon_engdesc(u32 engine_type);
u64 nvrm_ctxbuf_falcon_group(const struct nvrm_constructed_falcon_info *info, u32 engine_type);
u64 nvrm_ctxbuf_falcon_group_max(const struct nvrm_constructed_falcon_info *info);

#endif /* NVRM_CTXBUF_H */
