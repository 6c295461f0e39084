/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The video memory RM takes for a channel group's and a channel's own buffers, which no RM_ALLOC
 * of memory names: pure arithmetic of RM's context-buffer pools (nvrm_ctxbuf.c).
 */
#ifndef NVRM_CTXBUF_H
#define NVRM_CTXBUF_H

#include "nvrm/nvrm_types.h"

/*
 * From 535.43.02 every channel group a user client makes gets its own context-buffer pools, fed
 * from the allocator that serves RM_ALLOC of video memory (ctxBufPoolInit() in
 * kchangrpapiConstruct_IMPL(), kernel_channel_group_api.c; PDB_PROP_GPU_MOVE_CTX_BUFFERS_TO_PMA,
 * set on Ampere to Blackwell outside a vGPU host, kern_gpu_ga100.c). In 525 and 530 the pools
 * existed only under MIG, and these buffers came from memory RM reserves at boot.
 */
#define NVRM_CTXBUF_POOL_SINCE		535u

/*
 * A channel's instance block is 4 KiB (NV_RAMIN_ALLOC_SIZE, dev_ram.h) and physically
 * contiguous: the pool gives it a whole chunk of its smallest pool, 64 KiB
 * (ctxBufPoolGetSizeAndPageSize(), ctx_buf_pool.c, 535-595).
 */
#define NVRM_CTXBUF_CHANNEL_BYTES	(64u << 10)

/*
 * The main context buffer carries a 4 KiB-aligned header for each subcontext
 * (kgraphicsGetMainCtxBufferSize(), kernel_graphics.c): at most 64 of them, the instance block's
 * subcontext page directories (NV_RAMIN_SC_PAGE_DIR_BASE_TARGET__SIZE_1, gv100 dev_ram.h).
 */
#define NVRM_CTXBUF_SUBCTX_MAX		64u
#define NVRM_CTXBUF_SUBCTX_HEADER	(4u << 10)

u64 nvrm_ctxbuf_contig(u64 bytes);
u64 nvrm_ctxbuf_gr_group(u32 main, u32 patch, u32 pm);
u64 nvrm_ctxbuf_gr_group_floor(void);
bool nvrm_ctxbuf_engine_is_gr(u32 engine_type);

#endif /* NVRM_CTXBUF_H */
