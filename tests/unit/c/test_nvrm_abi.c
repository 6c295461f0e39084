// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/nvrm/nvrm_abi.h against the numbers in shared/reference/nvidia-rm-abi.md (sections 1-5
 * and 8) and our own measurements of NVIDIA's headers. The static asserts in nvrm_abi.h already
 * pin the layouts at compile time; these tests repeat them as visible, named results.
 */
#include "tap.h"
#include "nvrm/nvrm_abi.h"

struct size_row {
	const char *name;
	size_t got;
	size_t want;
};

#define SZ(type, want) { #type, sizeof(type), want }

TEST(abi_struct_sizes)
{
	static const struct size_row rows[] = {
		SZ(struct nvrm_card_info, 72),
		SZ(struct nvrm_pci_info, 12),
		SZ(struct nvrm_register_fd, 4),
		SZ(struct nvrm_alloc_os_event, 16),
		SZ(struct nvrm_status_code, 12),
		SZ(struct nvrm_rm_api_version, 72),
		SZ(struct nvrm_xfer, 16),
		SZ(struct nvrm_query_device_intr, 8),
		SZ(struct nvrm_sys_params, 8),
		SZ(struct nvrm_set_numa_status, 4),
		SZ(struct nvrm_wait_open_complete, 8),
		SZ(struct nvrm_nvos00, 16),
		SZ(struct nvrm_nvos02, 48),
		SZ(struct nvrm_nvos02_with_fd, 56),
		SZ(struct nvrm_nvos21_v525, 32),
		SZ(struct nvrm_nvos21_v535, 32),
		SZ(struct nvrm_nvos64_v525, 40),
		SZ(struct nvrm_nvos64_v535, 48),
		SZ(struct nvrm_nvos54, 32),
		SZ(struct nvrm_nvos55, 28),
		SZ(struct nvrm_nvos57, 24),
		SZ(struct nvrm_nvos38, 72),
		SZ(struct nvrm_numa_info_head, 32),
		SZ(struct nvrm_nvos32, 184),
		SZ(struct nvrm_nvos33, 48),
		SZ(struct nvrm_nvos33_with_fd, 56),
		SZ(struct nvrm_nvos34, 32),
		SZ(struct nvrm_memory_allocation_params, 128),
		SZ(struct nvrm_memory_virtual_alloc_params, 24),
		SZ(struct nvrm_nv0080_alloc_params, 56),
		SZ(struct nvrm_nv2080_alloc_params, 4),
		SZ(struct nvrm_nv0005_alloc_params, 24),
		SZ(struct nvrm_channel_group_alloc_params, 20),
		SZ(struct nvrm_ctxshare_alloc_params, 12),
		SZ(struct nvrm_channel_alloc_params, 368),
		SZ(struct nvrm_vaspace_alloc_params, 56),
		SZ(struct nvrm_fb_info, 8),
		SZ(struct nvrm_fb_get_info, 16),
		SZ(struct nvrm_fb_get_info_v2, 4),
		SZ(struct nvrm_gpu_get_pids, 3812),
		SZ(struct nvrm_gpu_pid_info, 72),
		SZ(struct nvrm_gpu_get_pid_info, 14408),
		SZ(struct nvrm_gpu_get_name_string, 132),
		SZ(struct nvrm_gpu_get_gid_info, 268),
		SZ(struct nvrm_nv0000_gpu_get_attached_ids, 128),
		SZ(struct nvrm_nv0000_gpu_get_probed_ids, 384),
		SZ(struct nvrm_nv0000_gpu_get_id_info_v2, 32),
		SZ(struct nvrm_gpfifo_schedule, 3),
		SZ(struct nvrm_tsg_timeslice, 8),
		SZ(struct nvrm_tsg_preempt, 8),
		SZ(struct nvrm_gr_set_preemption_mode, 32),
		SZ(struct nvrm_gr_ctxsw_modes, 24),
		SZ(struct nvrm_work_submit_token, 4),
		SZ(struct nvrm_fifo_disable_channels, 536),
		SZ(struct nvrm_os_unix_export_object_to_fd, 24),
		SZ(struct nvrm_os_unix_import_object_from_fd, 20),
		SZ(struct nvrm_nv00fd_attach_gpu, 16),
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("sizeof(%s) == %zu", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

#define OFF(type, member, want) { #type "." #member, offsetof(type, member), want }

TEST(abi_field_offsets)
{
	static const struct size_row rows[] = {
		/* section 1.1 OS escapes */
		OFF(struct nvrm_alloc_os_event, hdevice, 4),
		OFF(struct nvrm_alloc_os_event, fd, 8),
		OFF(struct nvrm_alloc_os_event, status, 12),
		OFF(struct nvrm_rm_api_version, reply, 4),
		OFF(struct nvrm_rm_api_version, version_string, 8),
		OFF(struct nvrm_xfer, size, 4),
		OFF(struct nvrm_xfer, ptr, 8),
		/* section 2 */
		OFF(struct nvrm_nvos21_v525, palloc_parms, 16),
		OFF(struct nvrm_nvos21_v525, status, 24),
		OFF(struct nvrm_nvos21_v535, params_size, 24),
		OFF(struct nvrm_nvos21_v535, status, 28),
		OFF(struct nvrm_nvos64_v525, prights_requested, 24),
		OFF(struct nvrm_nvos64_v525, flags, 32),
		OFF(struct nvrm_nvos64_v525, status, 36),
		OFF(struct nvrm_nvos64_v535, palloc_parms, 16),
		OFF(struct nvrm_nvos64_v535, prights_requested, 24),
		OFF(struct nvrm_nvos64_v535, params_size, 32),
		OFF(struct nvrm_nvos64_v535, flags, 36),
		OFF(struct nvrm_nvos64_v535, status, 40),
		OFF(struct nvrm_nvos00, hobject_old, 8),
		OFF(struct nvrm_nvos00, status, 12),
		OFF(struct nvrm_nvos54, cmd, 8),
		OFF(struct nvrm_nvos54, flags, 12),
		OFF(struct nvrm_nvos54, params, 16),
		OFF(struct nvrm_nvos54, params_size, 24),
		OFF(struct nvrm_nvos54, status, 28),
		OFF(struct nvrm_nvos02, flags, 16),
		OFF(struct nvrm_nvos02, pmemory, 24),
		OFF(struct nvrm_nvos02, limit, 32),
		OFF(struct nvrm_nvos02, status, 40),
		OFF(struct nvrm_nvos02_with_fd, fd, 48),
		OFF(struct nvrm_nvos33, hmemory, 8),
		OFF(struct nvrm_nvos33, offset, 16),
		OFF(struct nvrm_nvos33, length, 24),
		OFF(struct nvrm_nvos33, plinear_address, 32),
		OFF(struct nvrm_nvos33, status, 40),
		OFF(struct nvrm_nvos33, flags, 44),
		OFF(struct nvrm_nvos33_with_fd, fd, 48),
		OFF(struct nvrm_nvos34, plinear_address, 16),
		OFF(struct nvrm_nvos34, status, 24),
		OFF(struct nvrm_nvos34, flags, 28),
		OFF(struct nvrm_nvos55, hclient_src, 12),
		OFF(struct nvrm_nvos55, hobject_src, 16),
		OFF(struct nvrm_nvos55, flags, 20),
		OFF(struct nvrm_nvos55, status, 24),
		OFF(struct nvrm_nvos57, share_target, 8),
		OFF(struct nvrm_nvos57, share_type, 16),
		OFF(struct nvrm_nvos57, share_action, 18),
		OFF(struct nvrm_numa_info_head, status, 4),
		OFF(struct nvrm_numa_info_head, memblock_size, 8),
		OFF(struct nvrm_numa_info_head, numa_mem_addr, 16),
		OFF(struct nvrm_numa_info_head, numa_mem_size, 24),
		OFF(struct nvrm_nvos38, access_type, 8),
		OFF(struct nvrm_nvos38, parm_str_length, 24),
		OFF(struct nvrm_nvos38, parm_str, 32),
		OFF(struct nvrm_nvos38, data, 56),
		OFF(struct nvrm_nvos38, status, 64),
		OFF(struct nvrm_nvos57, status, 20),
		OFF(struct nvrm_nvos32, function, 8),
		OFF(struct nvrm_nvos32, hva_space, 12),
		OFF(struct nvrm_nvos32, ivc_heap_number, 16),
		OFF(struct nvrm_nvos32, status, 20),
		OFF(struct nvrm_nvos32, total, 24),
		OFF(struct nvrm_nvos32, free, 32),
		OFF(struct nvrm_nvos32, data, 40),
		OFF(struct nvrm_nvos32, data.alloc_size.owner, 40),
		OFF(struct nvrm_nvos32, data.alloc_size.hmemory, 44),
		OFF(struct nvrm_nvos32, data.alloc_size.type, 48),
		OFF(struct nvrm_nvos32, data.alloc_size.flags, 52),
		OFF(struct nvrm_nvos32, data.alloc_size.attr, 56),
		OFF(struct nvrm_nvos32, data.alloc_size.size, 88),
		OFF(struct nvrm_nvos32, data.alloc_size.alignment, 96),
		OFF(struct nvrm_nvos32, data.alloc_size.offset, 104),
		OFF(struct nvrm_nvos32, data.alloc_size.limit, 112),
		OFF(struct nvrm_nvos32, data.alloc_size.address, 120),
		OFF(struct nvrm_nvos32, data.alloc_size.attr2, 144),
		OFF(struct nvrm_nvos32, data.free.owner, 40),
		OFF(struct nvrm_nvos32, data.free.hmemory, 44),
		OFF(struct nvrm_nvos32, data.free.flags, 48),
		OFF(struct nvrm_nvos32, data.alloc_os_desc.hmemory, 40),
		OFF(struct nvrm_nvos32, data.alloc_os_desc.descriptor, 64),
		OFF(struct nvrm_nvos32, data.alloc_os_desc.limit, 72),
		OFF(struct nvrm_memory_allocation_params, owner, 0),
		OFF(struct nvrm_memory_allocation_params, type, 4),
		OFF(struct nvrm_memory_allocation_params, flags, 8),
		OFF(struct nvrm_memory_allocation_params, width, 12),
		OFF(struct nvrm_memory_allocation_params, height, 16),
		OFF(struct nvrm_memory_allocation_params, pitch, 20),
		OFF(struct nvrm_memory_allocation_params, attr, 24),
		OFF(struct nvrm_memory_allocation_params, attr2, 28),
		OFF(struct nvrm_memory_allocation_params, format, 32),
		OFF(struct nvrm_memory_allocation_params, compr_covg, 36),
		OFF(struct nvrm_memory_allocation_params, zcull_covg, 40),
		OFF(struct nvrm_memory_allocation_params, range_lo, 48),
		OFF(struct nvrm_memory_allocation_params, range_hi, 56),
		OFF(struct nvrm_memory_allocation_params, size, 64),
		OFF(struct nvrm_memory_allocation_params, alignment, 72),
		OFF(struct nvrm_memory_allocation_params, offset, 80),
		OFF(struct nvrm_memory_allocation_params, limit, 88),
		OFF(struct nvrm_memory_allocation_params, address, 96),
		OFF(struct nvrm_memory_allocation_params, ctag_offset, 104),
		OFF(struct nvrm_memory_allocation_params, hva_space, 108),
		OFF(struct nvrm_memory_allocation_params, internal_flags, 112),
		OFF(struct nvrm_memory_allocation_params, tag, 116),
		OFF(struct nvrm_memory_allocation_params, numa_node, 120),
		OFF(struct nvrm_card_info, pci_info, 4),
		OFF(struct nvrm_card_info, gpu_id, 16),
		OFF(struct nvrm_card_info, interrupt_line, 20),
		OFF(struct nvrm_card_info, reg_address, 24),
		OFF(struct nvrm_card_info, reg_size, 32),
		OFF(struct nvrm_card_info, fb_address, 40),
		OFF(struct nvrm_card_info, fb_size, 48),
		OFF(struct nvrm_card_info, minor_number, 56),
		OFF(struct nvrm_card_info, dev_name, 60),
		/* section 3 */
		OFF(struct nvrm_memory_virtual_alloc_params, limit, 8),
		OFF(struct nvrm_memory_virtual_alloc_params, hva_space, 16),
		/* section 4 */
		OFF(struct nvrm_fb_get_info, fb_info_list, 8),
		OFF(struct nvrm_fb_get_info_v2, fb_info_list, 4),
		OFF(struct nvrm_gpu_get_pids, pid_tbl_count, 8),
		OFF(struct nvrm_gpu_get_pids, pid_tbl, 12),
		OFF(struct nvrm_gpu_get_pid_info, pid_info_list, 8),
		OFF(struct nvrm_gpu_pid_info, index, 4),
		OFF(struct nvrm_gpu_pid_info, result, 8),
		OFF(struct nvrm_gpu_pid_info, mem_private, 16),
		OFF(struct nvrm_gpu_pid_info, mem_shared_owned, 24),
		OFF(struct nvrm_gpu_pid_info, mem_shared_duped, 32),
		OFF(struct nvrm_gpu_pid_info, protected_mem_private, 40),
		OFF(struct nvrm_gpu_pid_info, smc_compute_instance_id, 64),
		/* section 5 */
		OFF(struct nvrm_channel_group_alloc_params, hobject_ecc_error, 4),
		OFF(struct nvrm_channel_group_alloc_params, hva_space, 8),
		OFF(struct nvrm_channel_group_alloc_params, engine_type, 12),
		OFF(struct nvrm_channel_group_alloc_params, is_calling_context_vgpu_plugin, 16),
		OFF(struct nvrm_ctxshare_alloc_params, flags, 4),
		OFF(struct nvrm_ctxshare_alloc_params, subctx_id, 8),
		OFF(struct nvrm_nv0080_alloc_params, hclient_share, 4),
		OFF(struct nvrm_nv0080_alloc_params, va_mode, 48),
		OFF(struct nvrm_nv0005_alloc_params, data, 16),
		OFF(struct nvrm_channel_alloc_params, hobject_buffer, 4),
		OFF(struct nvrm_channel_alloc_params, gp_fifo_offset, 8),
		OFF(struct nvrm_channel_alloc_params, gp_fifo_entries, 16),
		OFF(struct nvrm_channel_alloc_params, flags, 20),
		OFF(struct nvrm_channel_alloc_params, hcontext_share, 24),
		OFF(struct nvrm_channel_alloc_params, hva_space, 28),
		OFF(struct nvrm_channel_alloc_params, huserd_memory, 32),
		OFF(struct nvrm_channel_alloc_params, userd_offset, 64),
		OFF(struct nvrm_channel_alloc_params, engine_type, 128),
		OFF(struct nvrm_channel_alloc_params, cid, 132),
		OFF(struct nvrm_channel_alloc_params, sub_device_id, 136),
		OFF(struct nvrm_channel_alloc_params, hobject_ecc_error, 140),
		OFF(struct nvrm_channel_alloc_params, process_id, 296),
		OFF(struct nvrm_channel_alloc_params, encrypt_iv, 304),
		OFF(struct nvrm_channel_alloc_params, tpc_config_id, 360),
		OFF(struct nvrm_vaspace_alloc_params, va_size, 8),
		OFF(struct nvrm_vaspace_alloc_params, big_page_size, 32),
		OFF(struct nvrm_vaspace_alloc_params, va_base, 40),
		OFF(struct nvrm_vaspace_alloc_params, pasid, 48),
		OFF(struct nvrm_tsg_preempt, manual_timeout, 1),
		OFF(struct nvrm_tsg_preempt, timeout_us, 4),
		OFF(struct nvrm_gr_set_preemption_mode, hchannel, 4),
		OFF(struct nvrm_gr_set_preemption_mode, cilp_mode, 12),
		OFF(struct nvrm_gr_set_preemption_mode, route, 24),
		OFF(struct nvrm_gr_ctxsw_modes, cilp_mode, 16),
		OFF(struct nvrm_gr_ctxsw_modes, gfxp_mode, 20),
		OFF(struct nvrm_gpfifo_schedule, skip_submit, 1),
		OFF(struct nvrm_gpfifo_schedule, skip_enable, 2),
		OFF(struct nvrm_fifo_disable_channels, num_channels, 4),
		OFF(struct nvrm_fifo_disable_channels, only_disable_scheduling, 8),
		OFF(struct nvrm_fifo_disable_channels, rewind_gp_put, 9),
		OFF(struct nvrm_fifo_disable_channels, runlist_preempt_event, 16),
		OFF(struct nvrm_fifo_disable_channels, hclient_list, 24),
		OFF(struct nvrm_fifo_disable_channels, hchannel_list, 280),
		/* section 1.4: fd fields */
		OFF(struct nvrm_os_unix_export_object_to_fd, fd, 16),
		OFF(struct nvrm_os_unix_import_object_from_fd, fd, 0),
		OFF(struct nvrm_nv00fd_attach_gpu, dev_descriptor, 8),
		/* controls named in the brief */
		OFF(struct nvrm_gpu_get_name_string, name, 4),
		OFF(struct nvrm_gpu_get_gid_info, length, 8),
		OFF(struct nvrm_gpu_get_gid_info, data, 12),
		OFF(struct nvrm_nv0000_gpu_get_id_info_v2, gpu_flags, 4),
		OFF(struct nvrm_nv0000_gpu_get_id_info_v2, numa_id, 28),
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("offsetof(%s) == %zu", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

struct u32_row {
	const char *name;
	unsigned long long got;
	unsigned long long want;
};

#define CMD(name, nr, type, want) { name, NVRM_IOWR(nr, sizeof(type)), want }

/* nvidia-rm-abi.md section 1.1, "Precomputed cmd values (x86_64)". */
TEST(abi_precomputed_cmds)
{
	static const struct u32_row rows[] = {
		CMD("RM_ALLOC NVOS64 535+", NVRM_ESC_RM_ALLOC, struct nvrm_nvos64_v535, 0xC030462B),
		CMD("RM_ALLOC NVOS64 525/530", NVRM_ESC_RM_ALLOC, struct nvrm_nvos64_v525,
		    0xC028462B),
		CMD("RM_ALLOC NVOS21", NVRM_ESC_RM_ALLOC, struct nvrm_nvos21_v535, 0xC020462B),
		CMD("RM_FREE", NVRM_ESC_RM_FREE, struct nvrm_nvos00, 0xC0104629),
		CMD("RM_CONTROL", NVRM_ESC_RM_CONTROL, struct nvrm_nvos54, 0xC020462A),
		CMD("RM_ALLOC_MEMORY", NVRM_ESC_RM_ALLOC_MEMORY, struct nvrm_nvos02_with_fd,
		    0xC0384627),
		CMD("RM_VID_HEAP_CONTROL", NVRM_ESC_RM_VID_HEAP_CONTROL, struct nvrm_nvos32,
		    0xC0B8464A),
		CMD("RM_MAP_MEMORY", NVRM_ESC_RM_MAP_MEMORY, struct nvrm_nvos33_with_fd, 0xC038464E),
		CMD("RM_UNMAP_MEMORY", NVRM_ESC_RM_UNMAP_MEMORY, struct nvrm_nvos34, 0xC020464F),
		CMD("RM_DUP_OBJECT", NVRM_ESC_RM_DUP_OBJECT, struct nvrm_nvos55, 0xC01C4634),
		CMD("RM_SHARE", NVRM_ESC_RM_SHARE, struct nvrm_nvos57, 0xC0184635),
		CMD("REGISTER_FD", NVRM_ESC_REGISTER_FD, struct nvrm_register_fd, 0xC00446C9),
		CMD("ALLOC_OS_EVENT", NVRM_ESC_ALLOC_OS_EVENT, struct nvrm_alloc_os_event,
		    0xC01046CE),
		CMD("FREE_OS_EVENT", NVRM_ESC_FREE_OS_EVENT, struct nvrm_alloc_os_event, 0xC01046CF),
		CMD("CHECK_VERSION_STR", NVRM_ESC_CHECK_VERSION_STR, struct nvrm_rm_api_version,
		    0xC04846D2),
		CMD("XFER", NVRM_ESC_IOCTL_XFER_CMD, struct nvrm_xfer, 0xC01046D3),
		CMD("WAIT_OPEN_COMPLETE", NVRM_ESC_WAIT_OPEN_COMPLETE, struct nvrm_wait_open_complete,
		    0xC00846DA),
		{ "RM_MAP_MEMORY_DMA <=575", NVRM_IOWR(NVRM_ESC_RM_MAP_MEMORY_DMA,
						       NVRM_NVOS46_SIZE_V525), 0xC0384657 },
		{ "RM_MAP_MEMORY_DMA 580+", NVRM_IOWR(NVRM_ESC_RM_MAP_MEMORY_DMA,
						      NVRM_NVOS46_SIZE_V580), 0xC0404657 },
		{ "RM_UNMAP_MEMORY_DMA <=545", NVRM_IOWR(NVRM_ESC_RM_UNMAP_MEMORY_DMA,
							 NVRM_NVOS47_SIZE_V525), 0xC0284658 },
		{ "RM_UNMAP_MEMORY_DMA 550+", NVRM_IOWR(NVRM_ESC_RM_UNMAP_MEMORY_DMA,
							NVRM_NVOS47_SIZE_V550), 0xC0304658 },
		{ "RM_UPDATE_DEVICE_MAPPING_INFO", NVRM_IOWR(NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO,
							     NVRM_NVOS56_SIZE), 0xC028465E },
		{ "EXPORT_TO_DMABUF_FD 570+", NVRM_IOWR(NVRM_ESC_EXPORT_TO_DMABUF_FD,
							NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570), 0xCA3046D9 },
		/* our named constants agree with the table too */
		{ "NVRM_CMD_RM_ALLOC_NVOS64_V535", NVRM_CMD_RM_ALLOC_NVOS64_V535, 0xC030462B },
		{ "NVRM_CMD_RM_ALLOC_NVOS64_V525", NVRM_CMD_RM_ALLOC_NVOS64_V525, 0xC028462B },
		{ "NVRM_CMD_RM_CONTROL", NVRM_CMD_RM_CONTROL, 0xC020462A },
		{ "NVRM_CMD_XFER", NVRM_CMD_XFER, 0xC01046D3 },
		{ "NVRM_CMD_EXPORT_TO_DMABUF_FD", NVRM_CMD_EXPORT_TO_DMABUF_FD, 0xCA3046D9 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s cmd == 0x%llX", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

#define VAL(macro, want) { #macro, macro, want }

TEST(abi_escape_numbers)
{
	static const struct u32_row rows[] = {
		VAL(NVRM_IOCTL_MAGIC, 0x46),
		VAL(NVRM_IOCTL_BASE, 200),
		VAL(NVRM_ABSOLUTE_MAX_IOCTL_SIZE, 16384),
		VAL(NVRM_CONTROL_MAX_PARAMS_SIZE, 1048576),
		VAL(NVRM_ESC_CARD_INFO, 200),
		VAL(NVRM_ESC_REGISTER_FD, 201),
		VAL(NVRM_ESC_ALLOC_OS_EVENT, 206),
		VAL(NVRM_ESC_FREE_OS_EVENT, 207),
		VAL(NVRM_ESC_STATUS_CODE, 209),
		VAL(NVRM_ESC_CHECK_VERSION_STR, 210),
		VAL(NVRM_ESC_IOCTL_XFER_CMD, 211),
		VAL(NVRM_ESC_ATTACH_GPUS_TO_FD, 212),
		VAL(NVRM_ESC_QUERY_DEVICE_INTR, 213),
		VAL(NVRM_ESC_SYS_PARAMS, 214),
		VAL(NVRM_ESC_NUMA_INFO, 215),
		VAL(NVRM_ESC_SET_NUMA_STATUS, 216),
		VAL(NVRM_ESC_EXPORT_TO_DMABUF_FD, 217),
		VAL(NVRM_ESC_WAIT_OPEN_COMPLETE, 218),
		VAL(NVRM_ESC_RM_ALLOC_MEMORY, 0x27),
		VAL(NVRM_ESC_RM_ALLOC_OBJECT, 0x28),
		VAL(NVRM_ESC_RM_FREE, 0x29),
		VAL(NVRM_ESC_RM_CONTROL, 0x2A),
		VAL(NVRM_ESC_RM_ALLOC, 0x2B),
		VAL(NVRM_ESC_RM_DUP_OBJECT, 0x34),
		VAL(NVRM_ESC_RM_SHARE, 0x35),
		VAL(NVRM_ESC_RM_I2C_ACCESS, 0x39),
		VAL(NVRM_ESC_RM_IDLE_CHANNELS, 0x41),
		VAL(NVRM_ESC_RM_VID_HEAP_CONTROL, 0x4A),
		VAL(NVRM_ESC_RM_ACCESS_REGISTRY, 0x4D),
		VAL(NVRM_ESC_RM_MAP_MEMORY, 0x4E),
		VAL(NVRM_ESC_RM_UNMAP_MEMORY, 0x4F),
		VAL(NVRM_ESC_RM_GET_EVENT_DATA, 0x52),
		VAL(NVRM_ESC_RM_ALLOC_CONTEXT_DMA2, 0x54),
		VAL(NVRM_ESC_RM_ADD_VBLANK_CALLBACK, 0x56),
		VAL(NVRM_ESC_RM_MAP_MEMORY_DMA, 0x57),
		VAL(NVRM_ESC_RM_UNMAP_MEMORY_DMA, 0x58),
		VAL(NVRM_ESC_RM_BIND_CONTEXT_DMA, 0x59),
		VAL(NVRM_ESC_RM_EXPORT_OBJECT_TO_FD, 0x5C),
		VAL(NVRM_ESC_RM_IMPORT_OBJECT_FROM_FD, 0x5D),
		VAL(NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, 0x5E),
		VAL(NVRM_ESC_RM_LOCKLESS_DIAGNOSTIC, 0x5F),
		VAL(NVRM_RM_API_VERSION_CMD_STRICT, 0),
		VAL(NVRM_RM_API_VERSION_CMD_RELAXED, '1'),
		VAL(NVRM_RM_API_VERSION_CMD_QUERY, '2'),
		VAL(NVRM_RM_API_VERSION_REPLY_RECOGNIZED, 1),
		VAL(NVRM_RM_API_VERSION_STRING_LENGTH, 64),
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s == 0x%llX", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

/* nvidia-rm-abi.md section 8, "Status codes". */
TEST(abi_status_codes)
{
	static const struct u32_row rows[] = {
		VAL(NVRM_OK, 0),
		VAL(NVRM_ERR_IN_USE, 0x17),
		VAL(NVRM_ERR_INSUFFICIENT_RESOURCES, 0x1A),
		VAL(NVRM_ERR_INSUFFICIENT_PERMISSIONS, 0x1B),
		VAL(NVRM_ERR_INVALID_ARGUMENT, 0x1F),
		VAL(NVRM_ERR_INVALID_CLASS, 0x22),
		VAL(NVRM_ERR_INVALID_CLIENT, 0x23),
		VAL(NVRM_ERR_INVALID_DEVICE, 0x26),
		VAL(NVRM_ERR_INVALID_OBJECT_HANDLE, 0x33),
		VAL(NVRM_ERR_INVALID_PARAM_STRUCT, 0x3A),
		VAL(NVRM_ERR_INVALID_STATE, 0x40),
		VAL(NVRM_ERR_INVALID_STRING_LENGTH, 0x41),
		VAL(NVRM_ERR_INVALID_ACCESS_TYPE, 0x1D),
		VAL(NVRM_ERR_NO_FREE_FIFOS, 0x4F),
		VAL(NVRM_ERR_NO_MEMORY, 0x51),
		VAL(NVRM_ERR_NOT_SUPPORTED, 0x56),
		VAL(NVRM_ERR_OBJECT_NOT_FOUND, 0x57),
		VAL(NVRM_ERR_STATE_IN_USE, 0x63),
		VAL(NVRM_ERR_GENERIC, 0xFFFF),
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s == 0x%llX", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

/* Sections 3-5: classes, control ids, flag bits, doorbell, UVM. */
TEST(abi_ids_and_constants)
{
	static const struct u32_row rows[] = {
		VAL(NVRM_CLASS_NV01_ROOT, 0x0),
		VAL(NVRM_CLASS_NV01_ROOT_NON_PRIV, 0x1),
		VAL(NVRM_CLASS_NV01_ROOT_CLIENT, 0x41),
		VAL(NVRM_CLASS_NV01_DEVICE_0, 0x80),
		VAL(NVRM_CLASS_NV20_SUBDEVICE_0, 0x2080),
		VAL(NVRM_CLASS_NV01_MEMORY_LOCAL_USER, 0x40),
		VAL(NVRM_CLASS_NV01_MEMORY_SYSTEM, 0x3E),
		VAL(NVRM_CLASS_NV50_MEMORY_VIRTUAL, 0x50A0),
		VAL(NVRM_CLASS_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, 0x71),
		VAL(NVRM_CLASS_NV01_MEMORY_VIRTUAL, 0x70),
		VAL(NVRM_CLASS_NV01_MEMORY_LOCAL_PHYSICAL, 0xC2),
		VAL(NVRM_CLASS_NV01_MEMORY_LOCAL_PRIVILEGED, 0x3F),
		VAL(NVRM_CLASS_NV_MEMORY_FABRIC, 0xF8),
		VAL(NVRM_CLASS_NV01_MEMORY_DEVICELESS, 0x90CE),
		VAL(NVRM_CLASS_FERMI_VASPACE_A, 0x90F1),
		VAL(NVRM_CLASS_KEPLER_CHANNEL_GROUP_A, 0xA06C),
		VAL(NVRM_CLASS_FERMI_CONTEXT_SHARE_A, 0x9067),
		VAL(NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A, 0xC86F),
		VAL(NVRM_CLASS_HOPPER_COMPUTE_A, 0xCBC0),
		VAL(NVRM_CLASS_HOPPER_DMA_COPY_A, 0xC8B5),
		VAL(NVRM_CLASS_HOPPER_USERMODE_A, 0xC661),
		VAL(NVRM_CLASS_NV01_EVENT_OS_EVENT, 0x79),
		VAL(NVRM_CLASS_AMPERE_SMC_PARTITION_REF, 0xC637),
		VAL(NVRM_CLASS_NV_IMEX_SESSION, 0xF1),
		VAL(NVRM_CTRL_CMD_FB_GET_INFO, 0x20801301),
		VAL(NVRM_CTRL_CMD_FB_GET_INFO_V2, 0x20801303),
		VAL(NVRM_CTRL_CMD_GPU_GET_PIDS, 0x2080018D),
		VAL(NVRM_CTRL_CMD_GPU_GET_PID_INFO, 0x2080018E),
		VAL(NVRM_CTRL_CMD_GPU_GET_NAME_STRING, 0x20800110),
		VAL(NVRM_CTRL_CMD_GPU_GET_GID_INFO, 0x2080014A),
		VAL(NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE, 0xA06C0101),
		VAL(NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE, 0xA06C0103),
		VAL(NVRM_CTRL_CMD_NVA06C_GET_TIMESLICE, 0xA06C0104),
		VAL(NVRM_CTRL_CMD_NVA06C_PREEMPT, 0xA06C0105),
		VAL(NVRM_CTRL_CMD_NVC36F_GET_WORK_SUBMIT_TOKEN, 0xC36F0108),
		VAL(NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS, 0x2080110B),
		VAL(NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, 0x3D05),
		VAL(NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, 0x3D06),
		VAL(NVRM_CTRL_CMD_NV00FD_ATTACH_GPU, 0xFD0104),
		VAL(NVRM_CTRL_CMD_NV00E0_EXPORT_MEM, 0xE00101),
		VAL(NVRM_CTRL_CMD_NV0000_GPU_GET_ATTACHED_IDS, 0x201),
		VAL(NVRM_CTRL_CMD_NV0000_GPU_GET_PROBED_IDS, 0x214),
		VAL(NVRM_FB_INFO_INDEX_RAM_SIZE, 0x07),
		VAL(NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE, 0x08),
		VAL(NVRM_FB_INFO_INDEX_HEAP_SIZE, 0x09),
		VAL(NVRM_FB_INFO_INDEX_HEAP_FREE, 0x16),
		VAL(NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE, 0x20),
		VAL(NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED, 0x4000),
		VAL(NVRM_ALLOC_FLAGS_VIRTUAL, 0x80000),
		VAL(NVRM_ALLOC_FLAGS_PROTECTED, 0x1000000),
		VAL(NVRM_ALLOC_FLAGS_SPARSE, 0x4000000),
		VAL(NVRM_NVOS54_FLAGS_FINN_SERIALIZED, 4),
		VAL(NVRM_NVOS64_FLAGS_FINN_SERIALIZED, 1),
		VAL(NVRM_NVOS32_FUNCTION_ALLOC_SIZE, 2),
		VAL(NVRM_NVOS32_FUNCTION_FREE, 3),
		VAL(NVRM_NVOS32_FUNCTION_INFO, 5),
		VAL(NVRM_NVOS32_FUNCTION_ALLOC_SIZE_RANGE, 14),
		VAL(NVRM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR, 27),
		VAL(NVRM_USERMODE_NOTIFY_CHANNEL_PENDING, 0x90),
		VAL(NVRM_USERMODE_SIZE, 0x10000),
		VAL(NVRM_USERD_GP_GET, 0x88),
		VAL(NVRM_USERD_GP_PUT, 0x8C),
		VAL(NVRM_TSG_DEFAULT_TIMESLICE_US, 1024),
		VAL(NVRM_UVM_INITIALIZE, 0x30000001),
		VAL(NVRM_UVM_REGISTER_GPU, 37),
		VAL(NVRM_UVM_MAP_EXTERNAL_ALLOCATION, 33),
		VAL(NVRM_UVM_MM_INITIALIZE, 75),
		VAL(NVRM_UVM_REGISTER_GPU_SIZE, 40),
		VAL(NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550, 9264),
		VAL(NVRM_UVM_MAP_EXTERNAL_ALLOCATION_RM_CTRL_FD_OFFSET_V550, 9248),
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("%s == 0x%llX", rows[i].name, rows[i].want);
		EXPECT_EQ(rows[i].got, rows[i].want);
	}
}

/* section 2: attr bit fields */
TEST(abi_attr_fields)
{
	u32 attr = (NVRM_ATTR_LOCATION_PCI << NVRM_ATTR_LOCATION_SHIFT) |
		   (NVRM_ATTR_PAGE_SIZE_HUGE << NVRM_ATTR_PAGE_SIZE_SHIFT) |
		   (NVRM_ATTR_PHYSICALITY_CONTIGUOUS << NVRM_ATTR_PHYSICALITY_SHIFT);

	EXPECT_EQ(attr, (1u << 25) | (3u << 23) | (2u << 27));
	EXPECT_EQ(NVRM_ATTR_GET(attr, LOCATION), NVRM_ATTR_LOCATION_PCI);
	EXPECT_EQ(NVRM_ATTR_GET(attr, PAGE_SIZE), NVRM_ATTR_PAGE_SIZE_HUGE);
	EXPECT_EQ(NVRM_ATTR_GET(attr, PHYSICALITY), NVRM_ATTR_PHYSICALITY_CONTIGUOUS);
	EXPECT_EQ(NVRM_ATTR_GET(0xFFFFFFFFu, LOCATION), 3);
	EXPECT_EQ(NVRM_ATTR2_PAGE_SIZE_HUGE_2MB << NVRM_ATTR2_PAGE_SIZE_HUGE_SHIFT, 0x100000);
	EXPECT_EQ(NVRM_CTRL_CMD_CLASS(NVRM_CTRL_CMD_NVA06C_PREEMPT), NVRM_CLASS_KEPLER_CHANNEL_GROUP_A);
	EXPECT_EQ(NVRM_CTRL_CMD_CATEGORY(NVRM_CTRL_CMD_FB_GET_INFO_V2), 0x13);
	EXPECT_EQ(NVRM_CTRL_CMD_INDEX(NVRM_CTRL_CMD_FB_GET_INFO_V2), 0x03);
	EXPECT_EQ(NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V525), 436);
	EXPECT_EQ(NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V545), 444);
	EXPECT_EQ(NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V560), 460);
	EXPECT_EQ(NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V580), 1028);
}

TEST(abi_probed_ids_grow_flags_in_580)
{
	/* ctrl0000gpu.h: gpuFlags[32] appended in 580.65.06 */
	EXPECT_EQ(nvrm_nv0000_probed_ids_size(525), 256u);
	EXPECT_EQ(nvrm_nv0000_probed_ids_size(575), 256u);
	EXPECT_EQ(nvrm_nv0000_probed_ids_size(580), 384u);
	EXPECT_EQ(nvrm_nv0000_probed_ids_size(595), 384u);
	EXPECT_EQ(offsetof(struct nvrm_nv0000_gpu_get_probed_ids, gpu_flags), 256u);
}
