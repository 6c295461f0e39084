// SPDX-License-Identifier: GPL-2.0
/*
 * nvrm_fabric.c: NV_MEMORY_FABRIC's parameters in both layouts, and RM's checks of them.
 */
#include <string.h>

#include "tap.h"
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_fabric.h"

#define MiB (1ull << 20)

static void put32(unsigned char *p, unsigned int off, u32 v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void put64(unsigned char *p, unsigned int off, u64 v)
{
	memcpy(p + off, &v, sizeof(v));
}

TEST(fabric_params_are_40_bytes_in_525_and_48_from_535)
{
	struct nvrm_abi abi;
	struct nvrm_fabric_alloc f;
	unsigned char p[48] = { 0 };

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "580.142"), 0);
	EXPECT_EQ(nvrm_abi_alloc_params_size(&abi, NVRM_CLASS_NV_MEMORY_FABRIC), 48u);
	put64(p, 0, 2 * MiB);		/* alignment */
	put64(p, 8, 4 * MiB);		/* allocSize */
	put64(p, 16, 2 * MiB);		/* pageSize, NvU64 */
	put32(p, 24, 0x4);		/* allocFlags */
	put64(p, 32, 2 * MiB);		/* map.offset */
	put32(p, 40, 0xCAFE0001u);	/* map.hVidMem */
	put32(p, 44, 0x77);		/* map.flags */
	ASSERT_EQ_INT(nvrm_fabric_alloc_decode(&abi, p, 48, &f), 0);
	EXPECT_EQ(f.alignment, 2 * MiB);
	EXPECT_EQ(f.alloc_size, 4 * MiB);
	EXPECT_EQ(f.page_size, 2 * MiB);
	EXPECT_EQ(f.alloc_flags, 0x4u);
	EXPECT_EQ(f.map_offset, 2 * MiB);
	EXPECT_EQ(f.hvidmem, 0xCAFE0001u);
	EXPECT_EQ_INT(nvrm_fabric_alloc_decode(&abi, p, 40, &f), -EINVAL);

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "525.147.05"), 0);
	EXPECT_EQ(nvrm_abi_alloc_params_size(&abi, NVRM_CLASS_NV_MEMORY_FABRIC), 40u);
	memset(p, 0, sizeof(p));
	put32(p, 16, 2 * MiB);		/* pageSize, NvU32 */
	put32(p, 20, 0x4);		/* allocFlags */
	put64(p, 24, 4 * MiB);		/* map.offset */
	put32(p, 32, 0xCAFE0002u);	/* map.hVidMem */
	ASSERT_EQ_INT(nvrm_fabric_alloc_decode(&abi, p, 40, &f), 0);
	EXPECT_EQ(f.page_size, 2 * MiB);
	EXPECT_EQ(f.alloc_flags, 0x4u);
	EXPECT_EQ(f.map_offset, 4 * MiB);
	EXPECT_EQ(f.hvidmem, 0xCAFE0002u);
	EXPECT_EQ_INT(nvrm_fabric_alloc_decode(&abi, p, 48, &f), -EINVAL);
}

TEST(fabric_only_a_sticky_object_holds_memory)
{
	struct nvrm_fabric_alloc f = { .hvidmem = 0xCAFE0001u };

	EXPECT_TRUE(nvrm_fabric_holds_memory(&f));
	f.alloc_flags = NVRM_NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA;
	EXPECT_FALSE(nvrm_fabric_holds_memory(&f));
}

TEST(fabric_checks_come_in_rms_order)
{
	struct nvrm_abi abi, abi525, abi550, abi595;
	struct nvrm_fabric_alloc f = {
		.alignment = 2 * MiB, .alloc_size = 2 * MiB, .page_size = 2 * MiB, .hvidmem = 1,
	};

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "580.142"), 0);
	ASSERT_EQ_INT(nvrm_abi_init(&abi525, "525.147.05"), 0);
	ASSERT_EQ_INT(nvrm_abi_init(&abi550, "550.163.01"), 0);
	ASSERT_EQ_INT(nvrm_abi_init(&abi595, "595.45.04"), 0);
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_OK);
	f.page_size = 1 * MiB;
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_ERR_INVALID_ARGUMENT);
	f.page_size = 512 * MiB;	/* 2 MiB is not aligned to it */
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_ERR_INVALID_ARGUMENT);
	f.page_size = NVRM_NV00F8_PAGE_SIZE_256G;
	f.alignment = f.alloc_size = NVRM_NV00F8_PAGE_SIZE_256G;
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_OK);
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi550, &f, true), NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi595, &f, false), NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi595, &f, true), NVRM_OK);	/* Blackwell */
	f.page_size = f.alignment = f.alloc_size = 2 * MiB;
	f.alloc_flags = NVRM_NV00F8_ALLOC_FLAGS_READ_ONLY;
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_ERR_NOT_SUPPORTED);
	f.alloc_flags = NVRM_NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA;
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_ERR_NOT_SUPPORTED);	/* names memory */
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi525, &f, false), NVRM_ERR_INVALID_ARGUMENT);
	f.hvidmem = 0;
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi, &f, false), NVRM_OK);
	EXPECT_EQ(nvrm_fabric_alloc_check(&abi525, &f, false), NVRM_ERR_INVALID_ARGUMENT);
}

TEST(fabric_the_address_space_and_the_mapping_are_checked_after_the_memory)
{
	struct nvrm_fabric_alloc f = { .alloc_size = 2 * MiB, .page_size = 2 * MiB };

	EXPECT_EQ(nvrm_fabric_va_check(&f), NVRM_OK);
	f.alloc_flags = NVRM_NV00F8_ALLOC_FLAGS_FORCE_CONTIGUOUS |
			NVRM_NV00F8_ALLOC_FLAGS_FORCE_NONCONTIGUOUS;
	EXPECT_EQ(nvrm_fabric_va_check(&f), NVRM_ERR_INVALID_ARGUMENT);
	f.alloc_flags = 0;
	f.alloc_size = 0;
	EXPECT_EQ(nvrm_fabric_va_check(&f), NVRM_ERR_INVALID_ARGUMENT);

	f.alloc_size = 2 * MiB;
	EXPECT_EQ(nvrm_fabric_map_check(&f, 4 * MiB, 2 * MiB), NVRM_OK);
	f.map_offset = 2 * MiB;
	EXPECT_EQ(nvrm_fabric_map_check(&f, 4 * MiB, 2 * MiB), NVRM_OK);
	f.map_offset = 4 * MiB;		/* past the memory */
	EXPECT_EQ(nvrm_fabric_map_check(&f, 4 * MiB, 2 * MiB), NVRM_ERR_INVALID_OFFSET);
	f.map_offset = 1 * MiB;		/* not in whole pages of the memory */
	EXPECT_EQ(nvrm_fabric_map_check(&f, 4 * MiB, 2 * MiB), NVRM_ERR_INVALID_OFFSET);
	f.map_offset = 2 * MiB;
	f.alloc_size = 4 * MiB;		/* longer than what is left of it */
	EXPECT_EQ(nvrm_fabric_map_check(&f, 4 * MiB, 2 * MiB), NVRM_ERR_INVALID_ARGUMENT);
	f.map_offset = 0;
	f.alloc_size = 512 * MiB;	/* a 512 MiB object over 2 MiB of memory */
	EXPECT_EQ(nvrm_fabric_map_check(&f, 2 * MiB, 2 * MiB), NVRM_ERR_INVALID_ARGUMENT);
}
