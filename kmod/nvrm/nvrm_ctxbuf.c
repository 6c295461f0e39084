// SPDX-License-Identifier: GPL-2.0
/*
 * The video memory RM's context-buffer pools take for a channel group (nvrm_ctxbuf.h).
 *
 * Pure: built into qgpu.ko, nvsim.ko and the user-space unit tests.
 */
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_ctxbuf.h"

/* The chunks RM's pools take from the allocator, smallest first (ctx_buf_pool.c, 535-595). */
static const u64 nvrm_ctxbuf_chunks[] = {
	64ull << 10,	/* the pool of 4 KiB pages */
	256ull << 10,	/* 64 KiB pages */
	4ull << 20,	/* 2 MiB pages */
	512ull << 20,	/* 512 MiB pages */
};

/**
 * nvrm_ctxbuf_contig() - what a physically contiguous buffer takes from a context-buffer pool
 * @bytes: the buffer's size
 *
 * A contiguous buffer never spans two chunks: it takes a whole chunk of the first pool whose
 * chunk holds it (ctxBufPoolGetSizeAndPageSize(), ctx_buf_pool.c; poolAllocateContig(),
 * pool_alloc.c, 535-595). Every buffer RM reserves for a channel group is contiguous.
 *
 * Return: bytes taken from video memory; 0 for an empty buffer.
 */
u64 nvrm_ctxbuf_contig(u64 bytes)
{
	unsigned int i;

	if (!bytes)
		return 0;
	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_ctxbuf_chunks) - 1; i++)
		if (bytes <= nvrm_ctxbuf_chunks[i])
			return nvrm_ctxbuf_chunks[i];
	return nvrm_ctxbuf_chunks[i];
}

/**
 * nvrm_ctxbuf_pools_on() - does RM take channel groups' buffers from its shared allocator here?
 * @architecture: the GPU's NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_* (MC_GET_ARCH_INFO)
 *
 * From 535, on Ampere and later discrete GPUs (nvrm_ctxbuf.h); not on Turing, nor on a Tegra SoC
 * (T23X, whose value sorts above every discrete architecture).
 *
 * Return: true where a group's context buffers and a channel's instance block take video memory
 * the instance's other allocations could have had.
 */
bool nvrm_ctxbuf_pools_on(u32 architecture)
{
	return architecture >= NVRM_ARCH_GA100 && architecture < NVRM_ARCH_T23X;
}

/**
 * nvrm_channel_engine_checked() - whether RM checks a channel's engine type against its group's
 * @architecture: MC_GET_ARCH_INFO's answer
 *
 * The chips with a channel RAM per runlist are the ones with pools: every Ampere, Ada, Hopper and
 * Blackwell, not Turing, not a Tegra's (nvrm_ctxbuf.h).
 *
 * Return: true where a channel of another engine than its group's is refused.
 */
bool nvrm_channel_engine_checked(u32 architecture)
{
	return nvrm_ctxbuf_pools_on(architecture);
}

/**
 * nvrm_engine_type_last() - NV2080_ENGINE_TYPE_LAST of a driver version
 * @major: the driver's major version
 *
 * cl2080_notification.h: 0x3e in 525-535, 0x3f in 545, 0x40 in 550-555, 0x54 from 560.28.03 to
 * 595.45.04.
 *
 * Return: the first engine type the version does not know.
 */
u32 nvrm_engine_type_last(u32 major)
{
	if (major >= 560)
		return 0x54;
	if (major >= 550)
		return 0x40;
	if (major >= 545)
		return 0x3f;
	return 0x3e;
}

/**
 * nvrm_ctxbuf_gr_group() - what RM reserves for a channel group of the graphics engine
 * @main: the main context buffer's size, as GR_GET_ENGINE_CONTEXT_PROPERTIES reports it
 * @patch: the patch buffer's
 * @pm: the PM buffer's
 *
 * kchangrpapiConstruct_IMPL() reserves the three buffers kgrmgrIsCtxBufSupported() keeps (MAIN,
 * PATCH, PM) when the group is made, whatever the group later runs: the main buffer grown by a
 * header for each subcontext, each rounded to its chunk (nvrm_ctxbuf_contig()).
 *
 * Return: bytes of video memory.
 */
u64 nvrm_ctxbuf_gr_group(u32 main, u32 patch, u32 pm)
{
	u64 headers = (u64)NVRM_CTXBUF_SUBCTX_MAX * NVRM_CTXBUF_SUBCTX_HEADER;
	u64 main_bytes = ((u64)main + NVRM_CTXBUF_SUBCTX_HEADER - 1) &
			 ~((u64)NVRM_CTXBUF_SUBCTX_HEADER - 1);

	return nvrm_ctxbuf_contig(main_bytes + headers) + nvrm_ctxbuf_contig(patch) +
	       nvrm_ctxbuf_contig(pm);
}

/**
 * nvrm_ctxbuf_gr_group_floor() - the least a graphics channel group can take
 *
 * For a GPU whose sizes cannot be asked: the headers alone put the main buffer past the 256 KiB
 * chunk, and the patch and PM buffers take a 64 KiB chunk at least.
 *
 * Return: bytes of video memory.
 */
u64 nvrm_ctxbuf_gr_group_floor(void)
{
	return nvrm_ctxbuf_gr_group(1, 1, 1);
}

/**
 * nvrm_ctxbuf_engine_is_gr() - is @engine_type a graphics engine (GR0..GR7)?
 * @engine_type: a channel group's NV2080_ENGINE_TYPE
 *
 * Return: true where RM reserves graphics context buffers for the group.
 */
bool nvrm_ctxbuf_engine_is_gr(u32 engine_type)
{
	return engine_type >= NVRM_NV2080_ENGINE_TYPE_GRAPHICS &&
	       engine_type <= NVRM_NV2080_ENGINE_TYPE_GR7;
}

/**
 * nvrm_ctxbuf_falcon_engdesc() - the falcon a channel group of @engine_type runs on
 * @engine_type: a channel group's NV2080_ENGINE_TYPE
 *
 * Return: the falcon's engDesc as GET_CONSTRUCTED_FALCON_INFO names it, or 0 where the engine is
 * not a falcon's (graphics, copy engines, anything unknown).
 */
u32 nvrm_ctxbuf_falcon_engdesc(u32 engine_type)
{
	if (engine_type >= NVRM_NV2080_ENGINE_TYPE_NVDEC0 &&
	    engine_type < NVRM_NV2080_ENGINE_TYPE_NVDEC0 + 8)
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC,
				    engine_type - NVRM_NV2080_ENGINE_TYPE_NVDEC0);
	if (engine_type >= NVRM_NV2080_ENGINE_TYPE_NVENC0 &&
	    engine_type < NVRM_NV2080_ENGINE_TYPE_NVENC0 + 3)
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_NVENC,
				    engine_type - NVRM_NV2080_ENGINE_TYPE_NVENC0);
	if (engine_type >= NVRM_NV2080_ENGINE_TYPE_NVJPEG0 &&
	    engine_type < NVRM_NV2080_ENGINE_TYPE_NVJPEG0 + 8)
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG,
				    engine_type - NVRM_NV2080_ENGINE_TYPE_NVJPEG0);
	switch (engine_type) {
	case NVRM_NV2080_ENGINE_TYPE_NVENC3:
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_NVENC, 3);
	case NVRM_NV2080_ENGINE_TYPE_SEC2:
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_SEC2, 0);
	case NVRM_NV2080_ENGINE_TYPE_OFA0:
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_OFA, 0);
	case NVRM_NV2080_ENGINE_TYPE_OFA1:
		return NVRM_ENGDESC(NVRM_FALCON_CLASS_OFA, 1);
	}
	return 0;
}

/* Is @engdesc a falcon that channel groups run on (one nvrm_ctxbuf_falcon_engdesc() returns)? */
static bool nvrm_ctxbuf_falcon_runs_groups(u32 engdesc)
{
	switch (engdesc >> 8) {
	case NVRM_FALCON_CLASS_NVDEC:
	case NVRM_FALCON_CLASS_NVENC:
	case NVRM_FALCON_CLASS_NVJPG:
	case NVRM_FALCON_CLASS_OFA:
	case NVRM_FALCON_CLASS_SEC2:
		return true;
	}
	return false;
}

/* The entries of @info to read: its count, no more than the array holds. */
static u32 nvrm_ctxbuf_falcon_count(const struct nvrm_constructed_falcon_info *info)
{
	return info->count < NVRM_CONSTRUCTED_FALCONS_MAX ? info->count :
	       NVRM_CONSTRUCTED_FALCONS_MAX;
}

/* What one falcon's context buffer of @size takes: a chunk at least, even for an empty one. */
static u64 nvrm_ctxbuf_falcon_bytes(u32 size)
{
	return nvrm_ctxbuf_contig(size ? size : 1);
}

/**
 * nvrm_ctxbuf_falcon_group() - what RM reserves for a channel group of a falcon engine
 * @info: the GPU's GET_CONSTRUCTED_FALCON_INFO answer, or NULL where the driver gave none
 * @engine_type: the group's NV2080_ENGINE_TYPE
 *
 * The group reserves its falcon's context buffer, contiguous, so a whole pool chunk
 * (nvrm_ctxbuf_contig()); RM asks for it even when the falcon's size is 0. Without an answer
 * (drivers before 550, or a failed call) a falcon engine's group is charged the least it can
 * take, one 64 KiB chunk; an engine the answer lists no falcon for reserves nothing, but SEC2,
 * whose falcon kernel RM may construct itself, takes its 64 KiB at least.
 *
 * Return: bytes of video memory; 0 for an engine that is not a falcon's.
 */
u64 nvrm_ctxbuf_falcon_group(const struct nvrm_constructed_falcon_info *info, u32 engine_type)
{
	u32 engdesc = nvrm_ctxbuf_falcon_engdesc(engine_type);
	u64 bytes = 0;
	u32 i, count;

	if (!engdesc)
		return 0;
	if (!info)
		return nvrm_ctxbuf_falcon_bytes(0);
	count = nvrm_ctxbuf_falcon_count(info);
	for (i = 0; i < count; i++) {
		if (info->falcons[i].eng_desc == engdesc) {
			bytes = nvrm_ctxbuf_falcon_bytes(info->falcons[i].ctx_buffer_size);
			break;
		}
	}
	if (engine_type == NVRM_NV2080_ENGINE_TYPE_SEC2 && bytes < NVRM_CTXBUF_SEC2_BYTES)
		bytes = nvrm_ctxbuf_contig(NVRM_CTXBUF_SEC2_BYTES);
	return bytes;
}

/**
 * nvrm_ctxbuf_falcon_group_max() - the most a channel group of any falcon engine reserves
 * @info: as for nvrm_ctxbuf_falcon_group()
 *
 * Over the falcons of the engines groups run on; SEC2's 64 KiB at least.
 *
 * Return: bytes of video memory.
 */
u64 nvrm_ctxbuf_falcon_group_max(const struct nvrm_constructed_falcon_info *info)
{
	u64 most = nvrm_ctxbuf_contig(NVRM_CTXBUF_SEC2_BYTES), bytes;
	u32 i, count;

	if (!info)
		return most;
	count = nvrm_ctxbuf_falcon_count(info);
	for (i = 0; i < count; i++) {
		if (!nvrm_ctxbuf_falcon_runs_groups(info->falcons[i].eng_desc))
			continue;	/* the GSP's, the PMU's, ... */
		bytes = nvrm_ctxbuf_falcon_bytes(info->falcons[i].ctx_buffer_size);
		if (bytes > most)
			most = bytes;
	}
	return most;
}
