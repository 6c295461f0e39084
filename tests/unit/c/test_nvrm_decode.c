// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/nvrm/nvrm_decode.c: version profiles, RM_ALLOC decode for both NVOS21 layouts and NVOS64,
 * vidmem classification, XFER validation, control decode and names. Expected per-version numbers
 * come from nvidia-rm-abi.md section 8 and our measurements of NVIDIA's headers at each tag.
 */
#include "tap.h"
#include "nvrm/nvrm_decode.h"

/* ------------------------------------------------------------------------------------------ */

struct bad_version_row {
	const char *s;
	bool parses;	/* nvrm_parse_version() accepts it (but the version may be unsupported) */
};

TEST(version_rejects_bad_strings)
{
	static const struct bad_version_row rows[] = {
		{ "", false },
		{ "abc", false },
		{ "535", false },
		{ "535.", false },
		{ "535.x", false },
		{ "x.535", false },
		{ ".535.1", false },
		{ "535..1", false },
		{ "535.104.05.1", false },
		{ "535.104.05x", false },
		{ " 535.104.05", false },
		{ "-535.104", false },
		{ "535.1000", false },
		{ "53500.1", false },
		{ "9999.1", true },
		{ "540.1.1", true },
		{ "585.12", true },
		{ "520.61.05", true },
		{ "600.1.1", true },
	};
	struct nvrm_version v;
	struct nvrm_abi abi;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("\"%s\"", rows[i].s);
		EXPECT_NULL(nvrm_abi_lookup(rows[i].s));
		EXPECT_EQ_INT(nvrm_parse_version(rows[i].s, &v), rows[i].parses ? 0 : -EINVAL);
		EXPECT_EQ_INT(nvrm_abi_init(&abi, rows[i].s), rows[i].parses ? -EOPNOTSUPP : -EINVAL);
	}
	TAP_CASE("NULL");
	EXPECT_NULL(nvrm_abi_lookup(NULL));
	EXPECT_EQ_INT(nvrm_parse_version(NULL, &v), -EINVAL);
}

TEST(version_parse)
{
	struct nvrm_version v;

	ASSERT_EQ_INT(nvrm_parse_version("535.104.05", &v), 0);
	EXPECT_EQ(v.major, 535);
	EXPECT_EQ(v.minor, 104);
	EXPECT_EQ(v.patch, 5);
	ASSERT_EQ_INT(nvrm_parse_version("580.142", &v), 0);
	EXPECT_EQ(v.major, 580);
	EXPECT_EQ(v.minor, 142);
	EXPECT_EQ(v.patch, 0);
	ASSERT_EQ_INT(nvrm_parse_version("580.65.06\n", &v), 0);
	EXPECT_EQ(v.patch, 6);
}

struct profile_row {
	const char *version;
	const char *family;
	u32 nvos21_status_off;
	u32 nvos64_size;
	u32 mem_alloc;
	u32 channel_alloc;
	u32 vaspace_alloc;
	u32 fb_max;
	u32 fb_v2;
	u32 nvos46;
	u32 nvos47;
	bool wait_open;
	u32 gpfifo_schedule;
	u32 name_string;
	u32 uvm_map_ext;
};

/* One row per branch, and the tags that sit on either side of an intra-branch change. */
TEST(version_lookup_profiles)
{
	static const struct profile_row rows[] = {
		{ "525.60.13", "525", 24, 40, 120, 304, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "525.147.05", "525", 24, 40, 120, 304, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "530.41.03", "530", 24, 40, 120, 304, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "535.43.02", "535-early", 28, 48, 120, 304, 48, 0x36, 436, 56, 40, false, 2, 132,
		  1200 },
		{ "535.43.08", "535", 28, 48, 120, 360, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "535.54.03", "535-early", 28, 48, 120, 304, 48, 0x36, 436, 56, 40, false, 2, 132,
		  1200 },
		{ "535.86.05", "535", 28, 48, 120, 360, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "535.104.05", "535", 28, 48, 120, 360, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "535.288.01", "535", 28, 48, 120, 360, 48, 0x36, 436, 56, 40, false, 2, 132, 1200 },
		{ "545.23.06", "545", 28, 48, 128, 360, 48, 0x37, 444, 56, 40, false, 2, 132, 1200 },
		{ "550.40.07", "550-early", 28, 48, 128, 360, 48, 0x37, 444, 56, 48, true, 2, 132,
		  1200 },
		{ "550.40.53", "550-555", 28, 48, 128, 360, 48, 0x37, 444, 56, 48, true, 2, 132,
		  9264 },
		{ "550.54.14", "550-555", 28, 48, 128, 360, 48, 0x37, 444, 56, 48, true, 2, 132,
		  9264 },
		{ "555.42.02", "550-555", 28, 48, 128, 360, 48, 0x37, 444, 56, 48, true, 2, 132,
		  9264 },
		{ "560.28.03", "560-565", 28, 48, 128, 360, 48, 0x39, 460, 56, 48, true, 2, 132,
		  9264 },
		{ "565.57.01", "560-565", 28, 48, 128, 360, 48, 0x39, 460, 56, 48, true, 2, 132,
		  9264 },
		{ "570.86.15", "570", 28, 48, 128, 368, 48, 0x39, 460, 56, 48, true, 2, 132, 9264 },
		{ "575.51.02", "575", 28, 48, 128, 368, 48, 0x39, 460, 56, 48, true, 3, 132, 9264 },
		{ "580.65.06", "580-590", 28, 48, 128, 368, 56, 0x80, 1028, 64, 48, true, 3, 132,
		  9264 },
		{ "580.142", "580-590", 28, 48, 128, 368, 56, 0x80, 1028, 64, 48, true, 3, 132,
		  9264 },
		{ "590.44.01", "580-590", 28, 48, 128, 368, 56, 0x80, 1028, 64, 48, true, 3, 132,
		  9264 },
		{ "595.45.04", "595", 28, 48, 128, 368, 56, 0x80, 1028, 64, 48, true, 3, 68, 9264 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct profile_row *r = &rows[i];
		const struct nvrm_abi *abi;

		TAP_CASE("%s -> %s", r->version, r->family);
		abi = nvrm_abi_lookup(r->version);
		ASSERT_NOT_NULL(abi);
		EXPECT_STREQ(abi->family, r->family);
		EXPECT_EQ(abi->nvos21_status_off, r->nvos21_status_off);
		EXPECT_EQ(abi->nvos21_has_params_size, r->nvos21_status_off == 28);
		EXPECT_EQ(abi->nvos64_size, r->nvos64_size);
		EXPECT_EQ(abi->nvos64_status_off, r->nvos64_size - 8 + (r->nvos64_size == 40 ? 4 : 0));
		EXPECT_EQ(abi->mem_alloc_params_size, r->mem_alloc);
		EXPECT_EQ(abi->channel_alloc_params_size, r->channel_alloc);
		EXPECT_EQ(abi->vaspace_alloc_params_size, r->vaspace_alloc);
		EXPECT_EQ(abi->fb_info_max_list_size, r->fb_max);
		EXPECT_EQ(abi->fb_get_info_v2_size, r->fb_v2);
		EXPECT_EQ(abi->nvos46_size, r->nvos46);
		EXPECT_EQ(abi->nvos47_size, r->nvos47);
		EXPECT_EQ(abi->has_wait_open_complete, r->wait_open);
		EXPECT_EQ(abi->gpfifo_schedule_size, r->gpfifo_schedule);
		EXPECT_EQ(abi->gpu_name_string_size, r->name_string);
		EXPECT_EQ(abi->uvm_map_external_allocation_size, r->uvm_map_ext);
		EXPECT_EQ(abi->version[0], '\0');
	}
}

TEST(version_abi_init_copies_version)
{
	struct nvrm_abi abi;
	char long_version[80];

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "580.65.06\n"), 0);
	EXPECT_STREQ(abi.version, "580.65.06");
	EXPECT_STREQ(abi.family, "580-590");
	EXPECT_EQ(abi.vaspace_alloc_params_size, 56);

	ASSERT_EQ_INT(nvrm_abi_init(&abi, "535.104.05"), 0);
	EXPECT_STREQ(abi.version, "535.104.05");
	EXPECT_EQ(abi.channel_alloc_params_size, 360);

	memset(long_version, ' ', sizeof(long_version));
	memcpy(long_version, "535.1", 5);
	long_version[sizeof(long_version) - 1] = '\0';
	EXPECT_EQ_INT(nvrm_abi_init(&abi, long_version), 0);	/* trailing blanks are trimmed */
	EXPECT_STREQ(abi.version, "535.1");
	EXPECT_EQ_INT(nvrm_abi_init(NULL, "535.1"), -EINVAL);
}

/* ------------------------------------------------------------------------------------------ */

struct class_size_row {
	u32 hclass;
	u32 v535;
	u32 v580;
	u32 v550;
};

TEST(alloc_params_size_by_class)
{
	static const struct class_size_row rows[] = {
		{ NVRM_CLASS_NV01_ROOT_CLIENT, 4, 4, 4 },
		{ NVRM_CLASS_NV01_ROOT, 4, 4, 4 },
		{ NVRM_CLASS_NV01_DEVICE_0, 56, 56, 56 },
		{ NVRM_CLASS_NV20_SUBDEVICE_0, 4, 4, 4 },
		{ NVRM_CLASS_NV01_EVENT_OS_EVENT, 24, 24, 24 },
		{ NVRM_CLASS_NV01_MEMORY_LOCAL_USER, 120, 128, 128 },
		{ NVRM_CLASS_NV01_MEMORY_SYSTEM, 120, 128, 128 },
		{ NVRM_CLASS_NV50_MEMORY_VIRTUAL, 120, 128, 128 },
		{ NVRM_CLASS_NV01_MEMORY_DEVICELESS, 120, 128, 128 },
		{ NVRM_CLASS_NV01_MEMORY_VIRTUAL, 24, 24, 24 },
		{ NVRM_CLASS_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, 40, 40, 40 },
		{ NVRM_CLASS_NV01_MEMORY_LOCAL_PHYSICAL, 24, 24, 24 },
		{ NVRM_CLASS_NV01_MEMORY_LOCAL_PRIVILEGED, 0, 0, 0 },
		{ NVRM_CLASS_NV_MEMORY_FABRIC, 48, 48, 48 },
		{ NVRM_CLASS_FERMI_VASPACE_A, 48, 56, 48 },
		{ NVRM_CLASS_KEPLER_CHANNEL_GROUP_A, 20, 20, 20 },
		{ NVRM_CLASS_FERMI_CONTEXT_SHARE_A, 12, 12, 12 },
		{ NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A, 360, 368, 360 },
		{ NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A, 360, 368, 360 },
		{ NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_A, 0, 368, 0 },
		{ NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_B, 0, 368, 0 },
		{ NVRM_CLASS_HOPPER_COMPUTE_A, 16, 16, 16 },
		{ NVRM_CLASS_BLACKWELL_COMPUTE_B, 0, 16, 0 },
		{ NVRM_CLASS_HOPPER_DMA_COPY_A, 8, 8, 8 },
		{ NVRM_CLASS_AMPERE_USERMODE_A, 0, 0, 0 },
		{ NVRM_CLASS_HOPPER_USERMODE_A, 2, 2, 2 },
		{ NVRM_CLASS_BLACKWELL_USERMODE_A, 0, 2, 0 },
		{ 0x1234, 0, 0, 0 },
	};
	const struct nvrm_abi *a535 = nvrm_abi_lookup("535.104.05");
	const struct nvrm_abi *a550 = nvrm_abi_lookup("550.54.14");
	const struct nvrm_abi *a580 = nvrm_abi_lookup("580.65.06");
	size_t i;

	ASSERT_NOT_NULL(a535);
	ASSERT_NOT_NULL(a550);
	ASSERT_NOT_NULL(a580);
	EXPECT_EQ(nvrm_abi_alloc_params_size(NULL, NVRM_CLASS_NV01_MEMORY_LOCAL_USER), 0);
	EXPECT_EQ(nvrm_abi_alloc_params_size(nvrm_abi_lookup("525.60.13"),
					     NVRM_CLASS_NV01_MEMORY_LOCAL_PHYSICAL), 16);
	EXPECT_EQ(nvrm_abi_alloc_params_size(nvrm_abi_lookup("530.41.03"),
					     NVRM_CLASS_NV_MEMORY_FABRIC), 40);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("class 0x%04X", rows[i].hclass);
		EXPECT_EQ(nvrm_abi_alloc_params_size(a535, rows[i].hclass), rows[i].v535);
		EXPECT_EQ(nvrm_abi_alloc_params_size(a550, rows[i].hclass), rows[i].v550);
		EXPECT_EQ(nvrm_abi_alloc_params_size(a580, rows[i].hclass), rows[i].v580);
	}
}

TEST(ioctl_nr_size_and_names)
{
	EXPECT_EQ(nvrm_ioctl_nr(0xC030462Bu), NVRM_ESC_RM_ALLOC);
	EXPECT_EQ(nvrm_ioctl_size(0xC030462Bu), 48);
	EXPECT_EQ(nvrm_ioctl_nr(0xC020462Bu), NVRM_ESC_RM_ALLOC);
	EXPECT_EQ(nvrm_ioctl_size(0xC020462Bu), 32);
	EXPECT_EQ(nvrm_ioctl_nr(0xCA3046D9u), NVRM_ESC_EXPORT_TO_DMABUF_FD);
	EXPECT_EQ(nvrm_ioctl_size(0xCA3046D9u), 2608);
	/* the driver ignores type and direction: a bare _IO-style number still decodes */
	EXPECT_EQ(nvrm_ioctl_nr(0x0000462Au), NVRM_ESC_RM_CONTROL);
	EXPECT_EQ(nvrm_ioctl_size(0x0000462Au), 0);

	EXPECT_STREQ(nvrm_ioctl_name(NVRM_ESC_RM_ALLOC), "RM_ALLOC");
	EXPECT_STREQ(nvrm_ioctl_name(NVRM_ESC_RM_CONTROL), "RM_CONTROL");
	EXPECT_STREQ(nvrm_ioctl_name(NVRM_ESC_CARD_INFO), "CARD_INFO");
	EXPECT_STREQ(nvrm_ioctl_name(NVRM_ESC_WAIT_OPEN_COMPLETE), "WAIT_OPEN_COMPLETE");
	EXPECT_STREQ(nvrm_ioctl_name(0x99), "UNKNOWN");

	EXPECT_EQ(nvrm_escape_flags(NVRM_ESC_RM_ALLOC_MEMORY) & NVRM_ESCF_GPU_ONLY,
		  NVRM_ESCF_GPU_ONLY);
	EXPECT_EQ(nvrm_escape_flags(NVRM_ESC_RM_CONTROL) & NVRM_ESCF_CTL_ONLY, NVRM_ESCF_CTL_ONLY);
	EXPECT_EQ(nvrm_escape_flags(NVRM_ESC_CARD_INFO) & NVRM_ESCF_ARRAY, NVRM_ESCF_ARRAY);
	EXPECT_EQ(nvrm_escape_flags(NVRM_ESC_REGISTER_FD) & NVRM_ESCF_FD_ARG, NVRM_ESCF_FD_ARG);
	EXPECT_EQ(nvrm_escape_flags(NVRM_ESC_RM_MAP_MEMORY) & NVRM_ESCF_FD_ARG, NVRM_ESCF_FD_ARG);
	EXPECT_EQ(nvrm_escape_flags(0x99), 0);
}

TEST(escape_sizes_by_version)
{
	const struct nvrm_abi *a525 = nvrm_abi_lookup("525.60.13");
	const struct nvrm_abi *a545 = nvrm_abi_lookup("545.23.06");
	const struct nvrm_abi *a550 = nvrm_abi_lookup("550.54.14");
	const struct nvrm_abi *a580 = nvrm_abi_lookup("580.65.06");

	ASSERT_NOT_NULL(a525);
	ASSERT_NOT_NULL(a545);
	ASSERT_NOT_NULL(a550);
	ASSERT_NOT_NULL(a580);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_CONTROL), 32);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_FREE), 16);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_VID_HEAP_CONTROL), 184);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_MAP_MEMORY), 56);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_ALLOC_MEMORY), 56);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_CHECK_VERSION_STR), 72);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_IOCTL_XFER_CMD), 16);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_ALLOC), 0);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_CARD_INFO), 0);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_MAP_MEMORY_DMA), 56);
	EXPECT_EQ(nvrm_abi_escape_size(a580, NVRM_ESC_RM_MAP_MEMORY_DMA), 64);
	EXPECT_EQ(nvrm_abi_escape_size(a545, NVRM_ESC_RM_UNMAP_MEMORY_DMA), 40);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_RM_UNMAP_MEMORY_DMA), 48);
	EXPECT_EQ(nvrm_abi_escape_size(a545, NVRM_ESC_WAIT_OPEN_COMPLETE), 0);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_WAIT_OPEN_COMPLETE), 8);
	EXPECT_EQ(nvrm_abi_escape_size(a525, NVRM_ESC_NUMA_INFO), 552);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_NUMA_INFO), 560);
	EXPECT_EQ(nvrm_abi_escape_size(a550, NVRM_ESC_EXPORT_TO_DMABUF_FD), 2600);
	EXPECT_EQ(nvrm_abi_escape_size(a580, NVRM_ESC_EXPORT_TO_DMABUF_FD), 2608);
	EXPECT_EQ(nvrm_abi_escape_size(NULL, NVRM_ESC_RM_CONTROL), 0);
}

/* ------------------------------------------------------------------------------------------ */

TEST(alloc_decode_nvos21_v535)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("535.104.05");
	struct nvrm_nvos21_v535 p = {
		.hroot = 0xC1D00001, .hobject_parent = 0xC1D00002, .hobject_new = 0,
		.hclass = NVRM_CLASS_NV01_MEMORY_LOCAL_USER, .palloc_parms = 0x7FFF12345678ull,
		.params_size = 128, .status = 0xAAAA,
	};
	struct nvrm_alloc a;

	ASSERT_NOT_NULL(abi);
	ASSERT_EQ_INT(nvrm_alloc_decode(abi, &p, sizeof(p), &a), 0);
	EXPECT_EQ(a.hroot, 0xC1D00001);
	EXPECT_EQ(a.hparent, 0xC1D00002);
	EXPECT_EQ(a.hnew, 0);
	EXPECT_EQ(a.hclass, 0x40);
	EXPECT_EQ(a.params_ptr, 0x7FFF12345678ull);
	EXPECT_EQ(a.params_size, 128);
	EXPECT_EQ(a.status, 0xAAAA);
	EXPECT_EQ(a.flags, 0);
	EXPECT_FALSE(a.is_nvos64);

	EXPECT_EQ_INT(nvrm_alloc_set_status(abi, &p, sizeof(p), NVRM_ERR_NO_MEMORY), 0);
	EXPECT_EQ(p.status, NVRM_ERR_NO_MEMORY);
	EXPECT_EQ(p.params_size, 128);
	EXPECT_EQ_INT(nvrm_alloc_set_hnew(abi, &p, sizeof(p), 0xCAFE0001), 0);
	EXPECT_EQ(p.hobject_new, 0xCAFE0001);
}

TEST(alloc_decode_nvos21_v525)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("525.60.13");
	struct nvrm_nvos21_v525 p = {
		.hroot = 1, .hobject_parent = 2, .hobject_new = 3, .hclass = 0x80,
		.palloc_parms = 0x1000, .status = 0x55,
	};
	struct nvrm_alloc a;

	ASSERT_NOT_NULL(abi);
	ASSERT_EQ_INT(nvrm_alloc_decode(abi, &p, sizeof(p), &a), 0);
	EXPECT_EQ(a.hnew, 3);
	EXPECT_EQ(a.hclass, 0x80);
	EXPECT_EQ(a.params_ptr, 0x1000);
	EXPECT_EQ(a.params_size, 0);
	EXPECT_EQ(a.status, 0x55);
	EXPECT_FALSE(a.is_nvos64);
	EXPECT_EQ_INT(nvrm_alloc_set_status(abi, &p, sizeof(p), NVRM_ERR_INVALID_CLASS), 0);
	EXPECT_EQ(p.status, NVRM_ERR_INVALID_CLASS);
	EXPECT_EQ(p._pad0, 0);
}

TEST(alloc_decode_nvos64_v535)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("580.65.06");
	struct nvrm_nvos64_v535 p = {
		.hroot = 1, .hobject_parent = 2, .hobject_new = 3,
		.hclass = NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A, .palloc_parms = 0x2000,
		.prights_requested = 0x3000, .params_size = 368,
		.flags = NVRM_NVOS64_FLAGS_FINN_SERIALIZED, .status = 7,
	};
	struct nvrm_alloc a;

	ASSERT_NOT_NULL(abi);
	ASSERT_EQ_INT(nvrm_alloc_decode(abi, &p, sizeof(p), &a), 0);
	EXPECT_TRUE(a.is_nvos64);
	EXPECT_EQ(a.hclass, 0xC86F);
	EXPECT_EQ(a.params_ptr, 0x2000);
	EXPECT_EQ(a.params_size, 368);
	EXPECT_EQ(a.flags, NVRM_NVOS64_FLAGS_FINN_SERIALIZED);
	EXPECT_EQ(a.status, 7);
	EXPECT_EQ_INT(nvrm_alloc_set_status(abi, &p, sizeof(p), NVRM_OK), 0);
	EXPECT_EQ(p.status, NVRM_OK);
	EXPECT_EQ(p.flags, NVRM_NVOS64_FLAGS_FINN_SERIALIZED);
	EXPECT_EQ_INT(nvrm_alloc_set_hnew(abi, &p, sizeof(p), 0x42), 0);
	EXPECT_EQ(p.hobject_new, 0x42);
}

TEST(alloc_decode_nvos64_v525)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("530.41.03");
	struct nvrm_nvos64_v525 p = {
		.hroot = 1, .hobject_parent = 2, .hobject_new = 3, .hclass = 0x2080,
		.palloc_parms = 0x4000, .prights_requested = 0, .flags = 0, .status = 9,
	};
	struct nvrm_alloc a;

	ASSERT_NOT_NULL(abi);
	ASSERT_EQ_INT(nvrm_alloc_decode(abi, &p, sizeof(p), &a), 0);
	EXPECT_TRUE(a.is_nvos64);
	EXPECT_EQ(a.params_size, 0);
	EXPECT_EQ(a.flags, 0);
	EXPECT_EQ(a.status, 9);
	EXPECT_EQ_INT(nvrm_alloc_set_status(abi, &p, sizeof(p), NVRM_ERR_NO_MEMORY), 0);
	EXPECT_EQ(p.status, NVRM_ERR_NO_MEMORY);
	EXPECT_EQ(p.flags, 0);
}

struct alloc_size_row {
	const char *version;
	u32 size;
	int want;
};

TEST(alloc_decode_rejects_sizes)
{
	static const struct alloc_size_row rows[] = {
		{ "535.104.05", 32, 0 },
		{ "535.104.05", 48, 0 },
		{ "535.104.05", 40, -EINVAL },	/* the 525 NVOS64 */
		{ "535.104.05", 0, -EINVAL },
		{ "535.104.05", 33, -EINVAL },
		{ "535.104.05", 56, -EINVAL },
		{ "525.60.13", 32, 0 },
		{ "525.60.13", 40, 0 },
		{ "525.60.13", 48, -EINVAL },	/* the 535+ NVOS64 */
		{ "580.65.06", 48, 0 },
		{ "580.65.06", 40, -EINVAL },
	};
	u8 buf[64];
	struct nvrm_alloc a;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct nvrm_abi *abi = nvrm_abi_lookup(rows[i].version);
		u8 before[64];

		TAP_CASE("%s size %u", rows[i].version, rows[i].size);
		ASSERT_NOT_NULL(abi);
		memset(buf, 0x5A, sizeof(buf));
		memcpy(before, buf, sizeof(buf));
		EXPECT_EQ_INT(nvrm_alloc_decode(abi, buf, rows[i].size, &a), rows[i].want);
		EXPECT_EQ_INT(nvrm_alloc_set_status(abi, buf, rows[i].size, 0), rows[i].want);
		EXPECT_EQ_INT(nvrm_alloc_set_hnew(abi, buf, rows[i].size, 0), rows[i].want);
		if (rows[i].want)
			EXPECT_EQ(memcmp(before, buf, sizeof(buf)), 0);
	}
	TAP_CASE("NULL arguments");
	EXPECT_EQ_INT(nvrm_alloc_decode(NULL, buf, 32, &a), -EINVAL);
	EXPECT_EQ_INT(nvrm_alloc_decode(nvrm_abi_lookup("535.1"), NULL, 32, &a), -EINVAL);
}

/* ------------------------------------------------------------------------------------------ */

struct vidmem_row {
	u32 location;
	u32 flags;
	bool want;
};

TEST(mem_alloc_is_vidmem)
{
	static const struct vidmem_row rows[] = {
		{ NVRM_ATTR_LOCATION_VIDMEM, 0, true },
		{ NVRM_ATTR_LOCATION_VIDMEM, NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED, true },
		{ NVRM_ATTR_LOCATION_VIDMEM, NVRM_ALLOC_FLAGS_VIRTUAL, false },
		{ NVRM_ATTR_LOCATION_VIDMEM, NVRM_ALLOC_FLAGS_VIRTUAL | NVRM_ALLOC_FLAGS_SPARSE,
		  false },
		{ NVRM_ATTR_LOCATION_PCI, 0, false },
		{ NVRM_ATTR_LOCATION_PCI, NVRM_ALLOC_FLAGS_VIRTUAL, false },
		{ NVRM_ATTR_LOCATION_ANY, 0, false },
		{ 2, 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		/* other attr fields set, to show only LOCATION matters */
		u32 attr = (rows[i].location << NVRM_ATTR_LOCATION_SHIFT) |
			   (NVRM_ATTR_PAGE_SIZE_BIG << NVRM_ATTR_PAGE_SIZE_SHIFT) |
			   (NVRM_ATTR_PHYSICALITY_CONTIGUOUS << NVRM_ATTR_PHYSICALITY_SHIFT);

		TAP_CASE("location %u flags 0x%x", rows[i].location, rows[i].flags);
		EXPECT_EQ(nvrm_mem_alloc_is_vidmem(attr, rows[i].flags), rows[i].want);
	}
}

TEST(mem_alloc_decode_by_version)
{
	const struct nvrm_abi *a535 = nvrm_abi_lookup("535.104.05");
	const struct nvrm_abi *a580 = nvrm_abi_lookup("580.65.06");
	struct nvrm_memory_allocation_params p;
	struct nvrm_mem_alloc m;

	ASSERT_NOT_NULL(a535);
	ASSERT_NOT_NULL(a580);
	memset(&p, 0, sizeof(p));
	p.owner = 0x1111;
	p.flags = NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED;
	p.attr = NVRM_ATTR_LOCATION_VIDMEM << NVRM_ATTR_LOCATION_SHIFT;
	p.attr2 = NVRM_ATTR2_PAGE_SIZE_HUGE_2MB << NVRM_ATTR2_PAGE_SIZE_HUGE_SHIFT;
	p.size = 64ull << 20;
	p.alignment = 2ull << 20;
	p.hva_space = 0xBEEF;

	ASSERT_EQ_INT(nvrm_mem_alloc_decode(a535, &p, 120, &m), 0);
	EXPECT_EQ(m.owner, 0x1111);
	EXPECT_EQ(m.size, 64ull << 20);
	EXPECT_EQ(m.alignment, 2ull << 20);
	EXPECT_EQ(m.attr2, 0x100000);
	EXPECT_EQ(m.hva_space, 0xBEEF);
	EXPECT_TRUE(m.is_vidmem);
	EXPECT_EQ_INT(nvrm_mem_alloc_decode(a535, &p, 128, &m), -EINVAL);
	EXPECT_EQ_INT(nvrm_mem_alloc_decode(a580, &p, 120, &m), -EINVAL);
	ASSERT_EQ_INT(nvrm_mem_alloc_decode(a580, &p, 128, &m), 0);
	EXPECT_TRUE(m.is_vidmem);

	p.flags |= NVRM_ALLOC_FLAGS_VIRTUAL;
	ASSERT_EQ_INT(nvrm_mem_alloc_decode(a580, &p, 128, &m), 0);
	EXPECT_FALSE(m.is_vidmem);

	EXPECT_EQ_INT(nvrm_mem_alloc_set_size(a580, &p, 128, 66ull << 20), 0);
	EXPECT_EQ(p.size, 66ull << 20);
	EXPECT_EQ_INT(nvrm_mem_alloc_set_size(a580, &p, 120, 1), -EINVAL);
	EXPECT_EQ(p.size, 66ull << 20);
}

TEST(mem_alloc_user_status_as_rm_orders_it)
{
	/* stdmemValidateParams(): internalflags, then PAGE_OFFLINING_OFF */
	EXPECT_EQ(nvrm_mem_alloc_user_status(0, 0), NVRM_OK);
	EXPECT_EQ(nvrm_mem_alloc_user_status(~NVRM_ATTR2_PAGE_OFFLINING_OFF, 0), NVRM_OK);
	EXPECT_EQ(nvrm_mem_alloc_user_status(NVRM_ATTR2_PAGE_OFFLINING_OFF, 0),
		  NVRM_ERR_INSUFFICIENT_PERMISSIONS);
	EXPECT_EQ(nvrm_mem_alloc_user_status(0, NVRM_INTERNAL_FLAGS_SKIP_SCRUB),
		  NVRM_ERR_INVALID_ARGUMENT);
	EXPECT_EQ(nvrm_mem_alloc_user_status(NVRM_ATTR2_PAGE_OFFLINING_OFF, 0x80000000u),
		  NVRM_ERR_INVALID_ARGUMENT);
}

TEST(mem_alloc_as_user_clears_only_the_reserved_heap)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("580.65.06");
	struct nvrm_memory_allocation_params p;
	struct nvrm_nvos32 v;
	struct nvrm_mem_alloc m;

	ASSERT_NOT_NULL(abi);
	memset(&p, 0xA5, sizeof(p));
	p.attr = ~0u;
	p.internal_flags = NVRM_INTERNAL_FLAGS_SKIP_SCRUB;
	ASSERT_EQ_INT(nvrm_mem_alloc_decode(abi, &p, 128, &m), 0);
	EXPECT_EQ(m.internal_flags, NVRM_INTERNAL_FLAGS_SKIP_SCRUB);
	ASSERT_EQ_INT(nvrm_mem_alloc_as_user(abi, &p, 128), 0);
	EXPECT_EQ(p.attr, ~NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP);
	/* the rest is RM's (or nvrm_mem_alloc_user_status()'s) to judge */
	EXPECT_EQ(p.attr2, 0xA5A5A5A5u);
	EXPECT_EQ(p.internal_flags, NVRM_INTERNAL_FLAGS_SKIP_SCRUB);
	EXPECT_EQ_INT(nvrm_mem_alloc_as_user(abi, &p, 120), -EINVAL);

	memset(&v, 0x5A, sizeof(v));
	v.data.alloc_size.attr = NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP | 1u;
	ASSERT_EQ_INT(nvrm_vidheap_as_user(&v, sizeof(v)), 0);
	EXPECT_EQ(v.data.alloc_size.attr, 1u);
	EXPECT_EQ(v.data.alloc_size.attr2, 0x5A5A5A5Au);
	EXPECT_EQ_INT(nvrm_vidheap_as_user(&v, sizeof(v) - 8), -EINVAL);
}

TEST(vidheap_decode)
{
	struct nvrm_nvos32 p;
	struct nvrm_vidheap v;

	memset(&p, 0, sizeof(p));
	p.hroot = 0xC1;
	p.hobject_parent = 0xD1;
	p.function = NVRM_NVOS32_FUNCTION_ALLOC_SIZE;
	p.data.alloc_size.hmemory = 0x77;
	p.data.alloc_size.attr = NVRM_ATTR_LOCATION_VIDMEM << NVRM_ATTR_LOCATION_SHIFT;
	p.data.alloc_size.size = 1ull << 30;
	ASSERT_EQ_INT(nvrm_vidheap_decode(&p, sizeof(p), &v), 0);
	EXPECT_TRUE(v.is_alloc);
	EXPECT_TRUE(v.is_vidmem);
	EXPECT_EQ(v.hroot, 0xC1);
	EXPECT_EQ(v.hparent, 0xD1);
	EXPECT_EQ(v.hmemory, 0x77);
	EXPECT_EQ(v.size, 1ull << 30);

	p.function = NVRM_NVOS32_FUNCTION_ALLOC_SIZE_RANGE;
	p.data.alloc_size.attr = NVRM_ATTR_LOCATION_PCI << NVRM_ATTR_LOCATION_SHIFT;
	ASSERT_EQ_INT(nvrm_vidheap_decode(&p, sizeof(p), &v), 0);
	EXPECT_TRUE(v.is_alloc);
	EXPECT_FALSE(v.is_vidmem);

	memset(&p, 0, sizeof(p));
	p.function = NVRM_NVOS32_FUNCTION_INFO;
	p.total = 80ull << 30;
	p.free = 79ull << 30;
	p.status = NVRM_OK;
	ASSERT_EQ_INT(nvrm_vidheap_decode(&p, sizeof(p), &v), 0);
	EXPECT_FALSE(v.is_alloc);
	EXPECT_EQ(v.total, 80ull << 30);
	EXPECT_EQ(v.free, 79ull << 30);

	memset(&p, 0, sizeof(p));
	p.function = NVRM_NVOS32_FUNCTION_FREE;
	p.data.free.hmemory = 0x99;
	ASSERT_EQ_INT(nvrm_vidheap_decode(&p, sizeof(p), &v), 0);
	EXPECT_FALSE(v.is_alloc);
	EXPECT_EQ(v.hmemory, 0x99);

	EXPECT_EQ_INT(nvrm_vidheap_decode(&p, 183, &v), -EINVAL);
	EXPECT_EQ_INT(nvrm_vidheap_decode(&p, 192, &v), -EINVAL);
}

/* ------------------------------------------------------------------------------------------ */

struct xfer_row {
	const char *name;
	u32 outer_size;
	u32 cmd;
	u32 size;
	int want;
};

TEST(xfer_validation)
{
	static const struct xfer_row rows[] = {
		{ "RM_ALLOC NVOS64 inner", 16, NVRM_ESC_RM_ALLOC, 48, 0 },
		{ "RM_CONTROL inner", 16, NVRM_ESC_RM_CONTROL, 32, 0 },
		{ "inner size 0", 16, NVRM_ESC_RM_CONTROL, 0, 0 },
		{ "inner size at the maximum", 16, NVRM_ESC_CARD_INFO, 16384, 0 },
		{ "inner size above the maximum", 16, NVRM_ESC_CARD_INFO, 16385, -EINVAL },
		{ "inner size huge", 16, NVRM_ESC_RM_ALLOC, 0xFFFFFFFFu, -EINVAL },
		{ "outer size 15", 15, NVRM_ESC_RM_ALLOC, 48, -EINVAL },
		{ "outer size 17", 17, NVRM_ESC_RM_ALLOC, 48, -EINVAL },
		{ "outer size 0", 0, NVRM_ESC_RM_ALLOC, 48, -EINVAL },
		{ "nested XFER", 16, NVRM_ESC_IOCTL_XFER_CMD, 16, -EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct nvrm_xfer x = {
			.cmd = rows[i].cmd, .size = rows[i].size, .ptr = 0x7F0000001000ull,
		};
		struct nvrm_xfer_req r;

		TAP_CASE("%s", rows[i].name);
		EXPECT_EQ_INT(nvrm_xfer_decode(&x, rows[i].outer_size, &r), rows[i].want);
		if (rows[i].want == 0) {
			EXPECT_EQ(r.nr, rows[i].cmd);
			EXPECT_EQ(r.size, rows[i].size);
			EXPECT_EQ(r.ptr, 0x7F0000001000ull);
		}
	}
}

TEST(control_decode)
{
	struct nvrm_nvos54 p = {
		.hclient = 0xC1, .hobject = 0x5C, .cmd = NVRM_CTRL_CMD_FB_GET_INFO_V2,
		.flags = 0, .params = 0x7F0000002000ull, .params_size = 1028, .status = 3,
	};
	struct nvrm_control c;

	ASSERT_EQ_INT(nvrm_control_decode(&p, sizeof(p), &c), 0);
	EXPECT_EQ(c.hclient, 0xC1);
	EXPECT_EQ(c.hobject, 0x5C);
	EXPECT_EQ(c.cmd, 0x20801303);
	EXPECT_EQ(c.params_ptr, 0x7F0000002000ull);
	EXPECT_EQ(c.params_size, 1028);
	EXPECT_EQ(c.status, 3);
	EXPECT_FALSE(c.finn_serialized);

	p.flags = NVRM_NVOS54_FLAGS_FINN_SERIALIZED | NVRM_NVOS54_FLAGS_LOCK_BYPASS;
	ASSERT_EQ_INT(nvrm_control_decode(&p, sizeof(p), &c), 0);
	EXPECT_TRUE(c.finn_serialized);
	EXPECT_EQ(c.flags, 6);

	EXPECT_EQ_INT(nvrm_control_decode(&p, 28, &c), -EINVAL);
	EXPECT_EQ_INT(nvrm_control_decode(&p, 48, &c), -EINVAL);
}

struct fb_row {
	const char *version;
	u32 max;
	u32 size;
};

/* nvidia-rm-abi.md section 4 table, plus one release per branch in between. */
TEST(fb_get_info_v2_sizes)
{
	static const struct fb_row rows[] = {
		{ "525.60.13", 0x36, 436 }, { "535.104.05", 0x36, 436 },
		{ "545.23.06", 0x37, 444 }, { "550.54.14", 0x37, 444 },
		{ "555.42.02", 0x37, 444 }, { "560.28.03", 0x39, 460 },
		{ "565.57.01", 0x39, 460 }, { "570.86.15", 0x39, 460 },
		{ "575.51.02", 0x39, 460 }, { "580.65.06", 0x80, 1028 },
		{ "590.44.01", 0x80, 1028 }, { "595.45.04", 0x80, 1028 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct nvrm_abi *abi = nvrm_abi_lookup(rows[i].version);

		TAP_CASE("%s", rows[i].version);
		ASSERT_NOT_NULL(abi);
		EXPECT_EQ(abi->fb_info_max_list_size, rows[i].max);
		EXPECT_EQ(abi->fb_get_info_v2_size, rows[i].size);
		EXPECT_EQ(abi->fb_get_info_v2_size,
			  sizeof(struct nvrm_fb_get_info_v2) +
			  abi->fb_info_max_list_size * sizeof(struct nvrm_fb_info));
	}
}

/* NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE at the first and last tag of each step (ctrl2080gpu.h). */
TEST(gpu_get_info_v2_sizes)
{
	static const struct fb_row rows[] = {
		{ "525.47.04", 0x3e, 500 }, { "525.147.05", 0x3e, 500 },
		{ "530.30.02", 0x3f, 508 }, { "535.43.02", 0x40, 516 },
		{ "535.288.01", 0x40, 516 }, { "545.23.06", 0x41, 524 },
		{ "550.54.14", 0x41, 524 }, { "560.28.03", 0x41, 524 },
		{ "570.86.15", 0x41, 524 }, { "575.51.02", 0x42, 532 },
		{ "580.65.06", 0x46, 564 }, { "595.45.04", 0x46, 564 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct nvrm_abi *abi = nvrm_abi_lookup(rows[i].version);

		TAP_CASE("%s", rows[i].version);
		ASSERT_NOT_NULL(abi);
		EXPECT_EQ(abi->gpu_info_max_list_size, rows[i].max);
		EXPECT_EQ(nvrm_gpu_get_info_v2_size(abi), rows[i].size);
	}
}

static void gpu_info_fill(u8 *buf, u32 n, const u32 *index, u32 data)
{
	u32 i;

	memset(buf, 0, NVRM_GPU_GET_INFO_V2_SIZE(NVRM_GPU_INFO_MAX_LIST_SIZE_V580));
	memcpy(buf, &n, 4);
	for (i = 0; i < n; i++) {
		memcpy(buf + 4 + 8 * i, &index[i], 4);
		memcpy(buf + 8 + 8 * i, &data, 4);
	}
}

static u32 gpu_info_data(const u8 *buf, u32 i)
{
	u32 v;

	memcpy(&v, buf + 8 + 8 * i, 4);
	return v;
}

/* getGpuInfos(): list size 1..MAX, every index below MAX */
TEST(gpu_info_check_as_rm)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("580.65.06");
	const u32 ok[] = { 0x35, 0x3d, 0x45 }, at_max[] = { 0x3d, 0x46 };
	const u32 grouped[] = { 0x0100003d };
	u8 buf[NVRM_GPU_GET_INFO_V2_SIZE(NVRM_GPU_INFO_MAX_LIST_SIZE_V580)];
	u32 size, n;

	ASSERT_NOT_NULL(abi);
	size = nvrm_gpu_get_info_v2_size(abi);
	gpu_info_fill(buf, 3, ok, 0);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_OK);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size - 8), NVRM_ERR_INVALID_ARGUMENT);
	gpu_info_fill(buf, 0, ok, 0);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_ERR_INVALID_ARGUMENT);
	gpu_info_fill(buf, 2, at_max, 0);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_ERR_INVALID_ARGUMENT);
	gpu_info_fill(buf, 1, grouped, 0);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_ERR_INVALID_ARGUMENT);
	gpu_info_fill(buf, 3, ok, 0);	/* the rest of the list is zeros: index 0 */
	n = NVRM_GPU_INFO_MAX_LIST_SIZE_V580;
	memcpy(buf, &n, 4);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_OK);
	n++;
	memcpy(buf, &n, 4);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, size), NVRM_ERR_INVALID_ARGUMENT);
	/* 535's maximum is 0x40: 0x45 is out of range there */
	abi = nvrm_abi_lookup("535.104.05");
	ASSERT_NOT_NULL(abi);
	gpu_info_fill(buf, 3, ok, 0);
	EXPECT_EQ(nvrm_gpu_info_check(abi, buf, nvrm_gpu_get_info_v2_size(abi)),
		  NVRM_ERR_INVALID_ARGUMENT);
}

TEST(gpu_info_hide_dmabuf_rewrites_only_that_index)
{
	const struct nvrm_abi *abi = nvrm_abi_lookup("580.65.06");
	const u32 list[] = { 0x35, 0x3d, 0x0100003d, 0x3c, 0x3d };
	u8 buf[NVRM_GPU_GET_INFO_V2_SIZE(NVRM_GPU_INFO_MAX_LIST_SIZE_V580)];
	u32 size, n;

	ASSERT_NOT_NULL(abi);
	size = nvrm_gpu_get_info_v2_size(abi);
	gpu_info_fill(buf, 5, list, NVRM_GPU_INFO_DMABUF_CAPABILITY_YES);
	EXPECT_EQ(nvrm_gpu_info_hide_dmabuf(abi, buf, size), 3);
	EXPECT_EQ(gpu_info_data(buf, 0), 1);
	EXPECT_EQ(gpu_info_data(buf, 1), NVRM_GPU_INFO_DMABUF_CAPABILITY_NO);
	EXPECT_EQ(gpu_info_data(buf, 2), NVRM_GPU_INFO_DMABUF_CAPABILITY_NO);
	EXPECT_EQ(gpu_info_data(buf, 3), 1);
	EXPECT_EQ(gpu_info_data(buf, 4), NVRM_GPU_INFO_DMABUF_CAPABILITY_NO);
	EXPECT_EQ(nvrm_gpu_info_hide_dmabuf(abi, buf, size), 0);	/* already NO */
	/* past the list size: not part of the answer */
	gpu_info_fill(buf, 2, list, NVRM_GPU_INFO_DMABUF_CAPABILITY_YES);
	n = 1;
	memcpy(buf, &n, 4);
	EXPECT_EQ(nvrm_gpu_info_hide_dmabuf(abi, buf, size), 0);
	EXPECT_EQ(gpu_info_data(buf, 1), 1);
	/* a list size over the maximum: RM answered nothing */
	n = NVRM_GPU_INFO_MAX_LIST_SIZE_V580 + 1;
	memcpy(buf, &n, 4);
	EXPECT_EQ(nvrm_gpu_info_hide_dmabuf(abi, buf, size), 0);
	EXPECT_EQ(nvrm_gpu_info_hide_dmabuf(abi, buf, size - 1), 0);
}

/* A call as user space lays it out, for the layout of @abi. */
static void dmabuf_fill(const struct nvrm_abi *abi, u8 *buf, s32 fd, u32 total, u32 num,
			u32 index, u64 total_size, u8 mapping_type)
{
	u32 h = 0xcaf00001;
	u64 off = 0x1000, sz = 0x200000;
	u32 hoff = abi->export_dmabuf_size == NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525 ? 32 : 36;
	u32 ooff = hoff == 32 ? 544 : 552;
	u32 soff = hoff == 32 ? 1568 : 1576;

	memset(buf, 0, NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570);
	memcpy(buf + 0, &fd, 4);
	memcpy(buf + 4, &(u32){ 0xc1d00001 }, 4);
	memcpy(buf + 8, &total, 4);
	memcpy(buf + 12, &num, 4);
	memcpy(buf + 16, &index, 4);
	memcpy(buf + 24, &total_size, 8);
	if (hoff == 36) {
		buf[32] = mapping_type;
		buf[33] = 1;	/* bAllowMmap from 580 on, padding before */
	}
	/* the second object, at [1], is what the tests look for */
	memcpy(buf + hoff + 4, &h, 4);
	memcpy(buf + ooff + 8, &off, 8);
	memcpy(buf + soff + 8, &sz, 8);
}

struct dmabuf_layout_row {
	const char *version;
	u32 size;
	u32 status_off;
	bool has_allow_mmap;
};

TEST(dmabuf_export_decode_by_version)
{
	static const struct dmabuf_layout_row rows[] = {
		{ "525.60.13", 2600, 2592, false },
		{ "565.57.01", 2600, 2592, false },
		{ "570.86.15", 2608, 2600, false },
		{ "575.51.02", 2608, 2600, false },
		{ "580.65.06", 2608, 2600, true },
		{ "595.45.04", 2608, 2600, true },
	};
	u8 buf[NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570 + 8];
	struct nvrm_dmabuf_export d;
	const struct nvrm_abi *abi;
	u64 off, sz;
	size_t i;
	u32 h;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s", rows[i].version);
		abi = nvrm_abi_lookup(rows[i].version);
		ASSERT_NOT_NULL(abi);
		EXPECT_EQ(abi->export_dmabuf_size, rows[i].size);
		dmabuf_fill(abi, buf, -1, 3, 2, 1, 0x400000, NVRM_DMABUF_MAPPING_TYPE_FORCE_PCIE);
		EXPECT_EQ_INT(nvrm_dmabuf_export_decode(abi, buf, rows[i].size - 8, &d), -EINVAL);
		EXPECT_EQ_INT(nvrm_dmabuf_export_decode(abi, buf, rows[i].size + 8, &d), -EINVAL);
		ASSERT_EQ_INT(nvrm_dmabuf_export_decode(abi, buf, rows[i].size, &d), 0);
		EXPECT_EQ(d.fd, -1);
		EXPECT_EQ(d.hclient, 0xc1d00001);
		EXPECT_EQ(d.total_objects, 3);
		EXPECT_EQ(d.num_objects, 2);
		EXPECT_EQ(d.index, 1);
		EXPECT_EQ(d.total_size, 0x400000);
		EXPECT_EQ(d.status_off, rows[i].status_off);
		EXPECT_EQ(d.mapping_type, rows[i].size == 2600 ? 0 : 1);
		EXPECT_EQ(d.allow_mmap, rows[i].has_allow_mmap);
		nvrm_dmabuf_export_object(buf, &d, 1, &h, &off, &sz);
		EXPECT_EQ(h, 0xcaf00001);
		EXPECT_EQ(off, 0x1000);
		EXPECT_EQ(sz, 0x200000);
	}
}

struct dmabuf_check_row {
	const char *what;
	s32 fd;
	u32 total;
	u32 num;
	u32 index;
	u64 total_size;
	u8 mapping_type;
	u32 status;
};

/* nv_dma_buf_export() and nv_dma_buf_create()'s first check (nv-dmabuf.c, 525-595) */
TEST(dmabuf_export_check_as_the_driver)
{
	static const struct dmabuf_check_row rows[] = {
		{ "new, all at once", -1, 2, 2, 0, 0x1000, 0, NVRM_OK },
		{ "new, the last slots", -1, 4, 2, 2, 0x1000, 0, NVRM_OK },
		{ "new, past the last slot", -1, 4, 2, 3, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "existing, any slot here", 5, 4, 2, 3, 0x1000, 0, NVRM_OK },
		{ "fd below -1", -2, 2, 2, 0, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "no size", -1, 2, 2, 0, 0, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "no objects", -1, 2, 0, 0, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "no total", -1, 0, 0, 0, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "more than the total", -1, 2, 3, 0, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "129 at once", -1, 200, 129, 0, 0x1000, 0, NVRM_ERR_INVALID_ARGUMENT },
		{ "128 at once", -1, 200, 128, 0, 0x1000, 0, NVRM_OK },
		{ "force PCIe", -1, 1, 1, 0, 0x1000, 1, NVRM_OK },
		{ "unknown mapping", -1, 1, 1, 0, 0x1000, 2, NVRM_ERR_INVALID_ARGUMENT },
	};
	struct nvrm_dmabuf_export d;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s", rows[i].what);
		memset(&d, 0, sizeof(d));
		d.fd = rows[i].fd;
		d.total_objects = rows[i].total;
		d.num_objects = rows[i].num;
		d.index = rows[i].index;
		d.total_size = rows[i].total_size;
		d.mapping_type = rows[i].mapping_type;
		EXPECT_EQ(nvrm_dmabuf_export_check(&d), rows[i].status);
	}
}

struct status_row {
	u32 code;
	const char *name;
};

TEST(status_names)
{
	static const struct status_row rows[] = {
		{ NVRM_OK, "NV_OK" },
		{ 0x17, "NV_ERR_IN_USE" },
		{ 0x1A, "NV_ERR_INSUFFICIENT_RESOURCES" },
		{ 0x1B, "NV_ERR_INSUFFICIENT_PERMISSIONS" },
		{ 0x1F, "NV_ERR_INVALID_ARGUMENT" },
		{ 0x22, "NV_ERR_INVALID_CLASS" },
		{ 0x23, "NV_ERR_INVALID_CLIENT" },
		{ 0x26, "NV_ERR_INVALID_DEVICE" },
		{ 0x33, "NV_ERR_INVALID_OBJECT_HANDLE" },
		{ 0x3A, "NV_ERR_INVALID_PARAM_STRUCT" },
		{ 0x40, "NV_ERR_INVALID_STATE" },
		{ 0x4F, "NV_ERR_NO_FREE_FIFOS" },
		{ 0x51, "NV_ERR_NO_MEMORY" },
		{ 0x56, "NV_ERR_NOT_SUPPORTED" },
		{ 0x57, "NV_ERR_OBJECT_NOT_FOUND" },
		{ 0x63, "NV_ERR_STATE_IN_USE" },
		{ 0xFFFF, "NV_ERR_GENERIC" },
		{ 0x1234, "NV_ERR_UNKNOWN" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("0x%X", rows[i].code);
		EXPECT_STREQ(nvrm_status_name(rows[i].code), rows[i].name);
	}
}

/* NVOS46/NVOS47 by layout: dmaOffset and status move with flags2/kindOverride (580) and size (550). */
TEST(dma_map_and_unmap_decode_by_version)
{
	const struct nvrm_abi *a545 = nvrm_abi_lookup("545.23.06");
	const struct nvrm_abi *a575 = nvrm_abi_lookup("575.64.05");
	const struct nvrm_abi *a580 = nvrm_abi_lookup("580.65.06");
	struct nvrm_nvos46_v525 m525 = {
		.hclient = 0xC1, .hdevice = 0xD1, .hdma = 0xA1, .hmemory = 0xB1, .offset = 0x1000,
		.length = 0x200000, .flags = NVRM_NVOS46_FLAGS_DMA_OFFSET_FIXED,
		.dma_offset = 0x100200000ull, .status = 7,
	};
	struct nvrm_nvos46_v580 m580 = {
		.hclient = 0xC2, .hdevice = 0xD2, .hdma = 0xA2, .hmemory = 0xB2, .offset = 0x2000,
		.length = 0x1000, .flags = 0, .flags2 = 3, .kind_override = 9,
		.dma_offset = 0x4000, .status = 8,
	};
	struct nvrm_nvos47_v525 u525 = {
		.hclient = 0xC3, .hdevice = 0xD3, .hdma = 0xA3, .hmemory = 0xB3, .dma_offset = 0x5000,
		.status = 9,
	};
	struct nvrm_nvos47_v550 u550 = {
		.hclient = 0xC4, .hdevice = 0xD4, .hdma = 0xA4, .hmemory = 0xB4, .dma_offset = 0x6000,
		.size = 0x3000, .status = 10,
	};
	struct nvrm_dma_unmap u;
	struct nvrm_dma_map m;

	ASSERT_NOT_NULL(a545);
	ASSERT_NOT_NULL(a575);
	ASSERT_NOT_NULL(a580);
	ASSERT_EQ_INT(nvrm_dma_map_decode(a575, &m525, sizeof(m525), &m), 0);
	EXPECT_EQ(m.hclient, 0xC1);
	EXPECT_EQ(m.hdevice, 0xD1);
	EXPECT_EQ(m.hdma, 0xA1);
	EXPECT_EQ(m.hmemory, 0xB1);
	EXPECT_EQ(m.offset, 0x1000);
	EXPECT_EQ(m.length, 0x200000);
	EXPECT_EQ(m.flags, NVRM_NVOS46_FLAGS_DMA_OFFSET_FIXED);
	EXPECT_EQ(m.dma_offset, 0x100200000ull);
	EXPECT_EQ(m.status, 7);
	EXPECT_EQ(m.dma_offset_off, 40);
	EXPECT_EQ(m.status_off, 48);
	ASSERT_EQ_INT(nvrm_dma_map_decode(a580, &m580, sizeof(m580), &m), 0);
	EXPECT_EQ(m.hmemory, 0xB2);
	EXPECT_EQ(m.dma_offset, 0x4000);
	EXPECT_EQ(m.status, 8);
	EXPECT_EQ(m.dma_offset_off, 48);
	EXPECT_EQ(m.status_off, 56);
	nvrm_put_u64(&m580, m.dma_offset_off, 0x123456789000ull);
	nvrm_put_u32(&m580, m.status_off, NVRM_OK);
	EXPECT_EQ(m580.dma_offset, 0x123456789000ull);
	EXPECT_EQ(m580.status, NVRM_OK);
	EXPECT_EQ(m580.kind_override, 9);
	EXPECT_EQ_INT(nvrm_dma_map_decode(a580, &m525, sizeof(m525), &m), -EINVAL);
	EXPECT_EQ_INT(nvrm_dma_map_decode(a575, &m580, sizeof(m580), &m), -EINVAL);

	ASSERT_EQ_INT(nvrm_dma_unmap_decode(a545, &u525, sizeof(u525), &u), 0);
	EXPECT_EQ(u.hdma, 0xA3);
	EXPECT_EQ(u.hmemory, 0xB3);
	EXPECT_EQ(u.dma_offset, 0x5000);
	EXPECT_FALSE(u.has_size);
	EXPECT_EQ(u.size, 0);
	EXPECT_EQ(u.status, 9);
	EXPECT_EQ(u.status_off, 32);
	ASSERT_EQ_INT(nvrm_dma_unmap_decode(a575, &u550, sizeof(u550), &u), 0);
	EXPECT_EQ(u.hdevice, 0xD4);
	EXPECT_TRUE(u.has_size);
	EXPECT_EQ(u.size, 0x3000);
	EXPECT_EQ(u.status, 10);
	EXPECT_EQ(u.status_off, 40);
	EXPECT_EQ_INT(nvrm_dma_unmap_decode(a545, &u550, sizeof(u550), &u), -EINVAL);
	EXPECT_EQ_INT(nvrm_dma_unmap_decode(NULL, &u550, sizeof(u550), &u), -EINVAL);
}

/* Only CILP stops a running kernel at once: what a tenant may not set (DOC: compute preemption). */
TEST(compute_preemption_a_tenant_may_not_set)
{
	const u32 set = NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE;
	const u32 bind = NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND;
	const u32 cilp = NVRM_GR_PREEMPTION_FLAGS_CILP_SET, gfxp = NVRM_GR_PREEMPTION_FLAGS_GFXP_SET;

	EXPECT_FALSE(nvrm_compute_preemption_refused(set, cilp, NVRM_GR_COMPUTE_PREEMPT_CILP));
	EXPECT_TRUE(nvrm_compute_preemption_refused(set, cilp, NVRM_GR_COMPUTE_PREEMPT_WFI));
	EXPECT_TRUE(nvrm_compute_preemption_refused(set, cilp | gfxp, NVRM_GR_COMPUTE_PREEMPT_CTA));
	EXPECT_TRUE(nvrm_compute_preemption_refused(set, cilp, 7));
	/* the compute mode not set: whatever the field holds */
	EXPECT_FALSE(nvrm_compute_preemption_refused(set, gfxp, NVRM_GR_COMPUTE_PREEMPT_WFI));
	EXPECT_FALSE(nvrm_compute_preemption_refused(set, 0, NVRM_GR_COMPUTE_PREEMPT_WFI));
	/* a BIND may bind graphics buffers, never set a compute mode */
	EXPECT_TRUE(nvrm_compute_preemption_refused(bind, cilp, NVRM_GR_COMPUTE_PREEMPT_CILP));
	EXPECT_FALSE(nvrm_compute_preemption_refused(bind, gfxp, NVRM_GR_COMPUTE_PREEMPT_WFI));
	/* another control */
	EXPECT_FALSE(nvrm_compute_preemption_refused(NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE, cilp, 0));
}
