// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/qgpu_mem_limit.c: what fits under a limit, reservation rounding, limit sums without
 * overcommit, the mem_max syntax, and the framebuffer values an instance is shown.
 */
#include "tap.h"
#include "nvrm/nvrm_abi.h"
#include "qgpu_create_parse.h"
#include "qgpu_mem_limit.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

TEST(mem_fits_exactly_at_the_limit_not_one_page_over)
{
	EXPECT_TRUE(qgpu_mem_fits(0, 4 * GIB, 4 * GIB));
	EXPECT_TRUE(qgpu_mem_fits(4 * GIB - 4096, 4 * GIB, 4096));
	EXPECT_FALSE(qgpu_mem_fits(4 * GIB - 4096, 4 * GIB, 8192));
	EXPECT_FALSE(qgpu_mem_fits(0, 4 * GIB, 4 * GIB + 4096));
	EXPECT_FALSE(qgpu_mem_fits(4 * GIB, 4 * GIB, 1));
	EXPECT_TRUE(qgpu_mem_fits(4 * GIB, 4 * GIB, 0));
	/* used above max (mem_max lowered by force in the past, or a charge forced past it) */
	EXPECT_FALSE(qgpu_mem_fits(5 * GIB, 4 * GIB, 0));
	/* no wrap-around */
	EXPECT_FALSE(qgpu_mem_fits(1, 4 * GIB, ~0ULL));
}

TEST(mem_fits_unlimited)
{
	EXPECT_TRUE(qgpu_mem_fits(0, 0, ~0ULL));
	EXPECT_TRUE(qgpu_mem_fits(~0ULL, 0, 1));
}

TEST(mem_reserve_rounds_to_the_page_size_attr_asks_for)
{
	u32 small = NVRM_ATTR_PAGE_SIZE_4KB << NVRM_ATTR_PAGE_SIZE_SHIFT;
	u32 huge = NVRM_ATTR_PAGE_SIZE_HUGE << NVRM_ATTR_PAGE_SIZE_SHIFT;
	u32 big = NVRM_ATTR_PAGE_SIZE_BIG << NVRM_ATTR_PAGE_SIZE_SHIFT;

	EXPECT_EQ(qgpu_mem_reserve_size(1, small, 0, 0), 4096);
	EXPECT_EQ(qgpu_mem_reserve_size(4096, small, 0, 0), 4096);
	EXPECT_EQ(qgpu_mem_reserve_size(4097, small, 0, 0), 8192);
	EXPECT_EQ(qgpu_mem_reserve_size(1, 0, 0, 0), 64 * KIB);
	EXPECT_EQ(qgpu_mem_reserve_size(64 * KIB + 1, big, 0, 0), 128 * KIB);
	EXPECT_EQ(qgpu_mem_reserve_size(1, huge, 0, 0), 2 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(0, 0, 0, 0), 0);
	EXPECT_EQ(qgpu_mem_reserve_size(~0ULL, small, 0, 0), 0);	/* overflow: refuse */
	EXPECT_EQ(qgpu_mem_reserve_size(~0ULL - 4095, small, 0, 0), ~0ULL - 4095);
	/* a forced alignment above the page size rounds too; a hint or a bad alignment does not */
	EXPECT_EQ(qgpu_mem_reserve_size(3 * MIB, 0, NVRM_ALLOC_FLAGS_ALIGNMENT_FORCE, 2 * MIB),
		  4 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(3 * MIB, big, 0, 2 * MIB), 3 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(3 * MIB, big, NVRM_ALLOC_FLAGS_ALIGNMENT_FORCE, 3 * MIB),
		  3 * MIB);
	/* the default page size is 2 MiB from 2 MiB on: an H200 took 4 MiB for 3 MiB (session 34) */
	EXPECT_EQ(qgpu_mem_reserve_size(3 * MIB, 0, 0, 2 * MIB), 4 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(2 * MIB, 0, 0, 0), 2 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(2 * MIB + 1, 0, 0, 0), 4 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(2 * MIB - 1, 0, 0, 0), 2 * MIB);
	EXPECT_EQ(qgpu_mem_reserve_size(MIB + 1, 0, 0, 0), MIB + 64 * KIB);
	EXPECT_EQ(qgpu_mem_reserve_size(5000, small, NVRM_ALLOC_FLAGS_ALIGNMENT_FORCE, 1024), 8192);
}

/* System memory: whole 4 KiB pages, the least RM allocates; 0 and overflow are refused. */
TEST(sysmem_reserve_is_whole_pages)
{
	EXPECT_EQ(qgpu_sysmem_reserve_size(1), 4096);
	EXPECT_EQ(qgpu_sysmem_reserve_size(4096), 4096);
	EXPECT_EQ(qgpu_sysmem_reserve_size(6202384), 6205440);
	EXPECT_EQ(qgpu_sysmem_reserve_size(0), 0);
	EXPECT_EQ(qgpu_sysmem_reserve_size(~0ULL), 0);
}

TEST(mem_sum_of_limits_without_overcommit)
{
	EXPECT_EQ(qgpu_mem_effective_max(0, 16 * GIB), 16 * GIB);
	EXPECT_EQ(qgpu_mem_effective_max(4 * GIB, 16 * GIB), 4 * GIB);
	EXPECT_EQ(qgpu_mem_effective_max(32 * GIB, 16 * GIB), 16 * GIB);
	EXPECT_TRUE(qgpu_mem_sum_fits(0, 0, 16 * GIB));		/* one "max" instance */
	EXPECT_FALSE(qgpu_mem_sum_fits(16 * GIB, 0, 16 * GIB));	/* a second */
	EXPECT_FALSE(qgpu_mem_sum_fits(16 * GIB, 1, 16 * GIB));
	EXPECT_TRUE(qgpu_mem_sum_fits(12 * GIB, 4 * GIB, 16 * GIB));
	EXPECT_FALSE(qgpu_mem_sum_fits(12 * GIB, 4 * GIB + 1, 16 * GIB));
	EXPECT_FALSE(qgpu_mem_sum_fits(17 * GIB, 1, 16 * GIB));	/* overcommitted before */
	EXPECT_FALSE(qgpu_mem_sum_fits(0, 17 * GIB, 16 * GIB));	/* above the GPU counts in full */
	EXPECT_EQ(qgpu_mem_committed(0, 16 * GIB), 16 * GIB);
	EXPECT_EQ(qgpu_mem_committed(17 * GIB, 16 * GIB), 17 * GIB);
}

static int parse(const char *s, u64 *out)
{
	return qgpu_mem_parse_max(s, strlen(s), out);
}

TEST(mem_max_syntax)
{
	u64 v = 1;

	ASSERT_EQ_INT(parse("max\n", &v), 0);
	EXPECT_EQ(v, 0);
	ASSERT_EQ_INT(parse("4G\n", &v), 0);
	EXPECT_EQ(v, 4 * GIB);
	ASSERT_EQ_INT(parse("512m", &v), 0);
	EXPECT_EQ(v, 512 * MIB);
	ASSERT_EQ_INT(parse("1T", &v), 0);
	EXPECT_EQ(v, 1024 * GIB);
	ASSERT_EQ_INT(parse("4096", &v), 0);
	EXPECT_EQ(v, 4096);
	ASSERT_EQ_INT(parse("1k", &v), 0);
	EXPECT_EQ(v, KIB);
	EXPECT_EQ_INT(parse("", &v), -EINVAL);
	EXPECT_EQ_INT(parse("\n", &v), -EINVAL);
	EXPECT_EQ_INT(parse("0", &v), -EINVAL);
	EXPECT_EQ_INT(parse("4G\n\n", &v), -EINVAL);
	EXPECT_EQ_INT(parse("-1", &v), -EINVAL);
	EXPECT_EQ_INT(parse("1.5G", &v), -EINVAL);
	EXPECT_EQ_INT(parse("0x10", &v), -EINVAL);
	EXPECT_EQ_INT(parse("MAX", &v), -EINVAL);
	EXPECT_EQ_INT(parse("99999999999999999999", &v), -EINVAL);
}

TEST(mem_view_free_is_the_smaller_of_limit_left_and_real_free)
{
	EXPECT_EQ(qgpu_mem_view_free(4 * GIB, 1 * GIB, 16 * GIB, 10 * GIB), 3 * GIB);
	EXPECT_EQ(qgpu_mem_view_free(4 * GIB, 1 * GIB, 16 * GIB, 2 * GIB), 2 * GIB);
	EXPECT_EQ(qgpu_mem_view_free(4 * GIB, 5 * GIB, 16 * GIB, 10 * GIB), 0);
	EXPECT_EQ(qgpu_mem_view_free(0, 1 * GIB, 16 * GIB, 15 * GIB), 15 * GIB);
}

TEST(mem_fb_indices_an_instance_sees)
{
	u32 d;

	d = 16 * 1024 * 1024;
	EXPECT_TRUE(qgpu_mem_fb_index_view(NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE, 4 * GIB, GIB, &d));
	EXPECT_EQ(d, 4 * 1024 * 1024);
	d = 7;
	EXPECT_TRUE(qgpu_mem_fb_index_view(NVRM_FB_INFO_INDEX_HEAP_FREE, 4 * GIB, GIB, &d));
	EXPECT_EQ(d, 1024 * 1024);
	d = 256 * 1024;	/* BAR1 smaller than the limit stays */
	EXPECT_TRUE(qgpu_mem_fb_index_view(NVRM_FB_INFO_INDEX_BAR1_SIZE, 4 * GIB, GIB, &d));
	EXPECT_EQ(d, 256 * 1024);
	d = 99;
	EXPECT_TRUE(qgpu_mem_fb_index_view(NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB, 4 * GIB, GIB, &d));
	EXPECT_EQ(d, 0);
	d = 42;
	EXPECT_FALSE(qgpu_mem_fb_index_view(NVRM_FB_INFO_INDEX_HEAP_BASE_KB, 4 * GIB, GIB, &d));
	EXPECT_EQ(d, 42);
}

/* What a mapping counts against mapped_max: the 2 MiB regions it touches. */
TEST(mapped_units)
{
	const u64 mib = 1ULL << 20;

	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL, 0), 0);
	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL, 1), 1);
	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL, 2 * mib), 1);
	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL, 2 * mib + 1), 2);
	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL + 2 * mib - 4096, 8192), 2);
	EXPECT_EQ(qgpu_mapped_units(0x100000000ULL + mib, 2 * mib), 2);
	EXPECT_EQ(qgpu_mapped_units(0, 1ULL << 30), 512);
	EXPECT_EQ(qgpu_mapped_units(~0ULL - 4095, 4096), 1);
	EXPECT_EQ(qgpu_mapped_units(~0ULL - 4095, 8192), ~0ULL);
	/* the most any placement touches bounds every placement */
	EXPECT_EQ(qgpu_mapped_units_most(0), 0);
	EXPECT_EQ(qgpu_mapped_units_most(1), 1);
	EXPECT_EQ(qgpu_mapped_units_most(4096), 2);
	EXPECT_EQ(qgpu_mapped_units_most(2 * mib), 2);
	EXPECT_EQ(qgpu_mapped_units_most(2 * mib + 1), 2);
	EXPECT_EQ(qgpu_mapped_units_most(2 * mib + 2), 3);
	EXPECT_EQ(qgpu_mapped_units_most(1ULL << 30), 513);
	EXPECT_EQ(qgpu_mapped_units_most(~0ULL), ~0ULL);
	EXPECT_TRUE(qgpu_mapped_units_most(4096) >= qgpu_mapped_units(2 * mib - 4096, 4096));
	EXPECT_TRUE(qgpu_mapped_units_most(3 * mib) >= qgpu_mapped_units(mib + 4096, 3 * mib));
}

/* A virtual range RM maps up front counts its span; a lazy or externally managed one nothing. */
TEST(mapped_virtual_units)
{
	const u64 mib = 1ULL << 20;

	EXPECT_EQ(qgpu_mapped_virtual_units(0, 4 * mib), 3);
	EXPECT_EQ(qgpu_mapped_virtual_units(NVRM_ALLOC_FLAGS_VIRTUAL, 4 * mib), 3);
	EXPECT_EQ(qgpu_mapped_virtual_units(NVRM_ALLOC_FLAGS_LAZY, 4 * mib), 0);
	EXPECT_EQ(qgpu_mapped_virtual_units(NVRM_ALLOC_FLAGS_EXTERNALLY_MANAGED, 1ULL << 40), 0);
	EXPECT_EQ(qgpu_mapped_virtual_units(0, 0), 0);
	EXPECT_EQ(qgpu_mapped_virtual_units(0, 1ULL << 30), 513);
	/* more than any GPU's address space: one past the limit, never a wrapped count */
	EXPECT_EQ(qgpu_mapped_virtual_units(0, ~0ULL), (u64)QGPU_MAPPED_UNITS_LIMIT + 1);
}
