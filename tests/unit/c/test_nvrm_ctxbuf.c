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

TEST(falcon_engines_map_to_their_falcons_engdesc)
{
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x13), 0x8F99E100u);	/* NVDEC0: OBJBSP, 0 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x1A), 0x8F99E107u);	/* NVDEC7 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x1B), 0xE97B6C00u);	/* NVENC0: OBJMSENC */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x1D), 0xE97B6C02u);	/* NVENC2 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x3F), 0xE97B6C03u);	/* NVENC3 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x26), 0x28C40800u);	/* SEC2 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x2B), 0x2B3A5400u);	/* NVJPEG0: OBJNVJPG */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x32), 0x2B3A5407u);	/* NVJPEG7 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x33), 0xDD7BAB00u);	/* OFA0 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x3E), 0xDD7BAB01u);	/* OFA1 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(1), 0u);			/* GR0 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(9), 0u);			/* COPY0 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x1E), 0u);		/* after NVENC2 */
	EXPECT_EQ(nvrm_ctxbuf_falcon_engdesc(0x34), 0u);		/* after OFA0 */
}

static struct nvrm_constructed_falcon_info falcons;

static void falcons_set(u32 count, const u32 (*rows)[2])
{
	u32 i;

	memset(&falcons, 0, sizeof(falcons));
	falcons.count = count;
	for (i = 0; i < count && i < NVRM_CONSTRUCTED_FALCONS_MAX; i++) {
		falcons.falcons[i].eng_desc = rows[i][0];
		falcons.falcons[i].ctx_buffer_size = rows[i][1];
	}
}

TEST(a_falcon_group_takes_its_falcons_buffer_rounded_to_a_chunk)
{
	static const u32 rows[][2] = {
		{ 0x12345600, 8 << 20 },	/* a falcon no group runs on */
		{ 0x8F99E100, 192 << 10 },	/* NVDEC0 */
		{ 0x8F99E101, 0 },		/* NVDEC1, an empty buffer */
		{ 0x2B3A5400, 64 << 10 },	/* NVJPEG0 */
		{ 0xDD7BAB00, (256 << 10) + 1 },	/* OFA0 */
	};

	falcons_set(5, rows);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x13), 256 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x14), 64 * KiB);	/* a chunk even so */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x2B), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x33), 4 * MiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x15), 0ull);	/* NVDEC2: no falcon */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x1B), 0ull);	/* NVENC0: none */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x26), 64 * KiB);	/* SEC2: kernel RM's own */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 1), 0ull);	/* GR0: not a falcon's */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 9), 0ull);	/* COPY0 */
	/* the most is OFA0's: the falcon no group runs on does not count */
	EXPECT_EQ(nvrm_ctxbuf_falcon_group_max(&falcons), 4 * MiB);
	/* a count past the array reads the array only */
	falcons.count = 0xFFFFFFFF;
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(&falcons, 0x15), 0ull);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group_max(&falcons), 4 * MiB);
}

TEST(without_the_drivers_answer_a_falcon_group_takes_one_chunk_at_least)
{
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(NULL, 0x13), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(NULL, 0x26), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(NULL, 0x3E), 64 * KiB);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group(NULL, 9), 0ull);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group_max(NULL), 64 * KiB);
	falcons_set(0, NULL);
	EXPECT_EQ(nvrm_ctxbuf_falcon_group_max(&falcons), 64 * KiB);	/* SEC2's */
}

TEST(the_pools_serve_ampere_and_later_discrete_gpus)
{
	EXPECT_FALSE(nvrm_ctxbuf_pools_on(0x160));	/* TU100 */
	EXPECT_TRUE(nvrm_ctxbuf_pools_on(0x170));	/* GA100 */
	EXPECT_TRUE(nvrm_ctxbuf_pools_on(0x180));	/* GH100 */
	EXPECT_TRUE(nvrm_ctxbuf_pools_on(0x190));	/* AD100 */
	EXPECT_TRUE(nvrm_ctxbuf_pools_on(0x1B0));	/* GB200 */
	EXPECT_FALSE(nvrm_ctxbuf_pools_on(0xE0000023));	/* T23X */
	EXPECT_FALSE(nvrm_ctxbuf_pools_on(0));
}

TEST(a_channels_engine_is_checked_against_its_groups_from_ampere_on)
{
	EXPECT_FALSE(nvrm_channel_engine_checked(NVRM_ARCH_TU100));
	EXPECT_TRUE(nvrm_channel_engine_checked(NVRM_ARCH_GA100));
	EXPECT_TRUE(nvrm_channel_engine_checked(NVRM_ARCH_GH100));
	EXPECT_TRUE(nvrm_channel_engine_checked(0x1B0));	/* GB200 */
	EXPECT_FALSE(nvrm_channel_engine_checked(NVRM_ARCH_T23X));	/* a Tegra's */
	/* NV2080_ENGINE_TYPE_LAST by version */
	EXPECT_EQ(nvrm_engine_type_last(525), 0x3Eu);
	EXPECT_EQ(nvrm_engine_type_last(535), 0x3Eu);
	EXPECT_EQ(nvrm_engine_type_last(545), 0x3Fu);
	EXPECT_EQ(nvrm_engine_type_last(555), 0x40u);
	EXPECT_EQ(nvrm_engine_type_last(560), 0x54u);
	EXPECT_EQ(nvrm_engine_type_last(595), 0x54u);
}
