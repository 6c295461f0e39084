// SPDX-License-Identifier: GPL-2.0
/*
 * Pure decoding of NVIDIA RM ioctl parameters (see nvrm_decode.h). Builds unchanged in the kernel
 * and in user space; it never touches user memory and allocates nothing.
 */
#include "nvrm/nvrm_decode.h"

/*
 * Byte access. Parameters arrive as byte buffers; read and write fields with memcpy so that no
 * alignment is assumed. x86_64 is little-endian, as is every platform the NVIDIA driver runs on.
 * Inline: decoding sits on every RM_ALLOC, where a call per field is measurable under emulation.
 */
static inline u32 get_u32(const void *buf, u32 off)
{
	u32 v;

	memcpy(&v, (const u8 *)buf + off, sizeof(v));
	return v;
}

static inline u64 get_u64(const void *buf, u32 off)
{
	u64 v;

	memcpy(&v, (const u8 *)buf + off, sizeof(v));
	return v;
}

static inline void put_u32(void *buf, u32 off, u32 v)
{
	memcpy((u8 *)buf + off, &v, sizeof(v));
}

static inline void put_u64(void *buf, u32 off, u64 v)
{
	memcpy((u8 *)buf + off, &v, sizeof(v));
}

/*
 * ABI profiles. Every number was checked against NVIDIA's headers at each open-gpu-kernel-modules
 * tag in the profile's range (see nvrm_abi.h for the per-fact history).
 */
static const struct nvrm_abi nvrm_abi_525 = {
	.family = "525",
	.major = 525,
	.nvos21_status_off = 24,
	.nvos21_has_params_size = false,
	.nvos64_size = 40,
	.nvos64_params_size_off = 0,
	.nvos64_flags_off = 32,
	.nvos64_status_off = 36,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.nvos47_size = NVRM_NVOS47_SIZE_V525,
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V525,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V525,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V525,
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V525,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V525,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V525),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V525,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V525,
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525,
	.has_wait_open_complete = false,
	.has_pid_namespaces = false,
};

/* 530: NV_PHYSICAL_MEMORY_ALLOCATION_PARAMS grew 16 -> 24. */
static const struct nvrm_abi nvrm_abi_530 = {
	.family = "530",
	.major = 530,
	.nvos21_status_off = 24,
	.nvos21_has_params_size = false,
	.nvos64_size = 40,
	.nvos64_params_size_off = 0,
	.nvos64_flags_off = 32,
	.nvos64_status_off = 36,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.nvos47_size = NVRM_NVOS47_SIZE_V525,
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V525,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V525,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V525,
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V525,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V525),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V530,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V525,
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525,
	.has_wait_open_complete = false,
	.has_pid_namespaces = false,
};

/* 535: NVOS21 paramsSize, NVOS64 48 B, NV00F8 48 B, numa_info 560 B. */
#define NVRM_ABI_535_COMMON						\
	.nvos21_status_off = 28,					\
	.nvos21_has_params_size = true,					\
	.nvos64_size = 48,						\
	.nvos64_params_size_off = 32,					\
	.nvos64_flags_off = 36,						\
	.nvos64_status_off = 40,					\
	.nvos46_size = NVRM_NVOS46_SIZE_V525,				\
	.nvos47_size = NVRM_NVOS47_SIZE_V525,				\
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V525, \
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525, \
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V535,	\
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530, \
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V525,	\
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V525), \
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V535,	\
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,		\
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,	\
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,	\
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V535,			\
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525, \
	.has_wait_open_complete = false,				\
	.has_pid_namespaces = false

/* 535.43.02 and 535.54.03 still have the 304 B NV_CHANNEL_ALLOC_PARAMS. */
static const struct nvrm_abi nvrm_abi_535_early = {
	.family = "535-early",
	.major = 535,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V525,
	NVRM_ABI_535_COMMON,
};

static const struct nvrm_abi nvrm_abi_535 = {
	.family = "535",
	.major = 535,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535,
	NVRM_ABI_535_COMMON,
};

/* 545: NV_MEMORY_ALLOCATION_PARAMS 128 B, FB info list 0x37, PID namespaces. */
static const struct nvrm_abi nvrm_abi_545 = {
	.family = "545",
	.major = 545,
	.nvos21_status_off = 28,
	.nvos21_has_params_size = true,
	.nvos64_size = 48,
	.nvos64_params_size_off = 32,
	.nvos64_flags_off = 36,
	.nvos64_status_off = 40,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.nvos47_size = NVRM_NVOS47_SIZE_V525,
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V535,
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V545,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V545),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V545,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V535,
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525,
	.has_wait_open_complete = false,
	.has_pid_namespaces = true,
};

/* 550: NVOS47 48 B, WAIT_OPEN_COMPLETE. UVM_MAP_EXTERNAL_ALLOCATION grew in 550.40.53. */
#define NVRM_ABI_550_COMMON						\
	.nvos21_status_off = 28,					\
	.nvos21_has_params_size = true,					\
	.nvos64_size = 48,						\
	.nvos64_params_size_off = 32,					\
	.nvos64_flags_off = 36,						\
	.nvos64_status_off = 40,					\
	.nvos46_size = NVRM_NVOS46_SIZE_V525,				\
	.nvos47_size = NVRM_NVOS47_SIZE_V550,				\
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545, \
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535, \
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525, \
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V535,	\
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530, \
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V545,	\
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V545), \
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V545,	\
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,		\
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,	\
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,	\
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V535,			\
	.has_wait_open_complete = true,					\
	.has_pid_namespaces = true

static const struct nvrm_abi nvrm_abi_550_early = {
	.family = "550-early",
	.major = 550,
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525,
	NVRM_ABI_550_COMMON,
};

static const struct nvrm_abi nvrm_abi_550 = {
	.family = "550-555",
	.major = 550,
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550,
	NVRM_ABI_550_COMMON,
};

/*
 * 560 and later: the remaining changes are FB info list 0x39 (560), channel params 368 B and
 * dma-buf export 2608 B (570), GPFIFO_SCHEDULE 3 B (575), NVOS46 64 B, VA space 56 B and FB info
 * list 0x80 (580), GET_NAME_STRING 68 B (595).
 */
#define NVRM_ABI_560_COMMON						\
	.nvos21_status_off = 28,					\
	.nvos21_has_params_size = true,					\
	.nvos64_size = 48,						\
	.nvos64_params_size_off = 32,					\
	.nvos64_flags_off = 36,						\
	.nvos64_status_off = 40,					\
	.nvos47_size = NVRM_NVOS47_SIZE_V550,				\
	.mem_alloc_params_size = NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545, \
	.nv00f8_alloc_params_size = NVRM_NV00F8_ALLOC_PARAMS_SIZE_V535,	\
	.phys_mem_alloc_params_size = NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530, \
	.numa_info_size = NVRM_NUMA_INFO_SIZE_V535,			\
	.uvm_map_external_allocation_size = NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550, \
	.has_wait_open_complete = true,					\
	.has_pid_namespaces = true

static const struct nvrm_abi nvrm_abi_560 = {
	.family = "560-565",
	.major = 560,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V560,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V560),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V545,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525,
	NVRM_ABI_560_COMMON,
};

static const struct nvrm_abi nvrm_abi_570 = {
	.family = "570",
	.major = 570,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V560,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V560),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V545,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V525,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570,
	NVRM_ABI_560_COMMON,
};

static const struct nvrm_abi nvrm_abi_575 = {
	.family = "575",
	.major = 575,
	.nvos46_size = NVRM_NVOS46_SIZE_V525,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V560,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V560),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V575,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V575,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570,
	NVRM_ABI_560_COMMON,
};

static const struct nvrm_abi nvrm_abi_580 = {
	.family = "580-590",
	.major = 580,
	.nvos46_size = NVRM_NVOS46_SIZE_V580,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V580,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V580,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V580),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V580,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V575,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V525,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570,
	NVRM_ABI_560_COMMON,
};

static const struct nvrm_abi nvrm_abi_595 = {
	.family = "595",
	.major = 595,
	.nvos46_size = NVRM_NVOS46_SIZE_V580,
	.channel_alloc_params_size = NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570,
	.vaspace_alloc_params_size = NVRM_VASPACE_ALLOC_PARAMS_SIZE_V580,
	.fb_info_max_list_size = NVRM_FB_INFO_MAX_LIST_SIZE_V580,
	.fb_get_info_v2_size = NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V580),
	.gpu_info_max_list_size = NVRM_GPU_INFO_MAX_LIST_SIZE_V580,
	.gpfifo_schedule_size = NVRM_GPFIFO_SCHEDULE_SIZE_V575,
	.gpu_name_string_size = NVRM_GPU_GET_NAME_STRING_SIZE_V595,
	.export_dmabuf_size = NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570,
	NVRM_ABI_560_COMMON,
};

#define NVRM_VER(maj, min, pat) ((u32)(maj) * 1000000u + (u32)(min) * 1000u + (u32)(pat))

/*
 * Version ranges, inclusive. Releases of a supported branch newer than the last tag we checked
 * map to the branch's profile; majors with no entry (540, 585, 600, ...) are unsupported.
 */
static const struct {
	u32 from;
	u32 to;
	const struct nvrm_abi *abi;
} nvrm_abi_ranges[] = {
	{ NVRM_VER(525, 0, 0), NVRM_VER(525, 999, 999), &nvrm_abi_525 },
	{ NVRM_VER(530, 0, 0), NVRM_VER(530, 999, 999), &nvrm_abi_530 },
	/* 535.43.02 and 535.54.03: 304 B channel params; 535.43.08-.28 and 535.86.05+: 360 B */
	{ NVRM_VER(535, 0, 0), NVRM_VER(535, 43, 7), &nvrm_abi_535_early },
	{ NVRM_VER(535, 43, 8), NVRM_VER(535, 43, 999), &nvrm_abi_535 },
	{ NVRM_VER(535, 44, 0), NVRM_VER(535, 85, 999), &nvrm_abi_535_early },
	{ NVRM_VER(535, 86, 0), NVRM_VER(535, 999, 999), &nvrm_abi_535 },
	{ NVRM_VER(545, 0, 0), NVRM_VER(545, 999, 999), &nvrm_abi_545 },
	/* 550.40.07: 1200 B UVM_MAP_EXTERNAL_ALLOCATION; 550.40.53+: 9264 B */
	{ NVRM_VER(550, 0, 0), NVRM_VER(550, 40, 52), &nvrm_abi_550_early },
	{ NVRM_VER(550, 40, 53), NVRM_VER(550, 999, 999), &nvrm_abi_550 },
	{ NVRM_VER(555, 0, 0), NVRM_VER(555, 999, 999), &nvrm_abi_550 },
	{ NVRM_VER(560, 0, 0), NVRM_VER(560, 999, 999), &nvrm_abi_560 },
	{ NVRM_VER(565, 0, 0), NVRM_VER(565, 999, 999), &nvrm_abi_560 },
	{ NVRM_VER(570, 0, 0), NVRM_VER(570, 999, 999), &nvrm_abi_570 },
	{ NVRM_VER(575, 0, 0), NVRM_VER(575, 999, 999), &nvrm_abi_575 },
	{ NVRM_VER(580, 0, 0), NVRM_VER(580, 999, 999), &nvrm_abi_580 },
	{ NVRM_VER(590, 0, 0), NVRM_VER(590, 999, 999), &nvrm_abi_580 },
	{ NVRM_VER(595, 0, 0), NVRM_VER(595, 999, 999), &nvrm_abi_595 },
};

/* Parse up to three decimal digits; returns the number of characters consumed, 0 on error. */
static u32 parse_component(const char *s, u32 *val)
{
	u32 n = 0, v = 0;

	while (s[n] >= '0' && s[n] <= '9') {
		if (n == 4)
			return 0;
		v = v * 10 + (u32)(s[n] - '0');
		n++;
	}
	*val = v;
	return n;
}

/**
 * nvrm_parse_version() - parse an NVIDIA driver version string
 * @s: "MAJOR.MINOR" or "MAJOR.MINOR.PATCH", decimal, as in /sys/module/nvidia/version or the
 *	CHECK_VERSION_STR reply; trailing whitespace (e.g. the sysfs newline) is accepted
 * @v: filled with the parsed components on success
 *
 * Each component is 1-4 digits; MINOR and PATCH must be below 1000 (they are at most 3 digits in
 * every release so far). Anything else, including an empty string, a missing MINOR, letters or
 * a fourth component, is rejected.
 *
 * Return: 0 on success, -EINVAL if @s is not a version string.
 */
int nvrm_parse_version(const char *s, struct nvrm_version *v)
{
	u32 vals[3] = { 0, 0, 0 };
	u32 i, n, count = 0;

	if (!s || !v)
		return -EINVAL;

	for (i = 0; i < 3; i++) {
		n = parse_component(s, &vals[i]);
		if (!n)
			return -EINVAL;
		s += n;
		count++;
		if (*s != '.')
			break;
		s++;
	}
	if (count < 2)
		return -EINVAL;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s != '\0')
		return -EINVAL;
	if (vals[1] > 999 || vals[2] > 999)
		return -EINVAL;

	v->major = vals[0];
	v->minor = vals[1];
	v->patch = vals[2];
	return 0;
}

/**
 * nvrm_abi_lookup() - find the ABI profile for a driver version
 * @version_string: e.g. "535.104.05" or "580.65.06" (see nvrm_parse_version())
 *
 * Return: the static profile for that version (its @version field is empty), or NULL if the
 * string does not parse or the version is not supported.
 */
const struct nvrm_abi *nvrm_abi_lookup(const char *version_string)
{
	struct nvrm_version v;
	u32 code;
	size_t i;

	if (nvrm_parse_version(version_string, &v))
		return NULL;
	if (v.major > 4000)
		return NULL;
	code = NVRM_VER(v.major, v.minor, v.patch);
	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_abi_ranges); i++) {
		if (code >= nvrm_abi_ranges[i].from && code <= nvrm_abi_ranges[i].to)
			return nvrm_abi_ranges[i].abi;
	}
	return NULL;
}

/**
 * nvrm_abi_init() - fill a private copy of the profile for a driver version
 * @abi: destination; on success a copy of the static profile with @abi->version set to
 *	@version_string without trailing whitespace
 * @version_string: the driver version (see nvrm_parse_version())
 *
 * Return: 0 on success, -EINVAL if the string does not parse or is too long for
 * NVRM_RM_API_VERSION_STRING_LENGTH, -EOPNOTSUPP if the version is not supported.
 */
int nvrm_abi_init(struct nvrm_abi *abi, const char *version_string)
{
	struct nvrm_version v;
	const struct nvrm_abi *tmpl;
	size_t len;

	if (!abi || nvrm_parse_version(version_string, &v))
		return -EINVAL;
	len = strnlen(version_string, NVRM_RM_API_VERSION_STRING_LENGTH);
	while (len > 0 && (version_string[len - 1] == ' ' || version_string[len - 1] == '\t' ||
			   version_string[len - 1] == '\n' || version_string[len - 1] == '\r'))
		len--;
	if (len >= NVRM_RM_API_VERSION_STRING_LENGTH)
		return -EINVAL;
	tmpl = nvrm_abi_lookup(version_string);
	if (!tmpl)
		return -EOPNOTSUPP;
	*abi = *tmpl;
	memcpy(abi->version, version_string, len);
	abi->version[len] = '\0';
	return 0;
}

/**
 * nvrm_abi_alloc_params_size() - size of the alloc params RM copies in for a class
 * @abi: driver profile
 * @hclass: class id of the RM_ALLOC
 *
 * RM ignores the caller's paramsSize and copies sizeof() of the class's param struct from its
 * own table (rmapiGetClassAllocParamSize, resource_list.h). Optional params count too: RM copies
 * them whenever the pointer is non-NULL.
 *
 * Return: the size in bytes, or 0 if the class takes no params or is not known to us (or did
 * not exist yet in this version).
 */
u32 nvrm_abi_alloc_params_size(const struct nvrm_abi *abi, u32 hclass)
{
	if (!abi)
		return 0;

	switch (hclass) {
	case NVRM_CLASS_NV01_ROOT:
	case NVRM_CLASS_NV01_ROOT_NON_PRIV:
	case NVRM_CLASS_NV01_ROOT_CLIENT:
		return NVRM_ROOT_ALLOC_PARAMS_SIZE;
	case NVRM_CLASS_NV01_DEVICE_0:
		return sizeof(struct nvrm_nv0080_alloc_params);
	case NVRM_CLASS_NV20_SUBDEVICE_0:
		return sizeof(struct nvrm_nv2080_alloc_params);
	case NVRM_CLASS_NV01_EVENT:
	case NVRM_CLASS_NV01_EVENT_OS_EVENT:
	case NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK:
	case NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK_EX:
		return sizeof(struct nvrm_nv0005_alloc_params);
	case NVRM_CLASS_NV01_MEMORY_LOCAL_USER:
	case NVRM_CLASS_NV01_MEMORY_SYSTEM:
	case NVRM_CLASS_NV50_MEMORY_VIRTUAL:
	case NVRM_CLASS_NV01_MEMORY_DEVICELESS:
		return abi->mem_alloc_params_size;
	case NVRM_CLASS_NV01_MEMORY_VIRTUAL:
		return sizeof(struct nvrm_memory_virtual_alloc_params);
	case NVRM_CLASS_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR:
		return NVRM_OS_DESC_MEMORY_ALLOC_PARAMS_SIZE;
	case NVRM_CLASS_NV01_MEMORY_LOCAL_PHYSICAL:
		return abi->phys_mem_alloc_params_size;
	case NVRM_CLASS_NV_MEMORY_FABRIC:
		return abi->nv00f8_alloc_params_size;
	case NVRM_CLASS_FERMI_VASPACE_A:
		return abi->vaspace_alloc_params_size;
	case NVRM_CLASS_KEPLER_CHANNEL_GROUP_A:
		return sizeof(struct nvrm_channel_group_alloc_params);
	case NVRM_CLASS_FERMI_CONTEXT_SHARE_A:
		return sizeof(struct nvrm_ctxshare_alloc_params);
	case NVRM_CLASS_VOLTA_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_TURING_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A:
	case NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A:
		return abi->channel_alloc_params_size;
	case NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_A:
		return abi->major >= 560 ? abi->channel_alloc_params_size : 0;
	case NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_B:
		return abi->major >= 570 ? abi->channel_alloc_params_size : 0;
	case NVRM_CLASS_TURING_COMPUTE_A:
	case NVRM_CLASS_AMPERE_COMPUTE_A:
	case NVRM_CLASS_AMPERE_COMPUTE_B:
	case NVRM_CLASS_ADA_COMPUTE_A:
	case NVRM_CLASS_HOPPER_COMPUTE_A:
		return NVRM_GR_ALLOC_PARAMS_SIZE;
	case NVRM_CLASS_BLACKWELL_COMPUTE_A:
		return abi->major >= 560 ? NVRM_GR_ALLOC_PARAMS_SIZE : 0;
	case NVRM_CLASS_BLACKWELL_COMPUTE_B:
		return abi->major >= 570 ? NVRM_GR_ALLOC_PARAMS_SIZE : 0;
	case NVRM_CLASS_TURING_DMA_COPY_A:
	case NVRM_CLASS_AMPERE_DMA_COPY_A:
	case NVRM_CLASS_AMPERE_DMA_COPY_B:
	case NVRM_CLASS_HOPPER_DMA_COPY_A:
		return NVRM_NVB0B5_ALLOC_PARAMS_SIZE;
	case NVRM_CLASS_BLACKWELL_DMA_COPY_A:
		return abi->major >= 560 ? NVRM_NVB0B5_ALLOC_PARAMS_SIZE : 0;
	case NVRM_CLASS_BLACKWELL_DMA_COPY_B:
		return abi->major >= 570 ? NVRM_NVB0B5_ALLOC_PARAMS_SIZE : 0;
	case NVRM_CLASS_HOPPER_USERMODE_A:
		return NVRM_HOPPER_USERMODE_A_PARAMS_SIZE;
	case NVRM_CLASS_BLACKWELL_USERMODE_A:
		return abi->major >= 570 ? NVRM_HOPPER_USERMODE_A_PARAMS_SIZE : 0;
	default:
		/* No params (e.g. 0x3F, Volta-Ampere usermode) or a class we do not describe. */
		return 0;
	}
}

/*
 * Escapes
 */

/* Size 0: variable (arrays, RM_ALLOC), versioned (looked up in the profile) or not described. */
static const struct {
	u8 nr;
	u8 flags;
	u16 size;
	const char *name;
} nvrm_escapes[] = {
	{ NVRM_ESC_RM_ALLOC_MEMORY, NVRM_ESCF_GPU_ONLY | NVRM_ESCF_FD_ARG,
	  sizeof(struct nvrm_nvos02_with_fd), "RM_ALLOC_MEMORY" },
	{ NVRM_ESC_RM_ALLOC_OBJECT, NVRM_ESCF_CTL_ONLY, NVRM_NVOS05_SIZE, "RM_ALLOC_OBJECT" },
	{ NVRM_ESC_RM_FREE, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos00), "RM_FREE" },
	{ NVRM_ESC_RM_CONTROL, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos54), "RM_CONTROL" },
	/* ctl only, except for the NV01_EVENT* classes */
	{ NVRM_ESC_RM_ALLOC, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_VERSIONED, 0, "RM_ALLOC" },
	{ NVRM_ESC_RM_CONFIG_GET, 0, 0, "RM_CONFIG_GET" },
	{ NVRM_ESC_RM_CONFIG_SET, 0, 0, "RM_CONFIG_SET" },
	{ NVRM_ESC_RM_DUP_OBJECT, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos55), "RM_DUP_OBJECT" },
	{ NVRM_ESC_RM_SHARE, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos57), "RM_SHARE" },
	{ NVRM_ESC_RM_CONFIG_GET_EX, 0, 0, "RM_CONFIG_GET_EX" },
	{ NVRM_ESC_RM_CONFIG_SET_EX, 0, 0, "RM_CONFIG_SET_EX" },
	{ NVRM_ESC_RM_I2C_ACCESS, NVRM_ESCF_GPU_ONLY, 0, "RM_I2C_ACCESS" },
	{ NVRM_ESC_RM_IDLE_CHANNELS, NVRM_ESCF_CTL_ONLY, NVRM_NVOS30_SIZE, "RM_IDLE_CHANNELS" },
	{ NVRM_ESC_RM_VID_HEAP_CONTROL, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos32),
	  "RM_VID_HEAP_CONTROL" },
	{ NVRM_ESC_RM_ACCESS_REGISTRY, NVRM_ESCF_CTL_ONLY, NVRM_NVOS38_SIZE, "RM_ACCESS_REGISTRY" },
	{ NVRM_ESC_RM_MAP_MEMORY, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_FD_ARG,
	  sizeof(struct nvrm_nvos33_with_fd), "RM_MAP_MEMORY" },
	{ NVRM_ESC_RM_UNMAP_MEMORY, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_nvos34),
	  "RM_UNMAP_MEMORY" },
	{ NVRM_ESC_RM_GET_EVENT_DATA, 0, NVRM_NVOS41_SIZE, "RM_GET_EVENT_DATA" },
	{ NVRM_ESC_RM_ALLOC_CONTEXT_DMA2, NVRM_ESCF_CTL_ONLY, NVRM_NVOS39_SIZE,
	  "RM_ALLOC_CONTEXT_DMA2" },
	{ NVRM_ESC_RM_ADD_VBLANK_CALLBACK, 0, 0, "RM_ADD_VBLANK_CALLBACK" },
	{ NVRM_ESC_RM_MAP_MEMORY_DMA, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_VERSIONED, 0,
	  "RM_MAP_MEMORY_DMA" },
	{ NVRM_ESC_RM_UNMAP_MEMORY_DMA, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_VERSIONED, 0,
	  "RM_UNMAP_MEMORY_DMA" },
	{ NVRM_ESC_RM_BIND_CONTEXT_DMA, NVRM_ESCF_CTL_ONLY, NVRM_NVOS49_SIZE,
	  "RM_BIND_CONTEXT_DMA" },
	{ NVRM_ESC_RM_EXPORT_OBJECT_TO_FD, 0, 0, "RM_EXPORT_OBJECT_TO_FD" },
	{ NVRM_ESC_RM_IMPORT_OBJECT_FROM_FD, 0, 0, "RM_IMPORT_OBJECT_FROM_FD" },
	{ NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, NVRM_ESCF_CTL_ONLY, NVRM_NVOS56_SIZE,
	  "RM_UPDATE_DEVICE_MAPPING_INFO" },
	/* RM_NVLOG_CTRL in 535, RM_LOCKLESS_DIAGNOSTIC in 545+; ctl only in both */
	{ NVRM_ESC_RM_LOCKLESS_DIAGNOSTIC, NVRM_ESCF_CTL_ONLY, 0, "RM_LOCKLESS_DIAGNOSTIC" },
	{ NVRM_ESC_CARD_INFO, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_ARRAY, 0, "CARD_INFO" },
	{ NVRM_ESC_REGISTER_FD, NVRM_ESCF_FD_ARG, sizeof(struct nvrm_register_fd), "REGISTER_FD" },
	{ NVRM_ESC_ALLOC_OS_EVENT, NVRM_ESCF_FD_ARG, sizeof(struct nvrm_alloc_os_event),
	  "ALLOC_OS_EVENT" },
	{ NVRM_ESC_FREE_OS_EVENT, NVRM_ESCF_FD_ARG, sizeof(struct nvrm_alloc_os_event),
	  "FREE_OS_EVENT" },
	{ NVRM_ESC_STATUS_CODE, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_status_code),
	  "STATUS_CODE" },
	{ NVRM_ESC_CHECK_VERSION_STR, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_rm_api_version),
	  "CHECK_VERSION_STR" },
	{ NVRM_ESC_IOCTL_XFER_CMD, 0, sizeof(struct nvrm_xfer), "IOCTL_XFER_CMD" },
	{ NVRM_ESC_ATTACH_GPUS_TO_FD, NVRM_ESCF_CTL_ONLY | NVRM_ESCF_ARRAY, 0,
	  "ATTACH_GPUS_TO_FD" },
	{ NVRM_ESC_QUERY_DEVICE_INTR, NVRM_ESCF_GPU_ONLY, sizeof(struct nvrm_query_device_intr),
	  "QUERY_DEVICE_INTR" },
	{ NVRM_ESC_SYS_PARAMS, NVRM_ESCF_CTL_ONLY, sizeof(struct nvrm_sys_params), "SYS_PARAMS" },
	{ NVRM_ESC_NUMA_INFO, NVRM_ESCF_GPU_ONLY | NVRM_ESCF_VERSIONED, 0, "NUMA_INFO" },
	{ NVRM_ESC_SET_NUMA_STATUS, NVRM_ESCF_GPU_ONLY, sizeof(struct nvrm_set_numa_status),
	  "SET_NUMA_STATUS" },
	{ NVRM_ESC_EXPORT_TO_DMABUF_FD, NVRM_ESCF_GPU_ONLY | NVRM_ESCF_FD_ARG | NVRM_ESCF_VERSIONED,
	  0, "EXPORT_TO_DMABUF_FD" },
	{ NVRM_ESC_WAIT_OPEN_COMPLETE, NVRM_ESCF_VERSIONED, 0, "WAIT_OPEN_COMPLETE" },
};

static int nvrm_escape_index(u32 nr)
{
	size_t i;

	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_escapes); i++) {
		if (nvrm_escapes[i].nr == nr)
			return (int)i;
	}
	return -1;
}

/**
 * nvrm_ioctl_nr() - the escape number of an nvidia ioctl cmd
 * @cmd: the ioctl cmd as passed to ->unlocked_ioctl
 *
 * Return: _IOC_NR(@cmd), the only part of the cmd besides the size that the driver uses.
 */
u32 nvrm_ioctl_nr(u32 cmd)
{
	return NVRM_IOC_NR(cmd);
}

/**
 * nvrm_ioctl_size() - the parameter size encoded in an nvidia ioctl cmd
 * @cmd: the ioctl cmd as passed to ->unlocked_ioctl
 *
 * Return: _IOC_SIZE(@cmd).
 */
u32 nvrm_ioctl_size(u32 cmd)
{
	return NVRM_IOC_SIZE(cmd);
}

/**
 * nvrm_escape_flags() - device restrictions and properties of an escape
 * @nr: escape number
 *
 * Return: a mask of NVRM_ESCF_* flags, 0 for an unknown escape.
 */
u32 nvrm_escape_flags(u32 nr)
{
	int i = nvrm_escape_index(nr);

	return i < 0 ? 0 : nvrm_escapes[i].flags;
}

/**
 * nvrm_ioctl_name() - name of an escape for logs
 * @nr: escape number (the ioctl's _IOC_NR, or an XFER's inner cmd)
 *
 * Return: a static string such as "RM_ALLOC"; "UNKNOWN" for numbers we do not know.
 */
const char *nvrm_ioctl_name(u32 nr)
{
	int i = nvrm_escape_index(nr);

	return i < 0 ? "UNKNOWN" : nvrm_escapes[i].name;
}

/**
 * nvrm_abi_escape_size() - the exact parameter size the driver requires for an escape
 * @abi: driver profile
 * @nr: escape number
 *
 * Return: the size in bytes, or 0 if the escape takes several sizes (RM_ALLOC: NVOS21 or
 * NVOS64; CARD_INFO and ATTACH_GPUS_TO_FD: arrays), does not exist in this version, or is not
 * described here.
 */
u32 nvrm_abi_escape_size(const struct nvrm_abi *abi, u32 nr)
{
	int i;

	if (!abi)
		return 0;
	switch (nr) {
	case NVRM_ESC_RM_MAP_MEMORY_DMA:
		return abi->nvos46_size;
	case NVRM_ESC_RM_UNMAP_MEMORY_DMA:
		return abi->nvos47_size;
	case NVRM_ESC_NUMA_INFO:
		return abi->numa_info_size;
	case NVRM_ESC_EXPORT_TO_DMABUF_FD:
		return abi->export_dmabuf_size;
	case NVRM_ESC_WAIT_OPEN_COMPLETE:
		return abi->has_wait_open_complete ? sizeof(struct nvrm_wait_open_complete) : 0;
	default:
		i = nvrm_escape_index(nr);
		return i < 0 ? 0 : nvrm_escapes[i].size;
	}
}

/*
 * RM_ALLOC
 */

/* Offset of the status field for an RM_ALLOC of @size bytes, or -EINVAL. */
static int nvrm_alloc_status_off(const struct nvrm_abi *abi, u32 size)
{
	if (size == sizeof(struct nvrm_nvos21_v535))
		return (int)abi->nvos21_status_off;
	if (size == abi->nvos64_size)
		return (int)abi->nvos64_status_off;
	return -EINVAL;
}

/**
 * nvrm_alloc_decode() - decode RM_ALLOC parameters
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: their size (the ioctl's _IOC_SIZE or the XFER's inner size)
 * @out: filled on success
 *
 * Like the driver (escape.c), tells NVOS21 and NVOS64 apart by size alone. The two layouts share
 * the prefix hRoot..pAllocParms; status, paramsSize and flags move with the version.
 *
 * Return: 0 on success, -EINVAL if @size is neither sizeof(NVOS21) nor this version's
 * sizeof(NVOS64).
 */
int nvrm_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
		      struct nvrm_alloc *out)
{
	if (!abi || !buf || !out)
		return -EINVAL;
	if (nvrm_alloc_status_off(abi, size) < 0)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->hroot = get_u32(buf, offsetof(struct nvrm_nvos21_v535, hroot));
	out->hparent = get_u32(buf, offsetof(struct nvrm_nvos21_v535, hobject_parent));
	out->hnew = get_u32(buf, offsetof(struct nvrm_nvos21_v535, hobject_new));
	out->hclass = get_u32(buf, offsetof(struct nvrm_nvos21_v535, hclass));
	out->params_ptr = get_u64(buf, offsetof(struct nvrm_nvos21_v535, palloc_parms));

	if (size == sizeof(struct nvrm_nvos21_v535)) {
		if (abi->nvos21_has_params_size)
			out->params_size = get_u32(buf, offsetof(struct nvrm_nvos21_v535,
								 params_size));
		out->status = get_u32(buf, abi->nvos21_status_off);
		out->is_nvos64 = false;
	} else {
		if (abi->nvos64_params_size_off)
			out->params_size = get_u32(buf, abi->nvos64_params_size_off);
		out->flags = get_u32(buf, abi->nvos64_flags_off);
		out->status = get_u32(buf, abi->nvos64_status_off);
		out->is_nvos64 = true;
	}
	return 0;
}

/**
 * nvrm_alloc_set_status() - write the status field of RM_ALLOC parameters
 * @abi: driver profile
 * @buf: kernel copy of the parameters (copied back to the caller afterwards)
 * @size: their size
 * @status: NVRM_OK or an NVRM_ERR_* code
 *
 * Return: 0 on success, -EINVAL for a size that is not NVOS21 or this version's NVOS64.
 */
int nvrm_alloc_set_status(const struct nvrm_abi *abi, void *buf, u32 size, u32 status)
{
	int off;

	if (!abi || !buf)
		return -EINVAL;
	off = nvrm_alloc_status_off(abi, size);
	if (off < 0)
		return off;
	put_u32(buf, (u32)off, status);
	return 0;
}

/**
 * nvrm_alloc_set_hnew() - write hObjectNew of RM_ALLOC parameters
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: their size
 * @hnew: the new object's handle
 *
 * Return: 0 on success, -EINVAL for a size that is not NVOS21 or this version's NVOS64.
 */
int nvrm_alloc_set_hnew(const struct nvrm_abi *abi, void *buf, u32 size, u32 hnew)
{
	if (!abi || !buf)
		return -EINVAL;
	if (nvrm_alloc_status_off(abi, size) < 0)
		return -EINVAL;
	put_u32(buf, offsetof(struct nvrm_nvos21_v535, hobject_new), hnew);
	return 0;
}

/*
 * Memory
 */

/**
 * nvrm_mem_alloc_is_vidmem() - whether an allocation consumes video memory
 * @attr: NV_MEMORY_ALLOCATION_PARAMS.attr or NVOS32 AllocSize.attr
 * @flags: the matching flags (NVRM_ALLOC_FLAGS_*)
 *
 * NV01_MEMORY_LOCAL_USER requires LOCATION=VIDMEM and no VIRTUAL flag (video_mem.c), and the
 * NVOS32 converter picks NV50_MEMORY_VIRTUAL for VIRTUAL, NV01_MEMORY_LOCAL_USER for
 * LOCATION=VIDMEM and system memory otherwise (rmapi_deprecated_vidheapctrl.c).
 *
 * Return: true if LOCATION is VIDMEM and the VIRTUAL flag is clear.
 */
bool nvrm_mem_alloc_is_vidmem(u32 attr, u32 flags)
{
	if (flags & NVRM_ALLOC_FLAGS_VIRTUAL)
		return false;
	return NVRM_ATTR_GET(attr, LOCATION) == NVRM_ATTR_LOCATION_VIDMEM;
}

/**
 * nvrm_mem_alloc_page_size() - the GPU page size of video memory, as its attr asks
 * @attr: NV_MEMORY_ALLOCATION_PARAMS.attr or NVOS32 attr (its PAGE_SIZE field)
 *
 * Video memory at the default page size takes 2 MiB pages from 2 MiB on: nvrm_vidmem_page_size().
 *
 * Return: 4 KiB, 2 MiB (huge) or 64 KiB (default and big).
 */
u64 nvrm_mem_alloc_page_size(u32 attr)
{
	switch (NVRM_ATTR_GET(attr, PAGE_SIZE)) {
	case NVRM_ATTR_PAGE_SIZE_4KB:
		return 4096;
	case NVRM_ATTR_PAGE_SIZE_HUGE:
		return 2ULL << 20;
	default:
		return 64ULL << 10;
	}
}

/**
 * nvrm_mem_alloc_granule() - what RM rounds an allocation's size (and offset) up to
 * @attr: NV_MEMORY_ALLOCATION_PARAMS.attr or NVOS32 attr (its PAGE_SIZE field)
 * @flags: the matching flags (NVRM_ALLOC_FLAGS_*)
 * @alignment: the requested alignment
 *
 * The page size attr asks for: 4 KiB, 2 MiB (huge) or 64 KiB (default and big). With
 * ALIGNMENT_FORCE, a power-of-two alignment above it: libcuda 580 asks for its 2 MiB chunks that
 * way with the default page size, and RM made a 3 MiB request 4 MiB and a 4.125 MiB one 6 MiB
 * (traced on an H200 with 580.159.04, tests/unit/c/fixtures/).
 *
 * Return: the granule in bytes, a power of two.
 */
u64 nvrm_mem_alloc_granule(u32 attr, u32 flags, u64 alignment)
{
	u64 page = nvrm_mem_alloc_page_size(attr);

	if ((flags & NVRM_ALLOC_FLAGS_ALIGNMENT_FORCE) && alignment > page &&
	    !(alignment & (alignment - 1)))
		page = alignment;
	return page;
}

/**
 * nvrm_vidmem_page_size() - the GPU page size RM gives video memory
 * @size: the requested size
 * @attr: NV_MEMORY_ALLOCATION_PARAMS.attr or NVOS32 attr (its PAGE_SIZE field)
 *
 * What the attr asks for (nvrm_mem_alloc_page_size()), except that the default is 2 MiB pages
 * from 2 MiB on: _memmgrPickDefaultGpuPageSize() (mem_mgr.c, 525.60.13-595.45.04) takes huge
 * pages when the GPU has them (Pascal on) and memSize >= RM_PAGE_SIZE_HUGE. An H200 with
 * 580.159.04 took 4 MiB for a 3 MiB request at the default page size, 2 MiB for 2 MiB, 1 MiB for
 * 1 MiB and 64 KiB for 4 KiB (tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest).
 *
 * Return: the page size in bytes.
 */
u64 nvrm_vidmem_page_size(u64 size, u32 attr)
{
	if (NVRM_ATTR_GET(attr, PAGE_SIZE) == NVRM_ATTR_PAGE_SIZE_DEFAULT && size >= (2ULL << 20))
		return 2ULL << 20;
	return nvrm_mem_alloc_page_size(attr);
}

/**
 * nvrm_vidmem_granule() - what RM rounds a video-memory allocation's size (and offset) up to
 * @size: the requested size
 * @attr: as for nvrm_mem_alloc_granule()
 * @flags: as for nvrm_mem_alloc_granule()
 * @alignment: as for nvrm_mem_alloc_granule()
 *
 * Return: nvrm_mem_alloc_granule(), at least nvrm_vidmem_page_size(); a power of two.
 */
u64 nvrm_vidmem_granule(u64 size, u32 attr, u32 flags, u64 alignment)
{
	u64 page = nvrm_mem_alloc_granule(attr, flags, alignment);
	u64 vidmem_page = nvrm_vidmem_page_size(size, attr);

	return page > vidmem_page ? page : vidmem_page;
}

/**
 * nvrm_mem_alloc_decode() - decode NV_MEMORY_ALLOCATION_PARAMS
 * @abi: driver profile
 * @buf: kernel copy of the alloc params (classes 0x40, 0x3E, 0x50A0, 0x90CE)
 * @size: bytes in @buf; must be this version's sizeof(NV_MEMORY_ALLOCATION_PARAMS)
 * @out: filled on success
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_mem_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			  struct nvrm_mem_alloc *out)
{
	if (!abi || !buf || !out || size != abi->mem_alloc_params_size)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->owner = get_u32(buf, offsetof(struct nvrm_memory_allocation_params, owner));
	out->flags = get_u32(buf, offsetof(struct nvrm_memory_allocation_params, flags));
	out->attr = get_u32(buf, offsetof(struct nvrm_memory_allocation_params, attr));
	out->attr2 = get_u32(buf, offsetof(struct nvrm_memory_allocation_params, attr2));
	out->size = get_u64(buf, offsetof(struct nvrm_memory_allocation_params, size));
	out->alignment = get_u64(buf, offsetof(struct nvrm_memory_allocation_params, alignment));
	out->hva_space = get_u32(buf, offsetof(struct nvrm_memory_allocation_params, hva_space));
	out->internal_flags = get_u32(buf, offsetof(struct nvrm_memory_allocation_params,
						    internal_flags));
	out->is_vidmem = nvrm_mem_alloc_is_vidmem(out->attr, out->flags);
	return 0;
}

/**
 * nvrm_mem_alloc_set_size() - write NV_MEMORY_ALLOCATION_PARAMS.size
 * @abi: driver profile
 * @buf: kernel copy of the alloc params
 * @size: bytes in @buf; must be this version's sizeof(NV_MEMORY_ALLOCATION_PARAMS)
 * @alloc_size: the value to store (RM writes back the allocated size here)
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_mem_alloc_set_size(const struct nvrm_abi *abi, void *buf, u32 size, u64 alloc_size)
{
	if (!abi || !buf || size != abi->mem_alloc_params_size)
		return -EINVAL;
	put_u64(buf, offsetof(struct nvrm_memory_allocation_params, size), alloc_size);
	return 0;
}

/**
 * nvrm_mem_alloc_user_status() - what RM answers a user for the fields only kernel callers may set
 * @attr2: the request's attr2
 * @internal_flags: its internalflags (0 for VID_HEAP_CONTROL, which has none)
 *
 * stdmemValidateParams() (standard_mem.c, 525-595) refuses a non-zero internalflags with
 * NV_ERR_INVALID_ARGUMENT and PAGE_OFFLINING_OFF with NV_ERR_INSUFFICIENT_PERMISSIONS when the
 * caller is below kernel privilege, in that order; see nvrm_abi.h.
 *
 * Return: NVRM_OK, or the status RM gives a user caller.
 */
u32 nvrm_mem_alloc_user_status(u32 attr2, u32 internal_flags)
{
	if (internal_flags)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (attr2 & NVRM_ATTR2_PAGE_OFFLINING_OFF)
		return NVRM_ERR_INSUFFICIENT_PERMISSIONS;
	return NVRM_OK;
}

/**
 * nvrm_mem_alloc_as_user() - make NV_MEMORY_ALLOCATION_PARAMS mean to a kernel caller what they
 * mean to a user
 * @abi: driver profile
 * @buf: kernel copy of the alloc params
 * @size: bytes in @buf; must be this version's sizeof(NV_MEMORY_ALLOCATION_PARAMS)
 *
 * Clears ALLOCATE_FROM_RESERVED_HEAP, which RM ignores for a user and honours for a kernel caller.
 * The fields RM refuses from a user are nvrm_mem_alloc_user_status()'s to check first.
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_mem_alloc_as_user(const struct nvrm_abi *abi, void *buf, u32 size)
{
	const size_t off = offsetof(struct nvrm_memory_allocation_params, attr);

	if (!abi || !buf || size != abi->mem_alloc_params_size)
		return -EINVAL;
	put_u32(buf, off, get_u32(buf, off) & ~NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP);
	return 0;
}

#define NVRM_NVOS32_ALLOC_OFF(field) offsetof(struct nvrm_nvos32, data.alloc_size.field)

/**
 * nvrm_vidheap_as_user() - nvrm_mem_alloc_as_user() for an NVOS32 AllocSize
 * @buf: kernel copy of NVOS32
 * @size: its size; must be 184
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_vidheap_as_user(void *buf, u32 size)
{
	const size_t off = NVRM_NVOS32_ALLOC_OFF(attr);

	if (!buf || size != sizeof(struct nvrm_nvos32))
		return -EINVAL;
	put_u32(buf, off, get_u32(buf, off) & ~NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP);
	return 0;
}

/**
 * nvrm_vidheap_decode() - decode NVOS32 (RM_VID_HEAP_CONTROL)
 * @buf: kernel copy of the parameters
 * @size: their size; must be 184 (layout unchanged 525-595)
 * @out: filled on success
 *
 * The AllocSize fields are decoded for the alloc functions only, hMemory also for FREE.
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_vidheap_decode(const void *buf, u32 size, struct nvrm_vidheap *out)
{
	if (!buf || !out || size != sizeof(struct nvrm_nvos32))
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->hroot = get_u32(buf, offsetof(struct nvrm_nvos32, hroot));
	out->hparent = get_u32(buf, offsetof(struct nvrm_nvos32, hobject_parent));
	out->function = get_u32(buf, offsetof(struct nvrm_nvos32, function));
	out->status = get_u32(buf, offsetof(struct nvrm_nvos32, status));
	out->total = get_u64(buf, offsetof(struct nvrm_nvos32, total));
	out->free = get_u64(buf, offsetof(struct nvrm_nvos32, free));

	switch (out->function) {
	case NVRM_NVOS32_FUNCTION_ALLOC_SIZE:
	case NVRM_NVOS32_FUNCTION_ALLOC_SIZE_RANGE:
	case NVRM_NVOS32_FUNCTION_ALLOC_TILED_PITCH_HEIGHT:
		out->is_alloc = true;
		out->hmemory = get_u32(buf, NVRM_NVOS32_ALLOC_OFF(hmemory));
		out->alloc_flags = get_u32(buf, NVRM_NVOS32_ALLOC_OFF(flags));
		out->attr = get_u32(buf, NVRM_NVOS32_ALLOC_OFF(attr));
		out->attr2 = get_u32(buf, NVRM_NVOS32_ALLOC_OFF(attr2));
		out->size = get_u64(buf, NVRM_NVOS32_ALLOC_OFF(size));
		out->is_vidmem = nvrm_mem_alloc_is_vidmem(out->attr, out->alloc_flags);
		break;
	case NVRM_NVOS32_FUNCTION_FREE:
		out->hmemory = get_u32(buf, offsetof(struct nvrm_nvos32, data.free.hmemory));
		break;
	default:
		break;
	}
	return 0;
}

/*
 * XFER and RM_CONTROL
 */

/**
 * nvrm_xfer_decode() - unwrap NV_ESC_IOCTL_XFER_CMD
 * @buf: kernel copy of the outer nv_ioctl_xfer_t
 * @outer_size: the outer ioctl's _IOC_SIZE
 * @out: filled on success
 *
 * The driver (nv.c nvidia_ioctl, 525-595) requires the outer size to be exactly 16 and the inner
 * size to be at most NV_ABSOLUTE_MAX_IOCTL_SIZE, and fails the ioctl with -EINVAL otherwise.
 * An XFER nested in an XFER is not unwrapped again by the driver (RM rejects it as an unknown
 * escape), so it is refused here too.
 *
 * Return: 0 on success, -EINVAL if any rule is broken.
 */
int nvrm_xfer_decode(const void *buf, u32 outer_size, struct nvrm_xfer_req *out)
{
	if (!buf || !out || outer_size != sizeof(struct nvrm_xfer))
		return -EINVAL;

	out->nr = get_u32(buf, offsetof(struct nvrm_xfer, cmd));
	out->size = get_u32(buf, offsetof(struct nvrm_xfer, size));
	out->ptr = get_u64(buf, offsetof(struct nvrm_xfer, ptr));
	if (out->size > NVRM_ABSOLUTE_MAX_IOCTL_SIZE)
		return -EINVAL;
	if (out->nr == NVRM_ESC_IOCTL_XFER_CMD)
		return -EINVAL;
	return 0;
}

/**
 * nvrm_control_decode() - decode NVOS54 (RM_CONTROL)
 * @buf: kernel copy of the parameters
 * @size: their size; must be 32
 * @out: filled on success
 *
 * Callers that look inside the control's params must skip FINN-serialized calls
 * (@out->finn_serialized) and check params_size against the control's size for the version;
 * RM itself rejects params_size above NVRM_CONTROL_MAX_PARAMS_SIZE.
 *
 * Return: 0 on success, -EINVAL on a size mismatch.
 */
int nvrm_control_decode(const void *buf, u32 size, struct nvrm_control *out)
{
	if (!buf || !out || size != sizeof(struct nvrm_nvos54))
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->hclient = get_u32(buf, offsetof(struct nvrm_nvos54, hclient));
	out->hobject = get_u32(buf, offsetof(struct nvrm_nvos54, hobject));
	out->cmd = get_u32(buf, offsetof(struct nvrm_nvos54, cmd));
	out->flags = get_u32(buf, offsetof(struct nvrm_nvos54, flags));
	out->params_ptr = get_u64(buf, offsetof(struct nvrm_nvos54, params));
	out->params_size = get_u32(buf, offsetof(struct nvrm_nvos54, params_size));
	out->status = get_u32(buf, offsetof(struct nvrm_nvos54, status));
	out->finn_serialized = !!(out->flags & NVRM_NVOS54_FLAGS_FINN_SERIALIZED);
	return 0;
}

/*
 * EXPORT_TO_DMABUF_FD
 */

/**
 * nvrm_dmabuf_export_decode() - decode nv_ioctl_export_to_dma_buf_fd_t
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: their size; must be the profile's (2600 B in 525-565, 2608 B in 570-595)
 * @out: filled on success
 *
 * Return: 0 on success, -EINVAL on a size mismatch (the driver fails the ioctl with -EINVAL).
 */
int nvrm_dmabuf_export_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			      struct nvrm_dmabuf_export *out)
{
	if (!abi || !buf || !out || !size || size != abi->export_dmabuf_size)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	/* The fields up to totalSize are the same in every layout. */
	out->fd = (s32)get_u32(buf, offsetof(struct nvrm_export_dmabuf_v525, fd));
	out->hclient = get_u32(buf, offsetof(struct nvrm_export_dmabuf_v525, hclient));
	out->total_objects = get_u32(buf, offsetof(struct nvrm_export_dmabuf_v525, total_objects));
	out->num_objects = get_u32(buf, offsetof(struct nvrm_export_dmabuf_v525, num_objects));
	out->index = get_u32(buf, offsetof(struct nvrm_export_dmabuf_v525, index));
	out->total_size = get_u64(buf, offsetof(struct nvrm_export_dmabuf_v525, total_size));
	if (size == NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525) {
		out->status_off = offsetof(struct nvrm_export_dmabuf_v525, status);
		out->handles_off = offsetof(struct nvrm_export_dmabuf_v525, handles);
		out->offsets_off = offsetof(struct nvrm_export_dmabuf_v525, offsets);
		out->sizes_off = offsetof(struct nvrm_export_dmabuf_v525, sizes);
		return 0;
	}
	out->mapping_type = ((const u8 *)buf)[offsetof(struct nvrm_export_dmabuf_v570,
						       mapping_type)];
	/* Byte 33 is padding before 580, and the driver does not read it. */
	if (abi->major >= 580)
		out->allow_mmap = ((const u8 *)buf)[offsetof(struct nvrm_export_dmabuf_v570,
							     allow_mmap)];
	out->status_off = offsetof(struct nvrm_export_dmabuf_v570, status);
	out->handles_off = offsetof(struct nvrm_export_dmabuf_v570, handles);
	out->offsets_off = offsetof(struct nvrm_export_dmabuf_v570, offsets);
	out->sizes_off = offsetof(struct nvrm_export_dmabuf_v570, sizes);
	return 0;
}

/**
 * nvrm_dma_map_decode() - decode NVOS46 (RM_MAP_MEMORY_DMA)
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: their size; must be the profile's (56 B in 525-575, 64 B in 580-595)
 * @out: filled on success
 *
 * Return: 0 on success, -EINVAL on a size mismatch (the driver refuses the escape).
 */
int nvrm_dma_map_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			struct nvrm_dma_map *out)
{
	if (!abi || !buf || !out || !size || size != abi->nvos46_size)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* The fields up to flags are the same in both layouts. */
	out->hclient = get_u32(buf, offsetof(struct nvrm_nvos46_v525, hclient));
	out->hdevice = get_u32(buf, offsetof(struct nvrm_nvos46_v525, hdevice));
	out->hdma = get_u32(buf, offsetof(struct nvrm_nvos46_v525, hdma));
	out->hmemory = get_u32(buf, offsetof(struct nvrm_nvos46_v525, hmemory));
	out->offset = get_u64(buf, offsetof(struct nvrm_nvos46_v525, offset));
	out->length = get_u64(buf, offsetof(struct nvrm_nvos46_v525, length));
	out->flags = get_u32(buf, offsetof(struct nvrm_nvos46_v525, flags));
	if (size == NVRM_NVOS46_SIZE_V525) {
		out->dma_offset_off = offsetof(struct nvrm_nvos46_v525, dma_offset);
		out->status_off = offsetof(struct nvrm_nvos46_v525, status);
	} else {
		out->dma_offset_off = offsetof(struct nvrm_nvos46_v580, dma_offset);
		out->status_off = offsetof(struct nvrm_nvos46_v580, status);
	}
	out->dma_offset = get_u64(buf, out->dma_offset_off);
	out->status = get_u32(buf, out->status_off);
	return 0;
}

/**
 * nvrm_dma_unmap_decode() - decode NVOS47 (RM_UNMAP_MEMORY_DMA)
 * @abi: driver profile
 * @buf: kernel copy of the parameters
 * @size: their size; must be the profile's (40 B in 525-545, 48 B in 550-595)
 * @out: filled on success
 *
 * Return: 0 on success, -EINVAL on a size mismatch (the driver refuses the escape).
 */
int nvrm_dma_unmap_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			  struct nvrm_dma_unmap *out)
{
	if (!abi || !buf || !out || !size || size != abi->nvos47_size)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->hclient = get_u32(buf, offsetof(struct nvrm_nvos47_v525, hclient));
	out->hdevice = get_u32(buf, offsetof(struct nvrm_nvos47_v525, hdevice));
	out->hdma = get_u32(buf, offsetof(struct nvrm_nvos47_v525, hdma));
	out->hmemory = get_u32(buf, offsetof(struct nvrm_nvos47_v525, hmemory));
	out->flags = get_u32(buf, offsetof(struct nvrm_nvos47_v525, flags));
	out->dma_offset = get_u64(buf, offsetof(struct nvrm_nvos47_v525, dma_offset));
	if (size == NVRM_NVOS47_SIZE_V525) {
		out->status_off = offsetof(struct nvrm_nvos47_v525, status);
	} else {
		out->has_size = true;
		out->size = get_u64(buf, offsetof(struct nvrm_nvos47_v550, size));
		out->status_off = offsetof(struct nvrm_nvos47_v550, status);
	}
	out->status = get_u32(buf, out->status_off);
	return 0;
}

/* Write a field of a parameter block at an offset a decoder returned. */
void nvrm_put_u32(void *buf, u32 off, u32 v)
{
	put_u32(buf, off, v);
}

void nvrm_put_u64(void *buf, u32 off, u64 v)
{
	put_u64(buf, off, v);
}

/**
 * nvrm_gpu_get_info_v2_size() - sizeof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS) of a version
 * @abi: the driver's profile
 *
 * Return: 4 + 8 * NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE (564 B at 580).
 */
u32 nvrm_gpu_get_info_v2_size(const struct nvrm_abi *abi)
{
	return NVRM_GPU_GET_INFO_V2_SIZE(abi->gpu_info_max_list_size);
}

/**
 * nvrm_gpu_info_check() - RM's checks of GPU_GET_INFO_V2 / GPU_GET_CACHED_INFO parameters
 * @abi: the driver's profile
 * @buf: the parameters
 * @size: their size, nvrm_gpu_get_info_v2_size() (RM refuses any other before this)
 *
 * As getGpuInfos() (subdevice_ctrl_gpu_kernel.c, 525-595): a list size of 0 or over the
 * version's maximum, or an entry whose index is at or over it, is NV_ERR_INVALID_ARGUMENT.
 * The whole index is compared, as 525-550 do; 555+ compare its low 24 bits and check the
 * GPU group in the bits above, which single-group GPUs refuse the same way.
 *
 * Return: NVRM_OK or NVRM_ERR_INVALID_ARGUMENT.
 */
u32 nvrm_gpu_info_check(const struct nvrm_abi *abi, const void *buf, u32 size)
{
	u32 i, n, max = abi->gpu_info_max_list_size;

	if (size < nvrm_gpu_get_info_v2_size(abi))
		return NVRM_ERR_INVALID_ARGUMENT;
	n = get_u32(buf, 0);
	if (!n || n > max)
		return NVRM_ERR_INVALID_ARGUMENT;
	for (i = 0; i < n; i++)
		if (get_u32(buf, 4 + 8 * i) >= max)
			return NVRM_ERR_INVALID_ARGUMENT;
	return NVRM_OK;
}

/**
 * nvrm_gpu_info_hide_dmabuf() - answer DMABUF_CAPABILITY_NO in a GPU_GET_INFO_V2 answer
 * @abi: the driver's profile
 * @buf: the parameters RM answered
 * @size: their size
 *
 * Every entry of the list whose index (low 24 bits, as 555+ read it) is DMABUF_CAPABILITY
 * gets data NO. Entries past the list size, or a list size over the maximum, are left alone.
 *
 * Return: how many entries were changed.
 */
u32 nvrm_gpu_info_hide_dmabuf(const struct nvrm_abi *abi, void *buf, u32 size)
{
	u32 i, n, changed = 0;

	if (size < nvrm_gpu_get_info_v2_size(abi))
		return 0;
	n = get_u32(buf, 0);
	if (n > abi->gpu_info_max_list_size)
		return 0;
	for (i = 0; i < n; i++) {
		u32 index = get_u32(buf, 4 + 8 * i) & NVRM_GPU_INFO_INDEX_INDEX_MASK;

		if (index != NVRM_GPU_INFO_INDEX_DMABUF_CAPABILITY ||
		    get_u32(buf, 8 + 8 * i) == NVRM_GPU_INFO_DMABUF_CAPABILITY_NO)
			continue;
		put_u32(buf, 8 + 8 * i, NVRM_GPU_INFO_DMABUF_CAPABILITY_NO);
		changed++;
	}
	return changed;
}

/**
 * nvrm_dmabuf_export_check() - the driver's checks of the arguments, before anything is made
 * @d: the decoded call
 *
 * As nv_dma_buf_export() and the first check of nv_dma_buf_create() (nv-dmabuf.c, 525-595):
 * no size, no objects, more than 128 objects or more than the total, an unknown mapping type,
 * an fd below -1, or (for a new dma-buf) a first slot from which the objects do not fit, are
 * NV_ERR_INVALID_ARGUMENT. A new dma-buf's slots are checked here, an existing one's when the
 * driver has it.
 *
 * Return: NVRM_OK, or the status the driver answers.
 */
u32 nvrm_dmabuf_export_check(const struct nvrm_dmabuf_export *d)
{
	if (!d->total_size || !d->num_objects || !d->total_objects ||
	    d->num_objects > NVRM_DMABUF_EXPORT_MAX_HANDLES || d->num_objects > d->total_objects)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (d->mapping_type != NVRM_DMABUF_MAPPING_TYPE_DEFAULT &&
	    d->mapping_type != NVRM_DMABUF_MAPPING_TYPE_FORCE_PCIE)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (d->fd < -1)
		return NVRM_ERR_INVALID_ARGUMENT;
	if (d->fd == -1 && d->index > d->total_objects - d->num_objects)
		return NVRM_ERR_INVALID_ARGUMENT;
	return NVRM_OK;
}

/**
 * nvrm_dmabuf_export_object() - the @i-th object a call names
 * @buf: kernel copy of the parameters
 * @d: their decoding
 * @i: 0 .. NVRM_DMABUF_EXPORT_MAX_HANDLES - 1
 * @handle: its memory handle
 * @offset: the start of the range exported
 * @size: the range's size
 */
void nvrm_dmabuf_export_object(const void *buf, const struct nvrm_dmabuf_export *d, u32 i,
			       u32 *handle, u64 *offset, u64 *size)
{
	*handle = get_u32(buf, d->handles_off + i * (u32)sizeof(u32));
	*offset = get_u64(buf, d->offsets_off + i * (u32)sizeof(u64));
	*size = get_u64(buf, d->sizes_off + i * (u32)sizeof(u64));
}

/*
 * Status names
 */
#define NVRM_STATUS_ENTRY(code, name) { code, name }
static const struct {
	u32 code;
	const char *name;
} nvrm_status_names[] = {
	NVRM_STATUS_ENTRY(NVRM_OK, "NV_OK"),
	NVRM_STATUS_ENTRY(NVRM_ERR_BUFFER_TOO_SMALL, "NV_ERR_BUFFER_TOO_SMALL"),
	NVRM_STATUS_ENTRY(NVRM_ERR_BUSY_RETRY, "NV_ERR_BUSY_RETRY"),
	NVRM_STATUS_ENTRY(NVRM_ERR_GPU_IS_LOST, "NV_ERR_GPU_IS_LOST"),
	NVRM_STATUS_ENTRY(NVRM_ERR_ILLEGAL_ACTION, "NV_ERR_ILLEGAL_ACTION"),
	NVRM_STATUS_ENTRY(NVRM_ERR_IN_USE, "NV_ERR_IN_USE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INSERT_DUPLICATE_NAME, "NV_ERR_INSERT_DUPLICATE_NAME"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INSUFFICIENT_RESOURCES, "NV_ERR_INSUFFICIENT_RESOURCES"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INSUFFICIENT_PERMISSIONS, "NV_ERR_INSUFFICIENT_PERMISSIONS"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_ACCESS_TYPE, "NV_ERR_INVALID_ACCESS_TYPE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_ADDRESS, "NV_ERR_INVALID_ADDRESS"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_ARGUMENT, "NV_ERR_INVALID_ARGUMENT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_CHANNEL, "NV_ERR_INVALID_CHANNEL"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_CLASS, "NV_ERR_INVALID_CLASS"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_CLIENT, "NV_ERR_INVALID_CLIENT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_COMMAND, "NV_ERR_INVALID_COMMAND"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_DATA, "NV_ERR_INVALID_DATA"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_DEVICE, "NV_ERR_INVALID_DEVICE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_EVENT, "NV_ERR_INVALID_EVENT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_FLAGS, "NV_ERR_INVALID_FLAGS"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_INDEX, "NV_ERR_INVALID_INDEX"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_LIMIT, "NV_ERR_INVALID_LIMIT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_METHOD, "NV_ERR_INVALID_METHOD"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_OBJECT, "NV_ERR_INVALID_OBJECT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_OBJECT_HANDLE, "NV_ERR_INVALID_OBJECT_HANDLE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_OBJECT_PARENT, "NV_ERR_INVALID_OBJECT_PARENT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_OFFSET, "NV_ERR_INVALID_OFFSET"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_OWNER, "NV_ERR_INVALID_OWNER"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_PARAM_STRUCT, "NV_ERR_INVALID_PARAM_STRUCT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_PARAMETER, "NV_ERR_INVALID_PARAMETER"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_POINTER, "NV_ERR_INVALID_POINTER"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_REQUEST, "NV_ERR_INVALID_REQUEST"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_STATE, "NV_ERR_INVALID_STATE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_STRING_LENGTH, "NV_ERR_INVALID_STRING_LENGTH"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_READ, "NV_ERR_INVALID_READ"),
	NVRM_STATUS_ENTRY(NVRM_ERR_INVALID_WRITE, "NV_ERR_INVALID_WRITE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_MORE_PROCESSING_REQUIRED, "NV_ERR_MORE_PROCESSING_REQUIRED"),
	NVRM_STATUS_ENTRY(NVRM_ERR_NO_FREE_FIFOS, "NV_ERR_NO_FREE_FIFOS"),
	NVRM_STATUS_ENTRY(NVRM_ERR_NO_MEMORY, "NV_ERR_NO_MEMORY"),
	NVRM_STATUS_ENTRY(NVRM_ERR_NOT_READY, "NV_ERR_NOT_READY"),
	NVRM_STATUS_ENTRY(NVRM_ERR_NOT_SUPPORTED, "NV_ERR_NOT_SUPPORTED"),
	NVRM_STATUS_ENTRY(NVRM_ERR_OBJECT_NOT_FOUND, "NV_ERR_OBJECT_NOT_FOUND"),
	NVRM_STATUS_ENTRY(NVRM_ERR_OBJECT_TYPE_MISMATCH, "NV_ERR_OBJECT_TYPE_MISMATCH"),
	NVRM_STATUS_ENTRY(NVRM_ERR_OPERATING_SYSTEM, "NV_ERR_OPERATING_SYSTEM"),
	NVRM_STATUS_ENTRY(NVRM_ERR_OUT_OF_RANGE, "NV_ERR_OUT_OF_RANGE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_RESET_REQUIRED, "NV_ERR_RESET_REQUIRED"),
	NVRM_STATUS_ENTRY(NVRM_ERR_STATE_IN_USE, "NV_ERR_STATE_IN_USE"),
	NVRM_STATUS_ENTRY(NVRM_ERR_TIMEOUT, "NV_ERR_TIMEOUT"),
	NVRM_STATUS_ENTRY(NVRM_ERR_GENERIC, "NV_ERR_GENERIC"),
};

/**
 * nvrm_compute_preemption_refused() - does a tenant's preemption control set a compute mode it
 * may not have?
 * @cmd: NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE or NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND
 * @flags: the parameters' flags (bit 0: the compute mode is set)
 * @cilp_mode: the compute mode asked for
 *
 * Only CILP stops a running kernel at once (DOC: compute preemption, kmod/qgpu_preempt.c): a SET
 * of another mode is refused, and a BIND that sets a mode at all (it binds the preemption buffers
 * a graphics driver allocates; one for graphics alone goes on). libcuda's own SET, CILP on its
 * graphics group, passes (tests/unit/c/fixtures/nvidia-580-cuda-spin.digest).
 *
 * Return: true when the call is to be refused.
 */
bool nvrm_compute_preemption_refused(u32 cmd, u32 flags, u32 cilp_mode)
{
	if (!(flags & NVRM_GR_PREEMPTION_FLAGS_CILP_SET))
		return false;
	if (cmd == NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND)
		return true;
	return cmd == NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE &&
	       cilp_mode != NVRM_GR_COMPUTE_PREEMPT_CILP;
}

/**
 * nvrm_status_name() - name of an RM status code for logs
 * @status: an RM status (the status field of any RM parameter struct)
 *
 * Return: a static string such as "NV_ERR_NO_MEMORY", or "NV_ERR_UNKNOWN" for codes not in our
 * table.
 */
const char *nvrm_status_name(u32 status)
{
	size_t i;

	for (i = 0; i < NVRM_ARRAY_SIZE(nvrm_status_names); i++) {
		if (nvrm_status_names[i].code == status)
			return nvrm_status_names[i].name;
	}
	return "NV_ERR_UNKNOWN";
}
