// SPDX-License-Identifier: GPL-2.0
/*
 * nvrm_ctxbuf.c: what RM's context-buffer pools take for a channel group and a channel.
 */
#include "tap.h"
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_ctxbuf.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

TEST(a_contiguous_buffer_takes_a_whole_chunk_of_the_first_pool_that_holds_it)
{
	EXPECT_EQ(nvrm_ctxbuf_contig(0), 0ull);
	EXPECT_EQ(nvrm_ctxbuf_contig(1), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(4 * KiB), 64 * KiB);	/* an instance block */
	EXPECT_EQ(nvrm_ctxbuf_contig(64 * KiB), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(64 * KiB + 1), 256 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(256 * KiB + 1), 4 * MiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(4 * MiB), 4 * MiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(4 * MiB + 1), 512 * MiB);
	EXPECT_EQ(nvrm_ctxbuf_contig(600 * MiB), 512 * MiB);	/* the largest pool's chunk */
}

TEST(a_graphics_group_reserves_main_with_its_headers_patch_and_pm)
{
	/* main 1.5 MiB + 64 x 4 KiB headers -> 4 MiB; patch 32 KiB -> 64 KiB; pm 1 MiB -> 4 MiB */
	EXPECT_EQ(nvrm_ctxbuf_gr_group(1536 * KiB, 32 * KiB, 1 * MiB), 8 * MiB + 64 * KiB);
	/* the headers alone push a main buffer of 200 KiB past the 256 KiB chunk */
	EXPECT_EQ(nvrm_ctxbuf_gr_group(200 * KiB, 0, 0), 4 * MiB);
	/* a main buffer that is not 4 KiB-aligned is aligned before the headers are added */
	EXPECT_EQ(nvrm_ctxbuf_gr_group(4 * MiB - 256 * KiB - 1, 0, 0), 4 * MiB);
	EXPECT_EQ(nvrm_ctxbuf_gr_group(4 * MiB - 256 * KiB + 1, 0, 0), 512 * MiB);
}

TEST(the_floor_is_the_least_any_graphics_group_takes)
{
	EXPECT_EQ(nvrm_ctxbuf_gr_group_floor(), 4 * MiB + 128 * KiB);
	EXPECT_EQ(NVRM_CTXBUF_CHANNEL_BYTES, 64 * KiB);
}

TEST(graphics_engines_are_gr0_to_gr7)
{
	EXPECT_FALSE(nvrm_ctxbuf_engine_is_gr(0));	/* NULL */
	EXPECT_TRUE(nvrm_ctxbuf_engine_is_gr(1));	/* GR0 */
	EXPECT_TRUE(nvrm_ctxbuf_engine_is_gr(8));	/* GR7 */
	EXPECT_FALSE(nvrm_ctxbuf_engine_is_gr(9));	/* COPY0 */
}
