/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVIDIA Resource Manager (RM) ioctl ABI facts, written by us for qgpu.ko and nvsim.ko.
 *
 * This is not a copy of NVIDIA's headers: it restates, under our own NVRM_ names, the numbers,
 * sizes and offsets that a forwarding driver must agree on. Each fact cites the header of
 * NVIDIA/open-gpu-kernel-modules it comes from (path shortened to the file name when unambiguous)
 * and the driver versions it holds for. All layouts are x86_64. Version ranges were checked by
 * compiling NVIDIA's headers at every open-gpu-kernel-modules tag from 525.47.04 to 595.45.04
 * and printing sizeof/offsetof; see also shared/reference/nvidia-rm-abi.md.
 *
 * Our structs spell every padding byte out as a named _padN member, so that the compiler adds no
 * implicit padding; static asserts at the end of this file pin every size and offset we rely on.
 * Version-dependent facts (sizes that changed between releases) are kept in struct nvrm_abi
 * (nvrm_decode.h); structs here describe the newest layout unless their name carries a version.
 *
 * Handles (hClient, hObject, ...) are u32. User pointers (NvP64) are u64.
 */
#ifndef QGPU_NVRM_ABI_H
#define QGPU_NVRM_ABI_H

#include "nvrm_types.h"

/*
 * 1. ioctl encoding
 */

/* nv-ioctl-numbers.h, 525-595 */
#define NVRM_IOCTL_MAGIC		0x46	/* 'F' */
#define NVRM_IOCTL_BASE			200

/*
 * Userspace issues _IOWR('F', nr, sizeof(params)) (nv.h __NV_IOWR, 525-595). The Linux _IOC
 * layout (include/uapi/asm-generic/ioctl.h, as used on x86_64): nr 7:0, type 15:8, size 29:16,
 * dir 31:30 (READ|WRITE = 3). nvidia_ioctl() (nv.c, 525-595) only looks at _IOC_NR and
 * _IOC_SIZE; type and direction are ignored.
 */
#define NVRM_IOC_NR(cmd)		((u32)(cmd) & 0xffu)
#define NVRM_IOC_TYPE(cmd)		(((u32)(cmd) >> 8) & 0xffu)
#define NVRM_IOC_SIZE(cmd)		(((u32)(cmd) >> 16) & 0x3fffu)
#define NVRM_IOC_DIR(cmd)		(((u32)(cmd) >> 30) & 0x3u)
#define NVRM_IOWR(nr, size)						\
	((3u << 30) | (((u32)(size) & 0x3fffu) << 16) |			\
	 ((u32)NVRM_IOCTL_MAGIC << 8) | ((u32)(nr) & 0xffu))

/* nv.h NV_ABSOLUTE_MAX_IOCTL_SIZE, 525-595: the largest inner size an XFER may carry. */
#define NVRM_ABSOLUTE_MAX_IOCTL_SIZE	16384u
/* src/nvidia/inc/kernel/rmapi/param_copy.h RMAPI_PARAM_COPY_MAX_PARAMS_SIZE, 525-595. */
#define NVRM_CONTROL_MAX_PARAMS_SIZE	(1024u * 1024u)

/*
 * 2. Escapes (ioctl nr values)
 */

/* OS-level escapes: nv-ioctl-numbers.h (and nv-ioctl-numa.h for 215/216), 525-595. */
#define NVRM_ESC_CARD_INFO		(NVRM_IOCTL_BASE + 0)	/* 200, ctl only, array */
#define NVRM_ESC_REGISTER_FD		(NVRM_IOCTL_BASE + 1)	/* 201, GPU fd, fd argument */
#define NVRM_ESC_ALLOC_OS_EVENT		(NVRM_IOCTL_BASE + 6)	/* 206, either device */
#define NVRM_ESC_FREE_OS_EVENT		(NVRM_IOCTL_BASE + 7)	/* 207 */
#define NVRM_ESC_STATUS_CODE		(NVRM_IOCTL_BASE + 9)	/* 209, ctl only */
#define NVRM_ESC_CHECK_VERSION_STR	(NVRM_IOCTL_BASE + 10)	/* 210, ctl only */
#define NVRM_ESC_IOCTL_XFER_CMD		(NVRM_IOCTL_BASE + 11)	/* 211 */
#define NVRM_ESC_ATTACH_GPUS_TO_FD	(NVRM_IOCTL_BASE + 12)	/* 212, ctl only, array */
#define NVRM_ESC_QUERY_DEVICE_INTR	(NVRM_IOCTL_BASE + 13)	/* 213, GPU fd only */
#define NVRM_ESC_SYS_PARAMS		(NVRM_IOCTL_BASE + 14)	/* 214, ctl only */
#define NVRM_ESC_NUMA_INFO		(NVRM_IOCTL_BASE + 15)	/* 215, GPU fd only */
#define NVRM_ESC_SET_NUMA_STATUS	(NVRM_IOCTL_BASE + 16)	/* 216, GPU fd only */
#define NVRM_ESC_EXPORT_TO_DMABUF_FD	(NVRM_IOCTL_BASE + 17)	/* 217, GPU fd only */
#define NVRM_ESC_WAIT_OPEN_COMPLETE	(NVRM_IOCTL_BASE + 18)	/* 218, 550-595 only */

/* RM escapes: nv_escape.h, 525-595 unless noted. */
#define NVRM_ESC_RM_ALLOC_MEMORY		0x27	/* NVOS02 + fd; GPU fd only */
#define NVRM_ESC_RM_ALLOC_OBJECT		0x28	/* NVOS05 */
#define NVRM_ESC_RM_FREE			0x29	/* NVOS00 */
#define NVRM_ESC_RM_CONTROL			0x2A	/* NVOS54 */
#define NVRM_ESC_RM_ALLOC			0x2B	/* NVOS21 or NVOS64 */
#define NVRM_ESC_RM_CONFIG_GET			0x32	/* defined 525-590, never handled */
#define NVRM_ESC_RM_CONFIG_SET			0x33	/* defined 525-590, never handled */
#define NVRM_ESC_RM_DUP_OBJECT			0x34	/* NVOS55 */
#define NVRM_ESC_RM_SHARE			0x35	/* NVOS57 */
#define NVRM_ESC_RM_CONFIG_GET_EX		0x37	/* defined 525-590, never handled */
#define NVRM_ESC_RM_CONFIG_SET_EX		0x38	/* defined 525-590, never handled */
#define NVRM_ESC_RM_I2C_ACCESS			0x39	/* GPU fd only */
#define NVRM_ESC_RM_IDLE_CHANNELS		0x41	/* NVOS30 */
#define NVRM_ESC_RM_VID_HEAP_CONTROL		0x4A	/* NVOS32 */
#define NVRM_ESC_RM_ACCESS_REGISTRY		0x4D	/* NVOS38 */
#define NVRM_ESC_RM_MAP_MEMORY			0x4E	/* NVOS33 + fd */
#define NVRM_ESC_RM_UNMAP_MEMORY		0x4F	/* NVOS34 */
#define NVRM_ESC_RM_GET_EVENT_DATA		0x52	/* NVOS41 */
#define NVRM_ESC_RM_ALLOC_CONTEXT_DMA2		0x54	/* NVOS39 */
#define NVRM_ESC_RM_ADD_VBLANK_CALLBACK		0x56
#define NVRM_ESC_RM_MAP_MEMORY_DMA		0x57	/* NVOS46 */
#define NVRM_ESC_RM_UNMAP_MEMORY_DMA		0x58	/* NVOS47 */
#define NVRM_ESC_RM_BIND_CONTEXT_DMA		0x59	/* NVOS49 */
#define NVRM_ESC_RM_EXPORT_OBJECT_TO_FD		0x5C	/* defined, not handled */
#define NVRM_ESC_RM_IMPORT_OBJECT_FROM_FD	0x5D	/* defined, not handled */
#define NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO	0x5E	/* NVOS56 */
/*
 * 0x5F: RM_NVLOG_CTRL in 525.125.06-525.147.05 and 535.43.08+ (not in earlier 525, 530 or
 * 535.43.02); RM_LOCKLESS_DIAGNOSTIC (ctl only) in 545-595.
 */
#define NVRM_ESC_RM_NVLOG_CTRL			0x5F
#define NVRM_ESC_RM_LOCKLESS_DIAGNOSTIC		0x5F

/*
 * Where an escape may be issued (escape.c / nv.c NV_CTL_DEVICE_ONLY and NV_ACTUAL_DEVICE_ONLY,
 * 535-595). RM_ALLOC is ctl-only except for the NV01_EVENT* classes.
 */
#define NVRM_ESCF_CTL_ONLY	0x01u	/* must be /dev/nvidiactl */
#define NVRM_ESCF_GPU_ONLY	0x02u	/* must be /dev/nvidiaN */
#define NVRM_ESCF_ARRAY		0x04u	/* size is n * element size (CARD_INFO, ATTACH_GPUS) */
#define NVRM_ESCF_FD_ARG	0x08u	/* params carry an fd number (see reference section 1.4) */
#define NVRM_ESCF_VERSIONED	0x10u	/* size depends on the driver version (struct nvrm_abi) */

/* Precomputed cmd values, x86_64 (nvidia-rm-abi.md section 1.1). */
#define NVRM_CMD_RM_ALLOC_NVOS21	0xC020462Bu
#define NVRM_CMD_RM_ALLOC_NVOS64_V525	0xC028462Bu	/* 525-530, 40 B */
#define NVRM_CMD_RM_ALLOC_NVOS64_V535	0xC030462Bu	/* 535-595, 48 B */
#define NVRM_CMD_RM_FREE		0xC0104629u
#define NVRM_CMD_RM_CONTROL		0xC020462Au
#define NVRM_CMD_RM_ALLOC_MEMORY	0xC0384627u
#define NVRM_CMD_RM_VID_HEAP_CONTROL	0xC0B8464Au
#define NVRM_CMD_RM_MAP_MEMORY		0xC038464Eu
#define NVRM_CMD_RM_UNMAP_MEMORY	0xC020464Fu
#define NVRM_CMD_RM_MAP_MEMORY_DMA_V525	0xC0384657u	/* 525-575 */
#define NVRM_CMD_RM_MAP_MEMORY_DMA_V580	0xC0404657u	/* 580-595 */
#define NVRM_CMD_RM_UNMAP_MEMORY_DMA_V525 0xC0284658u	/* 525-545 */
#define NVRM_CMD_RM_UNMAP_MEMORY_DMA_V550 0xC0304658u	/* 550-595 */
#define NVRM_CMD_RM_DUP_OBJECT		0xC01C4634u
#define NVRM_CMD_RM_SHARE		0xC0184635u
#define NVRM_CMD_RM_UPDATE_DEVICE_MAPPING_INFO 0xC028465Eu
#define NVRM_CMD_REGISTER_FD		0xC00446C9u
#define NVRM_CMD_ALLOC_OS_EVENT		0xC01046CEu
#define NVRM_CMD_FREE_OS_EVENT		0xC01046CFu
#define NVRM_CMD_CHECK_VERSION_STR	0xC04846D2u
#define NVRM_CMD_XFER			0xC01046D3u
#define NVRM_CMD_WAIT_OPEN_COMPLETE	0xC00846DAu
#define NVRM_CMD_EXPORT_TO_DMABUF_FD	0xCA3046D9u	/* 570-595 (2608 B) */

/*
 * 3. OS-escape parameter structs (nv-ioctl.h, 525-595 unless noted)
 */

/* nv_pci_info_t, 12 B */
struct nvrm_pci_info {
	u32 domain;		/* @0 */
	u8 bus;			/* @4 */
	u8 slot;		/* @5 */
	u8 function;		/* @6 */
	u8 _pad0;
	u16 vendor_id;		/* @8 */
	u16 device_id;		/* @10 */
};

/* nv_ioctl_card_info_t, 72 B; CARD_INFO passes an array of these. */
struct nvrm_card_info {
	u8 valid;			/* @0 NvBool */
	u8 _pad0[3];
	struct nvrm_pci_info pci_info;	/* @4 */
	u32 gpu_id;			/* @16 */
	u16 interrupt_line;		/* @20 */
	u8 _pad1[2];
	u64 reg_address;		/* @24 */
	u64 reg_size;			/* @32 */
	u64 fb_address;			/* @40 */
	u64 fb_size;			/* @48 BAR1 aperture size (nv->fb->size) */
	u32 minor_number;		/* @56 */
	u8 dev_name[10];		/* @60 */
	u8 _pad2[2];
};

/* nv_ioctl_register_fd_t, 4 B: ctl_fd must be a real /dev/nvidiactl fd. */
struct nvrm_register_fd {
	s32 ctl_fd;
};

/* nv_ioctl_alloc_os_event_t / nv_ioctl_free_os_event_t, 16 B; fd is only a key. */
struct nvrm_alloc_os_event {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 fd;			/* @8 */
	u32 status;		/* @12 */
};

/* nv_ioctl_status_code_t, 12 B */
struct nvrm_status_code {
	u32 domain;		/* @0 */
	u8 bus;			/* @4 */
	u8 slot;		/* @5 */
	u8 _pad0[2];
	u32 status;		/* @8 */
};

/* nv_ioctl_rm_api_version_t (CHECK_VERSION_STR), 72 B */
#define NVRM_RM_API_VERSION_STRING_LENGTH	64
#define NVRM_RM_API_VERSION_CMD_STRICT		0u
#define NVRM_RM_API_VERSION_CMD_RELAXED		0x31u	/* '1' */
#define NVRM_RM_API_VERSION_CMD_QUERY		0x32u	/* '2', from 530.30.02; OVERRIDE in 525.x */
#define NVRM_RM_API_VERSION_CMD_QUERY_SINCE	530u
#define NVRM_RM_API_VERSION_REPLY_UNRECOGNIZED	0u
#define NVRM_RM_API_VERSION_REPLY_RECOGNIZED	1u
struct nvrm_rm_api_version {
	u32 cmd;						/* @0 */
	u32 reply;						/* @4 */
	char version_string[NVRM_RM_API_VERSION_STRING_LENGTH];	/* @8 */
};

/* nv_ioctl_xfer_t, 16 B: cmd is the inner escape nr, ptr a user pointer to size bytes. */
struct nvrm_xfer {
	u32 cmd;		/* @0 */
	u32 size;		/* @4 */
	u64 ptr;		/* @8 */
};

/* nv_ioctl_query_device_intr_t, 8 B (struct named in nv-ioctl.h from 590; size 8 throughout) */
struct nvrm_query_device_intr {
	u32 intr_status;
	u32 status;
};

/* nv_ioctl_sys_params_t, 8 B */
struct nvrm_sys_params {
	u64 memblock_size;
};

/* nv_ioctl_set_numa_status_t (nv-ioctl-numa.h), 4 B */
struct nvrm_set_numa_status {
	s32 status;
};

/* nv_ioctl_wait_open_complete_t, 8 B, 550-595 */
struct nvrm_wait_open_complete {
	s32 rc;
	u32 adapter_status;
};

/* nv-ioctl-numa.h nv_ioctl_numa_info_t: 552 B in 525-530, 560 B in 535-595. */
#define NVRM_NUMA_INFO_SIZE_V525		552u
#define NVRM_NUMA_INFO_SIZE_V535		560u

/*
 * Its head, the same in 525-595 (535 adds use_auto_online@32 and moves the offline addresses
 * behind it): the NUMA node the GPU's memory is onlined as on a coherent platform (-1: none, as
 * on PCIe and SXM GPUs of x86 hosts; an H200 with 580 answered -1, DISABLED, numa_mem_size 0),
 * that memory's state, physical address and size, and the driver's memory block size.
 */
struct nvrm_numa_info_head {
	s32 nid;		/* @0 */
	s32 status;		/* @4, NV_IOCTL_NUMA_STATUS_* */
	u64 memblock_size;	/* @8 */
	u64 numa_mem_addr;	/* @16 */
	u64 numa_mem_size;	/* @24 */
};

/* NV_IOCTL_NUMA_STATUS_* (nv-ioctl-numa.h, 525-595), of those qgpu and nvsim name */
#define NVRM_NUMA_STATUS_DISABLED	0
#define NVRM_NUMA_STATUS_ONLINE		3
/*
 * nv_ioctl_export_to_dma_buf_fd_t (EXPORT_TO_DMABUF_FD, GPU fd only): 2600 B in 525-565, 2608 B
 * in 570-595, where mappingType@32 (570+) and bAllowMmap@33 (580+) push handles[] from @32 to
 * @36. fd -1 makes a new dma-buf of handles[0..numObjects) of hClient and writes its fd back;
 * fd >= 0 adds them at index to that dma-buf, which must be the driver's own (nv-dmabuf.c
 * nv_dma_buf_export(), nv_dma_buf_create(), nv_dma_buf_reuse(), 525-595).
 */
#define NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525	2600u
#define NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570	2608u
#define NVRM_DMABUF_EXPORT_MAX_HANDLES		128u	/* NV_DMABUF_EXPORT_MAX_HANDLES */
#define NVRM_DMABUF_MAPPING_TYPE_DEFAULT	0u	/* NV_DMABUF_EXPORT_MAPPING_TYPE_*, 570+ */
#define NVRM_DMABUF_MAPPING_TYPE_FORCE_PCIE	1u

/* 525-565, 2600 B */
struct nvrm_export_dmabuf_v525 {
	s32 fd;							/* @0 */
	u32 hclient;						/* @4 */
	u32 total_objects;					/* @8 */
	u32 num_objects;					/* @12 */
	u32 index;						/* @16 */
	u32 _pad0;
	u64 total_size;						/* @24 */
	u32 handles[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @32 */
	u64 offsets[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @544 */
	u64 sizes[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @1568 */
	u32 status;						/* @2592 */
	u32 _pad1;
};

/* 570-595, 2608 B */
struct nvrm_export_dmabuf_v570 {
	s32 fd;							/* @0 */
	u32 hclient;						/* @4 */
	u32 total_objects;					/* @8 */
	u32 num_objects;					/* @12 */
	u32 index;						/* @16 */
	u32 _pad0;
	u64 total_size;						/* @24 */
	u8 mapping_type;					/* @32 */
	u8 allow_mmap;						/* @33 NvBool, 580+ */
	u8 _pad1[2];
	u32 handles[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @36 */
	u32 _pad2;
	u64 offsets[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @552 */
	u64 sizes[NVRM_DMABUF_EXPORT_MAX_HANDLES];		/* @1576 */
	u32 status;						/* @2600 */
	u32 _pad3;
};

/*
 * 4. RM escape parameter structs (nvos.h, 525-595 unless noted)
 */

/* NVOS00_PARAMETERS (RM_FREE), 16 B */
struct nvrm_nvos00 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_old;	/* @8 */
	u32 status;		/* @12 */
};

/* NVOS02_PARAMETERS (RM_ALLOC_MEMORY), 48 B */
struct nvrm_nvos02 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_new;	/* @8 */
	u32 hclass;		/* @12 */
	u32 flags;		/* @16 */
	u32 _pad0;
	u64 pmemory;		/* @24 */
	u64 limit;		/* @32 */
	u32 status;		/* @40 */
	u32 _pad1;
};

/* nv_ioctl_nvos02_parameters_with_fd (nv-unix-nvos-params-wrappers.h), 56 B */
struct nvrm_nvos02_with_fd {
	struct nvrm_nvos02 params;	/* @0 */
	s32 fd;				/* @48 */
	u32 _pad0;
};

/* NVOS21_PARAMETERS (RM_ALLOC), 32 B in all versions; 525-530 layout (no paramsSize). */
struct nvrm_nvos21_v525 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_new;	/* @8 */
	u32 hclass;		/* @12 */
	u64 palloc_parms;	/* @16 */
	u32 status;		/* @24 */
	u32 _pad0;
};

/* NVOS21_PARAMETERS, 535-595 layout: paramsSize@24, status@28. */
struct nvrm_nvos21_v535 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_new;	/* @8 */
	u32 hclass;		/* @12 */
	u64 palloc_parms;	/* @16 */
	u32 params_size;	/* @24 */
	u32 status;		/* @28 */
};

/* NVOS64_PARAMETERS (RM_ALLOC with access rights), 525-530: 40 B. */
struct nvrm_nvos64_v525 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_new;	/* @8 */
	u32 hclass;		/* @12 */
	u64 palloc_parms;	/* @16 */
	u64 prights_requested;	/* @24 */
	u32 flags;		/* @32 */
	u32 status;		/* @36 */
};

/* NVOS64_PARAMETERS, 535-595: 48 B. */
struct nvrm_nvos64_v535 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 hobject_new;	/* @8 */
	u32 hclass;		/* @12 */
	u64 palloc_parms;	/* @16 */
	u64 prights_requested;	/* @24 */
	u32 params_size;	/* @32 */
	u32 flags;		/* @36 */
	u32 status;		/* @40 */
	u32 _pad0;
};

/* nvos.h NVOS64_FLAGS_*, 525-595 */
#define NVRM_NVOS64_FLAGS_NONE			0x0u
#define NVRM_NVOS64_FLAGS_FINN_SERIALIZED	0x1u

/* NVOS54_PARAMETERS (RM_CONTROL), 32 B */
struct nvrm_nvos54 {
	u32 hclient;		/* @0 */
	u32 hobject;		/* @4 */
	u32 cmd;		/* @8 (class << 16) | (category << 8) | msgId */
	u32 flags;		/* @12 */
	u64 params;		/* @16 user pointer */
	u32 params_size;	/* @24 must equal the control's sizeof (per version) */
	u32 status;		/* @28 */
};

/* nvos.h NVOS54_FLAGS_*, 525-595 */
#define NVRM_NVOS54_FLAGS_NONE			0x0u
#define NVRM_NVOS54_FLAGS_IRQL_RAISED		0x1u
#define NVRM_NVOS54_FLAGS_LOCK_BYPASS		0x2u
#define NVRM_NVOS54_FLAGS_FINN_SERIALIZED	0x4u

/* Control cmd fields (ctrlxxxx.h: class << 16 | category << 8 | message id), 525-595 */
#define NVRM_CTRL_CMD_CLASS(cmd)	(((u32)(cmd) >> 16) & 0xffffu)
#define NVRM_CTRL_CMD_CATEGORY(cmd)	(((u32)(cmd) >> 8) & 0xffu)
#define NVRM_CTRL_CMD_INDEX(cmd)	((u32)(cmd) & 0xffu)

/* NVOS55_PARAMETERS (RM_DUP_OBJECT), 28 B */
struct nvrm_nvos55 {
	u32 hclient;		/* @0 */
	u32 hparent;		/* @4 */
	u32 hobject;		/* @8 */
	u32 hclient_src;	/* @12 */
	u32 hobject_src;	/* @16 */
	u32 flags;		/* @20 */
	u32 status;		/* @24 */
};

/*
 * NVOS57_PARAMETERS (RM_SHARE), 24 B, with its RS_SHARE_POLICY (rs_access.h: target, a one-limb
 * RS_ACCESS_MASK, type, action) at @8; 525-595.
 */
struct nvrm_nvos57 {
	u32 hclient;		/* @0 */
	u32 hobject;		/* @4 */
	u32 share_target;	/* @8, a client handle for RS_SHARE_TYPE_CLIENT */
	u32 share_access_mask;	/* @12 */
	u16 share_type;		/* @16, RS_SHARE_TYPE_* */
	u8 share_action;	/* @18 */
	u8 _pad0;
	u32 status;		/* @20 */
};

/* RS_SHARE_TYPE_* (rs_access.h, 525-595) */
#define NVRM_RS_SHARE_TYPE_ALL		1u
#define NVRM_RS_SHARE_TYPE_PID		4u
#define NVRM_RS_SHARE_TYPE_CLIENT	3u
#define NVRM_RS_SHARE_TYPE_MAX		8u

/* RS_SHARE_ACTION_FLAG_*, and RS_ACCESS_DUP_OBJECT's bit in a mask (rs_access.h, 525-595) */
#define NVRM_RS_SHARE_ACTION_REVOKE	0x1u
#define NVRM_RS_SHARE_ACTION_REQUIRE	0x2u
#define NVRM_RS_SHARE_ACTION_COMPOSE	0x4u
#define NVRM_RS_ACCESS_DUP_OBJECT	0x1u

/* NVOS38_PARAMETERS (RM_ACCESS_REGISTRY), 72 B, nvos.h, 525-595. */
struct nvrm_nvos38 {
	u32 hclient;		/* @0 */
	u32 hobject;		/* @4: hClient (global registry), or a device or subdevice */
	u32 access_type;	/* @8, NVOS38_ACCESS_TYPE_* */
	u32 dev_node_length;	/* @12 */
	u64 dev_node;		/* @16, NvP64 */
	u32 parm_str_length;	/* @24, the key's length without its NUL */
	u8 _pad0[4];
	u64 parm_str;		/* @32, NvP64: the key */
	u32 binary_data_length;	/* @40 */
	u8 _pad1[4];
	u64 binary_data;	/* @48, NvP64 */
	u32 data;		/* @56: the DWORD read or written */
	u32 entry;		/* @60 */
	u32 status;		/* @64 */
	u8 _pad2[4];
};

/* NVOS38_ACCESS_TYPE_* (nvos.h, 525-595) */
#define NVRM_NVOS38_ACCESS_TYPE_READ_DWORD	1u
#define NVRM_NVOS38_ACCESS_TYPE_WRITE_DWORD	2u
#define NVRM_NVOS38_ACCESS_TYPE_READ_BINARY	6u
#define NVRM_NVOS38_ACCESS_TYPE_WRITE_BINARY	7u

/* NVOS32_PARAMETERS (RM_VID_HEAP_CONTROL), 184 B, layout unchanged 525-595. */
struct nvrm_nvos32_alloc_size {
	u32 owner;		/* @40 */
	u32 hmemory;		/* @44 */
	u32 type;		/* @48 */
	u32 flags;		/* @52 */
	u32 attr;		/* @56 */
	u32 format;		/* @60 */
	u32 compr_covg;		/* @64 */
	u32 zcull_covg;		/* @68 */
	u32 partition_stride;	/* @72 */
	u32 width;		/* @76 */
	u32 height;		/* @80 */
	u32 _pad0;
	u64 size;		/* @88 IN/OUT */
	u64 alignment;		/* @96 */
	u64 offset;		/* @104 */
	u64 limit;		/* @112 */
	u64 address;		/* @120 user pointer */
	u64 range_begin;	/* @128 */
	u64 range_end;		/* @136 */
	u32 attr2;		/* @144 */
	u32 ctag_offset;	/* @148 */
	s32 numa_node;		/* @152, 550-595 only (union padding before) */
};

struct nvrm_nvos32_free {
	u32 owner;		/* @40 */
	u32 hmemory;		/* @44 */
	u32 flags;		/* @48 */
};

struct nvrm_nvos32_alloc_os_desc {
	u32 hmemory;		/* @40 */
	u8 _pad0[20];		/* type, flags, attr, attr2 (not needed here) */
	u64 descriptor;		/* @64 user pointer */
	u64 limit;		/* @72 */
};

struct nvrm_nvos32 {
	u32 hroot;		/* @0 */
	u32 hobject_parent;	/* @4 */
	u32 function;		/* @8 NVRM_NVOS32_FUNCTION_* */
	u32 hva_space;		/* @12 */
	s16 ivc_heap_number;	/* @16 */
	u8 _pad0[2];
	u32 status;		/* @20 */
	u64 total;		/* @24 OUT for FUNCTION_INFO */
	u64 free;		/* @32 OUT for FUNCTION_INFO */
	union {			/* @40, 144 B */
		struct nvrm_nvos32_alloc_size alloc_size;
		struct nvrm_nvos32_free free;
		struct nvrm_nvos32_alloc_os_desc alloc_os_desc;
		u8 raw[144];
	} data;
};

/* nvos.h NVOS32_FUNCTION_*, 525-595 */
#define NVRM_NVOS32_FUNCTION_ALLOC_SIZE			2u
#define NVRM_NVOS32_FUNCTION_FREE			3u
#define NVRM_NVOS32_FUNCTION_INFO			5u
#define NVRM_NVOS32_FUNCTION_ALLOC_TILED_PITCH_HEIGHT	6u
#define NVRM_NVOS32_FUNCTION_ALLOC_SIZE_RANGE		14u
#define NVRM_NVOS32_FUNCTION_REACQUIRE_COMPR		15u
#define NVRM_NVOS32_FUNCTION_RELEASE_COMPR		16u
#define NVRM_NVOS32_FUNCTION_GET_MEM_ALIGNMENT		18u
#define NVRM_NVOS32_FUNCTION_HW_ALLOC			19u
#define NVRM_NVOS32_FUNCTION_HW_FREE			20u
#define NVRM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR	27u

/*
 * rmapi_deprecated_vidheapctrl.c / nvos.h, 525-595: ivcHeapNumber > 0 is NV_ERR_NOT_SUPPORTED, an
 * unknown function NV_ERR_INVALID_ARGUMENT; FREE needs Free.flags MEMORY_HANDLE_PROVIDED (else
 * NV_ERR_INVALID_ARGUMENT); ALLOC_* take rangeBegin/End only with ALLOC_FLAGS_USE_BEGIN_END and
 * write partitionStride = 256. INFO reads FB_GET_INFO_V2 on the device's subdevice:
 * free = HEAP_FREE << 10, total = (HEAP_SIZE + FB_TAX_SIZE_KB) << 10, Info.base/size/offset =
 * HEAP_BASE_KB / LARGEST_FREE_REGION_SIZE_KB / LARGEST_FREE_REGION_BASE_KB << 10.
 */
#define NVRM_NVOS32_IVC_HEAP_NUMBER_DONT_ALLOCATE	0
#define NVRM_NVOS32_FREE_FLAGS_MEMORY_HANDLE_PROVIDED	0x00000001u
#define NVRM_NVOS32_ALLOC_FLAGS_USE_BEGIN_END		0x00020000u
#define NVRM_NVOS32_PARTITION_STRIDE			256u
/* NVOS32 data.Info (FUNCTION_INFO), 525-595: attr@40, offset@48, size@56, base@64 */
#define NVRM_NVOS32_INFO_OFFSET_OFF			48u
#define NVRM_NVOS32_INFO_SIZE_OFF			56u
#define NVRM_NVOS32_INFO_BASE_OFF			64u

/* NVOS33_PARAMETERS (RM_MAP_MEMORY), 48 B */
struct nvrm_nvos33 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hmemory;		/* @8 */
	u32 _pad0;
	u64 offset;		/* @16 */
	u64 length;		/* @24 */
	u64 plinear_address;	/* @32 OUT */
	u32 status;		/* @40 */
	u32 flags;		/* @44 */
};

/* nv_ioctl_nvos33_parameters_with_fd (nv-unix-nvos-params-wrappers.h), 56 B */
struct nvrm_nvos33_with_fd {
	struct nvrm_nvos33 params;	/* @0 */
	s32 fd;				/* @48 */
	u32 _pad0;
};

/* nvos.h NVOS33_FLAGS_*, 525-595 */
#define NVRM_NVOS33_FLAGS_ACCESS_SHIFT			0
#define NVRM_NVOS33_FLAGS_ACCESS_MASK			0x3u		/* 1:0 */
#define NVRM_NVOS33_FLAGS_ACCESS_READ_WRITE		0u
#define NVRM_NVOS33_FLAGS_ACCESS_READ_ONLY		1u
#define NVRM_NVOS33_FLAGS_ACCESS_WRITE_ONLY		2u
#define NVRM_NVOS33_FLAGS_MAPPING_SHIFT			15		/* 16:15 */
#define NVRM_NVOS33_FLAGS_MAPPING_MASK			0x3u
#define NVRM_NVOS33_FLAGS_MAPPING_DEFAULT		0u
#define NVRM_NVOS33_FLAGS_MAPPING_DIRECT		1u
#define NVRM_NVOS33_FLAGS_MAPPING_REFLECTED		2u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_SHIFT		23		/* 25:23 */
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_MASK		0x7u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_CACHED		0u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_UNCACHED		1u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED	2u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_WRITEBACK	5u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_DEFAULT		6u
#define NVRM_NVOS33_FLAGS_CACHING_TYPE_UNCACHED_WEAK	7u

/* NVOS34_PARAMETERS (RM_UNMAP_MEMORY), 32 B */
struct nvrm_nvos34 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hmemory;		/* @8 */
	u32 _pad0;
	u64 plinear_address;	/* @16 */
	u32 status;		/* @24 */
	u32 flags;		/* @28 */
};

/*
 * NVOS56_PARAMETERS (nvos.h, 525-595): NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, issued on
 * /dev/nvidiactl: the CPU mapping of hMemory that the calling process made at pOldCpuAddress is
 * known at pNewCpuAddress from now on (RmUpdateDeviceMappingInfo(), osapi.c). CUDA sends it
 * after mmap, old = RM_MAP_MEMORY's pLinearAddress, new = the mmap address.
 */
struct nvrm_nvos56 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hmemory;		/* @8 */
	u32 _pad0;
	u64 pold_cpu_address;	/* @16 */
	u64 pnew_cpu_address;	/* @24 */
	u32 status;		/* @32 */
	u32 _pad1;
};

/*
 * NVOS46 (RM_MAP_MEMORY_DMA: map memory into a GPU virtual address range) and NVOS47
 * (RM_UNMAP_MEMORY_DMA), nvos.h. Read at 525.147.05, 545.29.06, 550.40.07, 575.64.05, 580.65.06
 * and 580.142: flags2@36 and kindOverride@40 appear in 580.65.06 and move dmaOffset and status
 * by 8; NVOS47's size@32 appears in 550.40.07 and moves status by 8. dmaOffset is written back
 * as the absolute GPU virtual address of the mapping (rmapiMapWithSecInfo() copies it back,
 * virtmemMapTo_IMPL() sets it from dmaAllocMap_IMPL()'s vaddr, 525-580), and NVOS47 names that
 * address.
 */
/* NVOS46_FLAGS_DMA_OFFSET_FIXED (bit 15): dmaOffset is absolute, not from hDma's base */
#define NVRM_NVOS46_FLAGS_DMA_OFFSET_FIXED	0x8000u

/* 525-575, 56 B */
struct nvrm_nvos46_v525 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hdma;		/* @8: the virtual memory mapped into */
	u32 hmemory;		/* @12: the memory mapped */
	u64 offset;		/* @16: into hMemory */
	u64 length;		/* @24 */
	u32 flags;		/* @32 */
	u32 _pad0;
	u64 dma_offset;		/* @40: in, from hDma's base (absolute if FIXED); out, absolute */
	u32 status;		/* @48 */
	u32 _pad1;
};

/* 580-595, 64 B */
struct nvrm_nvos46_v580 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hdma;		/* @8 */
	u32 hmemory;		/* @12 */
	u64 offset;		/* @16 */
	u64 length;		/* @24 */
	u32 flags;		/* @32 */
	u32 flags2;		/* @36 */
	u32 kind_override;	/* @40 */
	u32 _pad0;
	u64 dma_offset;		/* @48 */
	u32 status;		/* @56 */
	u32 _pad1;
};

/* 525-545, 40 B: the mapping of hMemory at exactly dmaOffset (refFindInterMapping()) */
struct nvrm_nvos47_v525 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hdma;		/* @8 */
	u32 hmemory;		/* @12 */
	u32 flags;		/* @16 */
	u32 _pad0;
	u64 dma_offset;		/* @24 */
	u32 status;		/* @32 */
	u32 _pad1;
};

/*
 * 550-595, 48 B: size 0 unmaps the mapping at exactly dmaOffset, any other size every part of
 * hDma's mappings made with hDevice within [dmaOffset, dmaOffset + size), splitting what it cuts
 * (serverInterUnmapInternal(), rs_server.c, 580.142); hMemory is not read.
 */
struct nvrm_nvos47_v550 {
	u32 hclient;		/* @0 */
	u32 hdevice;		/* @4 */
	u32 hdma;		/* @8 */
	u32 hmemory;		/* @12 */
	u32 flags;		/* @16 */
	u32 _pad0;
	u64 dma_offset;		/* @24 */
	u64 size;		/* @32 */
	u32 status;		/* @40 */
	u32 _pad1;
};

/* nvos.h NVOS02_FLAGS_* (RM_ALLOC_MEMORY), 525-595 */
#define NVRM_NVOS02_FLAGS_PHYSICALITY_SHIFT		4		/* 7:4 */
#define NVRM_NVOS02_FLAGS_PHYSICALITY_MASK		0xfu
#define NVRM_NVOS02_FLAGS_LOCATION_SHIFT		8		/* 11:8 */
#define NVRM_NVOS02_FLAGS_LOCATION_MASK			0xfu
#define NVRM_NVOS02_FLAGS_LOCATION_PCI			0u
#define NVRM_NVOS02_FLAGS_LOCATION_VIDMEM		2u
#define NVRM_NVOS02_FLAGS_ALLOC_SHIFT			16		/* 17:16 */
#define NVRM_NVOS02_FLAGS_ALLOC_MASK			0x3u
#define NVRM_NVOS02_FLAGS_ALLOC_NONE			1u
#define NVRM_NVOS02_FLAGS_MAPPING_SHIFT			30		/* 31:30 */
#define NVRM_NVOS02_FLAGS_MAPPING_MASK			0x3u
#define NVRM_NVOS02_FLAGS_MAPPING_DEFAULT		0u
#define NVRM_NVOS02_FLAGS_MAPPING_NO_MAP		1u
#define NVRM_NVOS02_FLAGS_MAPPING_NEVER_MAP		2u

/*
 * rmapi_deprecated_allocmemory.c, 525-595: RM_ALLOC_MEMORY handles classes 0x3E, 0x70, 0x71, 0x40,
 * 0x3F, 0x81-0x83 and 0x79-console only; anything else is NV_ERR_INVALID_CLASS. 0x3E needs
 * LOCATION=PCI and ALLOC!=NONE (else NV_ERR_INVALID_FLAGS), allocates limit + 1 bytes and maps it
 * when MAPPING is DEFAULT (freeing it again if the map fails). 0x40 allocates nothing for a user
 * without the whole-FB privilege: it returns limit = TOTAL_RAM_SIZE - 1 and a dummy
 * NV01_MEMORY_SYSTEM_DYNAMIC (0x70) handle. escape.c then creates the mmap context for 0x3E with
 * ALLOC!=NONE and MAPPING!=NO_MAP through the fd (failure: the ioctl fails with -EINVAL).
 */
#define NVRM_NVOS02_FLAGS_ALLOC_GET(f) \
	(((u32)(f) >> NVRM_NVOS02_FLAGS_ALLOC_SHIFT) & NVRM_NVOS02_FLAGS_ALLOC_MASK)
#define NVRM_NVOS02_FLAGS_MAPPING_GET(f) \
	(((u32)(f) >> NVRM_NVOS02_FLAGS_MAPPING_SHIFT) & NVRM_NVOS02_FLAGS_MAPPING_MASK)
#define NVRM_NVOS02_FLAGS_LOCATION_GET(f) \
	(((u32)(f) >> NVRM_NVOS02_FLAGS_LOCATION_SHIFT) & NVRM_NVOS02_FLAGS_LOCATION_MASK)

/* nvos.h NV04_DUP_HANDLE_FLAGS_*, 525-595 */
/*
 * Where RM's generated handles start (resserv.h RS_CLIENT_HANDLE_BASE, rs_client.h
 * RS_UNIQUE_HANDLE_BASE, 525-595): clients 0xc1d00000 + n, objects 0xcaf00000 + n, n below 2^20.
 */
#define NVRM_CLIENT_HANDLE_BASE				0xc1d00000u
#define NVRM_OBJECT_HANDLE_BASE				0xcaf00000u

#define NVRM_DUP_FLAGS_NONE				0x0u
#define NVRM_DUP_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE	0x1u

/* NVOS41_PARAMETERS (RM_GET_EVENT_DATA), 16 B: pEvent@0 (user pointer to NvUnixEvent) */
struct nvrm_nvos41 {
	u64 pevent;		/* @0 */
	u32 more_events;	/* @8 */
	u32 status;		/* @12 */
};

/* NvUnixEvent (nvos.h), 16 B, 525-595: what RM_GET_EVENT_DATA copies to pEvent */
struct nvrm_unix_event {
	u32 hobject;		/* @0 */
	u32 notify_index;	/* @4 */
	u32 info32;		/* @8 */
	u16 info16;		/* @12 */
	u8 _pad0[2];
};

/* Sizes of the other RM escape structs (nvos.h); NVOS46/47 are versioned (struct nvrm_abi). */
#define NVRM_NVOS05_SIZE		20u	/* 525-595 */
#define NVRM_NVOS30_SIZE		56u	/* 525-595 */
#define NVRM_NVOS38_SIZE		72u	/* 525-595 */
#define NVRM_NVOS39_SIZE		56u	/* 525-595 */
#define NVRM_NVOS41_SIZE		16u	/* 525-595 */
#define NVRM_NVOS49_SIZE		16u	/* 525-595 */
#define NVRM_NVOS56_SIZE		40u	/* 525-595 */
#define NVRM_NVOS46_SIZE_V525		56u	/* 525-575 */
#define NVRM_NVOS46_SIZE_V580		64u	/* 580-595: flags2@36, kindOverride@40 added */
#define NVRM_NVOS47_SIZE_V525		40u	/* 525-545 */
#define NVRM_NVOS47_SIZE_V550		48u	/* 550-595: size@32 added */

/*
 * 5. Memory allocation attributes (nvos.h NVOS32_ATTR*, NVOS32_ALLOC_FLAGS_*, 525-595)
 *    Used by NV_MEMORY_ALLOCATION_PARAMS and by NVOS32 AllocSize.
 */
#define NVRM_ATTR_PAGE_SIZE_SHIFT		23		/* 24:23 */
#define NVRM_ATTR_PAGE_SIZE_MASK		0x3u
#define NVRM_ATTR_PAGE_SIZE_DEFAULT		0u
#define NVRM_ATTR_PAGE_SIZE_4KB			1u
#define NVRM_ATTR_PAGE_SIZE_BIG			2u
#define NVRM_ATTR_PAGE_SIZE_HUGE		3u
#define NVRM_ATTR_LOCATION_SHIFT		25		/* 26:25 */
#define NVRM_ATTR_LOCATION_MASK			0x3u
#define NVRM_ATTR_LOCATION_VIDMEM		0u
#define NVRM_ATTR_LOCATION_PCI			1u
#define NVRM_ATTR_LOCATION_ANY			3u
#define NVRM_ATTR_PHYSICALITY_SHIFT		27		/* 28:27 */
#define NVRM_ATTR_PHYSICALITY_MASK		0x3u
#define NVRM_ATTR_PHYSICALITY_DEFAULT		0u
#define NVRM_ATTR_PHYSICALITY_NONCONTIGUOUS	1u
#define NVRM_ATTR_PHYSICALITY_CONTIGUOUS	2u
#define NVRM_ATTR_GET(attr, field) \
	(((u32)(attr) >> NVRM_ATTR_##field##_SHIFT) & NVRM_ATTR_##field##_MASK)

#define NVRM_ATTR2_PAGE_SIZE_HUGE_SHIFT		20		/* 21:20 */
#define NVRM_ATTR2_PAGE_SIZE_HUGE_MASK		0x3u
#define NVRM_ATTR2_PAGE_SIZE_HUGE_DEFAULT	0u
#define NVRM_ATTR2_PAGE_SIZE_HUGE_2MB		1u
#define NVRM_ATTR2_PAGE_SIZE_HUGE_512MB		2u
#define NVRM_ATTR2_PAGE_SIZE_HUGE_256GB		3u	/* 560.28.03+ */

/*
 * What RM honours in NV_MEMORY_ALLOCATION_PARAMS and NVOS32 AllocSize only for a caller of kernel
 * privilege (nvos.h; standard_mem.c stdmemValidateParams() and video_mem.c vidmemConstruct_IMPL();
 * read at 580.142, the same at 595.45.04). A user's call through the ioctl path is
 * RS_PRIV_LEVEL_USER or USER_ROOT; qgpu's kernel client is always RS_PRIV_LEVEL_KERNEL:
 * - NVOS32_ATTR_ALLOCATE_FROM_RESERVED_HEAP (attr 14:14, 545.23.06+; the bit is undefined before,
 *   where clearing it changes nothing): a user's is ignored; a kernel caller gets RM's reserved
 *   heap (outside PMA and the MIG partition's heap).
 * - NVOS32_ATTR2_PAGE_OFFLINING_OFF (attr2 19:19, alias BLACKLIST_OFF): a user gets
 *   NV_ERR_INSUFFICIENT_PERMISSIONS (release builds); a kernel caller may get retired pages.
 * - internalflags (NV_MEMORY_ALLOCATION_PARAMS only; VID_HEAP_CONTROL zeroes it): any non-zero
 *   value from a user is NV_ERR_INVALID_ARGUMENT; a kernel caller's SKIP_SCRUB (0x4) is honoured.
 * stdmemValidateParams() checks internalflags first, then the owner, then PAGE_OFFLINING.
 */
#define NVRM_ATTR_ALLOCATE_FROM_RESERVED_HEAP	0x00004000u
#define NVRM_ATTR2_PAGE_OFFLINING_OFF		0x00080000u
#define NVRM_INTERNAL_FLAGS_SKIP_SCRUB		0x00000004u

/* nvos.h NVOS32_ALLOC_FLAGS_*, 525-595 */
#define NVRM_ALLOC_FLAGS_ALIGNMENT_FORCE	0x00000100u	/* libcuda 580 sets it, 2 MiB */
/*
 * A virtual range (0x50A0) without LAZY or EXTERNALLY_MANAGED has RM allocate the page tables of
 * its whole span when it is reserved (vaspaceFillAllocParams(), gvaspaceAlloc_IMPL()'s
 * mmuWalkReserveEntries(), 580.142).
 */
#define NVRM_ALLOC_FLAGS_LAZY			0x00000400u
#define NVRM_ALLOC_FLAGS_EXTERNALLY_MANAGED	0x00400000u
#define NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED	0x00004000u
#define NVRM_ALLOC_FLAGS_VIRTUAL		0x00080000u
#define NVRM_ALLOC_FLAGS_PROTECTED		0x01000000u
#define NVRM_ALLOC_FLAGS_SPARSE			0x04000000u

/*
 * 6. Class ids (src/common/sdk/nvidia/inc/class/clXXXX.h; values stable 525-595 where defined:
 *    NV_MEMORY_EXPORT from 545, FABRIC_IMPORT_V2, FABRIC_IMPORTED_REF and IMEX_SESSION from 550)
 */
#define NVRM_CLASS_NV01_ROOT			0x0000u	/* cl0000.h; forced to ROOT_CLIENT */
#define NVRM_CLASS_NV01_ROOT_NON_PRIV		0x0001u	/* cl0001.h; forced to ROOT_CLIENT */
#define NVRM_CLASS_NV01_ROOT_CLIENT		0x0041u	/* cl0041.h */
#define NVRM_CLASS_NV01_EVENT			0x0005u	/* cl0005.h */
#define NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK	0x0078u	/* cl0078.h */
#define NVRM_CLASS_NV01_EVENT_OS_EVENT		0x0079u	/* cl0079.h */
#define NVRM_CLASS_NV01_EVENT_KERNEL_CALLBACK_EX 0x007Eu /* cl007e.h */
#define NVRM_CLASS_NV01_DEVICE_0		0x0080u	/* cl0080.h */
#define NVRM_CLASS_NV20_SUBDEVICE_0		0x2080u	/* cl2080.h */

/*
 * NV0005_ALLOC_PARAMETERS.notifyIndex flag bits (nvos.h NV01_EVENT_*, 525-595); the notifier index
 * is what remains. There is no NV2080_NOTIFIERS_NONSTALL: work-completion ("non-stall") events are
 * NV01_EVENT_NONSTALL_INTR events on the engine's notifier, NV2080_NOTIFIERS_GRAPHICS (12) for
 * compute (cl2080_notification.h, 525-595).
 */
#define NVRM_NV01_EVENT_BROADCAST		0x80000000u
#define NVRM_NV01_EVENT_PERMIT_NON_ROOT_KCB	0x40000000u
#define NVRM_NV01_EVENT_SUBDEVICE_SPECIFIC	0x20000000u
#define NVRM_NV01_EVENT_WITHOUT_EVENT_DATA	0x10000000u
#define NVRM_NV01_EVENT_NONSTALL_INTR		0x08000000u
#define NVRM_NV01_EVENT_CLIENT_RM		0x04000000u
#define NVRM_NV01_EVENT_FLAGS			0xFC000000u
/*
 * NV0005_NOTIFY_INDEX_INDEX 15:0 (cl0005.h, 525-595): RM takes the notifier index as these bits
 * alone (event_notification.c DRF_VAL(0005, _NOTIFY_INDEX, _INDEX)); 23:16 is a subdevice number
 * that RM-internal users set together with NV01_EVENT_SUBDEVICE_SPECIFIC.
 */
#define NVRM_NV0005_NOTIFY_INDEX_INDEX		0x0000FFFFu
#define NVRM_NV2080_NOTIFIERS_GRAPHICS		12u
#define NVRM_NV2080_NOTIFIERS_MAXCOUNT		199u	/* 590-595 (grows by release) */

/* Memory classes */
#define NVRM_CLASS_NV01_MEMORY_SYSTEM		0x003Eu	/* cl003e.h, sysmem */
#define NVRM_CLASS_NV01_MEMORY_LOCAL_PRIVILEGED	0x003Fu	/* cl003f.h, no params */
#define NVRM_CLASS_NV01_MEMORY_LOCAL_USER	0x0040u	/* cl0040.h, vidmem */
#define NVRM_CLASS_NV01_MEMORY_VIRTUAL		0x0070u	/* cl0070.h (= SYSTEM_DYNAMIC) */
#define NVRM_CLASS_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR 0x0071u /* cl0071.h */
#define NVRM_CLASS_NV01_MEMORY_LIST_SYSTEM	0x0081u	/* cl84a0.h, privileged */
#define NVRM_CLASS_NV01_MEMORY_LIST_FBMEM	0x0082u	/* cl84a0.h, privileged */
#define NVRM_CLASS_NV01_MEMORY_LIST_OBJECT	0x0083u	/* cl84a0.h, privileged */
#define NVRM_CLASS_NV01_MEMORY_LOCAL_PHYSICAL	0x00C2u	/* cl00c2.h, privileged */
#define NVRM_CLASS_NV_MEMORY_EXPORT		0x00E0u	/* cl00e0.h */
#define NVRM_CLASS_NV_MEMORY_FABRIC		0x00F8u	/* cl00f8.h */
#define NVRM_CLASS_NV_MEMORY_FABRIC_IMPORT_V2	0x00F9u	/* cl00f9.h */
#define NVRM_CLASS_NV_MEMORY_FABRIC_IMPORTED_REF 0x00FBu /* cl00fb.h */
#define NVRM_CLASS_NV_MEMORY_MULTICAST_FABRIC	0x00FDu	/* cl00fd.h */
/*
 * cl00fe.h: maps and unmaps GPU memory for its client from a work queue (mem_mapper.c). A stub
 * answering NV_ERR_NOT_SUPPORTED through 545, behind the EnableMemoryMapperApi registry key
 * (default off) in 550-555, working for any user from 560.28.03 to 595 (session 28, a helper).
 */
#define NVRM_CLASS_NV_MEMORY_MAPPER		0x00FEu
/* ctrl00fe.h NV00FE_CTRL_CMD_SUBMIT_OPERATIONS: queues MAP, UNMAP and semaphore ops, 525-595 */
#define NVRM_CTRL_CMD_NV00FE_SUBMIT_OPERATIONS	0x00FE0101u
#define NVRM_CLASS_NV50_MEMORY_VIRTUAL		0x50A0u	/* cl50a0.h, GPU VA only */
#define NVRM_CLASS_NV01_MEMORY_DEVICELESS	0x90CEu	/* cl90ce.h, sysmem */
#define NVRM_CLASS_NV_MEMORY_EXTENDED_USER	0x0042u	/* cl0042.h, EGM, 535-590 only */

/* Address space, scheduling and work submission */
#define NVRM_CLASS_FERMI_VASPACE_A		0x90F1u	/* cl90f1.h */
#define NVRM_CLASS_FERMI_CONTEXT_SHARE_A	0x9067u	/* cl9067.h */
#define NVRM_CLASS_KEPLER_CHANNEL_GROUP_A	0xA06Cu	/* cla06c.h (TSG) */
#define NVRM_CLASS_VOLTA_CHANNEL_GPFIFO_A	0xC36Fu	/* clc36f.h */
#define NVRM_CLASS_TURING_CHANNEL_GPFIFO_A	0xC46Fu	/* clc46f.h */
#define NVRM_CLASS_AMPERE_CHANNEL_GPFIFO_A	0xC56Fu	/* clc56f.h */
#define NVRM_CLASS_HOPPER_CHANNEL_GPFIFO_A	0xC86Fu	/* clc86f.h */
#define NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_A	0xC96Fu	/* clc96f.h, 560-595 */
#define NVRM_CLASS_BLACKWELL_CHANNEL_GPFIFO_B	0xCA6Fu	/* clca6f.h, 570-595 */
#define NVRM_CLASS_VOLTA_COMPUTE_A		0xC3C0u	/* clc3c0.h */
#define NVRM_CLASS_TURING_COMPUTE_A		0xC5C0u	/* clc5c0.h */
#define NVRM_CLASS_AMPERE_COMPUTE_A		0xC6C0u	/* clc6c0.h */
#define NVRM_CLASS_AMPERE_COMPUTE_B		0xC7C0u	/* clc7c0.h */
#define NVRM_CLASS_ADA_COMPUTE_A		0xC9C0u	/* clc9c0.h */
#define NVRM_CLASS_HOPPER_COMPUTE_A		0xCBC0u	/* clcbc0.h */
#define NVRM_CLASS_BLACKWELL_COMPUTE_A		0xCDC0u	/* clcdc0.h, 560-595 */
#define NVRM_CLASS_BLACKWELL_COMPUTE_B		0xCEC0u	/* clcec0.h, 570-595 */
#define NVRM_CLASS_TURING_DMA_COPY_A		0xC5B5u	/* clc5b5.h */
#define NVRM_CLASS_AMPERE_DMA_COPY_A		0xC6B5u	/* clc6b5.h */
#define NVRM_CLASS_AMPERE_DMA_COPY_B		0xC7B5u	/* clc7b5.h */
#define NVRM_CLASS_HOPPER_DMA_COPY_A		0xC8B5u	/* clc8b5.h */
#define NVRM_CLASS_BLACKWELL_DMA_COPY_A		0xC9B5u	/* clc9b5.h, 560-595 */
#define NVRM_CLASS_BLACKWELL_DMA_COPY_B		0xCAB5u	/* clcab5.h, 570-595 */
#define NVRM_CLASS_VOLTA_USERMODE_A		0xC361u	/* clc361.h, no params */
#define NVRM_CLASS_TURING_USERMODE_A		0xC461u	/* clc461.h, no params */
#define NVRM_CLASS_AMPERE_USERMODE_A		0xC561u	/* clc561.h, no params */
#define NVRM_CLASS_HOPPER_USERMODE_A		0xC661u	/* clc661.h, optional 2 B params */
#define NVRM_CLASS_BLACKWELL_USERMODE_A		0xC761u	/* clc761.h, 570-595 */

/* Classes whose alloc params carry a capability fd (nv-caps.c, reference section 1.4) */
#define NVRM_CLASS_FABRIC_MANAGER_SESSION	0x000Fu	/* cl000f.h */
#define NVRM_CLASS_NV_IMEX_SESSION		0x00F1u	/* cl00f1.h */
#define NVRM_CLASS_AMPERE_SMC_PARTITION_REF	0xC637u	/* clc637.h */
#define NVRM_CLASS_AMPERE_SMC_EXEC_PARTITION_REF 0xC638u /* clc638.h */
#define NVRM_CLASS_AMPERE_SMC_CONFIG_SESSION	0xC639u	/* clc639.h */
#define NVRM_CLASS_AMPERE_SMC_MONITOR_SESSION	0xC640u	/* clc640.h */

/* Others seen in CUDA traces */
#define NVRM_CLASS_GT200_DEBUGGER		0x83DEu	/* cl83de.h */
#define NVRM_CLASS_NV50_P2P			0x503Bu	/* cl503b.h */

/*
 * Classes whose alloc params name another RM client (session 18 audit, 595.45.04 / 580.142):
 * NV83DE_ALLOC_PARAMETERS 12 B, hAppClient@4; NVB2CC_ALLOC_PARAMETERS 8 B, hClientTarget@0;
 * NV_FLA_MEMORY_ALLOCATION_PARAMS 56 B, hExportClient@48 (class registered for users in 570-580,
 * gone from 590). NV0080 (hClientShare@4, hTargetClient@8) and NV0005 (hParentClient@0) below.
 */
#define NVRM_CLASS_MAXWELL_PROFILER_DEVICE	0xB2CCu	/* clb2cc.h */
#define NVRM_CLASS_NV01_MEMORY_FLA		0x00F3u	/* cl00f3.h */

/*
 * 7. Alloc parameter structs (RM copies sizeof(per-class struct) for the running version)
 */

/*
 * NV_MEMORY_ALLOCATION_PARAMS (nvos.h): alloc params of 0x40, 0x3E, 0x50A0 and 0x90CE.
 * 120 B in 525-535, 128 B in 545-595 (numaNode appended; earlier offsets unchanged).
 */
#define NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V525	120u
#define NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545	128u
struct nvrm_memory_allocation_params {
	u32 owner;		/* @0 */
	u32 type;		/* @4 */
	u32 flags;		/* @8 NVRM_ALLOC_FLAGS_* */
	u32 width;		/* @12 */
	u32 height;		/* @16 */
	s32 pitch;		/* @20 */
	u32 attr;		/* @24 NVRM_ATTR_* */
	u32 attr2;		/* @28 */
	u32 format;		/* @32 */
	u32 compr_covg;		/* @36 */
	u32 zcull_covg;		/* @40 */
	u32 _pad0;
	u64 range_lo;		/* @48 */
	u64 range_hi;		/* @56 */
	u64 size;		/* @64 IN/OUT: RM writes back the allocated size */
	u64 alignment;		/* @72 */
	u64 offset;		/* @80 */
	u64 limit;		/* @88 */
	u64 address;		/* @96 user pointer */
	u32 ctag_offset;	/* @104 */
	u32 hva_space;		/* @108 */
	u32 internal_flags;	/* @112 */
	u32 tag;		/* @116 */
	s32 numa_node;		/* @120, 545-595 only */
	u32 _pad1;
};

/* NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS (cl0070.h), 24 B, 525-595 */
struct nvrm_memory_virtual_alloc_params {
	u64 offset;		/* @0 */
	u64 limit;		/* @8 */
	u32 hva_space;		/* @16 */
	u32 _pad0;
};

/* NV_PHYSICAL_MEMORY_ALLOCATION_PARAMS (nvos.h), class 0xC2: 16 B in 525, 24 B in 530-595. */
#define NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V525	16u
#define NVRM_PHYSICAL_MEMORY_ALLOC_PARAMS_SIZE_V530	24u
/* NV_OS_DESC_MEMORY_ALLOCATION_PARAMS (nvos.h), class 0x71: 40 B, 525-595 */
#define NVRM_OS_DESC_MEMORY_ALLOC_PARAMS_SIZE		40u
/* NV00F8_ALLOCATION_PARAMETERS (cl00f8.h), class 0xF8: 40 B in 525-530, 48 B in 535-595 */
#define NVRM_NV00F8_ALLOC_PARAMS_SIZE_V525		40u
#define NVRM_NV00F8_ALLOC_PARAMS_SIZE_V535		48u
/*
 * Its fields: alignment@0, allocSize@8, pageSize (NvU32@16 in 525-530, NvU64@16 from 535),
 * allocFlags (@20 / @24), map {offset (@24 / @32), hVidMem (@32 / @40), flags} (cl00f8.h,
 * 525.47.04, 535.43.02, 580.142). Page sizes: 2 MiB and 512 MiB, 256 GiB from 560.28.03.
 */
#define NVRM_NV00F8_PAGE_SIZE_OFFSET			16u
#define NVRM_NV00F8_ALLOC_FLAGS_OFFSET_V525		20u
#define NVRM_NV00F8_ALLOC_FLAGS_OFFSET_V535		24u
#define NVRM_NV00F8_MAP_OFFSET_OFFSET_V525		24u
#define NVRM_NV00F8_MAP_OFFSET_OFFSET_V535		32u
#define NVRM_NV00F8_HVIDMEM_OFFSET_V525			32u
#define NVRM_NV00F8_HVIDMEM_OFFSET_V535			40u
#define NVRM_NV00F8_PAGE_SIZE_2M			0x200000ull
#define NVRM_NV00F8_PAGE_SIZE_512M			0x20000000ull
#define NVRM_NV00F8_PAGE_SIZE_256G			0x4000000000ull	/* 560.28.03-595 */
#define NVRM_NV00F8_PAGE_SIZE_256G_SINCE		560u
/*
 * From 590.44.01 the page size is memmgrIsValidFlaPageSize_HAL()'s: 256 GiB on Blackwell only;
 * 2 MiB and 512 MiB on Ampere, Ada and Hopper (g_mem_mgr_nvoc.c).
 */
#define NVRM_NV00F8_PAGE_SIZE_BY_GPU_SINCE		590u
/* NV00F8_ALLOC_FLAGS_* (cl00f8.h, 525-595); FLEXIBLE_FLA is refused in 525 (mem_fabric.c) */
#define NVRM_NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA		0x1u
#define NVRM_NV00F8_FLEXIBLE_SINCE			530u
#define NVRM_NV00F8_ALLOC_FLAGS_FORCE_NONCONTIGUOUS	0x2u
#define NVRM_NV00F8_ALLOC_FLAGS_FORCE_CONTIGUOUS	0x4u
#define NVRM_NV00F8_ALLOC_FLAGS_READ_ONLY		0x8u
/* NV_GR_ALLOCATION_PARAMETERS (nvos.h), compute classes, optional: 16 B, 525-595 */
#define NVRM_GR_ALLOC_PARAMS_SIZE			16u
/* NVB0B5_ALLOCATION_PARAMETERS (clb0b5sw.h), copy classes, optional: 8 B, 525-595 */
#define NVRM_NVB0B5_ALLOC_PARAMS_SIZE			8u
/* NV_HOPPER_USERMODE_A_PARAMS (nvos.h) {bBar1Mapping, bPriv}, optional: 2 B, 525-595 */
#define NVRM_HOPPER_USERMODE_A_PARAMS_SIZE		2u
/* Root classes take an optional NvHandle (resource_list.h RS_OPTIONAL(NvHandle)), 525-595 */
#define NVRM_ROOT_ALLOC_PARAMS_SIZE			4u

/* NV0080_ALLOC_PARAMETERS (cl0080.h), device, 56 B, 525-595 */
struct nvrm_nv0080_alloc_params {
	u32 device_id;		/* @0 */
	u32 hclient_share;	/* @4 */
	u32 htarget_client;	/* @8 */
	u32 htarget_device;	/* @12 */
	u32 flags;		/* @16 */
	u32 _pad0;
	u64 va_space_size;	/* @24 */
	u64 va_start_internal;	/* @32 */
	u64 va_limit_internal;	/* @40 */
	u32 va_mode;		/* @48 */
	u32 _pad1;
};

/* NV2080_ALLOC_PARAMETERS (cl2080.h), subdevice, 4 B, 525-595 */
struct nvrm_nv2080_alloc_params {
	u32 sub_device_id;
};

/* NV0005_ALLOC_PARAMETERS (cl0005.h), event classes 0x05/0x78/0x79/0x7E, 24 B, 525-595 */
struct nvrm_nv0005_alloc_params {
	u32 hparent_client;	/* @0 */
	u32 hsrc_resource;	/* @4 */
	u32 hclass;		/* @8 */
	u32 notify_index;	/* @12 */
	u64 data;		/* @16 for NV01_EVENT_OS_EVENT: the ALLOC_OS_EVENT fd key */
};

/* NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS (nvos.h), TSG 0xA06C, 20 B, 525-595 */
struct nvrm_channel_group_alloc_params {
	u32 hobject_error;	/* @0 */
	u32 hobject_ecc_error;	/* @4 */
	u32 hva_space;		/* @8 */
	u32 engine_type;	/* @12 */
	u8 is_calling_context_vgpu_plugin; /* @16 NvBool */
	u8 _pad0[3];
};

/* NV2080_ENGINE_TYPE_GRAPHICS (cl2080_notification.h / nv2080 engine types), 525-595 */
#define NVRM_NV2080_ENGINE_TYPE_GRAPHICS	1u
/* NV2080_ENGINE_TYPE_GR7: GR0..GR7 are 1..8 (NV2080_ENGINE_TYPE_IS_GR()) */
#define NVRM_NV2080_ENGINE_TYPE_GR7		8u

/* NV_CTXSHARE_ALLOCATION_PARAMETERS (nvos.h), 0x9067, 12 B, 525-595 */
struct nvrm_ctxshare_alloc_params {
	u32 hva_space;		/* @0 */
	u32 flags;		/* @4 */
	u32 subctx_id;		/* @8 */
};

/* NV_MEMORY_DESC_PARAMS (alloc_channel.h), 24 B */
struct nvrm_memory_desc_params {
	u64 base;
	u64 size;
	u32 address_space;
	u32 cache_attrib;
};

/*
 * NV_CHANNEL_ALLOC_PARAMS (alloc/alloc_channel.h). Size by version (measured at every tag):
 *   304 B: 525.x, 530.x, 535.43.02 and 535.54.03 (ends after SubProcessID@300);
 *   360 B: 535.43.08-535.43.28, 535.86.05-565.x (encryptIv/decryptIv/hmacNonce added);
 *   368 B: 570-595 (tpcConfigID@360 added).
 * Offsets of the common prefix are identical in all versions.
 */
#define NVRM_MAX_SUBDEVICES			8
#define NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V525	304u
#define NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535	360u
#define NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570	368u
struct nvrm_channel_alloc_params {
	u32 hobject_error;					/* @0 */
	u32 hobject_buffer;					/* @4 */
	u64 gp_fifo_offset;					/* @8 */
	u32 gp_fifo_entries;					/* @16 */
	u32 flags;						/* @20 */
	u32 hcontext_share;					/* @24 */
	u32 hva_space;						/* @28 */
	u32 huserd_memory[NVRM_MAX_SUBDEVICES];			/* @32 */
	u64 userd_offset[NVRM_MAX_SUBDEVICES];			/* @64 */
	u32 engine_type;					/* @128 */
	u32 cid;						/* @132 */
	u32 sub_device_id;					/* @136 */
	u32 hobject_ecc_error;					/* @140 */
	struct nvrm_memory_desc_params instance_mem;		/* @144 */
	struct nvrm_memory_desc_params userd_mem;		/* @168 */
	struct nvrm_memory_desc_params ramfc_mem;		/* @192 */
	struct nvrm_memory_desc_params mthdbuf_mem;		/* @216 */
	u32 hphys_channel_group;				/* @240 */
	u32 internal_flags;					/* @244 */
	struct nvrm_memory_desc_params error_notifier_mem;	/* @248 */
	struct nvrm_memory_desc_params ecc_error_notifier_mem;	/* @272 */
	u32 process_id;						/* @296 */
	u32 sub_process_id;					/* @300 */
	u32 encrypt_iv[3];					/* @304, 360 B+ */
	u32 decrypt_iv[3];					/* @316, 360 B+ */
	u32 hmac_nonce[8];					/* @328, 360 B+ */
	u32 tpc_config_id;					/* @360, 570-595 */
	u32 _pad0;
};

/* NV_VASPACE_ALLOCATION_PARAMETERS (nvos.h), 0x90F1: 48 B in 525-575, 56 B in 580-595. */
#define NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525	48u
#define NVRM_VASPACE_ALLOC_PARAMS_SIZE_V580	56u
struct nvrm_vaspace_alloc_params {
	u32 index;		/* @0 */
	u32 flags;		/* @4 */
	u64 va_size;		/* @8 */
	u64 va_start_internal;	/* @16 */
	u64 va_limit_internal;	/* @24 */
	u32 big_page_size;	/* @32 */
	u32 _pad0;
	u64 va_base;		/* @40 */
	u32 pasid;		/* @48, 580-595 only */
	u32 _pad1;
};

/*
 * NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED (nvos.h, BIT(3), 525.60.13-595.45.04): a VA
 * space whose page tables UVM manages. UVM_REGISTER_GPU_VASPACE takes no other
 * (nvGpuOpsDupAddressSpace(): NV_ERR_INVALID_FLAGS); RM builds no subcontext in one before UVM has
 * set its page directory (kctxshareInitCommon_IMPL(): NV_ERR_INVALID_STATE), and schedules no
 * graphics channel in one that UVM has not bound (kchannelIsSchedulable_IMPL():
 * NV_ERR_INVALID_STATE from either GPFIFO_SCHEDULE). libcuda 580 sets it with
 * ENABLE_PAGE_FAULTING, BIT(6) (flags 0x48).
 */
#define NVRM_VASPACE_FLAGS_IS_EXTERNALLY_OWNED	0x00000008u	/* BIT(3) */

/*
 * 8. Controls (RM_CONTROL cmd ids and param layouts)
 */

/* ctrl2080fb.h: FB info, 525-595 */
#define NVRM_CTRL_CMD_FB_GET_INFO		0x20801301u	/* deprecated, converted to V2 */
#define NVRM_CTRL_CMD_FB_GET_INFO_V2		0x20801303u
#define NVRM_CTRL_CMD_FB_GET_FB_REGION_INFO	0x20801320u

/* NV2080_CTRL_FB_INFO, 8 B. data is in KB for the size indices. */
struct nvrm_fb_info {
	u32 index;
	u32 data;
};

/* NV2080_CTRL_FB_GET_INFO_PARAMS (v1), 16 B: list is a user pointer to nvrm_fb_info[]. */
struct nvrm_fb_get_info {
	u32 fb_info_list_size;	/* @0 */
	u32 _pad0;
	u64 fb_info_list;	/* @8 */
};

/*
 * NV2080_CTRL_FB_GET_INFO_V2_PARAMS: u32 listSize @0, nvrm_fb_info list[MAX] @4, size 4 + 8*MAX.
 * NV2080_CTRL_FB_INFO_MAX_LIST_SIZE: 0x36 (525-535), 0x37 (545-555), 0x39 (560-575), 0x80 (580+).
 */
struct nvrm_fb_get_info_v2 {
	u32 fb_info_list_size;		/* @0 */
	struct nvrm_fb_info fb_info_list[];	/* @4 */
};

#define NVRM_FB_INFO_MAX_LIST_SIZE_V525		0x36u
#define NVRM_FB_INFO_MAX_LIST_SIZE_V545		0x37u
#define NVRM_FB_INFO_MAX_LIST_SIZE_V560		0x39u
#define NVRM_FB_INFO_MAX_LIST_SIZE_V580		0x80u
#define NVRM_FB_GET_INFO_V2_SIZE(max)		(4u + 8u * (u32)(max))

/* ctrl2080fb.h NV2080_CTRL_FB_INFO_INDEX_*, 525-595 (IS_ZERO_FB 545-595) */
#define NVRM_FB_INFO_INDEX_BAR1_SIZE			0x05u
#define NVRM_FB_INFO_INDEX_RAM_SIZE			0x07u
#define NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE		0x08u
#define NVRM_FB_INFO_INDEX_HEAP_SIZE			0x09u
#define NVRM_FB_INFO_INDEX_MAPPABLE_HEAP_SIZE		0x0Au
#define NVRM_FB_INFO_INDEX_FB_TAX_SIZE_KB		0x10u
#define NVRM_FB_INFO_INDEX_HEAP_BASE_KB			0x11u
#define NVRM_FB_INFO_INDEX_LARGEST_FREE_REGION_SIZE_KB	0x12u
#define NVRM_FB_INFO_INDEX_HEAP_FREE			0x16u
#define NVRM_FB_INFO_INDEX_BAR1_AVAIL_SIZE		0x1Du
#define NVRM_FB_INFO_INDEX_HEAP_START			0x1Eu
#define NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE		0x20u
#define NVRM_FB_INFO_INDEX_HEAP_OFFLINE_SIZE		0x27u
#define NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_TOTAL_KB	0x33u
#define NVRM_FB_INFO_INDEX_PROTECTED_MEM_SIZE_FREE_KB	0x34u
#define NVRM_FB_INFO_INDEX_IS_ZERO_FB			0x36u

/* ctrl2080event.h NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION (subdevice), 525-595 */
#define NVRM_CTRL_CMD_EVENT_SET_NOTIFICATION		0x20800301u
#define NVRM_EVENT_SET_NOTIFICATION_ACTION_DISABLE	0u
#define NVRM_EVENT_SET_NOTIFICATION_ACTION_SINGLE	1u
#define NVRM_EVENT_SET_NOTIFICATION_ACTION_REPEAT	2u

/*
 * GET_PIDS (subdevice_ctrl_gpu_kernel.c, gpu_rmapi.c gpuGetProcWithObject, 525-595): idType CLASS
 * with id NV20_SUBDEVICE_0 lists the processes with a client holding a device on the GPU and a
 * subdevice; other ids list those with a channel descendant of class id; idType other than
 * CLASS/VGPU_GUEST is NV_ERR_INVALID_ARGUMENT. Kernel (admin) clients are skipped. GET_PID_INFO:
 * pidInfoListCount 0 or > 200 is NV_ERR_INVALID_ARGUMENT; per entry, pid 0 or an index other than
 * VIDEO_MEMORY_USAGE has result NV_ERR_INVALID_ARGUMENT; smc ids are PARTITIONID_INVALID.
 */
#define NVRM_PARTITIONID_INVALID		0xFFFFFFFFu

/* ctrl2080gpu.h: per-process usage, 525-595 */
#define NVRM_CTRL_CMD_GPU_GET_PIDS		0x2080018Du
#define NVRM_CTRL_CMD_GPU_GET_PID_INFO		0x2080018Eu
#define NVRM_GPU_GET_PIDS_MAX_COUNT		950u
#define NVRM_GPU_GET_PIDS_ID_TYPE_CLASS		0u
#define NVRM_GPU_GET_PIDS_ID_TYPE_VGPU_GUEST	1u
#define NVRM_GPU_GET_PID_INFO_MAX_COUNT		200u
#define NVRM_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE 0u

/* NV2080_CTRL_GPU_GET_PIDS_PARAMS, 3812 B */
struct nvrm_gpu_get_pids {
	u32 id_type;				/* @0 */
	u32 id;					/* @4 */
	u32 pid_tbl_count;			/* @8 */
	u32 pid_tbl[NVRM_GPU_GET_PIDS_MAX_COUNT];	/* @12 */
};

/* NV2080_CTRL_GPU_PID_INFO, 72 B */
struct nvrm_gpu_pid_info {
	u32 pid;			/* @0 */
	u32 index;			/* @4 */
	u32 result;			/* @8 */
	u32 _pad0;
	u64 mem_private;		/* @16 data.vidMemUsage */
	u64 mem_shared_owned;		/* @24 */
	u64 mem_shared_duped;		/* @32 */
	u64 protected_mem_private;	/* @40 */
	u64 protected_mem_shared_owned;	/* @48 */
	u64 protected_mem_shared_duped;	/* @56 */
	u32 smc_compute_instance_id;	/* @64 */
	u32 smc_gpu_instance_id;	/* @68 */
};

/* NV2080_CTRL_GPU_GET_PID_INFO_PARAMS, 14408 B */
struct nvrm_gpu_get_pid_info {
	u32 pid_info_list_count;					/* @0 */
	u32 _pad0;
	struct nvrm_gpu_pid_info pid_info_list[NVRM_GPU_GET_PID_INFO_MAX_COUNT];	/* @8 */
};

/*
 * ctrl2080gpu.h NV2080_CTRL_CMD_GPU_GET_NAME_STRING 0x20800110 (subdevice), 525-595.
 * Params: u32 gpuNameStringFlags @0, name @4. 525-590: union {u8 ascii[64]; u16 unicode[64]}
 * = 132 B; 595: struct {u8 ascii[64]} = 68 B (UNICODE flag dropped).
 */
#define NVRM_CTRL_CMD_GPU_GET_NAME_STRING		0x20800110u
#define NVRM_GPU_MAX_NAME_STRING_LENGTH			64u
#define NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII	0u
#define NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE	1u	/* 525-590 */
#define NVRM_GPU_GET_NAME_STRING_SIZE_V525		132u
#define NVRM_GPU_GET_NAME_STRING_SIZE_V595		68u
struct nvrm_gpu_get_name_string {
	u32 flags;					/* @0 */
	union {
		u8 ascii[NVRM_GPU_MAX_NAME_STRING_LENGTH];
		u16 unicode[NVRM_GPU_MAX_NAME_STRING_LENGTH];	/* 525-590 */
	} name;						/* @4 */
};

/*
 * ctrl2080gpu.h GPU info (subdevice), 525-595: NV2080_CTRL_CMD_GPU_GET_INFO_V2 0x20800102 and
 * NV2080_CTRL_CMD_GPU_GET_CACHED_INFO 0x20800182 (the same params; CACHED only never touches
 * the hardware, subdevice_ctrl_gpu_kernel.c getGpuInfos()). Params: u32 gpuInfoListSize @0,
 * NV2080_CTRL_GPU_INFO {u32 index; u32 data} list[MAX] @4, size 4 + 8*MAX (the layout of
 * struct nvrm_fb_get_info_v2). NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE: 0x3e (525), 0x3f (530),
 * 0x40 (535), 0x41 (545-570), 0x42 (575), 0x46 (580-595), checked at every tag. RM refuses a
 * list size of 0 or over MAX, and an index at or over MAX, with NV_ERR_INVALID_ARGUMENT; from
 * 555 it compares the index's low 24 bits (DRF _INDEX 23:0), 525-550 the whole value.
 * DMABUF_CAPABILITY (0x3d, 525-595; YES 1, NO 0) is what osinit.c reads into
 * nv->dma_buf_supported, and the only place the driver tells user space the capability (so,
 * by inference, where CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED comes from; no trace yet).
 */
#define NVRM_CTRL_CMD_GPU_GET_INFO_V2			0x20800102u
#define NVRM_CTRL_CMD_GPU_GET_CACHED_INFO		0x20800182u
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V525		0x3eu
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V530		0x3fu
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V535		0x40u
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V545		0x41u
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V575		0x42u
#define NVRM_GPU_INFO_MAX_LIST_SIZE_V580		0x46u
#define NVRM_GPU_GET_INFO_V2_SIZE(max)			(4u + 8u * (u32)(max))
#define NVRM_GPU_INFO_INDEX_INDEX_MASK			0x00ffffffu
#define NVRM_GPU_INFO_INDEX_DMABUF_CAPABILITY		0x3du
#define NVRM_GPU_INFO_DMABUF_CAPABILITY_NO		0u
#define NVRM_GPU_INFO_DMABUF_CAPABILITY_YES		1u

/*
 * ctrl2080gpu.h NV2080_CTRL_CMD_GPU_GET_GID_INFO 0x2080014A (GPU UUID), 268 B, 525-595.
 * flags: FORMAT 1:0 (ASCII 0 -> "GPU-xxxxxxxx-...", BINARY 2), TYPE 2:2 (SHA1 0).
 */
#define NVRM_CTRL_CMD_GPU_GET_GID_INFO		0x2080014Au
#define NVRM_GPU_MAX_GID_LENGTH			256u
#define NVRM_GPU_MAX_SHA1_BINARY_GID_LENGTH	16u
#define NVRM_GPU_GET_GID_FLAGS_FORMAT_ASCII	0u
#define NVRM_GPU_GET_GID_FLAGS_FORMAT_BINARY	2u
#define NVRM_GPU_GET_GID_FLAGS_TYPE_SHA1	0u
struct nvrm_gpu_get_gid_info {
	u32 index;				/* @0 */
	u32 flags;				/* @4 */
	u32 length;				/* @8 OUT */
	u8 data[NVRM_GPU_MAX_GID_LENGTH];	/* @12 */
};

/* ctrl0000gpu.h (root client controls), 525-595 */
#define NVRM_CTRL_CMD_NV0000_GPU_GET_ATTACHED_IDS	0x00000201u
#define NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO		0x00000202u	/* 40 B, szName pointer */
#define NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2		0x00000205u
#define NVRM_CTRL_CMD_NV0000_GPU_GET_PROBED_IDS		0x00000214u
#define NVRM_NV0000_GPU_MAX_PROBED_GPUS			32u	/* NV_MAX_DEVICES, nvlimits.h */
#define NVRM_NV0000_GPU_MAX_ATTACHED_GPUS		32u
#define NVRM_NV0000_GPU_INVALID_ID			0xFFFFFFFFu
#define NVRM_NV0000_GPU_GET_ID_INFO_SIZE		40u
struct nvrm_nv0000_gpu_get_attached_ids {	/* 128 B; list ends at INVALID_ID */
	u32 gpu_ids[NVRM_NV0000_GPU_MAX_ATTACHED_GPUS];
};

/*
 * NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS (ctrl0000gpu.h): 256 B to 575.x; 384 B from 580.65.06,
 * with gpuFlags[] @256, a flag word for each valid gpuIds entry (bit 0 SOC display) and the
 * caller's own values left in the rest (gpumgrGetProbedGpuIds(), gpu_mgr.c, 580.142).
 */
#define NVRM_NV0000_GPU_PROBED_IDS_FLAGS_SINCE		580u
struct nvrm_nv0000_gpu_get_probed_ids {		/* each list ends at INVALID_ID */
	u32 gpu_ids[NVRM_NV0000_GPU_MAX_PROBED_GPUS];		/* @0 */
	u32 excluded_gpu_ids[NVRM_NV0000_GPU_MAX_PROBED_GPUS];	/* @128 */
	u32 gpu_flags[NVRM_NV0000_GPU_MAX_PROBED_GPUS];		/* @256, 580+ */
};

/* The size of GET_PROBED_IDS's parameters for driver branch @major. */
static inline u32 nvrm_nv0000_probed_ids_size(u32 major)
{
	return major >= NVRM_NV0000_GPU_PROBED_IDS_FLAGS_SINCE ?
	       sizeof(struct nvrm_nv0000_gpu_get_probed_ids) :
	       offsetof(struct nvrm_nv0000_gpu_get_probed_ids, gpu_flags);
}

struct nvrm_nv0000_gpu_get_id_info_v2 {		/* 32 B */
	u32 gpu_id;		/* @0 IN */
	u32 gpu_flags;		/* @4 */
	u32 device_instance;	/* @8 */
	u32 sub_device_instance; /* @12 */
	u32 sli_status;		/* @16 */
	u32 board_id;		/* @20 */
	u32 gpu_instance;	/* @24 */
	s32 numa_id;		/* @28 */
};

/* ctrla06c.h: TSG (KEPLER_CHANNEL_GROUP_A) controls, 525-595 */
#define NVRM_CTRL_CMD_NVA06C_GPFIFO_SCHEDULE	0xA06C0101u
#define NVRM_CTRL_CMD_NVA06C_BIND		0xA06C0102u
#define NVRM_CTRL_CMD_NVA06C_SET_TIMESLICE	0xA06C0103u
#define NVRM_CTRL_CMD_NVA06C_GET_TIMESLICE	0xA06C0104u
#define NVRM_CTRL_CMD_NVA06C_PREEMPT		0xA06C0105u
#define NVRM_CTRL_CMD_NVA06C_GET_INFO		0xA06C0106u
#define NVRM_CTRL_CMD_NVA06C_SET_INTERLEAVE_LEVEL 0xA06C0107u
#define NVRM_CTRL_CMD_NVA06C_GET_INTERLEAVE_LEVEL 0xA06C0108u
#define NVRM_CTRL_CMD_NVA06C_MAKE_REALTIME	0xA06C0110u
#define NVRM_CTRL_CMD_NVA06F_GPFIFO_SCHEDULE	0xA06F0103u	/* per channel */
/*
 * ctrla06f/ctrla06fgpfifo.h: a channel's interleave level is its group's, 525-595. Only SET is
 * exported to clients: KernelChannel's NVOC table has no 0xA06F0110 (g_kernel_channel_nvoc.c,
 * 525.60.13-595.45.04), and an H200 with GSP 580.159.04 answered it NV_ERR_NOT_SUPPORTED.
 */
#define NVRM_CTRL_CMD_NVA06F_SET_INTERLEAVE_LEVEL 0xA06F0109u
#define NVRM_CTRL_CMD_NVA06F_GET_INTERLEAVE_LEVEL 0xA06F0110u

/*
 * NVA06C_CTRL_MAKE_REALTIME_PARAMS {bRealtime} (1 B) and NVA06F_CTRL_RESTART_RUNLIST_PARAMS
 * {bForceRestart, bBypassWait} (2 B), 525-595. Both are routed to GSP with NVOC flags 0x48
 * (non-privileged), yet an H200 with GSP 580.159.04 answered NV_ERR_INSUFFICIENT_PERMISSIONS to a
 * client of uid nobody (session 37); to root MAKE_REALTIME was NV_OK, RESTART_RUNLIST on an idle
 * channel NV_ERR_INVALID_STATE.
 */
#define NVRM_CTRL_CMD_NVA06F_RESTART_RUNLIST		0xA06F0111u
struct nvrm_make_realtime {
	u8 realtime;		/* @0 */
};

struct nvrm_restart_runlist {
	u8 force_restart;	/* @0 */
	u8 bypass_wait;		/* @1 */
};

/*
 * ctrl2080gr.h, 525-595: a channel's GR context-switch preemption modes, per context (every
 * channel of a group reads the same). NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS (32 B)
 * {flags, hChannel, gfxpPreemptMode, cilpPreemptMode, grRouteInfo {flags, route} aligned 8};
 * flags bit 0 sets the compute mode, bit 1 the graphics one. NV2080_CTRL_GR_GET_CTXSW_MODES_PARAMS
 * (24 B) {hChannel, zcullMode, pmMode, smpcMode, cilpPreemptMode, gfxpPreemptMode}. Both are open
 * to any client (NVOC flags 0x10348 and 0x48) and run in GSP. On an H200 with GSP 580.159.04
 * (session 37) a new channel read compute mode WFI, CUDA set CILP on its own, and with WFI a busy
 * context could not be switched out: the round robin left it on the engine, and a preempt ended
 * in Xid 109 (CTX SWITCH TIMEOUT) 2.7-4.3 s later, which killed that context.
 */
#define NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE	0x20801210u
#define NVRM_CTRL_CMD_GR_GET_CTXSW_MODES		0x20801235u
/* GR_CTXSW_PREEMPTION_BIND (below) sets both modes too, with the same flags (NVOC flags 0x10248) */
#define NVRM_GR_PREEMPTION_FLAGS_CILP_SET		0x1u
#define NVRM_GR_PREEMPTION_FLAGS_GFXP_SET		0x2u
#define NVRM_GR_COMPUTE_PREEMPT_WFI			0x0u
#define NVRM_GR_COMPUTE_PREEMPT_CTA			0x1u
#define NVRM_GR_COMPUTE_PREEMPT_CILP			0x2u
#define NVRM_GR_GFX_PREEMPT_GFXP_POOL			0x2u
struct nvrm_gr_set_preemption_mode {
	u32 flags;		/* @0 */
	u32 hchannel;		/* @4 */
	u32 gfxp_mode;		/* @8 */
	u32 cilp_mode;		/* @12 */
	u32 route_flags;	/* @16 */
	u32 _pad0;
	u64 route;		/* @24 */
};

struct nvrm_gr_ctxsw_modes {
	u32 hchannel;		/* @0 */
	u32 zcull_mode;		/* @4 */
	u32 pm_mode;		/* @8 */
	u32 smpc_mode;		/* @12 */
	u32 cilp_mode;		/* @16 */
	u32 gfxp_mode;		/* @20 */
};

/*
 * NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS {tsgInterleaveLevel} and NVA06F_CTRL_INTERLEAVE_LEVEL_PARAMS
 * {channelInterleaveLevel}, 4 B each (ctrla06c.h, ctrla06fgpfifo.h, 525-595). A new group's level
 * is MEDIUM (kchangrpapiConstruct_IMPL(), 580.142); any other value is NV_ERR_INVALID_ARGUMENT
 * (kchangrpSetInterleaveLevel_IMPL()).
 */
#define NVRM_INTERLEAVE_LEVEL_LOW	0x00000000u
#define NVRM_INTERLEAVE_LEVEL_MEDIUM	0x00000001u
#define NVRM_INTERLEAVE_LEVEL_HIGH	0x00000002u
struct nvrm_interleave_level {
	u32 level;		/* @0 */
};

/*
 * NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS (ctrla06f/ctrla06fgpfifo.h), also used by NVA06C:
 * 2 B {bEnable, bSkipSubmit} in 525-570; 3 B (+bSkipEnable@2) in 575-595.
 */
#define NVRM_GPFIFO_SCHEDULE_SIZE_V525	2u
#define NVRM_GPFIFO_SCHEDULE_SIZE_V575	3u
struct nvrm_gpfifo_schedule {
	u8 enable;		/* @0 */
	u8 skip_submit;		/* @1 */
	u8 skip_enable;		/* @2, 575-595 only */
};

/* NVA06C_CTRL_TIMESLICE_PARAMS (SET/GET_TIMESLICE), 8 B */
struct nvrm_tsg_timeslice {
	u64 timeslice_us;
};

/* NVA06C_CTRL_PREEMPT_PARAMS, 8 B; manual timeout at most 1 s */
#define NVRM_NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US	1000000u
struct nvrm_tsg_preempt {
	u8 wait;		/* @0 */
	u8 manual_timeout;	/* @1 */
	u8 _pad0[2];
	u32 timeout_us;		/* @4 */
};

/* Default TSG timeslice on Volta+ (kernel_fifo_gv100.c: 128 << 3 us) */
#define NVRM_TSG_DEFAULT_TIMESLICE_US	1024u

/* ctrlc36f.h NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN (channel), 4 B, 525-595 */
#define NVRM_CTRL_CMD_NVC36F_GET_WORK_SUBMIT_TOKEN	0xC36F0108u
struct nvrm_work_submit_token {
	u32 work_submit_token;
};

/* ctrl2080fifo.h NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, 536 B, 525-595 */
#define NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS		0x2080110Bu
#define NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES		64u
struct nvrm_fifo_disable_channels {
	u8 disable;						/* @0 NvBool */
	u8 _pad0[3];
	u32 num_channels;					/* @4 */
	u8 only_disable_scheduling;				/* @8 */
	u8 rewind_gp_put;					/* @9 */
	u8 _pad1[6];
	u64 runlist_preempt_event;				/* @16 must be 0 from user */
	u32 hclient_list[NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES];	/* @24 */
	u32 hchannel_list[NVRM_FIFO_DISABLE_CHANNELS_MAX_ENTRIES];	/* @280 */
};

/*
 * Controls whose parameters name RM clients other than the caller's (audited session 18 from
 * 595.45.04's ctrl headers and exported-method tables, compared with 580.142; offsets and sizes
 * by offsetof/sizeof of NVIDIA's structs, x86-64). All are NON_PRIVILEGED: a user may issue them,
 * and kernel RM checks no named client against the caller (the GSP-routed ones go to the firmware
 * as they are). qgpu keeps a tenant to its own clients in them (nvrm_clients.c).
 */
/*
 * ctrl2080fifo.h, 595 (0x2080111C 595 only; DISABLE_CHANNELS_FOR_KEY_ROTATION from 550, the two
 * UNIQUE_ID controls from 570: older drivers refuse them themselves)
 */
/* 520 B: numChannels@0, hClientList[64]@4 */
#define NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS_FOR_KEY_ROTATION 0x2080111Au
#define NVRM_CTRL_CMD_FIFO_ROTATE_KEYS			0x2080111Cu	/* 520 B: as above */
/* 1552 B: hClient@0 */
#define NVRM_CTRL_CMD_FIFO_GET_CHANNEL_GROUP_UNIQUE_ID_INFO 0x20801123u
/* 1540 B: hClients[128]@0, numChannels@1024 */
#define NVRM_CTRL_CMD_FIFO_QUERY_CHANNEL_UNIQUE_ID	0x20801124u
/* 580 (gone from 590): 132 B: numChannels@0, {hClient, hChannel}[16]@4 */
#define NVRM_CTRL_CMD_FIFO_BIND_ENGINES			0x20801103u
/* ctrl2080gpu.h */
#define NVRM_CTRL_CMD_GPU_EXEC_REG_OPS			0x20800122u	/* 48 B: hClientTarget@0 */
#define NVRM_CTRL_CMD_GPU_MIGRATABLE_OPS		0x208001A6u /* 1832 B: hClientTarget@0 */
/* ctrl2080gr.h */
#define NVRM_CTRL_CMD_GR_CTXSW_ZCULL_MODE		0x20801205u	/* 16 B: hShareClient@4 */
#define NVRM_CTRL_CMD_GR_CTXSW_ZCULL_BIND		0x20801208u	/* 24 B: hClient@0 */
#define NVRM_CTRL_CMD_GR_CTXSW_PM_BIND			0x20801209u	/* 40 B: hClient@0 */
/* PREEMPTION_BIND: 104 B to 560, 112 B from 565.57.01 (9 vMemPtrs, not 8); hClient@4 in both */
#define NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND		0x20801211u
#define NVRM_GR_CTXSW_PREEMPTION_BIND_SIZE_V525		104u
#define NVRM_GR_CTXSW_PREEMPTION_BIND_SIZE_V565		112u
#define NVRM_GR_CTXSW_PREEMPTION_BIND_V565_SINCE	565u
#define NVRM_CTRL_CMD_GR_CTXSW_SETUP_BIND		0x2080123Au	/* 550+; 16 B: hClient@0 */
/*
 * NV2080_CTRL_CMD_GR_GET_ENGINE_CONTEXT_PROPERTIES (ctrl2080gr.h, 525.47.04-595.45.04), on a
 * subdevice, NON_PRIVILEGED: the size and alignment of one GR context buffer, from the GPU's static
 * info (subdeviceCtrlCmdKGrGetEngineContextProperties_IMPL(), kernel_graphics.c, 580.142): an
 * engineId at or over the count is NV_ERR_INVALID_ARGUMENT, a buffer the GPU lacks (size
 * 0xFFFFFFFF) NV_ERR_NOT_SUPPORTED, and with bInfoPopulated the caller's size is a floor.
 * engineId takes NV0080_CTRL_FIFO_GET_ENGINE_CONTEXT_PROPERTIES_ENGINE_ID_* (ctrl0080fifo.h).
 */
#define NVRM_CTRL_CMD_GR_GET_ENGINE_CONTEXT_PROPERTIES	0x2080122Du
struct nvrm_gr_engine_context_properties {
	u32 route_flags;	/* @0 grRouteInfo.flags; 0: GR0, or the device's MIG instance */
	u32 _pad0;
	u64 route;		/* @8 grRouteInfo.route */
	u32 engine_id;		/* @16 */
	u32 alignment;		/* @20 */
	u32 size;		/* @24 */
	u8 info_populated;	/* @28 bInfoPopulated, NvBool */
	u8 _pad1[3];
};

#define NVRM_GR_CTX_ENGINE_ID_GRAPHICS		0x00u	/* the main context buffer */
#define NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PM	0x09u
#define NVRM_GR_CTX_ENGINE_ID_GRAPHICS_PATCH	0x10u
/* ENGINE_ID_COUNT: 0x19 in 525-545 (PRIV_ACCESS_MAP last), 0x1a from 550.40.07 (SETUP added) */
#define NVRM_GR_CTX_ENGINE_ID_COUNT_V525	0x19u
#define NVRM_GR_CTX_ENGINE_ID_COUNT_V550	0x1Au
#define NVRM_GR_CTX_ENGINE_ID_COUNT_V550_SINCE	550u

/*
 * NV2080_CTRL_CMD_MC_GET_ARCH_INFO (ctrl2080mc.h, 525.47.04-595.45.04), on a subdevice,
 * NON_PRIVILEGED (flags 0x1050b, g_subdevice_nvoc.c, 580.142): the GPU's architecture. Values
 * (NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*): TU100 0x160, GA100 0x170, GH100 0x180, AD100 0x190,
 * GB100 0x1A0, GB200 0x1B0; T23X 0xE0000023 (a Tegra SoC's).
 */
#define NVRM_CTRL_CMD_MC_GET_ARCH_INFO		0x20801701u
struct nvrm_mc_arch_info {
	u32 architecture;	/* @0 */
	u32 implementation;	/* @4 */
	u32 revision;		/* @8 */
	u8 sub_revision;	/* @12 */
	u8 _pad[3];
};

#define NVRM_ARCH_TU100				0x160u
#define NVRM_ARCH_GA100				0x170u
#define NVRM_ARCH_GH100				0x180u
#define NVRM_ARCH_T23X				0xE0000023u

/*
 * NV2080_CTRL_CMD_GPU_GET_CONSTRUCTED_FALCON_INFO (ctrl2080gpu.h, 550.40.07-595.45.04; absent
 * through 545.29.06), on a subdevice, NON_PRIVILEGED, routed to the physical RM (flags 0x10048,
 * g_subdevice_nvoc.c, 580.142): the falcon engines the firmware constructed, each with the size of
 * the context buffer kernel RM reserves for a channel group of its engine
 * (gpuBuildGenericKernelFalconList_IMPL(), gpu.c; kchangrpapiConstruct_IMPL(), 580.142). An
 * engDesc is an NVOC class id shifted left 8, or'ed with the instance (MKENGDESC(),
 * g_eng_desc_nvoc.h): nvrm_ctxbuf.h has the ids.
 */
#define NVRM_CTRL_CMD_GPU_GET_CONSTRUCTED_FALCON_INFO	0x208001B0u
#define NVRM_CONSTRUCTED_FALCON_INFO_SINCE		550u
#define NVRM_CONSTRUCTED_FALCONS_MAX			0x40u	/* _MAX_CONSTRUCTED_FALCONS */
struct nvrm_constructed_falcon {
	u32 eng_desc;		/* @0 engDesc */
	u32 ctx_attr;		/* @4 */
	u32 ctx_buffer_size;	/* @8 */
	u32 addr_space_list;	/* @12 */
	u32 register_base;	/* @16 */
};

struct nvrm_constructed_falcon_info {
	u32 count;		/* @0 numConstructedFalcons */
	struct nvrm_constructed_falcon falcons[NVRM_CONSTRUCTED_FALCONS_MAX];	/* @4 */
};

/* ctrl208f/ctrl208ffifo.h (NV20_SUBDEVICE_DIAG), ctrl503c.h (NV50_THIRD_PARTY_P2P) */
#define NVRM_CTRL_CMD_NV208F_FIFO_GET_CHANNEL_STATE	0x208F0403u	/* 16 B: hClient@4 */
#define NVRM_CTRL_CMD_NV503C_REGISTER_PID		0x503C0106u	/* 4 B: hClient@0 */
/*
 * ctrl5080.h (NV50_DEFERRED_API_CLASS): a bundle of commands, each with its own client fields,
 * that RM (595: the kernel part for V2, then GSP) runs later. qgpu does not forward them.
 */
#define NVRM_CTRL_CMD_NV5080_DEFERRED_API		0x50800101u
#define NVRM_CTRL_CMD_NV5080_DEFERRED_API_V2		0x50800103u

/* Other scheduling controls named by the reference (ctrl2080*.h, ctrl0080fifo.h) */
#define NVRM_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY	0x20801115u
#define NVRM_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE	0x20801210u	/* 32 B params */
#define NVRM_CTRL_CMD_NV0080_FIFO_STOP_RUNLIST		0x00801711u	/* privileged */
#define NVRM_CTRL_CMD_NV0080_FIFO_START_RUNLIST		0x00801712u	/* privileged */

/* Controls that carry fd numbers (reference section 1.4) */
/* ctrl0000unix.h OS_UNIX export/import, 525-595 */
#define NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD	0x00003D05u	/* 24 B, fd@16 */
#define NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD	0x00003D06u	/* 20 B, fd@0 */
#define NVRM_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO	0x00003D08u	/* fd@0, see sizes below */
#define NVRM_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD	0x00003D0Au	/* 76 B, fd@72 */
#define NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD	0x00003D0Bu	/* 2128 B, fd@0 */
#define NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD	0x00003D0Cu	/* 652 B, fd@0 */
#define NVRM_OS_UNIX_EXPORT_OBJECT_TYPE_NONE		0u
#define NVRM_OS_UNIX_EXPORT_OBJECT_TYPE_RM		1u
#define NVRM_OS_UNIX_GET_EXPORT_OBJECT_INFO_SIZE_V525	76u
#define NVRM_OS_UNIX_GET_EXPORT_OBJECT_INFO_SIZE_V545	80u
#define NVRM_OS_UNIX_CREATE_EXPORT_OBJECT_FD_SIZE	76u
#define NVRM_OS_UNIX_CREATE_EXPORT_OBJECT_FD_FD_OFFSET	72u
#define NVRM_OS_UNIX_EXPORT_OBJECTS_TO_FD_SIZE		2128u
#define NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_SIZE	652u

/* NV0000_CTRL_OS_UNIX_EXPORT_OBJECT, 16 B */
struct nvrm_os_unix_export_object {
	u32 type;		/* @0 NVRM_OS_UNIX_EXPORT_OBJECT_TYPE_* */
	u32 hdevice;		/* @4 data.rmObject */
	u32 hparent;		/* @8 */
	u32 hobject;		/* @12 */
};

/* NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS, 24 B */
struct nvrm_os_unix_export_object_to_fd {
	struct nvrm_os_unix_export_object object;	/* @0 */
	s32 fd;						/* @16 IN/OUT */
	u32 flags;					/* @20 */
};

/* NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS, 20 B */
struct nvrm_os_unix_import_object_from_fd {
	s32 fd;						/* @0 */
	struct nvrm_os_unix_export_object object;	/* @4 */
};

/*
 * The batched export of ctrl0000unix.h, 525-595 (the fd-based path of
 * cuMemExportToShareableHandle): the fd is a nvidiactl file that holds up to maxObjects exported
 * objects, set up once by
 * CREATE_EXPORT_OBJECT_FD or the first EXPORT_OBJECTS_TO_FD (os.c, cliresCtrlCmdOsUnix*).
 */
#define NVRM_OS_UNIX_EXPORT_OBJECTS_TO_FD_MAX_OBJECTS	512u
/* NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_TO_FD_MAX_OBJECTS (sic) */
#define NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_MAX_OBJECTS	128u
#define NVRM_OS_UNIX_EXPORT_OBJECT_FD_BUFFER_SIZE	64u
#define NVRM_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD	0x1u	/* userspace only; RM refuses it */
#define NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_NONE		0u
#define NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_VIDMEM		1u
#define NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_SYSMEM		2u

/* NV0000_CTRL_OS_UNIX_CREATE_EXPORT_OBJECT_FD_PARAMS, 76 B */
struct nvrm_os_unix_create_export_object_fd {
	u32 hdevice;						/* @0 */
	u16 max_objects;					/* @4 */
	u8 metadata[NVRM_OS_UNIX_EXPORT_OBJECT_FD_BUFFER_SIZE];	/* @6 */
	u8 pad0[2];
	s32 fd;							/* @72 */
};

/* NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS, 2128 B */
struct nvrm_os_unix_export_objects_to_fd {
	s32 fd;							/* @0 */
	u32 hdevice;						/* @4 */
	u16 max_objects;					/* @8 */
	u8 metadata[NVRM_OS_UNIX_EXPORT_OBJECT_FD_BUFFER_SIZE];	/* @10 */
	u8 pad0[2];
	u32 objects[NVRM_OS_UNIX_EXPORT_OBJECTS_TO_FD_MAX_OBJECTS];	/* @76 */
	u16 num_objects;					/* @2124 */
	u16 index;						/* @2126 */
};

/* NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_FROM_FD_PARAMS, 652 B */
struct nvrm_os_unix_import_objects_from_fd {
	s32 fd;							/* @0 */
	u32 hparent;						/* @4 */
	u32 objects[NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_MAX_OBJECTS];	/* @8, IN/OUT */
	u8 object_types[NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_MAX_OBJECTS];	/* @520, OUT */
	u16 num_objects;					/* @648 */
	u16 index;						/* @650 */
};

/* ctrl00fd.h NV00FD_CTRL_CMD_ATTACH_GPU (multicast fabric), 16 B, 530-595 */
#define NVRM_CTRL_CMD_NV00FD_ATTACH_GPU		0x00FD0104u
struct nvrm_nv00fd_attach_gpu {
	u32 hsubdevice;		/* @0 */
	u32 flags;		/* @4 */
	u64 dev_descriptor;	/* @8 fd of a real /dev/nvidiaN */
};

/* ctrl00e0.h NV00E0_CTRL_CMD_EXPORT_MEM, 1048 B with devDescriptor@1040, 550-595 */
#define NVRM_CTRL_CMD_NV00E0_EXPORT_MEM			0x00E00101u
#define NVRM_NV00E0_EXPORT_MEM_SIZE			1048u
#define NVRM_NV00E0_EXPORT_MEM_DEV_DESCRIPTOR_OFFSET	1040u

/*
 * 9. Usermode doorbell and USERD (clc361.h, clc86f.h, 525-595)
 */
#define NVRM_USERMODE_SIZE			0x10000u	/* NVC361_NV_USERMODE__SIZE */
#define NVRM_USERMODE_TIME_0			0x80u
#define NVRM_USERMODE_TIME_1			0x84u
#define NVRM_USERMODE_NOTIFY_CHANNEL_PENDING	0x90u	/* write the work-submit token here */
#define NVRM_USERD_GP_GET			0x88u	/* Ampere/Hopper control GPFIFO */
#define NVRM_USERD_GP_PUT			0x8Cu
/* USERD of one channel: NV_RAMUSERD_CHAN_SIZE (gv100/dev_ram.h, 525-595), 512 B */
#define NVRM_USERD_SIZE				0x200u
/* A GPFIFO entry is 8 bytes (NVC86F_GP_ENTRY__SIZE, clc86f.h, 525-595) */
#define NVRM_GP_ENTRY_SIZE			8u

/* Another subdevice notifier index (cl2080_notification.h, 525-595); see NV01_EVENT_* above. */
#define NVRM_NV2080_NOTIFIERS_FIFO_EVENT_MTHD		35u

/*
 * 10. Status codes (nvstatuscodes.h, values stable 525-595)
 */
#define NVRM_OK					0x00000000u
#define NVRM_ERR_BUFFER_TOO_SMALL		0x00000002u
#define NVRM_ERR_BUSY_RETRY			0x00000003u
#define NVRM_ERR_GPU_IS_LOST			0x0000000Fu
#define NVRM_ERR_ILLEGAL_ACTION			0x00000016u
#define NVRM_ERR_IN_USE				0x00000017u
#define NVRM_ERR_INSERT_DUPLICATE_NAME		0x00000019u
#define NVRM_ERR_INSUFFICIENT_RESOURCES		0x0000001Au
#define NVRM_ERR_INSUFFICIENT_PERMISSIONS	0x0000001Bu
#define NVRM_ERR_INVALID_ACCESS_TYPE		0x0000001Du
#define NVRM_ERR_INVALID_ADDRESS		0x0000001Eu
#define NVRM_ERR_INVALID_ARGUMENT		0x0000001Fu
#define NVRM_ERR_INVALID_CHANNEL		0x00000021u
#define NVRM_ERR_INVALID_CLASS			0x00000022u
#define NVRM_ERR_INVALID_CLIENT			0x00000023u
#define NVRM_ERR_INVALID_COMMAND		0x00000024u
#define NVRM_ERR_INVALID_DATA			0x00000025u
#define NVRM_ERR_INVALID_DEVICE			0x00000026u
#define NVRM_ERR_INVALID_EVENT			0x00000028u
#define NVRM_ERR_INVALID_FLAGS			0x00000029u
#define NVRM_ERR_INVALID_INDEX			0x0000002Cu
#define NVRM_ERR_INVALID_LIMIT			0x0000002Eu
#define NVRM_ERR_INVALID_METHOD			0x00000030u
#define NVRM_ERR_INVALID_OBJECT			0x00000031u
#define NVRM_ERR_INVALID_OBJECT_HANDLE		0x00000033u
#define NVRM_ERR_INVALID_OBJECT_PARENT		0x00000036u
#define NVRM_ERR_INVALID_OFFSET			0x00000037u
#define NVRM_ERR_INVALID_OWNER			0x00000039u
#define NVRM_ERR_INVALID_PARAM_STRUCT		0x0000003Au
#define NVRM_ERR_INVALID_PARAMETER		0x0000003Bu
#define NVRM_ERR_INVALID_POINTER		0x0000003Du
#define NVRM_ERR_INVALID_REQUEST		0x0000003Fu
#define NVRM_ERR_INVALID_STATE			0x00000040u
#define NVRM_ERR_INVALID_STRING_LENGTH		0x00000041u
#define NVRM_ERR_INVALID_READ			0x00000042u
#define NVRM_ERR_INVALID_WRITE			0x00000043u
#define NVRM_ERR_MORE_PROCESSING_REQUIRED	0x0000004Du
#define NVRM_ERR_NO_FREE_FIFOS			0x0000004Fu
#define NVRM_ERR_NO_MEMORY			0x00000051u
#define NVRM_ERR_NOT_READY			0x00000055u
#define NVRM_ERR_NOT_SUPPORTED			0x00000056u
#define NVRM_ERR_OBJECT_NOT_FOUND		0x00000057u
#define NVRM_ERR_OBJECT_TYPE_MISMATCH		0x00000058u
#define NVRM_ERR_OPERATING_SYSTEM		0x00000059u
#define NVRM_ERR_OUT_OF_RANGE			0x0000005Bu
#define NVRM_ERR_RESET_REQUIRED			0x00000062u
#define NVRM_ERR_STATE_IN_USE			0x00000063u
#define NVRM_ERR_TIMEOUT			0x00000065u
#define NVRM_ERR_GENERIC			0x0000FFFFu

/*
 * 11. UVM (/dev/nvidia-uvm). Raw ioctl numbers, not _IOC-encoded; the driver copies
 *     sizeof(params) (uvm_ioctl.h, uvm_linux_ioctl.h, uvm_api.h).
 */
#define NVRM_UVM_INITIALIZE			0x30000001u	/* uvm_linux_ioctl.h */
#define NVRM_UVM_DEINITIALIZE			0x30000002u
#define NVRM_UVM_REGISTER_GPU_VASPACE		25u
#define NVRM_UVM_REGISTER_CHANNEL		27u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION	33u
#define NVRM_UVM_FREE				34u
#define NVRM_UVM_REGISTER_GPU			37u
#define NVRM_UVM_PAGEABLE_MEM_ACCESS		39u
#define NVRM_UVM_SET_PREFERRED_LOCATION		42u
#define NVRM_UVM_MIGRATE			51u
#define NVRM_UVM_TOOLS_INIT_EVENT_TRACKER	56u
#define NVRM_UVM_ALLOC_SEMAPHORE_POOL		68u
#define NVRM_UVM_CREATE_EXTERNAL_RANGE		73u
#define NVRM_UVM_MM_INITIALIZE			75u	/* 535-595 */

#define NVRM_UVM_INITIALIZE_SIZE		16u	/* 525-595 */
#define NVRM_UVM_MM_INITIALIZE_SIZE		8u	/* 535-595, uvmFd@0 */
#define NVRM_UVM_REGISTER_GPU_SIZE		40u	/* 525-595, rmCtrlFd@24 hClient@28 */
#define NVRM_UVM_REGISTER_GPU_RM_CTRL_FD_OFFSET	24u
#define NVRM_UVM_REGISTER_GPU_HCLIENT_OFFSET	28u
#define NVRM_UVM_REGISTER_GPU_VASPACE_SIZE	32u	/* 525-595 */
#define NVRM_UVM_REGISTER_CHANNEL_SIZE		56u	/* 525-595 */
#define NVRM_UVM_CREATE_EXTERNAL_RANGE_SIZE	24u	/* 525-595 */
/* UVM_MAP_EXTERNAL_ALLOCATION: 1200 B up to 550.40.07, 9264 B from 550.40.53 (per-GPU table). */
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525	1200u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550	9264u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_RM_CTRL_FD_OFFSET_V550 9248u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_HCLIENT_OFFSET_V550	9252u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_HMEMORY_OFFSET_V550	9256u
#define NVRM_UVM_MAP_EXTERNAL_ALLOCATION_RM_STATUS_OFFSET_V550	9260u
/* UVM_TOOLS_INIT_EVENT_TRACKER: 56 B, except 64 B in 550.40.53-555.x; uvmFd@44. */
#define NVRM_UVM_TOOLS_INIT_EVENT_TRACKER_UVM_FD_OFFSET	44u

/*
 * 12. Layout checks: every size and offset above that the reference or our measurements give.
 */
NVRM_ASSERT_SIZE(struct nvrm_export_dmabuf_v525, NVRM_EXPORT_TO_DMABUF_FD_SIZE_V525);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v525, total_size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v525, handles, 32);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v525, offsets, 544);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v525, sizes, 1568);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v525, status, 2592);
NVRM_ASSERT_SIZE(struct nvrm_export_dmabuf_v570, NVRM_EXPORT_TO_DMABUF_FD_SIZE_V570);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, mapping_type, 32);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, allow_mmap, 33);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, handles, 36);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, offsets, 552);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, sizes, 1576);
NVRM_ASSERT_OFFSET(struct nvrm_export_dmabuf_v570, status, 2600);
NVRM_ASSERT_SIZE(struct nvrm_pci_info, 12);
NVRM_ASSERT_OFFSET(struct nvrm_pci_info, vendor_id, 8);
NVRM_ASSERT_SIZE(struct nvrm_card_info, 72);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, pci_info, 4);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, gpu_id, 16);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, interrupt_line, 20);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, reg_address, 24);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, reg_size, 32);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, fb_address, 40);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, fb_size, 48);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, minor_number, 56);
NVRM_ASSERT_OFFSET(struct nvrm_card_info, dev_name, 60);
NVRM_ASSERT_SIZE(struct nvrm_register_fd, 4);
NVRM_ASSERT_SIZE(struct nvrm_alloc_os_event, 16);
NVRM_ASSERT_OFFSET(struct nvrm_alloc_os_event, fd, 8);
NVRM_ASSERT_OFFSET(struct nvrm_alloc_os_event, status, 12);
NVRM_ASSERT_SIZE(struct nvrm_status_code, 12);
NVRM_ASSERT_SIZE(struct nvrm_rm_api_version, 72);
NVRM_ASSERT_OFFSET(struct nvrm_rm_api_version, reply, 4);
NVRM_ASSERT_OFFSET(struct nvrm_rm_api_version, version_string, 8);
NVRM_ASSERT_SIZE(struct nvrm_xfer, 16);
NVRM_ASSERT_OFFSET(struct nvrm_xfer, size, 4);
NVRM_ASSERT_OFFSET(struct nvrm_xfer, ptr, 8);
NVRM_ASSERT_SIZE(struct nvrm_query_device_intr, 8);
NVRM_ASSERT_SIZE(struct nvrm_sys_params, 8);
NVRM_ASSERT_SIZE(struct nvrm_set_numa_status, 4);
NVRM_ASSERT_SIZE(struct nvrm_wait_open_complete, 8);

NVRM_ASSERT_SIZE(struct nvrm_nvos00, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos00, status, 12);
NVRM_ASSERT_SIZE(struct nvrm_nvos02, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos02, flags, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos02, pmemory, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos02, limit, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos02, status, 40);
NVRM_ASSERT_SIZE(struct nvrm_nvos02_with_fd, 56);
NVRM_ASSERT_OFFSET(struct nvrm_nvos02_with_fd, fd, 48);
NVRM_ASSERT_SIZE(struct nvrm_nvos21_v525, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos21_v525, palloc_parms, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos21_v525, status, 24);
NVRM_ASSERT_SIZE(struct nvrm_nvos21_v535, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos21_v535, palloc_parms, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos21_v535, params_size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos21_v535, status, 28);
NVRM_ASSERT_SIZE(struct nvrm_nvos64_v525, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v525, prights_requested, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v525, flags, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v525, status, 36);
NVRM_ASSERT_SIZE(struct nvrm_nvos64_v535, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v535, prights_requested, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v535, params_size, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v535, flags, 36);
NVRM_ASSERT_OFFSET(struct nvrm_nvos64_v535, status, 40);
NVRM_ASSERT_SIZE(struct nvrm_nvos54, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos54, cmd, 8);
NVRM_ASSERT_OFFSET(struct nvrm_nvos54, flags, 12);
NVRM_ASSERT_OFFSET(struct nvrm_nvos54, params, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos54, params_size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos54, status, 28);
NVRM_ASSERT_SIZE(struct nvrm_nvos55, 28);
NVRM_ASSERT_OFFSET(struct nvrm_nvos55, hclient_src, 12);
NVRM_ASSERT_OFFSET(struct nvrm_nvos55, hobject_src, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos55, flags, 20);
NVRM_ASSERT_OFFSET(struct nvrm_nvos55, status, 24);
NVRM_ASSERT_SIZE(struct nvrm_nvos57, 24);
NVRM_ASSERT_SIZE(struct nvrm_nvos41, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos41, more_events, 8);
NVRM_ASSERT_OFFSET(struct nvrm_nvos41, status, 12);
NVRM_ASSERT_SIZE(struct nvrm_unix_event, 16);
NVRM_ASSERT_OFFSET(struct nvrm_unix_event, info16, 12);
NVRM_ASSERT_OFFSET(struct nvrm_nvos57, share_target, 8);
NVRM_ASSERT_OFFSET(struct nvrm_nvos57, share_type, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos57, share_action, 18);
NVRM_ASSERT_SIZE(struct nvrm_nvos38, NVRM_NVOS38_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_numa_info_head, 32);
NVRM_ASSERT_OFFSET(struct nvrm_numa_info_head, memblock_size, 8);
NVRM_ASSERT_OFFSET(struct nvrm_numa_info_head, numa_mem_size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos38, parm_str, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos38, data, 56);
NVRM_ASSERT_OFFSET(struct nvrm_nvos38, status, 64);
NVRM_ASSERT_OFFSET(struct nvrm_nvos57, status, 20);
NVRM_ASSERT_SIZE(struct nvrm_nvos32, 184);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, function, 8);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, hva_space, 12);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, ivc_heap_number, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, status, 20);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, total, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, free, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.owner, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.hmemory, 44);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.type, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.flags, 52);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.attr, 56);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.format, 60);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.height, 80);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.size, 88);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.alignment, 96);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.offset, 104);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.limit, 112);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.address, 120);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.range_begin, 128);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.range_end, 136);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.attr2, 144);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.ctag_offset, 148);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_size.numa_node, 152);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.free.owner, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.free.hmemory, 44);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.free.flags, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_os_desc.hmemory, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_os_desc.descriptor, 64);
NVRM_ASSERT_OFFSET(struct nvrm_nvos32, data.alloc_os_desc.limit, 72);
NVRM_ASSERT_SIZE(struct nvrm_nvos33, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33, offset, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33, length, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33, plinear_address, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33, status, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33, flags, 44);
NVRM_ASSERT_SIZE(struct nvrm_nvos33_with_fd, 56);
NVRM_ASSERT_OFFSET(struct nvrm_nvos33_with_fd, fd, 48);
NVRM_ASSERT_SIZE(struct nvrm_nvos34, 32);
NVRM_ASSERT_SIZE(struct nvrm_nvos56, NVRM_NVOS56_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_nvos46_v525, NVRM_NVOS46_SIZE_V525);
NVRM_ASSERT_SIZE(struct nvrm_nvos46_v580, NVRM_NVOS46_SIZE_V580);
NVRM_ASSERT_OFFSET(struct nvrm_nvos46_v525, dma_offset, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos46_v525, status, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos46_v580, dma_offset, 48);
NVRM_ASSERT_OFFSET(struct nvrm_nvos46_v580, status, 56);
NVRM_ASSERT_SIZE(struct nvrm_nvos47_v525, NVRM_NVOS47_SIZE_V525);
NVRM_ASSERT_SIZE(struct nvrm_nvos47_v550, NVRM_NVOS47_SIZE_V550);
NVRM_ASSERT_OFFSET(struct nvrm_nvos47_v525, status, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos47_v550, size, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos47_v550, status, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nvos56, pnew_cpu_address, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos56, status, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nvos34, plinear_address, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nvos34, status, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nvos34, flags, 28);

NVRM_ASSERT_SIZE(struct nvrm_memory_allocation_params, NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V545);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, flags, 8);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, attr, 24);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, attr2, 28);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, format, 32);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, compr_covg, 36);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, zcull_covg, 40);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, range_lo, 48);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, range_hi, 56);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, size, 64);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, alignment, 72);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, offset, 80);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, limit, 88);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, address, 96);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, ctag_offset, 104);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, hva_space, 108);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, internal_flags, 112);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, tag, 116);
NVRM_ASSERT_OFFSET(struct nvrm_memory_allocation_params, numa_node,
		   NVRM_MEMORY_ALLOCATION_PARAMS_SIZE_V525);
NVRM_ASSERT_SIZE(struct nvrm_memory_virtual_alloc_params, 24);
NVRM_ASSERT_OFFSET(struct nvrm_memory_virtual_alloc_params, hva_space, 16);
NVRM_ASSERT_SIZE(struct nvrm_nv0080_alloc_params, 56);
NVRM_ASSERT_OFFSET(struct nvrm_nv0080_alloc_params, hclient_share, 4);
NVRM_ASSERT_OFFSET(struct nvrm_nv0080_alloc_params, flags, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nv0080_alloc_params, va_space_size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nv0080_alloc_params, va_limit_internal, 40);
NVRM_ASSERT_OFFSET(struct nvrm_nv0080_alloc_params, va_mode, 48);
NVRM_ASSERT_SIZE(struct nvrm_nv2080_alloc_params, 4);
NVRM_ASSERT_SIZE(struct nvrm_nv0005_alloc_params, 24);
NVRM_ASSERT_OFFSET(struct nvrm_nv0005_alloc_params, hclass, 8);
NVRM_ASSERT_OFFSET(struct nvrm_nv0005_alloc_params, notify_index, 12);
NVRM_ASSERT_OFFSET(struct nvrm_nv0005_alloc_params, data, 16);
NVRM_ASSERT_SIZE(struct nvrm_channel_group_alloc_params, 20);
NVRM_ASSERT_SIZE(struct nvrm_gr_engine_context_properties, 32);
NVRM_ASSERT_OFFSET(struct nvrm_gr_engine_context_properties, engine_id, 16);
NVRM_ASSERT_OFFSET(struct nvrm_gr_engine_context_properties, size, 24);
NVRM_ASSERT_OFFSET(struct nvrm_gr_engine_context_properties, info_populated, 28);
NVRM_ASSERT_SIZE(struct nvrm_mc_arch_info, 16);
NVRM_ASSERT_OFFSET(struct nvrm_mc_arch_info, sub_revision, 12);
NVRM_ASSERT_SIZE(struct nvrm_constructed_falcon, 20);
NVRM_ASSERT_OFFSET(struct nvrm_constructed_falcon, ctx_buffer_size, 8);
NVRM_ASSERT_SIZE(struct nvrm_constructed_falcon_info, 1284);
NVRM_ASSERT_OFFSET(struct nvrm_constructed_falcon_info, falcons, 4);
NVRM_ASSERT_OFFSET(struct nvrm_channel_group_alloc_params, hva_space, 8);
NVRM_ASSERT_OFFSET(struct nvrm_channel_group_alloc_params, engine_type, 12);
NVRM_ASSERT_OFFSET(struct nvrm_channel_group_alloc_params, is_calling_context_vgpu_plugin, 16);
NVRM_ASSERT_SIZE(struct nvrm_ctxshare_alloc_params, 12);
NVRM_ASSERT_OFFSET(struct nvrm_ctxshare_alloc_params, subctx_id, 8);
NVRM_ASSERT_SIZE(struct nvrm_memory_desc_params, 24);
NVRM_ASSERT_SIZE(struct nvrm_channel_alloc_params, NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V570);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, gp_fifo_offset, 8);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, gp_fifo_entries, 16);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, flags, 20);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, hcontext_share, 24);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, hva_space, 28);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, huserd_memory, 32);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, userd_offset, 64);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, engine_type, 128);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, cid, 132);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, sub_device_id, 136);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, hobject_ecc_error, 140);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, instance_mem, 144);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, hphys_channel_group, 240);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, internal_flags, 244);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, process_id, 296);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, sub_process_id, 300);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, encrypt_iv,
		   NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V525);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, decrypt_iv, 316);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, hmac_nonce, 328);
NVRM_ASSERT_OFFSET(struct nvrm_channel_alloc_params, tpc_config_id,
		   NVRM_CHANNEL_ALLOC_PARAMS_SIZE_V535);
NVRM_ASSERT_SIZE(struct nvrm_vaspace_alloc_params, NVRM_VASPACE_ALLOC_PARAMS_SIZE_V580);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, va_size, 8);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, va_start_internal, 16);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, va_limit_internal, 24);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, big_page_size, 32);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, va_base, 40);
NVRM_ASSERT_OFFSET(struct nvrm_vaspace_alloc_params, pasid, NVRM_VASPACE_ALLOC_PARAMS_SIZE_V525);

NVRM_ASSERT_SIZE(struct nvrm_fb_info, 8);
NVRM_ASSERT_SIZE(struct nvrm_fb_get_info, 16);
NVRM_ASSERT_OFFSET(struct nvrm_fb_get_info, fb_info_list, 8);
NVRM_ASSERT_OFFSET(struct nvrm_fb_get_info_v2, fb_info_list, 4);
NVRM_ASSERT_SIZE(struct nvrm_gpu_get_pids, 3812);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_get_pids, pid_tbl, 12);
NVRM_ASSERT_SIZE(struct nvrm_gpu_pid_info, 72);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_pid_info, result, 8);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_pid_info, mem_private, 16);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_pid_info, smc_compute_instance_id, 64);
NVRM_ASSERT_SIZE(struct nvrm_gpu_get_pid_info, 14408);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_get_pid_info, pid_info_list, 8);
NVRM_ASSERT_SIZE(struct nvrm_gpu_get_name_string, NVRM_GPU_GET_NAME_STRING_SIZE_V525);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_get_name_string, name, 4);
NVRM_ASSERT_SIZE(struct nvrm_gpu_get_gid_info, 268);
NVRM_ASSERT_OFFSET(struct nvrm_gpu_get_gid_info, data, 12);
NVRM_ASSERT_SIZE(struct nvrm_nv0000_gpu_get_attached_ids, 128);
NVRM_ASSERT_SIZE(struct nvrm_nv0000_gpu_get_id_info_v2, 32);
NVRM_ASSERT_OFFSET(struct nvrm_nv0000_gpu_get_id_info_v2, numa_id, 28);
NVRM_ASSERT_SIZE(struct nvrm_gpfifo_schedule, NVRM_GPFIFO_SCHEDULE_SIZE_V575);
NVRM_ASSERT_SIZE(struct nvrm_tsg_timeslice, 8);
NVRM_ASSERT_SIZE(struct nvrm_tsg_preempt, 8);
NVRM_ASSERT_SIZE(struct nvrm_gr_set_preemption_mode, 32);
NVRM_ASSERT_OFFSET(struct nvrm_gr_set_preemption_mode, cilp_mode, 12);
NVRM_ASSERT_OFFSET(struct nvrm_gr_set_preemption_mode, route, 24);
NVRM_ASSERT_SIZE(struct nvrm_gr_ctxsw_modes, 24);
NVRM_ASSERT_OFFSET(struct nvrm_gr_ctxsw_modes, cilp_mode, 16);
NVRM_ASSERT_OFFSET(struct nvrm_tsg_preempt, timeout_us, 4);
NVRM_ASSERT_SIZE(struct nvrm_work_submit_token, 4);
NVRM_ASSERT_SIZE(struct nvrm_fifo_disable_channels, 536);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, num_channels, 4);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, only_disable_scheduling, 8);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, rewind_gp_put, 9);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, runlist_preempt_event, 16);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, hclient_list, 24);
NVRM_ASSERT_OFFSET(struct nvrm_fifo_disable_channels, hchannel_list, 280);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_export_object, 16);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_export_object_to_fd, 24);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_export_object_to_fd, fd, 16);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_create_export_object_fd,
		 NVRM_OS_UNIX_CREATE_EXPORT_OBJECT_FD_SIZE);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_create_export_object_fd, fd,
		   NVRM_OS_UNIX_CREATE_EXPORT_OBJECT_FD_FD_OFFSET);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_export_objects_to_fd,
		 NVRM_OS_UNIX_EXPORT_OBJECTS_TO_FD_SIZE);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_export_objects_to_fd, objects, 76);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_export_objects_to_fd, num_objects, 2124);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_import_objects_from_fd,
		 NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_SIZE);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_import_objects_from_fd, object_types, 520);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_import_objects_from_fd, num_objects, 648);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_export_object_to_fd, flags, 20);
NVRM_ASSERT_SIZE(struct nvrm_os_unix_import_object_from_fd, 20);
NVRM_ASSERT_OFFSET(struct nvrm_os_unix_import_object_from_fd, object, 4);
NVRM_ASSERT_SIZE(struct nvrm_nv00fd_attach_gpu, 16);
NVRM_ASSERT_OFFSET(struct nvrm_nv00fd_attach_gpu, dev_descriptor, 8);

#endif /* QGPU_NVRM_ABI_H */
