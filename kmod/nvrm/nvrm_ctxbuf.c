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
