// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder and the memory limiter against what the real driver saw: digests of rmtrace traces
 * recorded on an NVIDIA H200 (open kernel module and GSP firmware 580.159.04, CUDA 13.0 user
 * space; sessions 17 and 21), in tests/unit/c/fixtures/ (scripts/rmtrace_digest.py says how they are made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "nvrm/nvrm_decode.h"
#include "qgpu_mem_limit.h"

#ifndef QGPU_FIXTURES
#error "QGPU_FIXTURES must name tests/unit/c/fixtures"
#endif

static const char *const digests[] = {
	"nvidia-580-cuda-alloc.digest",
	"nvidia-580-torch.digest",
	"nvidia-580-smi-memory.digest",
	"nvidia-580-torch-expandable.digest",
	"nvidia-580-torch-async.digest",
	"nvidia-580-cuda-ipc.digest",
};

static FILE *open_digest(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", QGPU_FIXTURES, name);
	return fopen(path, "r");
}

/* Hex string to bytes; returns the byte count, or -1 on a bad string or overflow. */
static int unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (unsigned char)b;
	}
	return (int)(n / 2);
}

/*
 * Every memory allocation libcuda, PyTorch and nvidia-smi made: the decoder reads the class from
 * the NVOS64 bytes libcuda passed, tells video from system memory from the class parameters as
 * they were before the call, and the charge qgpu reserves for either kind is exactly the size
 * RM allocated: libcuda asks for video memory in 2 MiB chunks (a 4 KiB cuMemAlloc is one chunk,
 * 3 MiB two), and RM allocates system memory in whole 4 KiB pages at the default page size.
 */
TEST(real_580_memory_allocations_decode_and_are_charged_what_rm_allocated)
{
	struct nvrm_abi abi;
	unsigned int vidmem = 0, sysmem = 0, i;

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "580.159.04"), 0);
	for (i = 0; i < sizeof(digests) / sizeof(digests[0]); i++) {
		char line[8192], nvos_hex[256], in_hex[1024];
		unsigned char nvos[128], in[512];
		unsigned int hclass, size;
		unsigned long long rm_size;
		FILE *f = open_digest(digests[i]);

		ASSERT_NOT_NULL(f);
		while (fgets(line, sizeof(line), f)) {
			struct nvrm_mem_alloc m;
			struct nvrm_alloc a;

			if (strncmp(line, "alloc ", 6))
				continue;
			TAP_CASE("%s: %.60s", digests[i], line);
			if (!EXPECT_EQ(sscanf(line, "alloc %x %u %255s %1023s %llx", &hclass, &size,
					      nvos_hex, in_hex, &rm_size), 5))
				continue;
			if (!EXPECT_EQ_INT(unhex(nvos_hex, nvos, sizeof(nvos)), (int)size) ||
			    !EXPECT_GE(unhex(in_hex, in, sizeof(in)), abi.mem_alloc_params_size))
				continue;
			EXPECT_EQ_INT(nvrm_alloc_decode(&abi, nvos, size, &a), 0);
			EXPECT_EQ(a.hclass, hclass);
			EXPECT_TRUE(a.is_nvos64);
			EXPECT_EQ_INT(nvrm_mem_alloc_decode(&abi, in, abi.mem_alloc_params_size, &m), 0);
			if (hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER) {
				vidmem++;
				EXPECT_TRUE(m.is_vidmem);
				EXPECT_EQ(qgpu_mem_reserve_size(m.size, m.attr, m.flags, m.alignment), rm_size);
			} else {
				sysmem++;
				EXPECT_FALSE(m.is_vidmem);
				/* whole 4 KiB pages, as RM allocated them (6 202 384 B: 6 205 440) */
				EXPECT_EQ(qgpu_sysmem_reserve_size(m.size), rm_size);
			}
		}
		fclose(f);
	}
	/* the traces hold both kinds: the test cannot pass on an empty or misread digest */
	EXPECT_GE(vidmem, 10);
	EXPECT_GE(sysmem, 10);
}

/*
 * cuMemGetInfo asks FB_GET_INFO_V2 for HEAP_FREE, HEAP_SIZE and FB_TAX; nvidia-smi's memory query
 * for HEAP_FREE, TOTAL_RAM_SIZE and HEAP_SIZE. Every index of those calls is one qgpu answers
 * with the instance's limit and use.
 */
TEST(real_580_memory_queries_ask_only_for_indices_qgpu_virtualises)
{
	unsigned int lists = 0, i;

	for (i = 0; i < sizeof(digests) / sizeof(digests[0]); i++) {
		char line[1024];
		FILE *f = open_digest(digests[i]);

		ASSERT_NOT_NULL(f);
		while (fgets(line, sizeof(line), f)) {
			unsigned int idx[64], n = 0, k;
			bool asks_free = false;
			char *tok;

			if (strncmp(line, "fbinfo ", 7))
				continue;
			strtok(line, " \n");	/* "fbinfo" */
			strtok(NULL, " \n");	/* the control */
			while ((tok = strtok(NULL, " \n")) && n < 64)
				idx[n++] = (unsigned int)strtoul(tok, NULL, 16);
			for (k = 0; k < n; k++)
				asks_free |= idx[k] == NVRM_FB_INFO_INDEX_HEAP_FREE;
			if (!asks_free)
				continue;	/* not a memory query: bus width, ECC and the like */
			lists++;
			TAP_CASE("%s: fbinfo list %u", digests[i], lists);
			for (k = 0; k < n; k++) {
				u32 data = 0;

				EXPECT_TRUE(qgpu_mem_fb_index_view(idx[k], 4ULL << 30, 1ULL << 30, &data));
			}
		}
		fclose(f);
	}
	EXPECT_GE(lists, 3);
}

/*
 * A CUDA 13.0 context (tests/unit/c/fixtures/nvidia-580-cuda-spin.digest, session 37): libcuda
 * sets its graphics group's compute preemption to CILP, naming the group, and its timeslice to
 * 2048 us. The first is a SET qgpu lets through (nvrm_compute_preemption_refused()); the second
 * is one qgpu follows with the GPU's own timeslice (qgpu_sched.c).
 */
TEST(real_580_cuda_sets_cilp_and_a_timeslice_on_its_graphics_group)
{
	unsigned int sets = 0, timeslices = 0;
	char line[1024];
	FILE *f = open_digest("nvidia-580-cuda-spin.digest");

	ASSERT_NOT_NULL(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned char p[64];
		unsigned int cmd;
		char hex[256];
		u32 flags, cilp;
		u64 us;

		if (sscanf(line, "control %x %255s", &cmd, hex) != 2)
			continue;
		TAP_CASE("control %08x %s", cmd, hex);
		if (cmd == NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE) {
			ASSERT_EQ_INT(unhex(hex, p, sizeof(p)), 32);
			memcpy(&flags, p, sizeof(flags));
			memcpy(&cilp, p + 12, sizeof(cilp));
			EXPECT_EQ(flags, NVRM_GR_PREEMPTION_FLAGS_CILP_SET);
			EXPECT_EQ(cilp, NVRM_GR_COMPUTE_PREEMPT_CILP);
			EXPECT_FALSE(nvrm_compute_preemption_refused(cmd, flags, cilp));
			sets++;
		} else if (cmd == NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE) {
			ASSERT_EQ_INT(unhex(hex, p, sizeof(p)), 8);
			memcpy(&us, p, sizeof(us));
			EXPECT_EQ(us, 2048);
			timeslices++;
		}
	}
	fclose(f);
	EXPECT_EQ(sets, 1);
	EXPECT_EQ(timeslices, 1);
}
