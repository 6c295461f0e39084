// SPDX-License-Identifier: GPL-2.0
/*
 * What qgpu's arithmetic charges against what an NVIDIA H200 took from its framebuffer (open
 * kernel module and GSP firmware 580.159.04, session 34): the digest scripts/ctxbuf_probe.py
 * wrote there, tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest. From the sizes the GPU
 * reported, the context-buffer and page arithmetic must give each step's bytes exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_ctxbuf.h"
#include "qgpu_mem_limit.h"

#ifndef QGPU_FIXTURES
#error "QGPU_FIXTURES must name tests/unit/c/fixtures"
#endif

#define KiB (1ll << 10)
#define STEPS_MAX 256

struct h200 {
	u32 arch;
	struct nvrm_constructed_falcon_info falcons;
	u32 gr_size[NVRM_GR_CTX_ENGINE_ID_COUNT_V550];
	int nsteps;
	struct h200_step {
		char label[64];
		int status;	/* -1: a free */
		long long taken;
	} steps[STEPS_MAX];
};

static struct h200 h200;

/* Read the digest once; false when it cannot be read whole. */
static bool h200_load(void)
{
	static int loaded;	/* 0 not yet, 1 read, -1 failed */
	char path[512], line[256], status[16];
	unsigned int a, b, c, d, e;
	FILE *f;

	if (loaded)
		return loaded > 0;
	loaded = -1;
	snprintf(path, sizeof(path), "%s/nvidia-580-h200-ctxbuf.digest", QGPU_FIXTURES);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		struct nvrm_constructed_falcon *fal;

		if (sscanf(line, "arch %x", &a) == 1) {
			h200.arch = a;
		} else if (sscanf(line, "falcon %x %x %x %x %x", &a, &b, &c, &d, &e) == 5) {
			if (h200.falcons.count >= NVRM_CONSTRUCTED_FALCONS_MAX)
				goto bad;
			fal = &h200.falcons.falcons[h200.falcons.count++];
			fal->eng_desc = a;
			fal->ctx_attr = b;
			fal->ctx_buffer_size = c;
			fal->addr_space_list = d;
			fal->register_base = e;
		} else if (sscanf(line, "grctx %x %x %u", &a, &b, &c) == 3) {
			if (a >= NVRM_GR_CTX_ENGINE_ID_COUNT_V550)
				goto bad;
			h200.gr_size[a] = b ? 0 : c;
		} else if (!strncmp(line, "step ", 5)) {
			if (h200.nsteps >= STEPS_MAX)
				goto bad;
			if (sscanf(line, "step %63s %15s %lld", h200.steps[h200.nsteps].label, status,
				   &h200.steps[h200.nsteps].taken) != 3)
				goto bad;
			h200.steps[h200.nsteps++].status =
				strcmp(status, "-") ? (int)strtol(status, NULL, 16) : -1;
		}
	}
	fclose(f);
	loaded = h200.nsteps > 0 && h200.falcons.count > 0 ? 1 : -1;
	return loaded > 0;
bad:
	fclose(f);
	return false;
}

/* The step named @label; fails the test and returns NULL where the digest lacks it. */
static const struct h200_step *step(const char *label)
{
	int i;

	for (i = 0; i < h200.nsteps; i++)
		if (!strcmp(h200.steps[i].label, label))
			return &h200.steps[i];
	TAP_CHECK_(false, "the digest has no step %s", label);
	return NULL;
}

/* The bytes a step took (a free's are negative), -1 where it is missing. */
static long long taken(const char *label)
{
	const struct h200_step *st = step(label);

	return st ? st->taken : -1;
}

/* A step's RM status (-1 for a free), -2 where it is missing. */
static int status_of(const char *label)
{
	const struct h200_step *st = step(label);

	return st ? st->status : -2;
}

TEST(real_h200_digest_reads)
{
	ASSERT_TRUE(h200_load());
	EXPECT_EQ(h200.arch, NVRM_ARCH_GH100);
	EXPECT_EQ(h200.falcons.count, 35u);
	EXPECT_EQ(h200.nsteps, 97);
}

/* Each graphics group took what nvrm_ctxbuf_gr_group() makes of the sizes the GPU reported. */
TEST(real_h200_graphics_groups_take_main_patch_and_pm_as_the_pools_round_them)
{
	long long group;

	ASSERT_TRUE(h200_load());
	group = (long long)nvrm_ctxbuf_gr_group(h200.gr_size[NVRM_GR_CTX_ENGINE_ID_GRAPHICS],
						h200.gr_size[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PATCH],
						h200.gr_size[NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PM]);
	EXPECT_EQ(group, 4416 * KiB);
	EXPECT_EQ(taken("gr-a:group"), group);
	EXPECT_EQ(taken("gr-b:group"), group);
	EXPECT_EQ(taken("refused:group"), group);
	EXPECT_EQ(taken("full:group"), group);
	EXPECT_EQ(taken("gr-copy0:group"), group);
	EXPECT_EQ(taken("8-groups"), 8 * group);
	EXPECT_EQ(taken("gr-a:free-group"), -group);
	EXPECT_EQ(taken("gr-a:compute"), 0);	/* reserved with the group */
}

/* A falcon engine's group took its falcon's buffer as a chunk; one the GPU lacks took nothing. */
TEST(real_h200_falcon_groups_take_what_the_falcon_list_says)
{
	static const struct { const char *label; u32 engine; } groups[] = {
		{ "nvdec0:group", 0x13 },	/* not in the H200's list */
		{ "nvdec1:group", 0x14 },
		{ "nvjpeg0:group", 0x2B },
		{ "nvjpeg1:group", 0x2C },	/* not in the list */
		{ "ofa0:group", 0x33 },
		{ "nvenc0:group", 0x1B },	/* no encoder */
		{ "sec2:group", 0x26 },
		{ "copy0:group", 0x09 },	/* a copy engine reserves nothing */
	};
	unsigned int i;

	ASSERT_TRUE(h200_load());
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		TAP_CASE("%s", groups[i].label);
		EXPECT_EQ(taken(groups[i].label),
			  (long long)nvrm_ctxbuf_falcon_group(&h200.falcons, groups[i].engine));
	}
	EXPECT_EQ(nvrm_ctxbuf_falcon_group_max(&h200.falcons), 64ull * KiB);
}

/* Channels: a chunk each, kept by the pool until the last goes, 128 a group, refusals keep it. */
TEST(real_h200_channel_pools_keep_their_chunks_as_qgpu_charges_them)
{
	long long chunk = NVRM_CTXBUF_CHANNEL_BYTES;
	char label[64];
	int i;

	ASSERT_TRUE(h200_load());
	for (i = 1; i <= 20; i++) {
		snprintf(label, sizeof(label), "gr-a:channel-%d", i);
		EXPECT_EQ(taken(label), chunk);
	}
	EXPECT_EQ(taken("gr-a:free-2-channels"), 0);
	EXPECT_EQ(taken("gr-a:again-0"), 0);
	EXPECT_EQ(taken("gr-a:free-all-but-one"), 0);
	EXPECT_EQ(taken("gr-a:free-last-channel"), -20 * chunk);
	EXPECT_EQ(taken("copy0:channel"), chunk);
	EXPECT_EQ(taken("nvdec1:channel"), chunk);
	/* a channel of another engine is refused after its reservation: the chunk stays */
	EXPECT_TRUE(nvrm_channel_engine_checked(h200.arch));
	EXPECT_GT(nvrm_engine_type_last(580), 0x09u);
	EXPECT_EQ(status_of("copy0-gr:channel"), (int)NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(status_of("refused:wrong-engine-1"), (int)NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(taken("refused:wrong-engine-1"), chunk);
	EXPECT_EQ(taken("refused:wrong-engine-2"), 0);
	EXPECT_EQ(taken("refused:channel-2"), 0);
	EXPECT_EQ(taken("refused:free-channel-1"), -2 * chunk);
	/* the 129th is refused after its reservation too: the most a pool holds */
	EXPECT_EQ(taken("full:128-channels"), (long long)NVRM_TSG_CHANNELS_MAX * chunk);
	EXPECT_EQ(status_of("full:channel-129"), (int)NVRM_ERR_INSUFFICIENT_RESOURCES);
	EXPECT_EQ(taken("full:channel-129"), chunk);
	EXPECT_EQ(taken("full:free-last-channel"), -(long long)NVRM_CTXBUF_POOL_CHUNKS_MAX * chunk);
	/* a group must name its engine */
	EXPECT_EQ(status_of("engine-0:group"), (int)NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(taken("engine-0:group"), 0);
}

/*
 * A channel UVM registered keeps its instance block in its group's pool after the tenant frees
 * the channels; UVM's letting go frees the block without releasing the pool, so the chunks stay
 * until the group goes (qgpu_mem_charge_put_retained()).
 */
TEST(real_h200_a_uvm_registration_keeps_the_pool_until_the_group_goes)
{
	long long chunk = NVRM_CTXBUF_CHANNEL_BYTES;

	ASSERT_TRUE(h200_load());
	EXPECT_EQ(status_of("uvm:register"), 0);
	EXPECT_EQ(taken("uvm:register"), 0);
	EXPECT_EQ(taken("uvm:free-channels"), 0);
	EXPECT_EQ(status_of("uvm:unregister"), 0);
	EXPECT_EQ(taken("uvm:unregister"), 0);
	EXPECT_EQ(taken("uvm:free-group"), -(taken("uvm:group") + 2 * chunk));
}

/* Video memory at the default page size: qgpu reserves exactly what RM took. */
TEST(real_h200_video_memory_is_reserved_what_rm_took)
{
	static const long long sizes[] = { 4 * KiB, 64 * KiB, 1024 * KiB, 2048 * KiB, 3072 * KiB };
	char label[64];
	unsigned int i;

	ASSERT_TRUE(h200_load());
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(label, sizeof(label), "vidmem-%lld", sizes[i]);
		EXPECT_EQ(taken(label), (long long)qgpu_mem_reserve_size(sizes[i], 0, 0, 0));
	}
}
